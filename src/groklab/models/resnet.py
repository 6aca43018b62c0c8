"""torchvision's ResNet-18 (weights=None: trained from scratch, never downloaded) for the image tasks.

Input: uint8 images [B, 1, side, side] (white lines on black); scaled to [-1, 1] and repeated to the 3
channels ResNet expects. `width` is the channel count of the first stage (torchvision: 64; stages have
width, 2, 4, 8 x width): the same 18-layer topology and blocks, narrower, for CPU budgets. `small=True` is
the small-image stem: a 3x3 stride-1 convolution and no max-pool (for side <= 64). 004 fine-tuned ImageNet
weights; we cannot fetch them, so we train from scratch.
"""
from __future__ import annotations

import torch
from torch import nn

from groklab.errors import ConfigError


def _torchvision():
    try:
        from torchvision.models.resnet import BasicBlock, ResNet
    except (ImportError, RuntimeError) as err:  # missing, or a torchvision built for another torch
        raise ConfigError("model.name", "resnet18", "needs torchvision: pip install torch==2.14.1 "
                          f"torchvision==0.29.1 and 'groklab[vision]' ({type(err).__name__})") from None
    return BasicBlock, ResNet


def resnet18(n_classes: int, width: int = 64, small: bool = False) -> nn.Module:
    """torchvision's ResNet-18 with stages of width, 2w, 4w, 8w channels (w=64, small=False: exactly
    torchvision's resnet18(weights=None, num_classes=n_classes))."""
    BasicBlock, ResNet = _torchvision()

    class Scaled(ResNet):
        def _make_layer(self, block, planes, blocks, stride=1, dilate=False):  # torchvision passes 64..512
            if planes == 64:
                self.inplanes = width  # the stem's output feeds the first stage
            return super()._make_layer(block, planes * width // 64, blocks, stride, dilate)

    net = Scaled(BasicBlock, [2, 2, 2, 2], num_classes=n_classes)
    if width != 64 or small:  # the stem and the readout at the new width, initialised as torchvision does
        net.conv1 = nn.Conv2d(3, width, 3 if small else 7, 1 if small else 2, 1 if small else 3, bias=False)
        nn.init.kaiming_normal_(net.conv1.weight, mode="fan_out", nonlinearity="relu")
        net.bn1 = nn.BatchNorm2d(width)
        net.fc = nn.Linear(8 * width, n_classes)
    if small:
        net.maxpool = nn.Identity()
    return net


class ResNet18(nn.Module):
    def __init__(self, n_classes: int, width: int = 64, small: bool = False):
        super().__init__()
        # channels_last: faster CPU convs -- but torch 2.14's CPU kernels corrupt the heap below 8 channels
        # (width 4 and 6 abort with "free(): invalid next size"; 8, 10, 12, 16 run), so narrow nets stay NCHW
        self.fmt = torch.channels_last if width >= 8 else torch.contiguous_format
        self.net = resnet18(n_classes, width, small).to(memory_format=self.fmt)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """The penultimate layer: globally pooled last-stage channels [B, 8 * width]."""
        n = self.net
        h = (x.float() / 255.0 - 0.5) / 0.5  # lines are rare: centred on mid-grey, unit range
        h = h.expand(-1, 3, -1, -1).contiguous(memory_format=self.fmt)
        h = n.maxpool(n.relu(n.bn1(n.conv1(h))))
        h = n.layer4(n.layer3(n.layer2(n.layer1(h))))
        return torch.flatten(n.avgpool(h), 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net.fc(self.features(x))

    def blocks(self) -> dict[str, list[nn.Parameter]]:
        """E: none (no token embedding); W: the stem convolution that reads the pixels; last: the last
        residual block and the readout; rest: all but E and W."""
        W = [self.net.conv1.weight]
        last = [*self.net.layer4[-1].parameters(), *self.net.fc.parameters()]
        return {"E": [], "W": W, "rest": [t for t in self.parameters() if t is not W[0]], "last": last}
