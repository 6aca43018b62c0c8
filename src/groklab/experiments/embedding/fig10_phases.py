"""Fig. 10's sentence on W's rank is about a shape: "an early drop during training loss reduction, a plateau, and a
final decline aligned with grokking" (000 App. C.2).

The net decline ((first - last) / first, fig10.py) is met by the early drop alone: by step 200 of the quick runs
rank(W) has fallen 20-33%. The shape needs the phases timed, and the spectra are measured every 100 (quick) or
250 (paper) steps: the stretch from t_train to t_test, where the early drop must end, the plateau lie and the final
decline begin, holds a handful of measures, and where the decline is steepest and where it begins tell different
stories (a fresh read, 2026-12-06: Adam wd 1e-3 pauses for one interval near t_test and falls fastest at about
2x t_test). So the claim is inconclusive (precondition: the cadence cannot time the phases), the net decline shown
beside it as the replaced verdict. Written 2026-12-06, after the runs were archived.
"""
from __future__ import annotations

from groklab.experiments.posthoc import Revision, precondition
from groklab.experiments.spec import Claim

PHASES = Revision("2026-12-06", "inconclusive (precondition) while the measuring cadence cannot time the three "
                  "phases; the net decline shown beside", "the net decline (first - last) / first alone",
                  "a fresh read (2026-12-06): the early drop alone clears the net-decline bar, so a 'holds' on it "
                  "says nothing of the plateau or of the final decline aligned with grokking")


def measures_between(steps, t_train, t_test) -> int | None:
    """How many measures lie from t_train to t_test (None: the run never fit or never generalized)."""
    known = lambda t: t is not None and t == t and t > 0  # noqa: E731
    if not (known(t_train) and known(t_test)):
        return None
    return int(sum(t_train <= s <= t_test for s in steps))


def untimed(net: Claim, counts: list) -> Claim:
    """`net` (the net-decline claim, judged) made inconclusive (precondition) with the measures per run between
    t_train and t_test said; its own verdict beside it (PHASES)."""
    have = [c for c in counts if c is not None]
    span = f"{min(have)}-{max(have)}" if have else "no"
    net.aggregate["measures from t_train to t_test"] = span
    why = (f"the three phases (early drop, plateau, final decline with grokking) are not timed: from t_train to "
           f"t_test the spectra are measured {span} times per run; the net decline is the replaced verdict")
    return precondition(net, why, PHASES)
