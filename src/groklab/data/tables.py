"""Full tables of modular-arithmetic tasks: every operand tuple with its answer mod p."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from groklab.config import TASK_NAMES
from groklab.config.rules import MAX_ROWS, task_rules
from groklab.data.expr import parse_poly, pow_mod
from groklab.data.groups import dihedral_table, parity_labels, symmetric_table

KNOWN_TASKS = TASK_NAMES


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


def make_table(name: str, p: int, expr: str | None = None, K: int = 2, max_rows: int = MAX_ROWS,
               support: int = 3) -> Table:
    """The full table of task `name` over Z_p (div: b != 0; sum: K operands; parity: K bits), or over a group
    of order p (dihedral, perm: data/groups.py), its arguments checked by the config's rules (config/rules.py),
    the polynomial's cost included."""
    cost = parse_poly(expr).cost if name == "poly" and isinstance(expr, str) and expr else None
    task_rules(name, p, expr, K, max_rows, cost, KNOWN_TASKS, support)
    if name in ("sum", "parity"):
        # Row i holds the base-p digits of i, most significant first: lexicographic order.
        i = torch.arange(p**K)
        powers = p ** torch.arange(K - 1, -1, -1)
        operands = i[:, None] // powers % p
        return Table(name, p, operands, operands.sum(1) % p if name == "sum" else parity_labels(operands, support))
    a, b = _grid(p, b_from=1 if name == "div" else 0)
    if name in ("dihedral", "perm"):
        product = dihedral_table(p) if name == "dihedral" else symmetric_table(p)
        return Table(name, p, torch.stack([a, b], 1), product[a, b])
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
