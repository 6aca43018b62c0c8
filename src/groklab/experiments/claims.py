"""The claim vocabulary the studies share: statements about event times, judged as right-censored data.

A verdict is three-valued: True (holds), False (does not hold), None (inconclusive, with a reason from
spec.REASONS). `sooner` judges "A reaches the event before B" on one comparison; `every` joins comparisons
that must all hold (Kleene's AND: one that fails decides "does not hold", else one undecided leaves the
whole undecided); `time_claim` builds the Claim, and `at_thresholds` says when a verdict depends on the
accuracy threshold that defines the event.

Decision rule (ours; papers state none): the Gehan concordance P(a run of A reaches the event first), pairs
that censoring leaves open counted as ties, with a one-sided permutation p-value (survival.py; exact up to 20,000
labellings of the runs, Monte Carlo past them):
- holds when P > 1/2 and p <= ALPHA: the claim is directional, so the test is one-sided;
- does not hold when the runs show the opposite order beyond noise (P < 1/2, one-sided p <= ALPHA for it):
  evidence against the claim, not its absence;
- inconclusive (censored) when most pairs are left open by runs that never reached the event, and
  (underpowered) when neither order is beyond noise -- with 3 seeds per arm, one overlap is enough; the
  note gives both p-values and the smallest p the sample sizes allow.
Until 2026-11-26 "does not hold" was P <= 1/2, the sign of a point estimate: with a true P = 0.7 it said so for
20% of one-cell and 58% of four-cell claims at 3 seeds per arm (benchmarks/verdict_rates.py).
"""
from __future__ import annotations

import math
from statistics import NormalDist
from typing import Optional, Sequence

import numpy as np
import pandas as pd

from groklab.experiments.posthoc import NO_LEAN, revised
from groklab.experiments.spec import Claim, says  # noqa: F401 -- says: the studies import it from here
from groklab.experiments.stats import ALPHA, alpha, opposite, select, sign_decides
from groklab.survival import Censored, concordance, km_median

Verdict = tuple  # (holds: bool | None, reason: str, why: str)


class Times(list):
    """Event times per seed: a step, `Censored(bound)` where the run ended without the event, None where the
    time is undefined (a gap whose fit never came)."""


def event_times(t: pd.DataFrame, col: str = "t_test", **where) -> list:
    """Per seed (by seed order) the step of the event, or `Censored(last step)` for a run that ended without it."""
    sub = select(t, **where) if len(t) else t
    return [Censored(int(r["last_step"])) if _none(r[col]) else float(r[col]) for _, r in sub.iterrows()]


def at_horizon(values: Sequence, horizon: float) -> list:
    """Per-seed times with None (never reached) as `Censored(horizon)`: runs that all ended at `horizon`."""
    return [Censored(horizon) if _none(v) else float(v) for v in values]


def at_last(values: Sequence, last: Sequence) -> list:
    """Per-seed times with None (never reached) as `Censored(that run's last step)`: runs that may have ended
    at different steps (a plateau stop)."""
    return [Censored(float(n)) if _none(v) else float(v) for v, n in zip(values, last)]


def shown(times: Sequence) -> list:
    """Times as claims.json shows them per seed: the step (a derived ratio to 4 decimals), or None where the run
    never reached the event."""
    return [None if isinstance(x, Censored) else int(x) if float(x).is_integer() else round(float(x), 4)
            for x in times]


def horizon_of(*groups: Sequence) -> float:
    """The latest step any run of the groups was seen at (their common horizon)."""
    return max((float(x) for g in groups for x in g), default=0.0)


def sooner(a: Sequence, b: Sequence, horizon: Optional[float] = None, level: Optional[float] = None) -> dict:
    """Statistics of "A reaches the event before B" and the verdict at p <= `level` (alpha() unless given):
    {"P(A first)", "p", "n", "median A", "median B", "open pairs", "verdict": (holds, reason, why)}."""
    level = alpha() if level is None else level
    horizon = horizon_of(a, b) if horizon is None else horizon
    c = _near_bar(list(a), list(b), horizon, level)
    ma, mb = (km_median(list(g), horizon) for g in (a, b))
    out = {"P(A first)": c["p_a_first"], "p": c["p_a_sooner"], "n": [len(a), len(b)],
           "median A": [ma["median"], ma["lo"], ma["hi"]], "median B": [mb["median"], mb["lo"], mb["hi"]],
           "open pairs": c["undecided"]}
    out["verdict"] = _judge(c, ma["events"] + mb["events"], level)
    return out


def lower(a: Sequence[float], b: Sequence[float], level: Optional[float] = None) -> dict:
    """Statistics of "A's values lie below B's" for levels no run can fail to have (final accuracy, ...): the
    Mann-Whitney P(a value of A is below one of B), ties 1/2, with its exact one-sided p; the same verdict rule."""
    top = max((float(x) for x in (*a, *b)), default=0.0) + 1.0
    level = alpha() if level is None else level
    c = _near_bar([float(x) for x in a], [float(x) for x in b], top, level)
    out = {"P(A lower)": c["p_a_first"], "p": c["p_a_sooner"], "n": [len(a), len(b)],
           "median A": _median(a), "median B": _median(b)}
    out["verdict"] = _judge(c, len(a) + len(b), level)
    return out


EXACT_NEAR_BAR = 200_000  # labellings an exact null may enumerate where a Monte Carlo p sits near the bar


def _near_bar(a: list, b: list, horizon: float, level: float) -> dict:
    """concordance, made exact (up to EXACT_NEAR_BAR labellings) where its Monte Carlo p lies within three of its
    standard errors of the bar `level`: a verdict must not rest on the draw (a nineteenth read: 0.0162 against 0.0167
    by Monte Carlo, 0.01665 exact)."""
    c = concordance(a, b, horizon)
    n = math.comb(len(a) + len(b), len(a)) if a and b else 0
    if not MAX_EXACT < n <= EXACT_NEAR_BAR:
        return c
    se = 3 * math.sqrt(level * (1 - level) / MAX_EXACT)
    if any(c[k] is not None and abs(c[k] - level) <= se for k in ("p_a_sooner", "p_b_sooner")):
        return concordance(a, b, horizon, max_exact=n)
    return c


def _median(v: Sequence[float]) -> Optional[float]:
    return float(np.median(v)) if len(v) else None


def _judge(c: dict, events: int, alpha: float) -> Verdict:
    na, nb = c["n_a"], c["n_b"]
    if not na or not nb:
        return None, "precondition", f"an arm has no runs (n = {na}, {nb})"
    if not events:
        return None, "censored", "no run of either arm reached the event"
    P, p = c["p_a_first"], c["p_a_sooner"]
    if c["undecided"] > na * nb / 2:
        return None, "censored", f"{c['undecided']} of {na * nb} pairs are left open by runs without the event"
    if P > 0.5 and p <= alpha + 1e-12:
        return True, "", ""
    if sign_decides() and P <= 0.5:  # the rule replaced on 2026-11-26 (posthoc.SIGN_RULE)
        return False, "", f"P = {P:.2f}: the runs do not show the claimed order"
    rev = c["p_b_sooner"]
    if P < 0.5 and rev <= alpha + 1e-12:  # the opposite order, beyond noise: evidence against the claim
        return False, "", f"P = {P:.2f}: the runs show the opposite order (one-sided p = {rev:.3g} for it)"
    floor = 1 / math.comb(na + nb, na)
    said = (f"neither order beyond noise (one-sided p = {p:.3g} for the claimed one, {rev:.3g} for the opposite) with "
            f"n = {na}, {nb} (the smallest p these n allow: {floor:.3g})")
    if P < LEAN:  # no lean the claimed way: more seeds are not what it lacks (reads 20 and 21, 2026-12-07)
        up = min(1.0, P + NormalDist().inv_cdf(1 - alpha) * math.sqrt((na + nb + 1) / (12 * na * nb)))
        return None, NO_EFFECT, (f"P = {P:.3g}: no lean toward the claimed order (P below {LEAN}, the least "
                                 f"'small' effect); {said}; these n cannot rule out a P as high as {up:.2f} on the "
                                 "claimed side (normal approximation)")
    return None, "underpowered", f"P = {P:.2f}: {said}"


LEAN = 0.56  # Vargha and Delaney's least "small" effect: a P(A first) below it leans no way worth more seeds
NO_EFFECT = "no effect seen"  # the reason below LEAN; "underpowered" above it (posthoc.NO_LEAN)


def _looked() -> str:
    """Said in a rule judged after its study's seeds were raised on sight of a verdict (experiments/looks.py)."""
    n = round(ALPHA / alpha())
    return f" (look {n} at these runs: {ALPHA:g} / {n}, Bonferroni over the looks)" if n > 1 else ""


def every(verdicts: dict[str, Verdict]) -> Verdict:
    """All comparisons must hold: any that fails decides; else any undecided leaves the claim undecided."""
    failed = [k for k, v in verdicts.items() if v[0] is False]
    if failed:
        return False, "", "; ".join(f"fails in {k}" + (f" ({verdicts[k][2]})" if verdicts[k][2] else "")
                                    for k in failed)
    open_ = {k: v for k, v in verdicts.items() if v[0] is None}
    if open_:
        reasons = [v[1] for v in open_.values()]
        reason = max(reasons, key=reasons.count)  # a tie: the first cell's (a set's order varies by process)
        return None, reason, "; ".join(f"{k}: {v[2]}" for k, v in open_.items())
    return (True, "", "") if verdicts else (None, "precondition", "no comparison could be made")


def some(verdicts: dict[str, Verdict]) -> Verdict:
    """At least one comparison must hold (Kleene's OR): any that holds decides; else any undecided leaves the
    claim undecided; it does not hold only when every comparison fails."""
    held = [k for k, v in verdicts.items() if v[0] is True]
    if held:
        return True, "", "holds in " + ", ".join(held)
    if not verdicts or any(v[0] is None for v in verdicts.values()):
        v = every({k: v for k, v in verdicts.items() if v[0] is None})
        return v if verdicts else (None, "precondition", "no comparison could be made")
    return False, "", "fails in every cell"


def at_thresholds(primary: Verdict, others: dict[str, Verdict]) -> str:
    """A note when the verdict changes with the accuracy threshold that defines the event ('' when not)."""
    differ = {k: v for k, v in others.items() if v[0] != primary[0]}
    if primary[0] is None:  # an undecided verdict stands (choices.weigh): the other threshold is a reading beside
        return "; ".join(f"at {k} it {says(v)} (a reading beside: ours, undecided, stands)" for k, v in differ.items())
    return "; ".join(f"depends on the threshold: at {k} it {says(v)}" for k, v in differ.items())


def _compare(cells: dict[str, tuple], names: tuple[str, str], test, show) -> tuple[dict, dict, dict]:
    """(per seed, aggregate, verdict) per cell of `test(A values, B values)`, its keys named after the arms."""
    A, B = names
    per, agg, verdicts = {}, {}, {}
    for cell, (a, b) in cells.items():
        s = test(a, b)
        per[f"{cell} {A}"], per[f"{cell} {B}"] = show(a), show(b)
        verdicts[cell] = s.pop("verdict")
        agg[cell] = {k if k == "open pairs" else k.replace("A", A).replace("B", B): v for k, v in s.items()}
    return per, agg, verdicts


def level_claim(id: str, text: str, cells: dict[str, tuple], names: tuple[str, str], level: str) -> Claim:
    """"A's `level` lies below B's in every cell": cells {cell: (A values, B values)}, one per seed."""
    A, B = names
    per, agg, verdicts = _compare(cells, names, lower, list)
    rule = (f"{level} per seed. Per cell: P(a run of {A} lies below a run of {B}) (Mann-Whitney, ties 1/2) with "
            f"a one-sided permutation p (exact up to {MAX_EXACT:,} labellings, else Monte Carlo); medians (n per arm "
            f"shown). Holds if P > 1/2 with p <= {alpha():.3g} "
            f"in every cell; does not hold if {opposite(f'{alpha():.3g}')} in any; otherwise "
            "inconclusive" + _looked())
    return _claim(id, text, rule, per, agg, every(verdicts))


def time_claim(id: str, text: str, cells: dict[str, tuple], names: tuple[str, str], event: str,
               alt: Optional[dict[str, dict[str, tuple]]] = None, quantifier: str = "every",
               ours: str = "test acc 0.99") -> Claim:
    """"A reaches `event` before B in every cell" (quantifier "some": in at least one cell, each tested at
    ALPHA / the number of cells, Bonferroni): cells {cell: (A times, B times)} (from event_times); alt
    {threshold label: cells at that threshold}, judged beside and noted when the verdict differs; a decided
    verdict that one of them reverses depends on the accuracy threshold (`ours`: the cells' own)."""
    A, B = names
    level = alpha() if quantifier == "every" else alpha() / max(len(cells), 1)
    test = lambda a, b: sooner(a, b, level=level)  # noqa: E731
    combine = every if quantifier == "every" else some
    per, agg, verdicts = _compare(cells, names, test, shown)
    decide = (f"in every cell; does not hold if {opposite('that')} in any" if quantifier == "every"
              else f"in some cell ({len(cells)} cells, p <= {alpha():.3g} / {len(cells)}, Bonferroni); does not "
              f"hold if {opposite('that')} in every cell")
    rule = (f"{event}; a run that ends without it is right-censored there. Per cell: P(a run of {A} reaches it "
            f"before a run of {B}) (Gehan; pairs censoring leaves open count 1/2), a one-sided permutation p "
            f"(exact up to {MAX_EXACT:,} labellings, else {MAX_EXACT:,} Monte Carlo draws), Kaplan-Meier medians "
            f"[95% CI] (n per arm shown). Holds if P > 1/2 with p <= "
            f"{level:.3g} {decide}; otherwise inconclusive" + _looked())
    claim = _claim(id, text, rule, per, agg, combine(verdicts))
    others = {label: combine({k: test(*ab)["verdict"] for k, ab in c.items()}) for label, c in (alt or {}).items()}
    for label, v in others.items():
        claim.aggregate[f"verdict at {label}"] = says(v)
    if claim.holds is not None and any(v[:2] != (claim.holds, claim.reason) for v in others.values()):
        # a decided verdict: another threshold deciding the opposite makes it depend (choices.weigh says which)
        from groklab.experiments.choices import weigh  # choices -> posthoc -> claims: imported when used

        return weigh(claim, "accuracy threshold", ours, {k: _claim(id, text, rule, {}, {}, v)
                                                         for k, v in others.items()})
    note = at_thresholds((claim.holds, claim.reason), others)  # undecided here: what another threshold decides
    if note:
        claim.note = " ".join(filter(None, [claim.note, note + "."]))
    return claim


def stretched(times: Sequence, factor: float) -> list:
    """Each time x `factor`; a censored time stays censored (at its stretched bound), None stays None."""
    return [None if x is None else (Censored(float(x) * factor) if isinstance(x, Censored) else float(x) * factor)
            for x in times]


def no_later_claim(id: str, text: str, cells: dict[str, tuple], names: tuple[str, str], event: str,
                   margin: float) -> Claim:
    """"A reaches `event` no later than (1 + margin) x B's time in every cell": non-inferiority on the time
    ratio, judged as `time_claim` with B's times stretched by 1 + margin (censored ones stay censored); holds
    when A comes first beyond noise even so, does not hold when A is not first against the stretched times."""
    A, B = names
    claim = time_claim(id, text, {k: (a, stretched(b, 1 + margin)) for k, (a, b) in cells.items()}, names,
                       f"{event}; {B}'s times stretched by {1 + margin:g} (non-inferiority margin {margin:.0%})")
    claim.per_seed.update({f"{k} {B}": shown(b) for k, (_, b) in cells.items()})  # the times as measured
    for agg in claim.aggregate.values():
        if isinstance(agg, dict) and f"median {B}" in agg:
            agg[f"median {B} x {1 + margin:g}"] = agg.pop(f"median {B}")
    return claim


MAX_EXACT = 20000  # survival.concordance's default: past it the permutation null is Monte Carlo


def at_floor(c: Claim) -> Claim:
    """`c` (a held two-arm comparison) noting each cell whose p is the smallest its n allow: the verdict then rests
    on a complete separation of few runs, and one run out of order would undo it (a fresh read, 2026-12-07)."""
    if c.holds is not True:
        return c
    for cell, a in c.aggregate.items():
        n = a.get("n") if isinstance(a, dict) else None
        if isinstance(n, list) and len(n) == 2 and all(isinstance(x, int) and x for x in n):
            floor = 1 / math.comb(n[0] + n[1], n[0])
            if a.get("p") is not None and a["p"] <= floor + 1e-12 and floor > alpha() / 10:
                c.note = "; ".join(filter(None, [c.note, f"{cell}: p = {floor:.3g} is the smallest n = {n[0]}, "
                                                 f"{n[1]} allow (every run of one arm before every run of the other)"]))
    return c


def _claim(id: str, text: str, rule: str, per: dict, agg: dict, v: Verdict) -> Claim:
    """A Claim carrying verdict `v` (and its reason and why)."""
    holds, reason, why = v
    claim = Claim(id, text, rule, per, agg, bool(holds), note=why if holds is not None else "")
    if holds is not None or reason != NO_EFFECT:
        return claim if holds is not None else claim.inconclusive(reason, why)
    old = Claim(id, text, rule, per, agg, False).inconclusive("underpowered", why)
    return revised(claim.inconclusive(reason, why), old, NO_LEAN)


def _none(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))
