"""torch's global RNG as checkpointable state: dropout draws from it, so exact resume must restore it.

A stacked member (engine/stacked.py) cannot share the one global generator with the other members: it draws its
dropout masks from a generator of its own that starts where the solo run's global one would (`generator`) and
whose state its checkpoint holds in the solo format (`member`), so the member resumes as a solo run or a stack.
"""
from __future__ import annotations

import torch


class GlobalRNG:
    """Seeds torch's global generators at the start of a run and saves/restores them with checkpoints."""

    def __init__(self, seed: int, device: torch.device):
        self.cuda = device.type == "cuda"
        self.seed, self.loaded = seed, None
        self.member: torch.Generator | None = None  # a stacked member's own generator (Stacked sets it)
        torch.manual_seed(seed)  # also seeds CUDA

    def state_dict(self) -> dict:
        s = {"cpu": torch.get_rng_state()}
        if self.cuda:
            s["cuda"] = torch.cuda.get_rng_state()
        if self.member is not None:  # the state a solo run's generator of the same device would hold
            s["cuda" if self.cuda else "cpu"] = self.member.get_state()
        return s

    def load_state_dict(self, s: dict) -> None:
        self.loaded = s
        torch.set_rng_state(s["cpu"])
        if self.cuda:
            torch.cuda.set_rng_state(s["cuda"])

    def generator(self, device: torch.device) -> torch.Generator:
        """A generator on `device` in the state the solo run's global one has now: seeded, or as resumed."""
        g = torch.Generator(device=device).manual_seed(self.seed)
        if self.loaded is not None:
            g.set_state(self.loaded["cuda" if device.type == "cuda" else "cpu"])
        return g
