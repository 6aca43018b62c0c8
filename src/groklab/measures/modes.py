"""Measures see the model in eval mode (no dropout noise in a Hessian) and leave every module's mode as found."""
from __future__ import annotations

from contextlib import contextmanager

from torch import nn


@contextmanager
def eval_mode(model: nn.Module):
    """model.eval() inside; each submodule's own .training flag restored on exit."""
    modes = [(m, m.training) for m in model.modules()]
    model.eval()
    try:
        yield model
    finally:
        for m, training in modes:
            m.training = training
