"""App. E of paper 004: a circulant (Toeplitz) embedding init groks earlier.

004's code (commented out in transformer/rec.py): W_E = toeplitz(r, r)[:, :vocab] / sqrt(d_model) with
r ~ U[0, 1)^d_model, a symmetric Toeplitz matrix -- not circulant, not zero-mean, despite the text's word.
groklab: model.emb_init=toeplitz (the code) and circulant (shifts of one N(0, 1/d) vector, the text's word),
against the default N(0, 1/d_model) init.
"""
from __future__ import annotations

from pathlib import Path

from groklab.experiments.beyond.profile import base_overrides
from groklab.experiments.spec import Claim, RunSpec, seeded
from groklab.experiments.stats import boot_ratio, censor, median_censored, paired_ratios
from groklab.experiments.variants import curves, per_variant

NAME = "circulant"
TITLE = "Special embedding init: Toeplitz / circulant vs the default"
PAPER = "Can special initialization speed up grokking? A circulant embedding initialization groks earlier."
VARIANTS = {"default": [], "toeplitz": ["model.emb_init=toeplitz"], "circulant": ["model.emb_init=circulant"]}


def runs(profile: str, seeds: int) -> list[RunSpec]:
    base = base_overrides(profile, ["steps=2500"])
    return [s for v, extra in VARIANTS.items() for s in seeded(v, base + extra, seeds)]


def analyze(df, out: Path) -> tuple[list[Path], list[Claim]]:
    figs = curves(df, out / "circulant", "App. E: embedding initialization", list(VARIANTS))
    horizon = int(df["step"].max()) if not df.empty else 0
    return figs, claims(per_variant(df, "go_step", list(VARIANTS)), horizon)


def claims(go: dict, horizon: int = 0) -> list[Claim]:
    out = []
    base = go.get("default", [])
    for v in ("toeplitz", "circulant"):
        x = go.get(v, [])
        r = boot_ratio(censor(x, horizon), censor(base, horizon))
        med = median_censored(x) / median_censored(base) if x and base else float("nan")
        out.append(Claim(f"{v}_groks_earlier", f"The {v} embedding init groks earlier than the default.",
                         "GO step per seed (never: the run's horizon, a lower bound); ratio = mean GO step init / "
                         "default with a 95% bootstrap CI over seeds; holds if the whole CI lies below 1",
                         {v: x, "default": base, "ratio per seed": paired_ratios(x, base)},
                         {"ratio of medians": med, "ratio of means": r["ratio"], "lo": r["lo"], "hi": r["hi"]},
                         r["sign"] == -1))
    return out
