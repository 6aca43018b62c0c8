"""A study's verdicts from its runs' table: its analysis, its controls and its sensitivity arms, at the looks
declared (looks.py). Reads no run folder and prints nothing; the study's analysis draws its figures below `root`.
"""
from __future__ import annotations

from pathlib import Path

from groklab.experiments.assumptions import ARM, arm_rows, judge_arms, split_arms
from groklab.experiments.controls import apply as apply_controls
from groklab.experiments.posthoc import sign_rule, signed_before
from groklab.experiments.spec import seed_of
from groklab.experiments.stats import by_sign, looking


def judge(module, df, root: Path, profile: str, looks: int = 1,
          first_data: str | None = None) -> tuple[list, list, list]:
    """(figure paths, claims, the checks of the controls on the study's own runs): the study's analysis of its
    own runs and of each sensitivity arm's (below arm-<name>/), each checked against the study's controls
    (controls.py), its claims' verdicts combined with the arms' (assumptions.py); every threshold and interval
    held to 0.05 / `looks` (seeds raised on sight of a verdict are a second look). A study whose data
    (`first_data`) existed before the 2026-11-26 change of "does not hold" is judged a second time with it
    reverted (its figures drawn over by today's pass), and the claims it touched marked post hoc (posthoc.sign_rule)."""
    old = None
    if signed_before(first_data):  # first, so that today's pass draws the figures last (analyses read root's runs)
        with by_sign():
            old = _judged(module, df, root, profile, looks)[1]
    figures, claims, controls = _judged(module, df, root, profile, looks)
    if old is not None:
        claims = sign_rule(module.__name__.split(".")[2], root.name, claims, old)
    return figures, claims, controls


def _judged(module, df, root: Path, profile: str, looks: int) -> tuple[list, list, list]:
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
