"""The Python API's arguments checked like the CLI's: a wrong type is one ConfigError naming the argument,
before anything is built or written (a string where a list is meant would otherwise be iterated by character)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from groklab.errors import ConfigError


def path_arg(value: Any, name: str, optional: bool = False) -> Path | None:
    """A filesystem path: a non-empty str or os.PathLike without NUL (None only when `optional`)."""
    if value is None and optional:
        return None
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value or "\x00" in value:
        raise ConfigError(name, repr(value)[:60], "must be a path (a non-empty str or pathlib.Path)")
    return Path(value)


def str_list_arg(value: Any, name: str, example: str) -> list[str]:
    """A list or tuple of strings; one string is refused rather than read character by character."""
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(name, repr(value)[:60], f"must be a list of strings, e.g. {example}")
    return list(value)


def str_arg(value: Any, name: str, example: str) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(name, repr(value)[:60], f"must be a non-empty string, e.g. {example}")
    return value


def mapping_arg(value: Any, name: str) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(name, repr(value)[:60], "must be a dict of config keys ({'p': 97, 'optim.lr': 0.01})")
    return value
