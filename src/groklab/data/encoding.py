"""Token encodings of operand rows.

Worked example, p = 5, row (a=3, b=4):
  "op"     -> tokens [3, 5, 4, 6]   (op token p=5, "=" token p+1=6; vocab p+2)
  "no_op"  -> tokens [3, 4]         (vocab p)
  "eq"     -> tokens [3, 4, 5]      (004's released code: shared operand ids, "=" token p; vocab p+1)
  "sep"    -> tokens [3, 9, 10]     (operand j has its own ids j*p + value, "=" is 2p; vocab 2p+1)
  "offset" -> tokens [3, 7, 8] (d=3) (operand j's ids start at j*d, "=" is (K-1)d + p; vocab (K-1)d + p + 1:
                                      004's STRIP code, d = 60 at p = 97, so values of a and b share ids where
                                      the ranges overlap)
  raw=True -> floats [3., 5., 4., 6.] (the embedding-free MLP of 000 eq. 1 reads values)
K operands with "op": [a1, op, a2, op, ..., aK, =]; "eq": [a1, ..., aK, p]; "sep": [a1, p + a2, ..., (K-1)p + aK, Kp];
"offset" is "sep" with the stride d in place of p.
"""
from __future__ import annotations

import torch


def vocab_size(p: int, kind: str, n_operands: int = 2, offset: int | None = None) -> int:
    if kind == "offset":
        return (n_operands - 1) * _stride(p, offset) + p + 1
    return {"op": p + 2, "no_op": p, "eq": p + 1, "sep": n_operands * p + 1}[kind]


def seq_len(n_operands: int, kind: str) -> int:
    return {"op": 2 * n_operands, "no_op": n_operands}.get(kind, n_operands + 1)


def default_offset(p: int) -> int:
    """004's STRIP code offsets the second operand by 60 at p = 97; at another p, the same share of p."""
    return max(1, round(60 * p / 97))


def _stride(p: int, offset: int | None) -> int:
    return default_offset(p) if offset is None else offset


def operand_rows(p: int, kind: str, n_operands: int = 2, offset: int | None = None) -> list[range]:
    """The embedding rows of each operand's values 0..p-1: one shared range, or one per operand (sep, offset)."""
    if kind in ("sep", "offset"):
        d = p if kind == "sep" else _stride(p, offset)
        return [range(j * d, j * d + p) for j in range(n_operands)]
    return [range(p)]


def encode(operands: torch.Tensor, p: int, kind: str = "op", raw: bool = False,
           offset: int | None = None) -> torch.Tensor:
    """[N, n_operands] operand values -> [N, seq_len] tokens (LongTensor), or floats if raw."""
    N, n = operands.shape
    if kind == "op":
        x = torch.full((N, 2 * n), p, dtype=torch.long)
        x[:, 0::2] = operands
        x[:, -1] = p + 1
    elif kind == "no_op":
        x = operands.clone()
    elif kind in ("eq", "sep", "offset"):
        d = {"eq": 0, "sep": p}[kind] if kind != "offset" else _stride(p, offset)  # operand j's ids start at j*d
        x = torch.cat([operands + d * torch.arange(n), torch.full((N, 1), (n - 1) * d + p)], 1)
    else:
        raise ValueError(f"unknown encoding {kind!r}")
    return x.float() if raw else x
