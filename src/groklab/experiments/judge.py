"""A study's verdicts from its runs' table: its analysis, its controls and its sensitivity arms, at the looks
declared (looks.py). Reads no run folder and prints nothing; the study's analysis draws its figures below `root`.
"""
from __future__ import annotations

from pathlib import Path

from groklab.experiments.assumptions import ARM, arm_rows, judge_arms, split_arms
from groklab.experiments.controls import apply as apply_controls
from groklab.experiments.spec import seed_of
from groklab.experiments.stats import looking


def judge(module, df, root: Path, profile: str, looks: int = 1) -> tuple[list, list, list]:
    """(figure paths, claims, the checks of the controls on the study's own runs): the study's analysis of its
    own runs and of each sensitivity arm's (below arm-<name>/), each checked against the study's controls
    (controls.py), its claims' verdicts combined with the arms' (assumptions.py); every threshold and interval
    held to 0.05 / `looks` (seeds raised on sight of a verdict are a second look)."""
    with looking(looks):
        own, arms = split_arms(df)
        figures, claims = module.analyze(own, root, profile)
        claims, controls = apply_controls(module, own, claims)
        judged, n = {}, len(set(map(seed_of, own["run"]))) if "run" in own else 0
        fewer = {name: k for name, sub in arms.items() if 0 < (k := len(set(map(seed_of, sub["run"])))) < n}
        for name, sub in arms.items():
            k = fewer.get(name)  # an arm at fewer seeds borrows the study's runs at its seeds only
            base = own if k is None else own[[(seed_of(r) or 0) < k for r in own["run"]]]
            sub = arm_rows(module, name, sub, base)
            figs, judged[name] = module.analyze(sub, root / f"{ARM}{name}", profile)
            judged[name] = apply_controls(module, sub, judged[name])[0]
            figures = [*figures, *figs]
        return figures, judge_arms(module, claims, judged, profile, fewer), controls
