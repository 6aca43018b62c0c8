"""File primitives of the store: the one JSON policy, atomic writes, validated reads.

NaN policy: a float that is not finite (NaN, +inf, -inf) is written as JSON `null`. What a null
means is said by the file around it: a metric of a run whose `status` is `diverged` went non-finite;
a claim's censored time (not reached within the run) is null. numpy scalars become Python numbers,
tuples become lists, dict keys become strings. Every file is written beside its target under a name
unique to the writer (`.<name>.groklab-<pid>-<random>.tmp`, created exclusively, never through a link),
fsynced, then renamed: readers see old or new, never half. Cleanup removes only files of that exact name
shape, so a user's `.notes.tmp` is never touched; a file groklab appends to is opened without following links.
"""
from __future__ import annotations

import copy
import json
import math
import os
import re
import secrets
from pathlib import Path
from typing import Any, Callable

import yaml
from pydantic import BaseModel, ValidationError

from groklab.config.yaml12 import loads
from groklab.errors import StoreError
from groklab.store.names import refuse_link


def clean(x: Any) -> Any:
    """Plain JSON data under the NaN policy above."""
    if isinstance(x, dict):
        return {str(k): clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [clean(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):  # numpy / torch scalars
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def dumps(x: Any, indent: int | None = None) -> str:
    return json.dumps(clean(x), indent=indent, allow_nan=False)


TMP = re.compile(r"\..+\.groklab-\d+-[0-9a-f]{8}\.tmp")  # the only temp names groklab makes (and removes)
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def tmp_name(path: Path) -> Path:
    """The writer's own temp file beside `path`: pid and a random part, so two writers never share one and
    no user's file has its name."""
    return path.with_name(f".{path.name}.groklab-{os.getpid()}-{secrets.token_hex(4)}.tmp")


def is_tmp(path: Path) -> bool:
    """A temp file groklab made: its name has tmp_name's exact shape and it is a plain file, not a link."""
    return TMP.fullmatch(path.name) is not None and path.is_file() and not path.is_symlink()


def open_append(path: str | Path):
    """`path` opened for appending text, created if missing, refused when it is a link."""
    path = Path(path)
    regular(path)  # opening a FIFO for writing waits for a reader forever
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | NOFOLLOW, 0o644)
    except OSError as err:
        if path.is_symlink():
            refuse_link(path)
        raise err
    return os.fdopen(fd, "a", encoding="utf-8")


def atomic_write(path: str | Path, write: Callable | bytes | str, durable: bool = True) -> None:
    """Write via a temp file + fsync + rename. On any failure the temp file is removed and the old
    file (if any) stays as it was. A link at `path` is replaced, never written through. `durable=False` skips
    the fsync (still atomic for every reader): for copies the same command lays out again, such as the runs
    of an archive unpacked to be re-judged (1,600 fsyncs were a quarter of laying out a study)."""
    path = Path(path)
    tmp = tmp_name(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o644)  # exclusive: the file is ours
    try:
        with os.fdopen(fd, "wb") as f:
            if callable(write):
                write(f)
            else:
                f.write(write.encode() if isinstance(write, str) else write)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_json(path: str | Path, doc: Any, durable: bool = True) -> None:
    atomic_write(path, dumps(doc, indent=1) + "\n", durable)


def begins_with(path: str | Path, prefix: bytes) -> bool:
    """Whether the file starts with `prefix` (how groklab recognises a report or table it wrote, and may replace)."""
    try:
        with open(path, "rb") as f:
            return f.read(len(prefix)) == prefix
    except OSError:
        return False


def regular(path: str | Path) -> None:
    """A StoreError when `path` exists but is no regular file: opening a FIFO or a device waits, or reads, forever."""
    if Path(path).exists() and not Path(path).is_file():
        raise StoreError(path, "not a regular file")


def read_text(path: str | Path) -> str:
    """A file's text; a missing, unreadable or non-UTF-8 file is a StoreError naming it, and so is anything but a
    regular file (opening a FIFO named config.yaml would wait for a writer forever)."""
    regular(path)
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StoreError(path, "missing") from None
    except UnicodeDecodeError as err:
        raise StoreError(path, f"not UTF-8 text (byte {err.start}); the file is damaged") from None
    except OSError as err:
        raise StoreError(path, f"cannot be read ({err.strerror or type(err).__name__})") from None


def parse_json(text: str, path, line: int | None = None) -> Any:
    """JSON text as data; a damaged document (invalid, or nested deeper than Python's stack) is one StoreError
    naming the file and line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise StoreError(path, f"not valid JSON ({err.msg} at column {err.colno})", line) from None
    except RecursionError:
        raise StoreError(path, "JSON nested too deeply to be a groklab file", line) from None
    except ValueError:  # an integer past Python's 4,300-digit limit (JSONDecodeError, a ValueError, is above)
        raise StoreError(path, "a number too long to be a groklab value", line) from None


def validated(schema: type[BaseModel], doc: Any, path, line: int | None = None) -> BaseModel:
    """doc checked against a pydantic schema; the first problem becomes one StoreError line."""
    try:
        return schema.model_validate(doc)
    except ValidationError as err:
        e = err.errors()[0]
        where = ".".join(str(x) for x in e["loc"])
        raise StoreError(path, f"{where + ': ' if where else ''}{e['msg']}", line) from None


def read_json(path: str | Path, schema: type[BaseModel] | None = None) -> Any:
    """A JSON file, checked against `schema` when given (returned as plain data either way)."""
    doc = parse_json(read_text(path), path)
    if schema is not None:
        validated(schema, doc, path)
    return doc


_READ: dict = {}  # (path, inode, size, mtime) -> the mapping read: a re-judge reads each run's config twice


def read_yaml_mapping(path: str | Path) -> dict:
    """A YAML file holding a mapping (the config loader's YAML 1.2 rules: config/yaml12.py). A file read before
    and unchanged since (same inode, size and mtime: groklab replaces files by rename) is not parsed again."""
    try:
        st = os.stat(path)
        key = (os.fspath(path), st.st_ino, st.st_size, st.st_mtime_ns)
    except OSError:
        key = None
    if key in _READ:
        return copy.deepcopy(_READ[key])
    doc = _read_yaml_mapping(path)
    if key is not None:
        if len(_READ) >= 4096:
            _READ.clear()
        _READ[key] = copy.deepcopy(doc)
    return doc


def _read_yaml_mapping(path: str | Path) -> dict:
    try:
        doc = loads(read_text(path))
    except yaml.YAMLError as err:
        raise StoreError(path, f"not valid YAML ({str(err).splitlines()[0]})") from None
    if not isinstance(doc, dict):
        raise StoreError(path, f"must hold a mapping, not {type(doc).__name__}")
    return doc


def remove_stale_tmp(folder: Path, since: float | None = None) -> list[Path]:
    """groklab's temp files of writers that are gone (the caller holds the directory's lock, so all of them),
    written at or after `since` (a time; None: any); any other file, whatever its name, is left alone."""
    stale = [f for f in folder.glob(".*.tmp") if is_tmp(f) and (since is None or f.stat().st_mtime >= since - 1)]
    for f in stale:
        f.unlink(missing_ok=True)
    return stale
