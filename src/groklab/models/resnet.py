"""torchvision's ResNet-18 (weights=None: trained from scratch, never downloaded) for the image tasks.

Input: uint8 images [B, 1, side, side] (white lines on black); scaled to [0, 1], normalised and repeated to
the 3 channels ResNet expects. `small=True` is the small-image variant: a 3x3 stride-1 stem and no max-pool
(for side 32-64). 004 fine-tuned ImageNet weights; we cannot fetch them, so we train from scratch.
"""
from __future__ import annotations

import torch
from torch import nn

from groklab.errors import ConfigError


class ResNet18(nn.Module):
    def __init__(self, n_classes: int, small: bool = False):
        super().__init__()
        try:
            from torchvision.models import resnet18
        except (ImportError, RuntimeError) as err:  # missing, or a torchvision built for another torch
            raise ConfigError("model.name", "resnet18", "needs torchvision: pip install torch==2.14.1 "
                              f"torchvision==0.29.1 and 'groklab[vision]' ({type(err).__name__})") from None
        self.net = resnet18(weights=None, num_classes=n_classes)
        if small:
            self.net.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
            self.net.maxpool = nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = (x.float() / 255.0 - 0.5) / 0.5  # lines are rare: centred on mid-grey, unit range
        h = h.expand(-1, 3, -1, -1).contiguous(memory_format=torch.channels_last)
        return self.net(h)

    def blocks(self) -> dict[str, list[nn.Parameter]]:
        """No token embedding: E is empty; W is the stem convolution that reads the pixels; rest: all else."""
        W = [self.net.conv1.weight]
        return {"E": [], "W": W, "rest": [t for t in self.parameters() if t is not W[0]]}
