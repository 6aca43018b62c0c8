"""Token encodings of operand rows.

Worked example, p = 5, row (a=3, b=4):
  "op"     -> tokens [3, 5, 4, 6]   (op token p=5, "=" token p+1=6; vocab p+2)
  "no_op"  -> tokens [3, 4]         (vocab p)
  raw=True -> floats [3., 5., 4., 6.] (the embedding-free MLP of 000 eq. 1 reads values)
K operands with "op": [a1, op, a2, op, ..., aK, =].
"""
from __future__ import annotations

import torch


def vocab_size(p: int, kind: str) -> int:
    return p + 2 if kind == "op" else p


def seq_len(n_operands: int, kind: str) -> int:
    return 2 * n_operands if kind == "op" else n_operands


def encode(operands: torch.Tensor, p: int, kind: str = "op", raw: bool = False) -> torch.Tensor:
    """[N, n_operands] operand values -> [N, seq_len] tokens (LongTensor), or floats if raw."""
    N, n = operands.shape
    if kind == "op":
        x = torch.full((N, 2 * n), p, dtype=torch.long)
        x[:, 0::2] = operands
        x[:, -1] = p + 1
    elif kind == "no_op":
        x = operands.clone()
    else:
        raise ValueError(f"unknown encoding {kind!r}")
    return x.float() if raw else x
