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


def strip67(by: dict, profile: str) -> list[Claim]:
    """The paper claim (offset ids) and the two measurements; at the quick profile (p = 41, k scaled) k = 67's
    geometry is not 004's: inconclusive (precondition) there, post hoc since AT_97."""
    paper, shared, own = (_disappears(by, *e) for e in ENCODINGS)
    old = _shared_rule(paper, shared, own)
    if profile == "quick":  # the rule as first fixed: shared ids, judged at p = 41 too
        old, shared, own = (precondition(c, AT_97.rule, AT_97) for c in (old, shared, own))
        paper.note = ""
        paper = paper.inconclusive("precondition", f"{AT_97.rule}; post hoc ({AT_97.since}): under the rule it "
                                   f"replaced ({AT_97.replaced}, on shared ids) it {old.post_hoc['verdict']}")
        paper.post_hoc = dict(old.post_hoc)
    for c, value in ((shared, "shared ids"), (own, "own ids")):
        there = verdict_of(c.holds, c.reason)
        paper.sensitivity[f"encoding={value}"] = {"field": "encoding", "ours": "offset (str.py)", "at": value,
                                                  "verdict": there, "per_seed": c.per_seed}
        paper.note = "; ".join(filter(None, [paper.note, f"with {value} (a measurement): {there}"]))
    if shared.holds is False:  # what the shared ids' GOs are (a fresh read, 2026-12-07)
        paper.note += (f"; the shared-id GOs are +0.1 crossings of a slow drift (best test accuracy after the fit "
                       f"{_best(shared):.3f}, str.py's ids {_best(paper):.3f}), not a take-off")
    return [revised(paper, old, RELEASE), shared, own]
