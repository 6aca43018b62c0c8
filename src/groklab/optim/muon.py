"""Muon for the hidden weight matrices, AdamW for everything else, as one optimizer.

Muon (torch.optim.Muon: Nesterov momentum 0.95, five Newton-Schulz steps) orthogonalises the update of a 2-D
weight; it is not meant for embeddings, output heads, biases or norms (Jordan et al. 2024; Moonshot 2025), which
AdamW drives. Every groklab model names its embedding `E`, its positions `pos` and its head `U`: those, and every
tensor that is not 2-D, go to AdamW. The Muon update is scaled to AdamW's RMS (`adjust_lr_fn="match_rms_adamw"`,
0.2 sqrt(max(A, B))), so one learning rate and one weight decay serve both halves: a tuning range over lr means
the same for Muon as for AdamW.
"""
from __future__ import annotations

import torch
from torch import nn

ADAMW_NAMES = ("E.", "pos.", "U.")  # embedding, positions, head: AdamW's, as Muon's authors do


def muon_groups(model: nn.Module, groups: list[dict]) -> tuple[list[dict], list[dict]]:
    """The parameter groups (param_groups' dicts, each with its `c` and `role`) split into Muon's and AdamW's."""
    names = {id(t): n for n, t in model.named_parameters()}
    is_muon = lambda t: t.ndim == 2 and not names[id(t)].startswith(ADAMW_NAMES)  # noqa: E731
    muon, adamw = [], []
    for g in groups:
        for part, keep in ((muon, True), (adamw, False)):
            params = [t for t in g["params"] if is_muon(t) == keep]
            if params:
                part.append({**g, "params": params})
    return muon, adamw


class MuonAdamW:
    """torch.optim.Muon on the hidden matrices and torch.optim.AdamW on the rest, behind one optimizer's
    interface: `param_groups` lists both halves' group dicts (the same objects, so set_lr and set_c reach
    them), and the state dict holds each half's own torch state (a checkpoint resumes exactly)."""

    def __init__(self, model: nn.Module, groups: list[dict], lr: float, weight_decay: float, betas, eps: float):
        muon, adamw = muon_groups(model, groups)
        self.muon = torch.optim.Muon(muon, lr=lr, weight_decay=weight_decay,
                                     adjust_lr_fn="match_rms_adamw") if muon else None
        self.adamw = torch.optim.AdamW(adamw, lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay)
        self.halves = [o for o in (self.muon, self.adamw) if o is not None]
        self.defaults = {"lr": lr, "weight_decay": weight_decay}

    @property
    def param_groups(self) -> list[dict]:
        return [g for o in self.halves for g in o.param_groups]

    @property
    def state(self) -> dict:
        return {t: s for o in self.halves for t, s in o.state.items()}

    @torch.no_grad()
    def step(self) -> None:
        for o in self.halves:
            o.step()

    def zero_grad(self, set_to_none: bool = True) -> None:
        for o in self.halves:
            o.zero_grad(set_to_none=set_to_none)

    def state_dict(self) -> dict:
        return {"muon": self.muon.state_dict() if self.muon is not None else None,
                "adamw": self.adamw.state_dict()}

    def load_state_dict(self, state: dict) -> None:
        if set(state) != {"muon", "adamw"} or (state["muon"] is None) != (self.muon is None):
            raise KeyError("not a Muon + AdamW optimizer state (keys 'muon' and 'adamw')")
        if self.muon is not None:
            self.muon.load_state_dict(state["muon"])
        self.adamw.load_state_dict(state["adamw"])


__all__ = ["ADAMW_NAMES", "MuonAdamW", "muon_groups"]
