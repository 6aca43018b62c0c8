"""App. E of paper 004: a circulant (Toeplitz) embedding init groks earlier.

004's code (commented out in transformer/rec.py): W_E = toeplitz(r, r)[:, :vocab] / sqrt(d_model) with
r ~ U[0, 1)^d_model, a symmetric Toeplitz matrix -- not circulant, not zero-mean, despite the text's word.
groklab: model.emb_init=toeplitz (the code) and circulant (shifts of one N(0, 1/d) vector, the text's word),
against the default N(0, 1/d_model) init.
"""
from __future__ import annotations

from pathlib import Path

from groklab.experiments.beyond.profile import base_overrides
from groklab.experiments.claims import at_horizon, time_claim
from groklab.experiments.spec import Claim, RunSpec, seeded
from groklab.experiments.variants import curves, per_variant

NAME = "circulant"
TITLE = "Special embedding init: Toeplitz / circulant vs the default"
PAPER = "Can special initialization speed up grokking? A circulant embedding initialization groks earlier."
VARIANTS = {"default": [], "toeplitz": ["model.emb_init=toeplitz"], "circulant": ["model.emb_init=circulant"]}


def runs(profile: str, seeds: int) -> list[RunSpec]:
    base = base_overrides(profile, ["steps=2500"])
    return [s for v, extra in VARIANTS.items() for s in seeded(v, base + extra, seeds)]


def analyze(df, out: Path, profile: str = "quick") -> tuple[list[Path], list[Claim]]:
    figs = curves(df, out / "circulant", "App. E: embedding initialization", list(VARIANTS))
    horizon = int(df["step"].max()) if not df.empty else 0
    return figs, claims(per_variant(df, "go_step", list(VARIANTS)), horizon)


def claims(go: dict, horizon: int = 0) -> list[Claim]:
    """Each structured init reaches GO (grokking onset) before the default (censored at `horizon`)."""
    base = at_horizon(go.get("default", []), horizon)
    return [time_claim(f"{v}_groks_earlier", f"The {v} embedding init groks earlier than the default.",
                       {"all": (at_horizon(go.get(v, []), horizon), base)}, (v, "default"),
                       "GO step (grokking onset) per seed") for v in ("toeplitz", "circulant")]
