"""A paper's published numbers against ours: is each one what one more run of ours could have given?

A paper that reports one run per cell and no spread gives no tolerance of its own, and any margin we chose would
be ours. The comparison a referee can defend takes the tolerance from our seeds: the prediction interval for one
new run, mean +- t(1 - a/2, n - 1) s sqrt(1 + 1/n), with a = alpha() / cells (Bonferroni over the cells), widened
by the resolution the paper states for its number (e.g. a GO epoch read every 100 epochs: "1500(100)"). An
interval wider than the range of the published column cannot tell its rows apart: such a cell leaves the claim
underpowered, not holding.

Intervals from three seeds are wide, and a per-cell test cannot see a shift that every cell shares. So the cells
are pooled too (since 2026-12-06, post hoc): were the paper's run one more of ours, its number would lie above all
n of a cell's runs with probability 1/(n + 1), and below all with the same; the count of cells where it does, on
either side, is a sum of independent Bernoullis (exact, Poisson-binomial). A count beyond alpha() / 2 on one side
is a shift between the paper's runs and ours: the claim does not hold, whatever the single cells say.
"""
from __future__ import annotations

import math
from typing import Optional

from scipy.stats import t as student_t

from groklab.experiments.spec import Claim
from groklab.experiments.stats import alpha, pct
from groklab.survival import Censored


def interval(values: list, cells: int, resolution: float = 0.0) -> Optional[tuple[float, float]]:
    """The prediction interval for one new run from `values` (None with fewer than 2), Bonferroni over `cells`."""
    v = [float(x) for x in values if x is not None and not (isinstance(x, float) and math.isnan(x))]
    if len(v) < 2:
        return None
    n, m = len(v), sum(v) / len(v)
    s = math.sqrt(sum((x - m) ** 2 for x in v) / (n - 1))
    half = student_t.ppf(1 - alpha() / (2 * max(cells, 1)), n - 1) * s * math.sqrt(1 + 1 / n) + resolution
    return m - half, m + half


FAR = 10.0  # a cell whose every run is still without its event at FAR x the published time disagrees with it


def matches(id: str, text: str, what: str, values: dict[str, list], reference: dict[str, float],
            resolution: Optional[dict[str, float]] = None, pooling: bool = True, never: bool = False) -> Claim:
    """Every cell's published number lies inside our prediction interval for one new run (see the module):
    holds when each does; does not hold when one lies outside; inconclusive when a cell has fewer than 2 runs
    (precondition), a run only bounds its value (censored: never reached the event), or an interval is wider
    than the published values' range (underpowered: it could not tell the rows apart)."""
    resolution = resolution or {}
    cells = [c for c in reference if reference[c] is not None]
    censored = [k for k in cells if any(isinstance(x, Censored) for x in values.get(k, []))]
    # a run without the event holds a bound, not a value: no interval from bounds (a fresh read, 2026-12-07)
    pis = {c: None if c in censored else interval(values.get(c, []), len(cells), resolution.get(c, 0.0))
           for c in cells}
    agg = {c: {"published": reference[c], "interval": None if pis[c] is None else [round(x, 4) for x in pis[c]],
               "n": len(values.get(c, [])),
               **({"censored": sum(isinstance(x, Censored) for x in values.get(c, []))} if c in censored else {})}
           for c in cells}
    stat = (f"{what} per seed; per cell the {pct()} prediction interval for one new run (t, Bonferroni over "
            f"{len(cells)} cells, widened by the published resolution); holds if every published value lies inside; "
            "does not hold if one lies outside" + (", or if the published values lie beyond all of our runs on one "
                                                   "side in more cells than chance allows (pooled, exact)"
                                                   if pooling else "") + "; otherwise inconclusive")
    per = {k: [None if isinstance(x, Censored) else x for x in values.get(k, [])] for k in cells}
    per.update({f"{k} censored at": [float(x) if isinstance(x, Censored) else None for x in values.get(k, [])]
                for k in censored})
    c = Claim(id, text, stat, per, agg)
    outside = [k for k in cells if k not in censored and pis[k] is not None
               and not pis[k][0] <= reference[k] <= pis[k][1]]
    bounds = "; ".join(f"{k}: {sum(isinstance(x, Censored) for x in values[k])} of {len(values[k])} runs without "
                       f"the event (censored at {_span(values[k])}; published {reference[k]:.4g})" for k in censored)
    if outside:
        c.note = "; ".join(filter(None, ["outside: " + ", ".join(f"{k} ({reference[k]:.4g} vs [{pis[k][0]:.4g}, "
                                                                 f"{pis[k][1]:.4g}])" for k in outside), bounds]))
        return c
    span = max(reference[k] for k in cells) - min(reference[k] for k in cells) if cells else 0.0
    wide = [k for k in cells if len(cells) > 1 and pis[k] is not None and pis[k][1] - pis[k][0] > span]
    far = [k for k in censored if never and reference[k] > 0 and all(
        isinstance(x, Censored) and float(x) >= FAR * reference[k] for x in values.get(k, []))]
    if far:  # an event time the paper prints, never reached in FAR times it by any run: a disagreement, not a bound
        c.holds, c.note = False, "never within {:g}x the published value on any run: ".format(FAR) + ", ".join(
            f"{k} (published {reference[k]:.4g}; every run still without it at {min(map(float, values[k])):,.0f}-"
            f"{max(map(float, values[k])):,.0f})" for k in far)
        return c
    if censored:  # no interval there; where the others cannot tell rows apart either, the data lack power
        none = f"runs of {', '.join(censored)} never reached the event (censored at their last step)"
        if wide and set(wide) | set(censored) == set(cells):
            return c.inconclusive("underpowered", f"the prediction intervals of {len(wide)} of {len(cells)} cells "
                                  f"are wider than the published values' range ({span:.4g}); {none}")
        return c.inconclusive("censored", none)
    few = [k for k in cells if pis[k] is None]
    shift = pooled({k: values.get(k, []) for k in cells if k not in censored}, reference) if pooling else None
    if shift:
        c.aggregate["pooled"] = shift
        if shift["p"] <= alpha() / 2:
            c.holds, c.note = False, (f"the published value lies {shift['side']} all of our runs in {shift['cells']} "
                                      f"of {shift['of']} cells (chance {shift['expected']:.2g}; one-sided p = "
                                      f"{shift['p']:.2g}): a shift between the paper's runs and ours")
            return c
    if few or not cells:
        return c.inconclusive("precondition", f"fewer than 2 runs in {', '.join(few) or 'every cell'}")
    # an interval wider than the published column's own range cannot tell its rows apart: consistent with
    # every number the paper prints, it confirms none of them
    if wide:
        return c.inconclusive("underpowered", f"the prediction intervals of {len(wide)} of {len(cells)} cells are "
                                              f"wider than the published values' range ({span:.4g}): "
                                              f"n = {sorted({len(values.get(k, [])) for k in cells})} seeds")
    c.holds = True
    return c


def _span(xs: list) -> str:
    b = [float(x) for x in xs if isinstance(x, Censored)]
    return f"{min(b):,.0f}" + (f"-{max(b):,.0f}" if max(b) != min(b) else "")


def pooled(values: dict[str, list], reference: dict[str, float]) -> Optional[dict]:
    """The cells where the published value lies above (below) every run of ours, and the exact one-sided p of that
    many or more were it one more run of ours (cell by cell probability 1/(n + 1)); the more extreme side."""
    cells = {k: [float(x) for x in v if x is not None] for k, v in values.items() if reference.get(k) is not None}
    cells = {k: v for k, v in cells.items() if len(v) >= 2}
    if not cells:
        return None
    best = None
    for side, beyond in (("above", lambda r, v: r > max(v)), ("below", lambda r, v: r < min(v))):
        hits = sum(beyond(reference[k], v) for k, v in cells.items())
        probs = [1 / (len(v) + 1) for v in cells.values()]
        dist = [1.0]  # Poisson-binomial by convolution: dist[j] = P(exactly j cells)
        for q in probs:
            dist = [(dist[j] if j < len(dist) else 0.0) * (1 - q) + (dist[j - 1] * q if j else 0.0)
                    for j in range(len(dist) + 1)]
        p = sum(dist[hits:])
        if best is None or p < best["p"]:
            best = {"side": side, "cells": hits, "of": len(cells), "expected": sum(probs), "p": round(p, 6)}
    return best
