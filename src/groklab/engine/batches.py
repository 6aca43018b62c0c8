"""Each stacked member's batch rows for a step, assembled on the host a block of steps at a time."""
from __future__ import annotations

import numpy as np
import torch


class Batches:
    """Each member's batch rows for a step, [M, B], made on the host one block of steps at a time.

    The positions come from the members' own samplers (so they equal the solo runs'); one host-to-device
    copy per block keeps the per-step work on the device, with no host sync.
    """

    def __init__(self, samplers: list, rows: torch.Tensor, steps: int, block_steps: int = 64):
        self.samplers, self.rows, self.steps, self.K = samplers, rows, steps, block_steps  # rows: [M, n_max]
        self.full = not hasattr(samplers[0], "block")  # the full-batch sampler: every row, every step
        self.block, self.start = None, 0

    def idx(self, step: int) -> torch.Tensor:
        if self.full:
            return self.rows
        if self.block is None or not self.start <= step < self.start + len(self.block):
            K = max(1, min(self.K, self.steps - step))
            pos = torch.from_numpy(np.stack([s.block(step, K) for s in self.samplers], 1))  # [K, M, B]
            if self.rows.is_cuda:  # pinned: the copy is asynchronous, the device queue does not drain
                pos = pos.pin_memory()
            self.block, self.start = pos.to(self.rows.device, non_blocking=True), step
        return self.rows.gather(1, self.block[step - self.start])
