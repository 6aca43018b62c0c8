"""A study's controls: runs that must show the phenomenon before the claims resting on them can be judged.

A holdout's ceiling says nothing about grokking when the random split it is compared with never groks either;
"K = 3 groks later than K = 2" says nothing when K = 2 never groks. A study declares its CONTROLS: which runs
(a glob over run names), what they are, and the test accuracy each must reach. When a control run falls short,
the claims resting on it become inconclusive (precondition), not false, and say which run fell short; the
claim about the control itself (`spare`) is judged as usual. claims.json lists each control's check.

A claim about *grokking* -- generalization that arrives long after the training set is fit -- needs more than a
control that reaches its accuracy: ordinary learning reaches it too, with test accuracy rising beside the
training accuracy. Such a control also declares `delay`: every run's t_test / t_train (the first evals at test
accuracy `reach` and at training accuracy FIT) must be at least that; a run that never fits, or never reaches
`reach`, falls short. DELAY = 3 is the Verdicts II issue's definition (002 and 004 give no number; 000's and
004's paper-profile controls show 6-100x, 002's quick Transformer showed 1.04-1.24x: ordinary learning).
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass

import pandas as pd

from groklab.experiments.spec import Claim, verdict_of

FIT = 0.99  # training accuracy at which the training set counts as fit (t_train)
DELAY = 3.0  # t_test / t_train of a control that groks (module doc)


@dataclass(frozen=True)
class Control:
    """Runs matching `runs` must each reach test accuracy `reach` at some eval; claims `rests` (None: every
    claim of the study but `spare`) presuppose it."""

    runs: str  # glob over run names, e.g. "random/*"; several joined by | (a profile's grid has one of them)
    what: str  # in words, e.g. "the random 30% split"
    reach: float = 0.99
    spare: tuple[str, ...] = ()
    rests: tuple[str, ...] | None = None
    delay: float | None = None  # grokking: t_test / t_train at least this on every run (None: reaching suffices)

    def matches(self, run: str) -> bool:
        return any(fnmatch.fnmatchcase(run, g) for g in self.runs.split("|"))

    def rests_on(self, claim_id: str) -> bool:
        return claim_id not in self.spare and (self.rests is None or claim_id in self.rests)


def controls_of(module) -> list[Control]:
    return list(getattr(module, "CONTROLS", ()))


def _ratio(g: pd.DataFrame, reach: float) -> float | None:
    """t_test / t_train of one run's rows (None: it never fit, or never reached `reach`)."""
    g = g.sort_values("step")
    fit = g.loc[g["train/acc"] >= FIT, "step"] if "train/acc" in g else g["step"].iloc[:0]
    hit = g.loc[g["test/acc"] >= reach, "step"]
    if fit.empty or hit.empty:
        return None
    return round(float(hit.iloc[0]) / max(float(fit.iloc[0]), 1.0), 3)


def check(control: Control, df: pd.DataFrame) -> dict:
    """{"what", "runs", "reach", "best" (run -> highest test accuracy), "short" (runs below reach), "ok"}, and
    for a grokking control "delay" (the bound) and "ratio" (run -> t_test / t_train, None where undefined): ok is
    False when a matching run falls short or no run matches (nothing showed the phenomenon)."""
    best, ratio = {}, {}
    if not df.empty and "test/acc" in df:
        rows = df[[control.matches(r) for r in df["run"]]].dropna(subset=["test/acc"])
        best = {run: round(float(g["test/acc"].max()), 4) for run, g in rows.groupby("run")}
        if control.delay is not None:
            ratio = {run: _ratio(g, control.reach) for run, g in rows.groupby("run")}
    short = sorted(r for r, v in best.items() if v < control.reach or control.delay is not None and (
        ratio[r] is None or ratio[r] < control.delay))
    got = {"what": control.what, "runs": control.runs, "reach": control.reach, "best": best, "short": short,
           "ok": bool(best) and not short}
    return got if control.delay is None else {**got, "delay": control.delay, "ratio": ratio}


def _shortfall(control: Control, got: dict) -> str:
    """Why a control failed, in words, naming each run that fell short."""
    if not got["best"]:
        return f"{control.what} never reached test accuracy {control.reach:g} in any run (none trained)"
    if control.delay is None:
        return (f"{control.what} never reached test accuracy {control.reach:g} in "
                + ", ".join(f"{r} (highest {got['best'][r]:.3f})" for r in got["short"]))
    each = [f"{r} (" + (f"highest {got['best'][r]:.3f}" if got["best"][r] < control.reach else
                        "never fit" if got["ratio"][r] is None else f"t_test / t_train {got['ratio'][r]:g}") + ")"
            for r in got["short"]]
    return (f"{control.what} did not grok (test accuracy {control.reach:g} at least {control.delay:g}x the steps "
            f"to fit the training set) in " + ", ".join(each))


def apply(module, df: pd.DataFrame, claims: list[Claim]) -> tuple[list[Claim], list[dict]]:
    """`claims` with those resting on a failed control made inconclusive (precondition); each control's check."""
    checks = [(c, check(c, df)) for c in controls_of(module)]
    for control, got in checks:
        if got["ok"]:
            continue
        why = _shortfall(control, got)
        for claim in claims:
            if control.rests_on(claim.id) and claim.reason != "precondition":
                was = verdict_of(claim.holds, claim.reason)
                claim.inconclusive("precondition", f"The control failed: {why} (read without it: {was}).")
    return claims, [got for _, got in checks]
