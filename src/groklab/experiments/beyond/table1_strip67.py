"""Table 1's STRIP k = 67 row: "disappear", read as no GO-epoch by the horizon on any seed.

The text states no token encoding; 004's releases use two: rec.py and base.py (SQUARE, random) let the operands
share token ids, str.py -- the code behind Table 1's STRIP rows -- offsets the second operand's ids. Since
2026-12-07 the paper claim is judged on str.py's offset ids; the shared ids (ours for every other row) and each
operand's own ids (a control in no release) are measurements beside it. Until then it was judged on the shared ids
with the others weighed beside, and read "depends on the encoding" at p = 97 -- where the shared-id GOs were +0.1
crossings of a slow drift (test accuracy 0.05 -> 0.16-0.25 over 10,000 steps), not a take-off.
"""
from __future__ import annotations

from copy import deepcopy

from groklab.experiments.levels import every_seed
from groklab.experiments.posthoc import Revision, precondition, revised
from groklab.experiments.spec import Claim, verdict_of

# (runs, claim id, how the operands are tokenized); the first is the paper claim
ENCODINGS = (("strip_offset", "strip67_disappears", " (004's STRIP code, str.py: the second operand's ids offset)"),
             ("strip", "strip_shared_ids67_disappears", " (the operands sharing token ids, as 004's rec.py and "
                                                        "base.py)"),
             ("strip_own_ids", "strip_own_ids67_disappears", " (each operand its own token ids)"))
RELEASE = Revision("2026-12-07", "judged on str.py's offset ids (the code behind Table 1's STRIP rows); shared and "
                   "own ids measurements beside", "judged on shared ids, offset and own ids weighed beside (a decided "
                   "difference: depends on the encoding)", "a fresh read (2026-12-07): 004's release states the STRIP "
                   "encoding, and the shared-id GOs were +0.1 crossings of a slow drift, not a take-off")
AT_97 = Revision("2026-11-28", "STRIP k = 67 (004's holdout at p = 97) judged at p = 97 only", "judged at the quick "
                 "profile's p = 41 (k scaled to 28) too", "a GO on 4 of 5 seeds there came from the scale-down")
SCALED = Revision("2026-12-07", "judged at the quick profile's scale-down (p = 41, k = 28) as every quick claim is, "
                  "a run stopped early without a GO censored there", "STRIP k = 67 judged at p = 97 only (the quick "
                  "profile inconclusive, precondition)", "a fresh read (2026-12-07): the shared-id GOs it blamed on "
                  "the scale-down recur at p = 97, and str.py's offset ids show no GO at p = 41 either: the scale-"
                  "down is not what decides, the encoding and where the runs stopped are")


def absent(cell: tuple) -> bool | None:
    """(go_step, stopped early) of one seed: no GO by its horizon (True), a GO (False), or none by an early stop
    (None: censored there, cannot tell)."""
    go, cut = cell
    return False if go is not None else (None if cut else True)


def _disappears(by: dict, group: str, id_: str, how: str) -> Claim:
    s67 = by.get((group, 67))
    # absence is only seen to the horizon: a seed stopped early without a GO cannot tell (censored)
    cells = list(zip(s67["GO_per_seed"], s67["cut_per_seed"])) if s67 is not None else []
    return every_seed(id_, f"At STRIP k = 67, grokking disappears{how}.",
                      "go_step (None: test accuracy never rose 0.1 above its value at the fit), censored where a "
                      "run without one stopped before its horizon", {f"{group} k=67": cells}, absent,
                      "it is None by the horizon", {"max test acc after fit": s67["U"] if s67 is not None else None},
                      shown={f"{group} k=67": [go for go, _ in cells]})


def _best(c: Claim) -> float:
    return c.aggregate.get("max test acc after fit") or 0.0


def _shared_rule(paper: Claim, shared: Claim, own: Claim) -> Claim:
    """The rule RELEASE replaced, on the same runs: shared ids, a decided opposite verdict elsewhere -> depends."""
    old = deepcopy(shared)
    old.id = paper.id
    if any(None not in (alt.holds, old.holds) and alt.holds != old.holds for alt in (paper, own)):
        old.depends_on.append("encoding")
    return old


def _stopped(by: dict, group: str) -> str:
    """'every run stopped early without a GO, at A-B of H steps' where that censors all of k = 67's seeds."""
    r = by.get((group, 67))
    if r is None or not r["cut_per_seed"] or not all(r["cut_per_seed"]) or any(g is not None for g in r["GO_per_seed"]):
        return ""
    last = r["last_per_seed"]
    return (f"no GO on any seed, but every run stopped early (the plateau rule) at {min(last):,}-{max(last):,} of "
            f"{int(r['horizon']):,} steps: censored there -- the quick profile's plateau rule ends a run without a GO "
            "before its horizon, so absence cannot be seen to the horizon here; the paper profile, which trains to "
            "its horizon, can decide it")


def _at_scale(c: Claim, first: Claim) -> Claim:
    """A quick-profile claim judged at the scale-down (SCALED), its history kept: the rule as first fixed (`first`'s
    post_hoc, AT_97) and the verdict AT_97 gave (precondition) beside."""
    at_97 = precondition(deepcopy(c), AT_97.rule, AT_97)
    c.post_hoc = dict(first.post_hoc)
    return revised(c, at_97, SCALED)


def strip67(by: dict, profile: str) -> list[Claim]:
    """The paper claim (offset ids) and the two measurements; at the quick profile (p = 41, k scaled) judged at
    the scale-down (post hoc since SCALED; from AT_97 until then inconclusive, precondition, there)."""
    paper, shared, own = (_disappears(by, *e) for e in ENCODINGS)
    old = _shared_rule(paper, shared, own)
    if profile == "quick":  # the rule as first fixed: shared ids, judged at p = 41 too; AT_97's precondition beside
        first = precondition(deepcopy(old), AT_97.rule, AT_97)
        paper.note = "; ".join(filter(None, [paper.note, _stopped(by, "strip_offset"), f"the reason the rule of "
                                             f"{AT_97.since} gave ({AT_97.why}) is withdrawn: {SCALED.why}"]))
        shared, own = (_at_scale(c, precondition(deepcopy(c), AT_97.rule, AT_97)) for c in (shared, own))
        paper.post_hoc = dict(first.post_hoc)
        paper = revised(paper, None, RELEASE)
        at_97 = precondition(deepcopy(paper), AT_97.rule, AT_97)
        at_97.post_hoc = {}
        paper = revised(paper, at_97, SCALED)
    for c, value in ((shared, "shared ids"), (own, "own ids")):
        there = verdict_of(c.holds, c.reason)
        paper.sensitivity[f"encoding={value}"] = {"field": "encoding", "ours": "offset (str.py)", "at": value,
                                                  "verdict": there, "per_seed": c.per_seed}
        paper.note = "; ".join(filter(None, [paper.note, f"with {value} (a measurement): {there}"]))
    smaller = [f"k = {k}: {sum(g is not None for g in r['GO_per_seed'])} of {len(r['GO_per_seed'])}"
               for k in (40, 50, 60) if (r := by.get(("strip_offset", k))) is not None]
    if smaller:  # is the absence particular to 67? (a fresh read, 2026-12-07: not on these ids at 50 and 60)
        paper.note = "; ".join(filter(None, [paper.note, "seeds with a GO on the same offset ids at the smaller STRIP "
                                             f"k (Table 1 prints a GO at each): {', '.join(smaller)}; where those are "
                                             "0 too, the absence is not particular to k = 67"]))
    if shared.holds is False and profile != "quick":  # what the shared ids' GOs are at p = 97 (a fresh read)
        paper.note += (f"; the shared-id GOs are +0.1 crossings of a slow drift (best test accuracy after the fit "
                       f"{_best(shared):.3f}, str.py's ids {_best(paper):.3f}), not a take-off")
    return [paper if profile == "quick" else revised(paper, old, RELEASE), shared, own]
