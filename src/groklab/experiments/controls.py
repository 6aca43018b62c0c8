"""A study's controls: runs that must show the phenomenon before the claims resting on them can be judged.

A holdout's ceiling says nothing about grokking when the random split it is compared with never groks either;
"K = 3 groks later than K = 2" says nothing when K = 2 never groks. A study declares its CONTROLS: which runs
(a glob over run names), what they are, and the test accuracy each must reach. When a control run falls short,
the claims resting on it become inconclusive (precondition), not false, and say which run fell short; the
claim about the control itself (`spare`) is judged as usual. claims.json lists each control's check.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass

import pandas as pd

from groklab.experiments.spec import Claim, verdict_of


@dataclass(frozen=True)
class Control:
    """Runs matching `runs` must each reach test accuracy `reach` at some eval; claims `rests` (None: every
    claim of the study but `spare`) presuppose it."""

    runs: str  # glob over run names, e.g. "random/*"
    what: str  # in words, e.g. "the random 30% split"
    reach: float = 0.99
    spare: tuple[str, ...] = ()
    rests: tuple[str, ...] | None = None

    def rests_on(self, claim_id: str) -> bool:
        return claim_id not in self.spare and (self.rests is None or claim_id in self.rests)


def controls_of(module) -> list[Control]:
    return list(getattr(module, "CONTROLS", ()))


def check(control: Control, df: pd.DataFrame) -> dict:
    """{"what", "runs", "reach", "best" (run -> highest test accuracy), "short" (runs below reach), "ok"}:
    ok is False when a matching run falls short or no run matches (nothing showed the phenomenon)."""
    best = {}
    if not df.empty and "test/acc" in df:
        rows = df[[fnmatch.fnmatchcase(r, control.runs) for r in df["run"]]].dropna(subset=["test/acc"])
        best = {run: round(float(g["test/acc"].max()), 4) for run, g in rows.groupby("run")}
    short = sorted(r for r, v in best.items() if v < control.reach)
    return {"what": control.what, "runs": control.runs, "reach": control.reach, "best": best, "short": short,
            "ok": bool(best) and not short}


def apply(module, df: pd.DataFrame, claims: list[Claim]) -> tuple[list[Claim], list[dict]]:
    """`claims` with those resting on a failed control made inconclusive (precondition); each control's check."""
    checks = [(c, check(c, df)) for c in controls_of(module)]
    for control, got in checks:
        if got["ok"]:
            continue
        why = (f"{control.what} never reached test accuracy {control.reach:g} in "
               + (", ".join(f"{r} (highest {got['best'][r]:.3f})" for r in got["short"]) if got["best"]
                  else "any run (none trained)"))
        for claim in claims:
            if control.rests_on(claim.id) and claim.reason != "precondition":
                was = verdict_of(claim.holds, claim.reason)
                claim.inconclusive("precondition", f"The control failed: {why} (read without it: {was}).")
    return claims, [got for _, got in checks]
