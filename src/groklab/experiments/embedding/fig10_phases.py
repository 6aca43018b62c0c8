"""Fig. 10's sentence on W's rank is about a shape: "an early drop during training loss reduction, a plateau, and a
final decline aligned with grokking" (000 App. C.2).

The net decline ((first - last) / first, fig10.py) is met by the early drop alone: by step 200 of the quick runs
rank(W) has fallen 20-33%. So the sentence is judged on the shape, run by run, in three windows of its own events:
A = [0, t_train] (the training loss falls), B = [t_train, t_go] (between the fit and the take-off of test accuracy,
grok_events' go_step: where a plateau would lie) and C = [t_go, t_test] (the test accuracy rises: grokking). In
each window the decline rate of rank(W) per 100 steps, relative to its rank at step 0, ranks read off the measured
curve by linear interpolation at the window's ends. A run shows the shape when A and C each fall at least
FASTER times as fast as B moves either way (|rate B|), both falling. A window with fewer than MIN_MEASURES
measures in it cannot be timed: the run is untimed. A setup shows the shape when most of its runs do, and not
when most do not; the sentence ("in every setup") holds when every judged setup shows it, does not hold when one
does not, and is otherwise inconclusive (precondition: untimed runs).

History (posthoc.Revision below): until 2026-12-06 the net decline alone decided (holds). Then a fresh read
showed the early drop alone clears that bar, and with spectra every 100 steps the phases could not be timed: the
claim was made inconclusive (precondition). A second read (2026-12-06) showed the stored curves lean against the
shape in two setups: the quick runs were retrained with spectra every 20 steps and this rule judges them.
FASTER and MIN_MEASURES are ours, written after the coarse runs were seen and before the retrained ones.
"""
from __future__ import annotations

import numpy as np

from groklab.experiments.posthoc import Revision, revised
from groklab.experiments.spec import Claim

FASTER = 2.0
MIN_MEASURES = 3
PHASES = Revision("2026-12-06", "judged on the three phases' decline rates run by run (fig10_phases: A and C at "
                  f"least {FASTER:g}x as fast as the plateau B), untimed runs inconclusive (precondition)",
                  "the net decline (first - last) / first alone",
                  "fresh reads (2026-12-06): the early drop alone clears the net-decline bar, so a 'holds' on it "
                  "says nothing of the plateau or of the final decline aligned with grokking")


def _known(t) -> bool:
    return t is not None and t == t and t > 0


def shape(steps, ranks, t_train, t_go, t_test, shift: float = 0.0, late: float = 0.0) -> dict:
    """One run's three windows: rates per 100 steps (relative to the rank at step 0), measures per window, and
    `shows`: True / False, or None where the run cannot be timed (an event missing, a window under-measured).
    `shift`: window A ends that many steps after t_train; `late`: window C ends that many after t_test, at most at
    the last measure (readings weighed beside ours)."""
    steps, ranks = np.asarray(steps, dtype=float), np.asarray(ranks, dtype=float)
    out = {"shows": None}
    if not (len(steps) and all(map(_known, (t_train, t_go, t_test)))) or not t_train + shift < t_go < t_test \
            or ranks[0] <= 0:
        return out
    ends = [0.0, float(t_train) + shift, float(t_go), min(float(t_test) + late, max(float(steps[-1]), t_test))]
    at = np.interp(ends, steps, ranks)
    n = [int(((a <= steps) & (steps <= b)).sum()) for a, b in zip(ends, ends[1:])]
    rate = [100 * (at[i] - at[i + 1]) / ranks[0] / (ends[i + 1] - ends[i]) for i in range(3)]
    out.update({"rates": [round(r, 4) for r in rate], "measures": n})
    if min(n) < MIN_MEASURES:
        return out
    a, b, c = rate
    out["shows"] = bool(a > 0 and c > 0 and a >= FASTER * abs(b) and c >= FASTER * abs(b))
    return out


def by_setup(curves: dict, table, setups, definition: str, shift: float = 0.0, late: float = 0.0) -> dict:
    """setup -> [shape(...) per run] under one rank definition; curves: run -> {(definition, matrix): (steps, r)}."""
    out = {s: [] for s in setups}
    for run in sorted(curves):
        name = run.split("/")[0]
        if name in out:
            steps, r = curves[run].get((definition, "W"), ([], []))
            ev = table.loc[run] if run in table.index else {}
            out[name].append(shape(steps, r, *(ev.get(k) for k in ("t_train", "go_step", "t_test")), shift=shift,
                                   late=late))
    return out


def _setup_says(runs: list) -> bool | None:
    yes, no = sum(r["shows"] is True for r in runs), sum(r["shows"] is False for r in runs)
    return True if 2 * yes > len(runs) else False if 2 * no > len(runs) else None


def phases(net: Claim, runs: dict) -> Claim:
    """The shape claim (id and text of `net`, the net-decline claim judged) judged on `runs` (by_setup), marked
    post hoc with the net decline's verdict beside it."""
    says = {s: _setup_says(r) for s, r in runs.items()}
    c = Claim(net.id, net.text, "rank(W)'s decline rate per 100 steps (relative to step 0) in A = [0, t_train], "
              f"B = [t_train, t_go], C = [t_go, t_test], interpolated at the ends; a run shows the shape when A and "
              f"C both fall at least {FASTER:g}x as fast as |B| (each window >= {MIN_MEASURES} measures, else "
              "untimed); a setup shows it when most of its runs do; holds if every setup shows it, does not hold if "
              "one does not", {s: [None if r["shows"] is None else float(r["shows"]) for r in v]
                               for s, v in runs.items()},
              {"runs showing the shape": {s: _counts(v) for s, v in runs.items()},
               "rates A, B, C (median per setup)": {s: _median_rates(v) for s, v in runs.items()},
               "measures per window (min)": {s: _min_measures(v) for s, v in runs.items()}})
    if any(v is False for v in says.values()):
        c.holds = False
        c.note = "; ".join(f"{s}: most runs do not show the shape" for s, v in says.items() if v is False)
    elif says and all(v is True for v in says.values()):
        c.holds = True
    else:
        open_ = [s for s, v in says.items() if v is None]
        c.inconclusive("precondition", f"{', '.join(open_) or 'no setup'}: too few runs timed (each window needs "
                       f">= {MIN_MEASURES} measures: the cadence cannot time the phases) or no majority")
    return revised(c, net, PHASES)


def _counts(runs: list) -> str:
    return f"{sum(r['shows'] is True for r in runs)} of {len(runs)} ({sum(r['shows'] is None for r in runs)} untimed)"


def _median_rates(runs: list) -> list | None:
    have = [r["rates"] for r in runs if "rates" in r]
    return [round(float(x), 4) for x in np.median(have, axis=0)] if have else None


def _min_measures(runs: list) -> list | None:
    have = [r["measures"] for r in runs if "measures" in r]
    return [int(x) for x in np.min(have, axis=0)] if have else None
