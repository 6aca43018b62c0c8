"""Readings of our analysis that the paper leaves open -- a definition, a bar, a reading of a word -- weighed on the
same runs.

A study judges a claim under our reading and, beside it, under each other plausible reading of the same runs
(`weigh`). The paper's sentence fixes none of them, so a decided verdict stands only where every reading decides
it the same way: where one reads otherwise -- the opposite, or undecided -- the claim reads 'depends on an
unstated setting (the choice)', each reading's verdict beside it in `sensitivity`. A training arm
(assumptions.combine) is a second experiment with preconditions of its own, and an undecided arm leaves ours
standing; a reading of the same runs is the same evidence, and one that does not reproduce the verdict shows that
our rule, not the data, decided it.

Ruled 2026-12-06, after every archive's data (a fresh read of the verdicts found choices of ours that decided
verdicts an archived alternative contradicted): a claim it moves is marked post hoc (READINGS), the verdict of
our reading alone beside it.
"""
from __future__ import annotations

from copy import deepcopy

from groklab.experiments.posthoc import Revision, revised
from groklab.experiments.spec import Claim, verdict_of

READINGS = Revision(
    "2026-12-06", "a decided verdict stands only where every plausible reading of the analysis choice, judged on "
    "the same runs, decides it the same way; otherwise it depends on the choice", "our reading alone decided",
    "a fresh read of the verdicts (2026-12-06): readings of ours (a rank definition, a bar, a threshold) decided "
    "verdicts that another plausible reading of the same runs did not reproduce")


def weigh(claim: Claim, field: str, ours: str, others: dict[str, Claim]) -> Claim:
    """`claim` (judged under our reading `ours` of `field`) given the same claim judged on the same runs under each
    other reading in `others` {value: claim}: each beside it in `sensitivity` under 'field=value'; where ours is
    decided and some reading gives another verdict, `field` joins `depends_on` and the claim is marked post hoc
    (READINGS) with ours-alone's verdict beside it."""
    alone = deepcopy(claim)
    mine = verdict_of(claim.holds, claim.reason)
    differ = []
    for value, alt in others.items():
        there = verdict_of(alt.holds, alt.reason)
        claim.sensitivity[f"{field}={value}"] = {"field": field, "ours": ours, "other": value, "at": value,
                                                 "verdict": there, "note": alt.note, "per_seed": alt.per_seed}
        if there != mine:
            differ.append(f"with {value}: {there}")
    if not differ:
        return claim
    said = f"{field} (ours: {ours}) decides it: " + "; ".join(differ)
    if claim.holds is None:  # undecided under ours: nothing of ours decided it, the other readings beside it
        claim.note = "; ".join(filter(None, [claim.note, said]))
        return claim
    claim.depends_on.append(field)
    claim.note = "; ".join(filter(None, [claim.note, said]))
    return revised(claim, alone, READINGS)
