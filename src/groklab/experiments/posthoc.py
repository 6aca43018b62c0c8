"""Rules changed after their data were seen: the verdict under today's rule, marked, with the replaced rule's beside.

A decision rule (statistic, threshold, definition) is fixed before its data. Where one was changed after the
study's runs had been judged -- for a good reason or not -- a reader must be able to tell it from a rule fixed in
advance: the claim carries `post_hoc` (when the rule changed, what changed, the rule it replaced in words, and
the verdict the replaced rule gives on the same runs), every citable line says "post hoc" after its verdict, and
where the two verdicts differ the note says so. Each study keeps its `Revision`s beside the rules they changed
and judges the replaced rule on the same runs (never from memory: the old verdict is recomputed on every judge).
"""
from __future__ import annotations

import json
import re
from copy import copy
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

from groklab.experiments.spec import Claim, says
from groklab.store.schema import verdict_words


@dataclass(frozen=True)
class Revision:
    """One change of a claim's rule after its data were seen."""

    since: str  # the date the rule changed (YYYY-MM-DD)
    rule: str  # what today's rule does differently, in a phrase
    replaced: str  # the rule it replaced, in words
    why: str = ""  # the reason given at the time


def revised(claim: Claim, old: Claim | None, rev: Revision) -> Claim:
    """`claim` (judged by today's rule) marked post hoc, with `old` -- the same claim judged by the rule `rev`
    replaced, on the same runs -- as the verdict beside it. A claim without an old judgement (no runs) is marked
    all the same. A claim already post hoc keeps its first replaced rule and verdict in `post_hoc` (the rule as
    first fixed), adds the change to its `rule`, and notes the verdict of the rule just replaced."""
    was = verdict_words(old.holds, old.reason, old.depends_on) if old is not None else "not judged"
    if claim.post_hoc:  # changed a second time: the first replaced rule and its verdict stay, the change is added
        claim.post_hoc = {**claim.post_hoc, "rule": f"{claim.post_hoc['rule']}; then, {rev.since}: {rev.rule}"}
    else:
        claim.post_hoc = {"since": rev.since, "rule": rev.rule, "replaced": rev.replaced, "verdict": was,
                          **({"why": rev.why} if rev.why else {})}
    if old is not None and was != verdict_words(claim.holds, claim.reason, claim.depends_on):
        then = says((old.holds, old.reason)) if not old.depends_on else was
        said = f"post hoc ({rev.since}: {rev.rule}): under the rule it replaced ({rev.replaced}) it {then}"
        claim.note = "; ".join(filter(None, [claim.note, said]))
    return claim


def precondition(claim: Claim, why: str, rev: Revision) -> Claim:
    """`claim` made inconclusive (precondition, saying `why`) by a precondition added after its data; what it read
    without the precondition is the replaced verdict beside it."""
    return revised(copy(claim).inconclusive("precondition", why), claim, rev)


# shared by every "reaches X by the horizon" rule it changed (fig2, threshold)
CENSOR_RISING = Revision(
    "2026-12-06", "a run below the level at the horizon is failed only where its curve is shown flat there "
    "(measures.curves.still_rising); otherwise censored (cannot tell)", "a run below the level at the horizon fails",
    "runs cut off mid-rise were counted as failures (reads of the verdicts, 2026-11-28; a noisy late rise still "
    "counted as failed, 2026-12-06)")

# a lag or gap needs the fit: where no run of a cell fits, the lag is a bound set by the horizon (investigation)
FIT_FIRST = Revision(
    "2026-11-28", "inconclusive (precondition) where most runs of a cell never fit the training set",
    "judged on every run, a run never fit contributing the bound onset / last step - 1",
    "with no run fit, the lag is about -0.93 by construction: the data could not contradict the claim")
# two arms' times leaning no way are not short of seeds (claims.LEAN, claims.NO_EFFECT)
NO_LEAN = Revision("2026-12-07", "'no effect seen' where neither order is beyond noise and P(first) < 0.56 leans no "
                   "way worth more seeds; 'underpowered' only for a lean the claimed way", "inconclusive "
                   "(underpowered) whenever neither order was beyond noise", "two fresh reads (2026-12-07): medians "
                   "of 500 against 500 or 450 against 475 at 10 runs an arm called 'underpowered'")
# a level every run reaches cannot show an effect on it (investigation)
CEILING = Revision(
    "2026-11-28", "inconclusive (precondition) where every compared run ends at the ceiling",
    "judged at the ceiling too", "where every run ends at 1.0 the data could not contradict 'makes little "
    "difference'")


# the vocabulary's "does not hold" (claims._judge, levels.py), changed for every claim it decides (commit c0bce27)
SIGN_RULE = Revision(
    "2026-11-26", "'does not hold' only on evidence against the claim: the opposite order beyond noise (one-sided "
    "p <= the bar), or a whole interval on the other side", "'does not hold' on the sign of a point estimate: P <= "
    "1/2, or a mean, difference or rho on the other side", "at 3 seeds a true P = 0.7 read 'does not hold' in 20% of "
    "one-cell and 58% of four-cell claims (benchmarks/verdict_rates.py)")
SIGN_RULE_AT = "2026-11-26T16:05:09+00:00"  # when it entered the code (commit c0bce27)
SIGN_COMMIT = {"commit": "c0bce27", "date": SIGN_RULE_AT}


def signed_before(first_data: str | None) -> bool:
    """Whether a study's data existed before SIGN_RULE: its claims judged by the vocabulary are then post hoc."""
    return bool(first_data) and _utc(first_data) < _utc(SIGN_RULE_AT)


def sign_rule(package: str, study: str, claims: list[Claim], old: list[Claim]) -> list[Claim]:
    """`claims` (judged today) with SIGN_RULE marked post hoc on each whose rule was fixed before it and which it
    touched: `old` holds the same claims judged with it reverted (stats.by_sign), on the same runs; a claim whose
    statistic, verdict and note read alike both ways never met it. A claim already post hoc joins the two changes
    in date order; the replaced verdict is then the one under both replaced rules (the reverted pass judged the
    later change's replaced rule with the sign rule too)."""
    was, table = {c.id: c for c in old}, _rules_fixed().get(package, {}).get(study, {})
    for c in claims:
        o, e = was.get(c.id), table.get(c.id)
        if o is None or not e or _utc(e["date"]) >= _utc(SIGN_RULE_AT) or _read(c) == _read(o):
            continue
        first = (o.post_hoc or {}).get("verdict") or verdict_words(o.holds, o.reason, o.depends_on)
        r, ph = SIGN_RULE, c.post_hoc
        mine = {"since": r.since, "rule": r.rule, "replaced": r.replaced, "why": r.why}
        a, b = (mine, ph) if not ph or r.since <= ph["since"] else (ph, mine)  # the two changes in date order
        c.post_hoc = {"since": a["since"], "rule": f"{a['rule']}; then, {b['since']}: {b['rule']}" if ph else r.rule,
                      "replaced": f"{a['replaced']}; and {b['replaced']}" if ph else r.replaced, "verdict": first,
                      "why": "; ".join(filter(None, [a.get("why"), b.get("why")] if ph else [r.why]))}
        then = verdict_words(o.holds, o.reason, o.depends_on)
        if then != verdict_words(c.holds, c.reason, c.depends_on):
            said = f"post hoc ({r.since}: {r.rule}): under the rule it replaced ({r.replaced}) it {then}"
            c.note = "; ".join(filter(None, [c.note, said]))
    return claims


def _read(c: Claim) -> tuple:
    return c.statistic, c.holds, c.reason, c.note


# ---- when each rule was fixed (benchmarks/rules_fixed.py back-fills the table from git) ----------------------

RULES_FIXED = Path(__file__).parent / "rules_fixed.json"
REVISIONS, KEY = "revisions", 60  # the table's key for revised rules: {a change's first KEY characters: commit}


def last_change(post_hoc: dict) -> tuple[str, str]:
    """(date, rule) of the latest change a claim's `post_hoc` records (changes join as '; then, <date>: <rule>')."""
    parts = re.split(r"; then, (\d{4}-\d{2}-\d{2}): ", post_hoc.get("rule", ""))
    return (parts[-2], parts[-1]) if len(parts) > 1 else (post_hoc.get("since"), parts[0])


@lru_cache(maxsize=1)
def _rules_fixed() -> dict:
    try:
        return json.loads(RULES_FIXED.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def fixed(package: str, study: str, claim: dict, first_data: str | None) -> dict:
    """When `claim`'s rule was fixed: the commit and date that first named it in the code (or the code that judged
    the study's first archived runs, if earlier), and whether that was before the study's data existed
    (`first_data`: the first session that trained its runs). A rule revised after its data (`post_hoc`) was fixed
    when revised, after its data. An id no commit names yet: date and commit unknown."""
    ph = claim.get("post_hoc") or {}
    if ph:  # today's rule was fixed by its latest change; the commit whose source first held that change's words
        since, rule = last_change(ph)
        hit = SIGN_COMMIT if rule == SIGN_RULE.rule else _rules_fixed().get(REVISIONS, {}).get(rule[:KEY], {})
        return {"date": since, "commit": hit.get("commit"), "before_data": False, "how": "revised after its data"}
    e = _rules_fixed().get(package, {}).get(study, {}).get(claim["id"])
    if not e:
        return {"date": None, "commit": None, "before_data": None, "how": "not yet in a commit"}
    before = None if not first_data else _utc(e["date"]) < _utc(first_data)
    return {"date": e["date"][:10], "commit": e["commit"], "before_data": before, "how": e["how"]}


def _utc(stamp: str) -> datetime:
    """A git ISO date (with its offset) or a session's 'YYYY-MM-DD HH:MM:SS UTC' as an aware UTC time."""
    t = datetime.fromisoformat(stamp.replace(" UTC", "+00:00"))
    return (t if t.tzinfo else t.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
