"""Token encodings of operand rows.

Worked example, p = 5, row (a=3, b=4):
  "op"     -> tokens [3, 5, 4, 6]   (op token p=5, "=" token p+1=6; vocab p+2)
  "no_op"  -> tokens [3, 4]         (vocab p)
  "eq"     -> tokens [3, 4, 5]      (004's released code: shared operand ids, "=" token p; vocab p+1)
  "sep"    -> tokens [3, 9, 10]     (operand j has its own ids j*p + value, "=" is 2p; vocab 2p+1)
  raw=True -> floats [3., 5., 4., 6.] (the embedding-free MLP of 000 eq. 1 reads values)
K operands with "op": [a1, op, a2, op, ..., aK, =]; "eq": [a1, ..., aK, p]; "sep": [a1, p + a2, ..., (K-1)p + aK, Kp].
"""
from __future__ import annotations

import torch


def vocab_size(p: int, kind: str, n_operands: int = 2) -> int:
    return {"op": p + 2, "no_op": p, "eq": p + 1, "sep": n_operands * p + 1}[kind]


def seq_len(n_operands: int, kind: str) -> int:
    return {"op": 2 * n_operands, "no_op": n_operands, "eq": n_operands + 1, "sep": n_operands + 1}[kind]


def operand_rows(p: int, kind: str, n_operands: int = 2) -> list[range]:
    """The embedding rows of each operand's values 0..p-1: one shared range, or one per operand (sep)."""
    return [range(j * p, (j + 1) * p) for j in range(n_operands)] if kind == "sep" else [range(p)]


def encode(operands: torch.Tensor, p: int, kind: str = "op", raw: bool = False) -> torch.Tensor:
    """[N, n_operands] operand values -> [N, seq_len] tokens (LongTensor), or floats if raw."""
    N, n = operands.shape
    if kind == "op":
        x = torch.full((N, 2 * n), p, dtype=torch.long)
        x[:, 0::2] = operands
        x[:, -1] = p + 1
    elif kind == "no_op":
        x = operands.clone()
    elif kind in ("eq", "sep"):
        shift = p * torch.arange(n) if kind == "sep" else torch.zeros(n, dtype=torch.long)
        x = torch.cat([operands + shift, torch.full((N, 1), n * p if kind == "sep" else p)], 1)
    else:
        raise ValueError(f"unknown encoding {kind!r}")
    return x.float() if raw else x
