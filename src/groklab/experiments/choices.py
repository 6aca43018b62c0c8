"""Readings of our analysis that the paper leaves open -- a definition, a bar, a reading of a word -- weighed on the
same runs.

A study judges a claim under our reading and, beside it, under each other plausible reading of the same runs
(`weigh`). The paper's sentence fixes none of them: where one reading decides the opposite of ours (one holds,
another does not), the claim reads 'depends on an unstated setting (the choice)', each reading's verdict beside
it in `sensitivity`. A reading that leaves the claim undecided (its bar out of reach at this n) rescues nothing:
ours stands, and the note says which readings agree and which cannot tell -- as a training arm's undecided
verdict leaves ours standing (assumptions.combine). (Until a fresh read of 2026-12-06 an undecided reading made
the verdict depend too: that credited the paper with a rescue no reading gave it.)

Ruled 2026-12-06, after every archive's data (a fresh read of the verdicts found choices of ours that decided
verdicts an archived alternative contradicted): a claim it moves is marked post hoc (READINGS), the verdict of
our reading alone beside it.
"""
from __future__ import annotations

from copy import deepcopy

from groklab.experiments.posthoc import Revision, revised
from groklab.experiments.spec import Claim, verdict_of

READINGS = Revision(
    "2026-12-06", "where another plausible reading of the analysis choice, judged on the same runs, decides the "
    "opposite of ours, the verdict depends on the choice", "our reading alone decided",
    "a fresh read of the verdicts (2026-12-06): readings of ours (a rank definition, a bar, a threshold) decided "
    "verdicts that another plausible reading of the same runs did not reproduce")


def weigh(claim: Claim, field: str, ours: str, others: dict[str, Claim]) -> Claim:
    """`claim` (judged under our reading `ours` of `field`) given the same claim judged on the same runs under each
    other reading in `others` {value: claim}: each beside it in `sensitivity` under 'field=value'; where ours is
    decided and some reading decides the opposite, `field` joins `depends_on` and the claim is marked post hoc
    (READINGS) with ours-alone's verdict beside it; otherwise ours stands, the other readings said in the note."""
    alone = deepcopy(claim)
    mine = verdict_of(claim.holds, claim.reason)
    differ, opposite = [], False
    for value, alt in others.items():
        there = verdict_of(alt.holds, alt.reason)
        claim.sensitivity[f"{field}={value}"] = {"field": field, "ours": ours, "other": value, "at": value,
                                                 "verdict": there, "note": alt.note, "per_seed": alt.per_seed}
        if there != mine:
            differ.append(f"with {value}: {there}")
        opposite |= None not in (alt.holds, claim.holds) and alt.holds != claim.holds
    if not differ:
        if others:
            claim.note = "; ".join(filter(None, [claim.note, f"the same under every {field} ({', '.join(others)})"]))
        return claim
    if not opposite:  # no reading decides otherwise: ours stands, the undecided ones said beside it
        claim.note = "; ".join(filter(None, [claim.note, f"{field} (ours: {ours}): " + "; ".join(differ)]))
        return claim
    claim.depends_on.append(field)
    claim.note = "; ".join(filter(None, [claim.note, f"{field} (ours: {ours}) decides it: " + "; ".join(differ)]))
    return revised(claim, alone, READINGS)
