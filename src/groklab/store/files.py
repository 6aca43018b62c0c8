"""File primitives of the store: the one JSON policy, atomic writes, validated reads.

NaN policy: a float that is not finite (NaN, +inf, -inf) is written as JSON `null`. What a null
means is said by the file around it: a metric of a run whose `status` is `diverged` went non-finite;
a claim's censored time (not reached within the run) is null. numpy scalars become Python numbers,
tuples become lists, dict keys become strings. Every file is written beside its target under a name
unique to the writer (`.<name>.<pid>.tmp`), fsynced, then renamed: readers see old or new, never half.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Callable

import yaml
from pydantic import BaseModel, ValidationError

from groklab.errors import StoreError


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


def tmp_name(path: Path) -> Path:
    """The writer's own temp file beside `path`: two writers never share one."""
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def atomic_write(path: str | Path, write: Callable | bytes | str) -> None:
    """Write via a temp file + fsync + rename. On any failure the temp file is removed and the old
    file (if any) stays as it was."""
    path = Path(path)
    tmp = tmp_name(path)
    try:
        with open(tmp, "wb") as f:
            if callable(write):
                write(f)
            else:
                f.write(write.encode() if isinstance(write, str) else write)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_json(path: str | Path, doc: Any) -> None:
    atomic_write(path, dumps(doc, indent=1) + "\n")


def read_text(path: str | Path) -> str:
    """A file's text; a missing, unreadable or non-UTF-8 file is a StoreError naming it."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StoreError(path, "missing") from None
    except UnicodeDecodeError as err:
        raise StoreError(path, f"not UTF-8 text (byte {err.start}); the file is damaged") from None
    except OSError as err:
        raise StoreError(path, f"cannot be read ({err.strerror or type(err).__name__})") from None


def parse_json(text: str, path, line: int | None = None) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise StoreError(path, f"not valid JSON ({err.msg} at column {err.colno})", line) from None


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


def read_yaml_mapping(path: str | Path) -> dict:
    """A YAML file holding a mapping (safe_load only)."""
    try:
        doc = yaml.safe_load(read_text(path))
    except yaml.YAMLError as err:
        raise StoreError(path, f"not valid YAML ({str(err).splitlines()[0]})") from None
    if not isinstance(doc, dict):
        raise StoreError(path, f"must hold a mapping, not {type(doc).__name__}")
    return doc


def remove_stale_tmp(folder: Path) -> list[Path]:
    """Temp files of writers that are gone (the caller holds the directory's lock, so all of them)."""
    stale = [f for f in folder.glob(".*.tmp") if f.is_file()]
    for f in stale:
        f.unlink(missing_ok=True)
    return stale
