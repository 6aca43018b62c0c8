"""Full tables of modular-arithmetic tasks: every operand tuple with its answer mod p."""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from groklab.config import TASK_NAMES
from groklab.data.expr import parse_poly, pow_mod
from groklab.errors import ConfigError

KNOWN_TASKS = TASK_NAMES
MAX_POLY_WORK = 10**9  # elementwise operations to evaluate a polynomial table: ~5 s on one CPU core
BINARY = ("add", "sub", "mul", "div", "poly")


def is_prime(n: int) -> bool:
    """Trial division; tables stay below ~1500 values per operand, so this is instant."""
    if n < 2:
        return False
    d = 2
    while d * d <= n:
        if n % d == 0:
            return False
        d += 1
    return True


@dataclass(frozen=True)
class Table:
    """All rows of a task, in lexicographic order of the operands."""

    name: str
    p: int
    operands: torch.Tensor  # [N, n_operands] long, values in [0, p)
    y: torch.Tensor  # [N] long, values in [0, p)

    @property
    def n_operands(self) -> int:
        return self.operands.shape[1]

    def __len__(self) -> int:
        return self.operands.shape[0]


def _grid(p: int, b_from: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Columns a, b of all pairs a in [0, p), b in [b_from, p), row-major in a."""
    a = torch.arange(p).repeat_interleave(p - b_from)
    b = torch.arange(b_from, p).repeat(p)
    return a, b


def _check(name: str, p, expr: str | None, K, max_rows: int) -> None:
    if name not in KNOWN_TASKS:
        raise ConfigError("task.name", name, f"must be one of {', '.join(KNOWN_TASKS)}")
    if not isinstance(p, int) or isinstance(p, bool) or p < 2:
        raise ConfigError("p", p, "must be an integer ≥ 2")
    if name in BINARY and p * p > max_rows:
        raise ConfigError("p", p, f"p**2 = {p * p} rows exceeds the limit of {max_rows}; use a smaller p")
    if name == "div" and not is_prime(p):
        raise ConfigError("p", p, "must be prime for task 'div' (inverses mod p)")
    if name == "poly" and not expr:
        raise ConfigError("task.expr", expr, "task 'poly' needs an expression in a and b, e.g. 'a^2+b'")
    if name == "poly" and parse_poly(expr).cost * p * p > MAX_POLY_WORK:
        work = parse_poly(expr).cost * p * p
        raise ConfigError("task.expr", expr, f"evaluating it over the p**2 = {p * p} rows takes {work:.1e} "
                                             f"elementwise operations, above the limit {MAX_POLY_WORK:.0e} (a few "
                                             "seconds); use lower powers or a smaller p")
    if name != "poly" and expr is not None:
        raise ConfigError("task.expr", expr, f"only used with task 'poly' (task is '{name}')")
    if name == "sum":
        if not isinstance(K, int) or isinstance(K, bool) or K < 2:
            raise ConfigError("task.K", K, "must be an integer ≥ 2 for task 'sum'")
        if K * math.log10(p) > math.log10(max_rows):  # arithmetic on logs: p**K itself may have 10^9 digits
            raise ConfigError("task.K", K, f"p**K = {p}**{K} ~ 10^{K * math.log10(p):.1f} rows exceeds the limit of "
                                           f"{max_rows}; use a smaller K or p")


def make_table(name: str, p: int, expr: str | None = None, K: int = 2, max_rows: int = 2_000_000) -> Table:
    """The full table of task `name` over Z_p (div: b != 0; sum: K operands)."""
    _check(name, p, expr, K, max_rows)
    if name == "sum":
        # Row i holds the base-p digits of i, most significant first: lexicographic order.
        i = torch.arange(p**K)
        powers = p ** torch.arange(K - 1, -1, -1)
        operands = i[:, None] // powers % p
        return Table(name, p, operands, operands.sum(1) % p)
    a, b = _grid(p, b_from=1 if name == "div" else 0)
    if name == "add":
        y = (a + b) % p
    elif name == "sub":
        y = (a - b) % p
    elif name == "mul":
        y = a * b % p
    elif name == "div":
        # Fermat: b^(p-2) is the inverse of b for prime p; computed once per value of b.
        inv = pow_mod(torch.arange(p), p - 2, p)
        y = a * inv[b] % p
    else:
        y = parse_poly(expr)(a, b, p)
    return Table(name, p, torch.stack([a, b], 1), y)


class OnTable:
    """What a task built on a Table reads from it: operands [N, K], labels [N], its length."""

    table: Table

    @property
    def operands(self) -> torch.Tensor:
        return self.table.operands

    @property
    def labels(self) -> torch.Tensor:
        return self.table.y

    def __len__(self) -> int:
        return len(self.table)
