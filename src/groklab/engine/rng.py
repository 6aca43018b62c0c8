"""torch's global RNG as checkpointable state: dropout draws from it, so exact resume must restore it."""
from __future__ import annotations

import torch


class GlobalRNG:
    """Seeds torch's global generators at the start of a run and saves/restores them with checkpoints."""

    def __init__(self, seed: int, device: torch.device):
        self.cuda = device.type == "cuda"
        torch.manual_seed(seed)  # also seeds CUDA

    def state_dict(self) -> dict:
        s = {"cpu": torch.get_rng_state()}
        if self.cuda:
            s["cuda"] = torch.cuda.get_rng_state()
        return s

    def load_state_dict(self, s: dict) -> None:
        torch.set_rng_state(s["cpu"])
        if self.cuda:
            torch.cuda.set_rng_state(s["cuda"])
