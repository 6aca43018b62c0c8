"""Image-composition tasks (004 §6.3): grids of pictures from a small dictionary, labelled by their weights.

The dictionary has `entries` pictures: an empty cell, then regular polygons with 3, 4, ... sides, drawn as
outlines with spokes from the centre to every vertex. A sample is a `cells` x `cells` grid of dictionary
pictures; every grid is in the task (entries ** (cells ** 2) samples). Its label is the sum of the cells'
weights (a polygon weighs its number of sides, the empty cell 0), optionally mod m; `labels=random` gives
every grid a random label instead (a control without additive structure). Rendered once, deterministically,
into one uint8 tensor [N, 1, side, side] (white lines on black).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from groklab.config.rules import image_rules
from groklab.data.tables import OnTable, Table


def polygon(sides: int, size: int) -> torch.Tensor:
    """A regular polygon outline with spokes in a size x size uint8 image (0 or 255); sides 0: empty."""
    img = torch.zeros(size, size, dtype=torch.uint8)
    if sides == 0:
        return img
    c, r = (size - 1) / 2, 0.42 * size
    ang = torch.arange(sides) * 2 * math.pi / sides - math.pi / 2
    vx, vy = c + r * torch.cos(ang), c + r * torch.sin(ang)
    t = torch.linspace(0, 1, 2 * size + 1)
    xs, ys = [], []
    for k in range(sides):  # edge k -> k+1 and spoke centre -> k
        j = (k + 1) % sides
        xs += [vx[k] + t * (vx[j] - vx[k]), c + t * (vx[k] - c)]
        ys += [vy[k] + t * (vy[j] - vy[k]), c + t * (vy[k] - c)]
    x = torch.cat(xs).round().long().clamp(0, size - 1)
    y = torch.cat(ys).round().long().clamp(0, size - 1)
    img[y, x] = 255
    return img


def sides_of(entries: int) -> list[int]:
    """Number of sides of each dictionary entry: 0 (empty), 3, 4, ..."""
    return [0] + list(range(3, entries + 2))


@dataclass(frozen=True)
class ImageTask(OnTable):
    """Every grid of the dictionary as an image, with its label; `table` carries the cell ids for splits."""

    table: Table  # operands [N, cells^2] dictionary ids (row-major), y labels; table.p = entries
    inputs: torch.Tensor  # [N, 1, side, side] uint8
    n_classes: int
    cells: int
    weights: tuple  # weight of each dictionary entry

    def show(self, i: int) -> str:
        ids = self.table.operands[i].tolist()
        rows = [ids[r * self.cells:(r + 1) * self.cells] for r in range(self.cells)]
        return f"grid {rows} (sides {[[self.weights[k] for k in r] for r in rows]}) -> label {int(self.table.y[i])}"


def grid_labels(cells: int = 2, entries: int = 11, weight: str = "sides", mod: int = 2, labels: str = "sum",
                seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, int]:
    """Every grid's cell ids [N, cells^2] (row-major, lexicographic), its label [N] and the number of classes,
    without rendering: what the analysis needs for chance levels."""
    K = cells * cells
    n = entries ** K
    ops = torch.arange(n)[:, None] // entries ** torch.arange(K - 1, -1, -1) % entries
    w = torch.tensor(sides_of(entries))
    y = w[ops].sum(1)
    if weight == "mod":
        y = y % mod
    n_classes = int(w.max()) * K + 1 if weight == "sides" else mod
    if labels == "random":
        y = torch.randint(0, n_classes, (n,), generator=torch.Generator().manual_seed(seed))
    return ops, y, n_classes


def chance(cells: int = 2, entries: int = 11, weight: str = "sides", mod: int = 2, labels: str = "sum",
           seed: int = 0) -> float:
    """Accuracy of always answering the most common label: its share of all grids (a random split's test
    set has the same share up to sampling noise). A memorizing network can sit below it (mod m labels)."""
    y = grid_labels(cells, entries, weight, mod, labels, seed)[1]
    return float(torch.bincount(y).max()) / len(y)


def make_image_task(cells: int = 2, entries: int = 11, side: int = 224, weight: str = "sides", mod: int = 2,
                    labels: str = "sum", seed: int = 0) -> ImageTask:
    """All entries ** (cells ** 2) grids, rendered; labels by weight sum (mod m), or random (seeded)."""
    image_rules(cells, entries, side, weight, mod)
    ops, y, n_classes = grid_labels(cells, entries, weight, mod, labels, seed)
    n, c = len(y), side // cells
    pics = torch.stack([polygon(s, c) for s in sides_of(entries)])  # [entries, c, c]
    img = pics[ops].view(n, cells, cells, c, c).permute(0, 1, 3, 2, 4).reshape(n, 1, side, side)
    return ImageTask(Table("shapes", entries, ops, y), img.contiguous(), n_classes, cells, tuple(sides_of(entries)))
