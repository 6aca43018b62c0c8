"""Number-set specs: `1:1000`, `0:100:5`, `log:1:1e6:200`, `3,17,42`, or `@file` (one or more numbers a line)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from groklab.engine.budget import allow_large
from groklab.errors import ConfigError

ALLOWED = ("'A:B' or 'A:B:STEP' (inclusive range), 'log:A:B:COUNT' (log-spaced integers, duplicates "
           "dropped), 'N1,N2,...' (explicit list), or '@PATH' (a file of numbers, '#' starts a comment)")
MAX_NUMBERS = 100_000  # each is a forward pass through the model; a typo such as log:1:1e6:1e9 asks for 10^9
_NUM = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def _number(text: str, spec: str) -> float:
    text = text.strip().replace("_", "")
    if not _NUM.match(text):
        raise ConfigError("numbers", spec, f"{text!r} is not a number; allowed: {ALLOWED}")
    return float(text)


def _check_count(count: float, spec: str) -> None:
    if count > MAX_NUMBERS and not allow_large():
        raise ConfigError("numbers", spec, f"names {count:.3g} numbers, above the limit {MAX_NUMBERS:,}; pass "
                          "--allow-large to probe them anyway")


def _from_file(path: Path, spec: str) -> list[float]:
    if not path.is_file():
        raise ConfigError("numbers", spec, f"no such file {str(path)!r}")
    values = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0]
        values += [_number(tok, spec) for tok in re.split(r"[,\s]+", line) if tok]
    return values


def parse_numbers(spec: str) -> np.ndarray:
    """The numbers a spec names, sorted and unique, as float64 (integers stay integral)."""
    spec = str(spec).strip()
    if spec.startswith("@"):
        values = _from_file(Path(spec[1:]), spec)
        _check_count(len(values), spec)
    elif spec.startswith("log:"):
        parts = spec.split(":")[1:]
        if len(parts) != 3:
            raise ConfigError("numbers", spec, f"log spec needs three fields; allowed: {ALLOWED}")
        a, b, count = (_number(x, spec) for x in parts)
        if not (0 < a < b) or count < 2 or count != int(count):
            raise ConfigError("numbers", spec, "log:A:B:COUNT needs 0 < A < B and an integer COUNT >= 2")
        _check_count(count, spec)
        values = list(np.round(np.geomspace(a, b, int(count))))
    elif ":" in spec:
        parts = [_number(x, spec) for x in spec.split(":")]
        if len(parts) not in (2, 3):
            raise ConfigError("numbers", spec, f"a range has 2 or 3 fields; allowed: {ALLOWED}")
        a, b, step = parts[0], parts[1], parts[2] if len(parts) == 3 else 1.0
        if step <= 0 or b < a:
            raise ConfigError("numbers", spec, "range A:B:STEP needs A <= B and STEP > 0")
        _check_count((b - a) / step + 1, spec)
        values = list(a + step * np.arange(int(np.floor((b - a) / step + 1e-9)) + 1))
    else:
        values = [_number(x, spec) for x in spec.split(",") if x.strip()]
    n = np.unique(np.asarray(values, dtype=np.float64))
    if len(n) < 4:
        raise ConfigError("numbers", spec, f"names {len(n)} distinct numbers; the fits need at least 4")
    if not np.all(np.isfinite(n)):
        raise ConfigError("numbers", spec, "numbers must be finite")
    return n


def numeral(x: float) -> str:
    """How a number is written into the template: integers without a decimal point."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e18 else repr(float(x))
