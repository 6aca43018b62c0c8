"""The float32 arithmetic of CUDA steps: TF32 tensor cores or full IEEE float32, as the run's config says.

torch's defaults differ by kernel family: matmuls run in full float32 unless asked, cuDNN convolutions and RNNs
in TF32 (10-bit mantissa) unless told otherwise. A run's `tf32` field therefore decides all three for its
training step, so that what a run records as its numerics (numerics/tf32) is what ran; evaluation always runs
in full float32. On a CPU nothing changes (TF32 is a CUDA format).
"""
from __future__ import annotations

from contextlib import contextmanager

import torch

# each family's switch (torch >= 2.9); a build without one leaves that family to torch's default
BACKENDS = tuple(b for b in (getattr(torch.backends.cuda, "matmul", None), getattr(torch.backends.cudnn, "conv", None),
                              getattr(torch.backends.cudnn, "rnn", None)) if hasattr(b, "fp32_precision"))


@contextmanager
def fp32_precision(tf32: bool | None):
    """Within the block, CUDA float32 matmuls, convolutions and RNNs in TF32 (True) or IEEE float32 (False);
    None leaves torch's settings alone (a CPU run)."""
    if tf32 is None:
        yield
        return
    old = [b.fp32_precision for b in BACKENDS]
    for b in BACKENDS:
        b.fp32_precision = "tf32" if tf32 else "ieee"
    try:
        yield
    finally:
        for b, value in zip(BACKENDS, old):
            b.fp32_precision = value
