"""Building a Config: a base dict, then a YAML file, then dotted `key=value` overrides, validated once."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import yaml
from pydantic import BaseModel, ValidationError

from groklab.config.arguments import mapping_arg, path_arg, str_list_arg
from groklab.config.schema import TASK_NAMES, Config
from groklab.config.yaml12 import MAX_BYTES, loads
from groklab.errors import ConfigError


# A sub-config given a plain value sets its `name` (`model=mlp_emb`); a task given an
# expression sets a polynomial task (`task=a^2+b`).
def _shorthand(key: str, value: Any) -> Any:
    if key in ("model", "optim", "split") and isinstance(value, str):
        return {"name": value}
    if key == "task" and isinstance(value, str):
        # a bare word other than a variable is a task name (so `task=xor` says "unknown task")
        is_name = value in TASK_NAMES or (value.isidentifier() and value not in ("a", "b"))
        return {"name": value} if is_name else {"name": "poly", "expr": value}
    return value


def _fields(cls: type[BaseModel]) -> dict[str, Any]:
    return {name: f.annotation for name, f in cls.model_fields.items()}


def _section_cls(cls: type[BaseModel], key: str) -> Optional[type[BaseModel]]:
    ann = cls.model_fields[key].annotation
    return ann if isinstance(ann, type) and issubclass(ann, BaseModel) else None


def flatten(d: dict, prefix: str = "") -> dict:
    """Nested config dict -> {"optim.lr": 0.001, ...}; lists become tuples so values hash."""
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = tuple(v) if isinstance(v, list) else v
    return out


def set_dotted(data: dict, dotted: str, value: Any) -> None:
    """Set `a.b.c = value` in a nested dict, checking every key against the schema."""
    cls: type[BaseModel] = Config
    if not isinstance(dotted, str):  # YAML reads `5: 1` as an integer key
        raise ConfigError(str(dotted), value, "a config key must be a name such as p or optim.lr, not a number")
    parts = dotted.split(".")
    node = data
    for i, key in enumerate(parts):
        if key not in cls.model_fields and key not in getattr(cls, "DEPRECATED_KEYS", ()):
            where = ".".join(parts[:i]) or "config"
            guess = suggest(parts[:i], parts[i:])
            hint = f"did you mean {guess}? " if guess else ""
            raise ConfigError(dotted, value, f"unknown key; {hint}{where} has: {', '.join(cls.model_fields)}")
        sub = _section_cls(cls, key) if key in cls.model_fields else None
        last = i == len(parts) - 1
        if last:
            value = _shorthand(key, value) if i == 0 else value
            if sub is not None and isinstance(value, dict) and isinstance(node.get(key), dict):
                node[key].update(value)
            else:
                node[key] = value
            return
        if sub is None:
            raise ConfigError(dotted, value, f"{'.'.join(parts[:i + 1])} has no sub-keys")
        if not isinstance(node.get(key), dict):
            node[key] = {}
        node, cls = node[key], sub


def all_keys(cls: type[BaseModel] = Config, prefix: str = "") -> list[str]:
    """Every dotted key of the schema (sections recursed: optim.lr, measures.hessian.every, ...)."""
    out = []
    for name in cls.model_fields:
        sub = _section_cls(cls, name)
        out += all_keys(sub, f"{prefix}{name}.") if sub is not None else [f"{prefix}{name}"]
    return out


def suggest(path: list[str], rest: list[str]) -> str | None:
    """The key a typo most likely meant, given the known `path` and the unknown `rest`: a close name at the same
    level (optim.weigth_decay -> optim.weight_decay), else the one key that ends as `rest` does (lr -> optim.lr,
    hessian.every -> measures.hessian.every); None when neither is unique."""
    import difflib

    keys, tail = all_keys(), ".".join(rest)
    split = [k.split(".") for k in keys]
    level = {k[len(path)] for k in split if k[:len(path)] == path and len(k) > len(path)}
    near = difflib.get_close_matches(rest[0], sorted(level), n=1, cutoff=0.75)  # the name alone, not its section
    real = lambda k: k in keys or any(x.startswith(k + ".") for x in keys)  # noqa: E731 -- a key or a section
    if near and real(guess := ".".join([*path, near[0], *rest[1:]])):
        return guess  # only a name that exists: a fixed section with a wrong key below it names nothing
    elsewhere = [k for k in keys if k.endswith(f".{tail}")]
    return elsewhere[0] if len(elsewhere) == 1 else None


def parse_override(text: str) -> tuple[str, Any]:
    """`key=value` with a YAML scalar/list value (`lr=0.01`, `betas=[0.9,0.98]`)."""
    if "=" not in text:
        raise ConfigError("override", text, "expected key=value, e.g. task=mul or optim.lr=0.01")
    key, raw = text.split("=", 1)
    try:
        value = loads(raw) if raw.strip() else ""
    except yaml.YAMLError:
        value = raw
    # YAML 1.2 (yaml12.py): 1e-3 is a float, 011 is 11, yes/on stay strings.
    return key.strip(), value


def config_error(err: ValidationError) -> ConfigError:
    """The first problem of a pydantic ValidationError as one ConfigError (a rule's own error as raised)."""
    e = err.errors()[0]
    raised = (e.get("ctx") or {}).get("error")
    if isinstance(raised, ConfigError):
        return raised
    field = ".".join(str(x) for x in e["loc"]) or "config"
    msg = e["msg"].removeprefix("Value error, ")
    if e["type"] == "extra_forbidden":
        loc = [str(x) for x in e["loc"]]
        guess = suggest(loc[:-1], loc[-1:])
        msg = "unknown key" + (f"; did you mean {guess}?" if guess else "")
    elif e["type"] == "literal_error":
        msg = "allowed: " + msg.removeprefix("Input should be ")
    return ConfigError(field, e.get("input"), msg)


def validate(data: dict) -> Config:
    """Build a Config from nested plain data, turning pydantic errors into one-line ConfigErrors."""
    for key in list(data):
        if key in Config.model_fields:
            data[key] = _shorthand(key, data[key])
    try:
        return Config.model_validate(data)
    except ValidationError as err:
        raise config_error(err) from None


def load_yaml(path: str | Path) -> dict:
    """A user's YAML file holding a mapping (YAML 1.2 core schema, no duplicate keys, bounded: yaml12.py)."""
    path = Path(path)
    if path.exists() and not path.is_file():  # a FIFO would be waited on; say what it is, not "no such file"
        raise ConfigError("config", str(path), "not a regular file (a pipe or device); write the config to a file")
    if not path.is_file():
        raise ConfigError("config", str(path), "no such file")
    with open(path, "rb") as f:
        raw = f.read(MAX_BYTES + 1)  # never more than the bound: a 4 GB file is refused after 1 MB, not read whole
    if len(raw) > MAX_BYTES:
        raise ConfigError("config", str(path), f"longer than {MAX_BYTES:,} bytes; a config file is a few KB")
    try:
        data = loads(raw.decode("utf-8")) or {}
    except UnicodeDecodeError as err:
        raise ConfigError("config", str(path), f"not UTF-8 text (byte {err.start}); is it a YAML file?") from None
    except yaml.YAMLError as err:
        raise ConfigError("config", str(path), f"not valid YAML ({str(err).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise ConfigError("config", str(path), "must hold a mapping of config keys")
    return data


def make_config(overrides: list[str] = (), base: Optional[dict] = None, file: Optional[str] = None) -> Config:
    """Base dict, then a YAML file, then `key=value` overrides, validated once at the end."""
    overrides = str_list_arg(overrides, "overrides", "['p=97', 'optim.lr=0.01']")
    base = mapping_arg(base, "base") if base is not None else None
    file = str(path_arg(file, "file", optional=True)) if file is not None else None
    data: dict = {}
    for source in (base or {}), (load_yaml(file) if file else {}):
        for key, value in source.items():
            set_dotted(data, key, value)
    for text in overrides:
        set_dotted(data, *parse_override(text))
    return validate(data)


def differences(a: dict, b: dict, ignore=()) -> list[str]:
    """`key: x -> y` for every flattened config key whose value differs (keys in `ignore` skipped)."""
    fa, fb = flatten(a), flatten(b)
    return [f"{k}: {fa.get(k)!r} -> {fb.get(k)!r}" for k in sorted(set(fa) | set(fb))
            if k not in ignore and fa.get(k) != fb.get(k)]
