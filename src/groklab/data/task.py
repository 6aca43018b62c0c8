"""The Task interface the engine trains on, and the token tasks of modular arithmetic that implement it.

A task is a finite labelled set held whole in memory: `operands` [N, K] (the structure splits, samplers
and coverage read: operand values, or for an image task the ids of the pictures in its cells), `inputs`
[N, ...] (what the model reads), `labels` [N], `n_classes`, and `show(i)`, one example in words.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Protocol

import torch

from groklab.config.rules import factorial_root
from groklab.data.encoding import encode, seq_len, vocab_size
from groklab.data.images import make_image_task
from groklab.data.tables import OnTable, Table, make_table


class Task(Protocol):
    operands: torch.Tensor  # [N, K] long
    inputs: torch.Tensor  # [N, ...] model inputs
    labels: torch.Tensor  # [N] long, in [0, n_classes)
    n_classes: int

    def show(self, i: int) -> str: ...


SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "dihedral": "o", "perm": "o"}


@dataclass(frozen=True)
class TokenTask(OnTable):
    """A modular-arithmetic table as token sequences (or raw float values for the embedding-free MLP)."""

    table: Table
    inputs: torch.Tensor  # [N, n_ctx] tokens, or floats when raw
    encoding: str
    vocab: int  # token ids 0..vocab-1
    n_ctx: int  # tokens per example
    expr: Optional[str] = None  # the polynomial, for task poly
    support: int = 3  # the bits the label reads, for task parity

    @property
    def n_classes(self) -> int:
        return self.table.p

    def show(self, i: int) -> str:
        """e.g. `3 * 5 = 4 (mod 11)   tokens [3, 11, 5, 12]`."""
        t, ops = self.table, self.table.operands[i].tolist()
        if t.name in SYMBOLS:
            lhs = f" {SYMBOLS[t.name]} ".join(map(str, ops))
        elif t.name == "sum":
            lhs = " + ".join(map(str, ops))
        elif t.name == "parity":
            lhs = f"parity of the first {self.support} of bits {ops}"
        else:
            lhs = f"{self.expr} at a={ops[0]}, b={ops[1]}"
        x = self.inputs[i].tolist()
        where = {"dihedral": f"in D_{t.p // 2}", "perm": f"in S_{factorial_root(t.p)}"}.get(t.name, f"mod {t.p}")
        return f"{lhs} = {int(t.y[i])} ({where})   {'values' if self.inputs.is_floating_point() else 'tokens'} {x}"


def make_task(cfg):
    """The task of a run config: a token task (task, p, encoding; raw values for model=mlp, in cfg.dtype),
    or for task=shapes the rendered image task."""
    t = cfg.task
    if t.name == "shapes":
        return make_image_task(t.cells, t.entries, t.image, t.weight, t.mod, t.labels, cfg.split.seed)
    table = make_table(cfg.task.name, cfg.p, expr=cfg.task.expr, K=cfg.task.K, support=cfg.task.support)
    raw = cfg.model.name == "mlp"
    X = encode(table.operands, cfg.p, cfg.encoding, raw=raw, offset=cfg.encoding_offset)
    if raw:
        X = X.to(getattr(torch, cfg.dtype))
    K = table.n_operands
    vocab = vocab_size(cfg.p, cfg.encoding, K, cfg.encoding_offset)
    return TokenTask(table, X, cfg.encoding, vocab, seq_len(K, cfg.encoding), cfg.task.expr, cfg.task.support)
