"""The claim vocabulary for levels and trends over seeds (claims.py holds the event-time comparisons).

Every function builds the Claim, writes its statistic text, and returns a three-valued verdict: holds, does
not hold, or inconclusive with its reason (spec.REASONS):
- `every_seed`: a rule that must hold on every seed ("every run reaches 0.99", "no seed rises");
- `all_of`: several of these that must all hold;
- `contrast`: A's mean minus B's has the claimed sign beyond seed noise (a 95% bootstrap CI);
- `within`: A's and B's means agree within a margin; `not_below`: A's mean is not below B's by more than a
  margin (non-inferiority); `below` / `above`: every cell's mean lies beyond a threshold;
- `trend`: the cell means rise or fall with x (Spearman rho with a bootstrap CI); `no_trend` its negation.
An interval on the claimed side holds; one wholly on the other side does not (until 2026-11-26: a point estimate
on the other side; stats.by_sign); the rest is underpowered.
Event times (`claims.Times`) are never averaged: they go to claims.time_claim as right-censored data.
"""
from __future__ import annotations

from typing import Optional

from groklab.experiments.claims import Times, every, time_claim
from groklab.experiments.spec import Claim
from groklab.experiments.stats import boot_diff, boot_mean, pct, sign_decides, spearman_boot
from groklab.survival import Censored


def every_seed(id: str, text: str, what: str, values: dict[str, list], test, rule: str,
               aggregate: Optional[dict] = None, shown: Optional[dict] = None) -> Claim:
    """`test(value)` holds for every seed of every group: `test` (one callable, or one per group) returns True,
    False, or None where a seed cannot tell (its value undefined, its event censored). Holds when every seed
    passes; does not hold when any seed fails; otherwise inconclusive (censored); a group without
    runs: precondition. `shown`: the per-seed values claims.json shows, when not `values` themselves."""
    tests = test if isinstance(test, dict) else {g: test for g in values}
    verdicts = {g: [_tri(tests[g](v)) for v in vals] for g, vals in values.items()}
    failed = {g: sum(x is False for x in v) for g, v in verdicts.items() if any(x is False for x in v)}
    open_ = {g: sum(x is None for x in v) for g, v in verdicts.items() if any(x is None for x in v)}
    agg = {"seeds passing": {g: f"{sum(x is True for x in v)} of {len(v)}" for g, v in verdicts.items()},
           **(aggregate or {})}
    stat = (f"{what} per seed; holds if {rule} on every seed of {', '.join(values) or 'every group'}; does not "
            "hold if any seed fails; otherwise inconclusive")
    c = Claim(id, text, stat, dict(shown if shown is not None else values), agg)
    empty = [g for g, v in values.items() if not len(v)]
    if empty or not values:
        return c.inconclusive("precondition", f"no runs in {', '.join(empty) or 'any group'}")
    if failed:
        c.note = "; ".join(f"{g}: {n} of {len(values[g])} seeds fail" for g, n in failed.items())
        return c
    if open_:
        return c.inconclusive("censored", "; ".join(f"{g}: {n} of {len(values[g])} seeds cannot tell"
                                                 for g, n in open_.items()))
    c.holds = True
    return c


def _tri(r) -> Optional[bool]:
    """A test's answer as True, False or None (a numpy bool is neither `is True` nor `is False`)."""
    return None if r is None else bool(r)


def all_of(id: str, text: str, parts: dict[str, Claim]) -> Claim:
    """One claim made of several that must all hold ({label: claim}): one that fails decides "does not hold",
    else one undecided leaves it undecided (claims.every); statistics and aggregates are kept under each part's
    label, per-seed values once per group (under each label where the parts' values differ)."""
    v = every({k: (c.holds, c.reason, c.note) for k, c in parts.items()})
    per: dict = {}
    for k, part in parts.items():  # a group two parts show alike once; else under each part's label
        for g, x in part.per_seed.items():
            same = [p.per_seed.get(g) for p in parts.values() if g in p.per_seed]
            per[g if all(y == same[0] for y in same) else f"{g} {k}"] = x
    c = Claim(id, text, "; ".join(f"{k}: {c.statistic}" for k, c in parts.items()) + "; holds if every part does",
              per, {k: c.aggregate for k, c in parts.items()}, bool(v[0]), note=v[2] if v[0] is not None else "")
    return c.inconclusive(v[1], v[2]) if v[0] is None else c


def contrast(id: str, text: str, what: str, values: dict[str, list], a: str, b: str, sign: int,
             floor: float | None = None, smallest: float | None = None) -> Claim:
    """`a` minus `b` has the sign `sign` (+1 or -1) beyond seed noise, and with `floor` the mean of a reaches it
    (better than a dead run is not "generalizes"). Event times (a `Times` list) are compared as censored
    data (claims.sooner); levels by a difference of means with a 95% bootstrap CI: holds when the CI lies on
    the claimed side, does not hold when it lies wholly on the other (or a's mean misses `floor`), else
    inconclusive (underpowered). With `smallest`, the least difference the claim is about (a minimum-effect
    test): an interval that rules out every difference that large on the claimed side does not hold either --
    a CI narrower than the effect it is asked about is an answer, not an underpowered one."""
    va, vb = values.get(a, []), values.get(b, [])
    if isinstance(va, Times) or isinstance(vb, Times):
        later = {1: (b, a), -1: (a, b)}[sign]  # sign +1: a later, i.e. b reaches it first
        first, second = (values.get(x, []) for x in later)
        return time_claim(id, text, {"all": ([x for x in first if x is not None],
                                             [x for x in second if x is not None])}, later, what)
    d = boot_diff(va, vb)
    rel = {1: ">", -1: "<"}[sign]
    stat = (f"{what} per seed; difference of means {a} - {b} with a {pct()} percentile-bootstrap CI over seeds; "
            f"holds if the whole CI is {rel} 0" + ("" if floor is None else f" and the mean of {a} is >= {floor}") +
            ("; does not hold if the difference is not" if sign_decides() else
             "; does not hold if the whole CI is on the other side")
            + ("" if smallest is None else f" or {'below' if sign > 0 else 'above'} {sign * smallest:.4g}")
            + ("" if floor is None else " (or the floor is missed)") + "; otherwise inconclusive")
    agg = {f"mean_{a}": boot_mean(va)["mean"], f"mean_{b}": boot_mean(vb)["mean"], "diff": d["diff"],
           "lo": d["lo"], "hi": d["hi"], "n": [len(va), len(vb)]}
    low = floor is not None and (agg[f"mean_{a}"] or 0.0) < floor
    edge = d["hi"] if sign > 0 else d["lo"]  # the CI's end on the claimed side (one seed gives no interval)
    short = smallest is not None and min(len(va), len(vb)) >= 2 and edge is not None and sign * edge < smallest
    c = Claim(id, text, stat, {a: va, b: vb}, agg, d["sign"] == sign and not low and not short)
    if short:
        c.note = (f"the CI [{d['lo']:.3g}, {d['hi']:.3g}] rules out a difference of {smallest:.4g} or more on the "
                  f"claimed side (n = {len(va)}, {len(vb)})")
    elif not c.holds and not low and d["diff"] is not None and (d["diff"] * sign > 0 if sign_decides()
                                                                 else d["sign"] != -sign):
        said = "the claimed" if d["diff"] * sign > 0 else "the other"
        c.inconclusive("underpowered", f"the difference has {said} sign but its CI holds 0 (n = "
                                       f"{len(va)}, {len(vb)})")
    return c


def within(id: str, text: str, what: str, values: dict[str, list], a: str, b: str, margin: float,
           floor: float | None = None) -> Claim:
    """Equivalence: holds when the bootstrap CI of mean(values[a]) - mean(values[b]) lies inside [-margin, margin]
    (and, with `floor`, the mean of b reaches it: two runs that both learned nothing are not "the same"); does
    not hold when the CI lies wholly outside; otherwise inconclusive -- censored (a value is only a bound),
    precondition (b's mean misses `floor`: nothing learned to compare), else underpowered (the CI straddles the
    margin). Until 2026-11-28 a missed floor read as "does not hold", against the rule the claim states."""
    va, vb = values.get(a, []), values.get(b, [])
    d = boot_diff(va, vb)
    floor_ok = floor is None or (boot_mean(vb)["mean"] or 0.0) >= floor
    inside = margin > 0 and min(len(va), len(vb)) >= 2 and -margin <= d["lo"] and d["hi"] <= margin
    stat = (f"{what} per seed; difference of means {a} - {b} with a {pct()} bootstrap CI; holds if the CI lies inside "
            f"[-{margin:.4g}, {margin:.4g}]" + ("" if floor is None else f" and the mean of {b} is >= {floor}"))
    c = Claim(id, text, stat + "; does not hold if it lies wholly outside; otherwise inconclusive", {a: va, b: vb},
              {"diff": d["diff"], "lo": d["lo"], "hi": d["hi"], "margin": margin, "n": [len(va), len(vb)]},
              inside and floor_ok)
    censored = [x for x in (*va, *vb) if isinstance(x, Censored)]
    if censored:  # a mean of values some runs only bound is no number to test equivalence on
        return c.inconclusive("censored", f"{len(censored)} of {len(va) + len(vb)} runs never reached the event "
                                          "within the horizon (their values are bounds)")
    if d["lo"] is None or min(len(va), len(vb)) < 2:
        return c.inconclusive("precondition", f"too few runs to compare (n = {len(va)}, {len(vb)})")
    if d["hi"] < -margin or d["lo"] > margin:
        return c  # wholly outside the margin: different beyond noise
    if not floor_ok:
        return c.inconclusive("precondition", f"the mean of {b} ({boot_mean(vb)['mean']:.3g}) is below {floor}: "
                                              "nothing learned to be the same as")
    if not inside:
        c.inconclusive("underpowered", f"the CI straddles the margin (n = {len(va)}, {len(vb)})")
    return c


def not_below(id: str, text: str, what: str, values: dict[str, list], a: str, b: str, margin: float,
              floor: float | None = None) -> Claim:
    """Non-inferiority: mean(values[a]) is not below mean(values[b]) by more than `margin` ("a is at least as
    good as b", "b is no significant improvement on a"). Holds when the lower end of the 95% bootstrap CI of
    a - b is >= -margin (and, with `floor`, the mean of a reaches it); does not hold when the whole CI lies below
    -margin (or a's mean misses `floor`); otherwise inconclusive (underpowered)."""
    va, vb = values.get(a, []), values.get(b, [])
    d = boot_diff(va, vb)
    mean_a = boot_mean(va)["mean"]
    low = floor is not None and (mean_a or 0.0) < floor
    stat = (f"{what} per seed; difference of means {a} - {b} with a {pct()} bootstrap CI; holds if the CI's lower end "
            f"is >= -{margin:.4g}" + ("" if floor is None else f" and the mean of {a} is >= {floor}") +
            f"; does not hold if {'the difference' if sign_decides() else 'the whole CI'} is below -{margin:.4g}; "
            "otherwise inconclusive")
    ok = min(len(va), len(vb)) >= 2 and d["lo"] is not None and d["lo"] >= -margin and not low
    c = Claim(id, text, stat, {a: va, b: vb}, {"diff": d["diff"], "lo": d["lo"], "hi": d["hi"], "margin": margin,
                                                "n": [len(va), len(vb)]}, ok)
    censored = [x for x in (*va, *vb) if isinstance(x, Censored)]
    if d["diff"] is None:
        return c.inconclusive("precondition", f"no runs to compare ({a}: {len(va)}, {b}: {len(vb)})")
    if censored:  # a mean of times some runs never reached is no number to compare
        return c.inconclusive("censored", f"{len(censored)} of {len(va) + len(vb)} runs never reached the event")
    if not ok and not low and (d["diff"] >= -margin if sign_decides() else
                               d["hi"] >= -margin or min(len(va), len(vb)) < 2):
        c.inconclusive("underpowered", f"the CI [{d['lo']:.4g}, {d['hi']:.4g}] reaches -{margin:.4g} (n = {len(va)}, "
                                       f"{len(vb)})")
    return c


def trend(id: str, text: str, what: str, values: dict[str, list], xs: dict[str, float], sign: int,
          strength: float = 0.0) -> Claim:
    """The per-cell mean rises (sign +1) or falls (-1) with x: Spearman rho between x and the cell means with a
    bootstrap CI (seeds resampled within each cell). Holds when the CI lies on the claimed side of 0 and
    sign * rho >= `strength`; does not hold when the whole CI lies short of `strength` on the claimed side
    (with strength 0: a trend the other way beyond noise, or none at all with no spread); otherwise inconclusive
    (underpowered). Fewer than 3 cells with 2 seeds each: inconclusive (precondition). Event times (`Times`)
    are not averaged: the cells at the smallest and largest x are compared as censored data (claims.sooner)."""
    if any(isinstance(values.get(c), Times) for c in xs):  # censored times: the extreme cells, as censored data
        lo, hi = min(xs, key=xs.get), max(xs, key=xs.get)
        first, second = (hi, lo) if sign < 0 else (lo, hi)  # sign -1: the time falls as x grows
        return time_claim(id, text, {f"{first} vs {second}": ([v for v in values.get(first, []) if v is not None],
                                                             [v for v in values.get(second, []) if v is not None])},
                          (first, second), f"{what}; the cells at the smallest and the largest x compared")
    groups = {xs[c]: [float(v) for v in values[c] if v is not None] for c in xs if values.get(c)}
    groups = {x: v for x, v in groups.items() if v}
    r = spearman_boot(groups)
    side = ">" if sign > 0 else "<"
    bar = f" and rho {side}= {sign * strength:g}" if strength else ""
    stat = (f"{what} per seed; Spearman rho between {', '.join(f'{c}={x}' for c, x in xs.items())} and the cell "
            f"means, {pct()} bootstrap CI (seeds resampled within each cell); holds if the CI is {side} 0{bar}; does "
            + (f"not hold if rho is not{bar or f' {side} 0'}" if sign_decides() else
               f"not hold if the whole CI is short of {sign * strength:g} (the other way)")
            + "; otherwise inconclusive")
    c = Claim(id, text, stat, {c: values.get(c, []) for c in xs}, {**r, "n": [len(v) for v in groups.values()]})
    if r["rho"] is None or not all(len(v) >= 2 for v in groups.values()):  # no noise estimate, no verdict
        return c.inconclusive("precondition", "needs 3 cells with at least 2 seeds each (n = "
                                              f"{[len(v) for v in groups.values()]})")
    near = r["hi"] if sign > 0 else -r["lo"]  # the CI's end nearest the claim, on the claimed axis
    if sign_decides() and (sign * r["rho"] < strength or r["rho"] == 0):  # the rule until 2026-11-26
        c.note = f"rho = {r['rho']:.2f}"
        return c
    if not sign_decides() and (near < strength or (near == 0 and r["lo"] == r["hi"])):
        c.note = f"rho = {r['rho']:.2f}, {pct()} CI [{r['lo']:.2f}, {r['hi']:.2f}]"
        return c
    if sign * r["rho"] >= strength and r["rho"] != 0 and (r["lo"] > 0 if sign > 0 else r["hi"] < 0):
        c.holds = True
        return c
    return c.inconclusive("underpowered", f"rho = {r['rho']:.2f} but its CI [{r['lo']:.2f}, {r['hi']:.2f}] "
                                          f"reaches 0 (n = {[len(v) for v in groups.values()]})")


def no_trend(id: str, text: str, what: str, values: dict[str, list], xs: dict[str, float], sign: int) -> Claim:
    """The cell means do not rise (sign +1) or fall (-1) with x: the negation of `trend` -- holds unless the
    Spearman CI lies wholly on that side of 0 (then it does not hold); fewer than 3 cells: precondition. An
    absence read off a few seeds: the note gives the interval, so a reader sees how much rise it leaves room for."""
    t = trend(id, text, what, values, xs, sign)
    side = ">" if sign > 0 else "<"
    t.statistic = (f"{what} per seed; Spearman rho between x and the cell means, {pct()} bootstrap CI (seeds resampled "
                   f"within each cell); holds unless the whole CI is {side} 0 (then it does not hold)")
    if t.reason == "precondition" or t.aggregate.get("rho") is None:
        return t
    r = t.aggregate
    t.holds, t.reason = not t.holds, ""
    t.note = f"rho = {r['rho']:.2f}, {pct()} CI [{r['lo']:.2f}, {r['hi']:.2f}]"
    return t


def below(id: str, text: str, what: str, values: dict[str, list], cells: list[str], threshold: float,
          aggregate: Optional[dict] = None) -> Claim:
    """Every cell's mean lies below `threshold`: holds when each 95% bootstrap CI lies wholly below it, does not
    hold when a cell's CI lies wholly at or above it (a `Censored` value is a lower bound: bounds already that
    high decide), otherwise inconclusive -- censored when runs hold only bounds, else underpowered."""
    return _beyond(id, text, what, values, cells, threshold, -1, aggregate)


def above(id: str, text: str, what: str, values: dict[str, list], cells: list[str], threshold: float,
          aggregate: Optional[dict] = None) -> Claim:
    """Every cell's mean lies above `threshold`: holds when each 95% bootstrap CI lies wholly above it (lower
    bounds of censored runs included: the values they bound are higher still), does not hold when a cell's CI
    lies wholly at or below it and none of its values is a bound; otherwise inconclusive (censored or
    underpowered)."""
    return _beyond(id, text, what, values, cells, threshold, +1, aggregate)


def _beyond(id, text, what, values, cells, threshold, side: int, aggregate) -> Claim:
    word, edge = ("below", "hi") if side < 0 else ("above", "lo")
    ci = {c: boot_mean(values.get(c, [])) for c in cells}
    stat = (f"{what} per seed (a run without the event: its lower bound); mean with a {pct()} bootstrap CI per cell; "
            f"holds if every CI lies {word} {threshold}; does not hold if "
            + (f"a mean is not {word} it; " if sign_decides() else "a whole CI lies on the other side of it; ")
            + "otherwise inconclusive")
    c = Claim(id, text, stat, {c: values.get(c, []) for c in cells},
              {**{f"{c}_{k}": v[k] for c, v in ci.items() for k in ("mean", edge)}, "n": [ci[k]["n"] for k in cells],
               "threshold": threshold,
               **(aggregate or {})}, False)
    if not cells or any(v["mean"] is None for v in ci.values()):
        return c.inconclusive("precondition", "a cell has no run with a value")
    bounds = {k: sum(isinstance(x, Censored) for x in values.get(k, [])) for k in cells}
    # a cell decides against the claim only when its whole CI is on the other side (one seed: no interval)
    wrong = [k for k, v in ci.items() if v["n"] >= 2 and (v["lo"] >= threshold if side < 0 else v["hi"] <= threshold)]
    if sign_decides():  # the rule until 2026-11-26: a mean on the other side decided
        wrong = [k for k, v in ci.items() if side * (v["mean"] - threshold) <= 0]
    if side > 0 and all(v["lo"] is not None and v["lo"] > threshold for v in ci.values()):
        c.holds = True
        return c
    if wrong and (side < 0 or not any(bounds[k] for k in wrong)):  # below: bounds already too high decide
        c.note = (f"the mean of {', '.join(wrong)} is not {word} {threshold}" if sign_decides() else
                  f"the CI of {', '.join(wrong)} lies wholly on the other side of {threshold}")
        return c
    if sum(bounds.values()):
        return c.inconclusive("censored", f"{sum(bounds.values())} runs never reached the event: their values are "
                                          "only bounded below, and the bounds do not decide")
    if side < 0 and all(v["hi"] is not None and v["hi"] < threshold for v in ci.values()):
        c.holds = True
        return c
    open_ = [k for k, v in ci.items()
             if v["lo"] is None or (v["hi"] >= threshold if side < 0 else v["lo"] <= threshold)]
    return c.inconclusive("underpowered", f"the CI of {', '.join(open_)} reaches {threshold} "
                                          f"(n = {[ci[k]['n'] for k in cells]})")
