"""Settings a paper does not state, and the sensitivity arms that test whether a verdict depends on them.

A study lists its ASSUMPTIONS: the config field, our value and why. Where the other plausible value could
decide a verdict, the assumption names it (`other`) and the study's runs are trained a second time with it,
as an arm below `<study>/arm-<name>/` (same run names, one override more). The arm is analysed by the
study's own `analyze`, and each claim's verdict is combined with the arm's (`combine`):
- the same verdict in both: it stands, and says so;
- ours inconclusive because a run the claim presupposes failed (precondition: a setup that never fits) while
  the arm decides: the claim is judged on the arm, whose runs show what the paper's figure shows, and says
  so -- the setting broke our runs, not the paper's claim; where ours, on the runs that met the precondition
  (aggregate TRAINED), decided the opposite of the arm, it depends on the field (since 2026-12-06);
- both decided, differently: ours stands, marked `depends_on` the field -- the paper's sentence alone does not
  fix the outcome, and a reader must see that beside the verdict;
- otherwise ours stands, with the arm's verdict beside it.
"""
from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass

import pandas as pd

from groklab.experiments.posthoc import Revision, revised
from groklab.experiments.spec import PROFILES, Claim, RunSpec, seed_of, verdict_of
from groklab.store.schema import verdict_words

ARM = "arm-"  # prefix of an arm's folder below the study
# a claim's aggregate entry: its verdict on the runs that met its precondition (a study sets it where it can)
TRAINED = "verdict on the setups that trained"
SPLIT = Revision("2026-12-06", "judged on an arm where ours fails a precondition, it depends on the field when ours "
                 "decides the opposite on the runs that met the precondition", "judged on the arm alone",
                 "a fresh read (2026-12-06): Fig. 10's rank_E_stable holds on the setups lr 0.01 trains, fails on "
                 "the lr 0.001 arm, and read 'does not hold'")
MIN_ARM_SEEDS = 3  # an arm whole at fewer seeds than the study is judged at its own from this many


@dataclass(frozen=True)
class Assumption:
    """A setting the study needs and its paper does not state: `field` = `ours` (why), and optionally the
    `other` plausible value, trained as an arm at the `profiles` listed."""

    name: str  # the arm's folder: arm-<name>
    field: str  # config field, e.g. "optim.lr"
    ours: str
    why: str
    other: str | None = None  # None: declared, not tested by an arm
    profiles: tuple[str, ...] = PROFILES
    extra: tuple[str, ...] = ()  # overrides the other value needs beside it (e.g. a law and its strength)
    # the runs the field can change, named by one part of their run name (e.g. "skewed"); the arm retrains only
    # those and is analysed with the study's own runs for the rest (None: every run). Only for a study whose
    # analysis reads its runs' rows alone: a borrowed run's folder is not below the arm's
    only: str | None = None
    release: bool = False  # `other` is the authors' released code's value: the text is silent, their code is not

    @property
    def named(self) -> str:
        """`other` as a note names it: the release's value says so (a fresh read: 'unstated' hid that the arm is
        what the authors ran)."""
        return f"{self.other} (the authors' released code's)" if self.release else str(self.other)

    def armed(self, profile: str) -> bool:
        return self.other is not None and profile in self.profiles

    def changes(self, run: str) -> bool:
        """Whether the arm retrains `run` (a study run name)."""
        return self.only is None or self.only in run.split("/")

    def to_dict(self, profile: str) -> dict:
        return {"name": self.name, "field": self.field, "ours": self.ours, "why": self.why, "other": self.other,
                "extra": list(self.extra), "arm": f"{ARM}{self.name}" if self.armed(profile) else None}


def assumptions_of(module) -> list[Assumption]:
    return list(getattr(module, "ASSUMPTIONS", ()))


def with_arms(module, profile: str, specs: list[RunSpec]) -> list[RunSpec]:
    """The study's runs, then each armed assumption's copy of the runs it can change under arm-<name>/ with
    field=other and its extra overrides (before the command line's overrides, which stay last)."""
    out = list(specs)
    for a in assumptions_of(module):
        if a.armed(profile):
            out += [RunSpec(f"{ARM}{a.name}/{s.name}", (*s.overrides, f"{a.field}={a.other}", *a.extra))
                    for s in specs if a.changes(s.name)]
    return out


def arm_rows(module, name: str, arm, own):
    """The rows an arm is analysed on: its own runs, and the study's runs its field cannot change."""
    a = next((x for x in assumptions_of(module) if x.name == name), None)
    if a is None or a.only is None or own.empty:
        return arm
    return pd.concat([arm, own[~own["run"].map(a.changes)]], ignore_index=True)


def arm_of(run: str) -> str | None:
    """The arm a run name belongs to (None: the study's own runs)."""
    head, sep, _ = run.partition("/")
    return head[len(ARM):] if sep and head.startswith(ARM) else None


def complete_arms(names: list[str], missing: list[str]) -> dict[str, int | None]:
    """{arm: k} for each arm that lacks some of its runs among `names`: an arm is evidence only whole, at the
    study's seeds or at its first k >= MIN_ARM_SEEDS seeds in every cell (an arm trained at 5 seeds beside a
    study taken to 10 is judged at its 5, and says so); k is None where it is neither (an archive made
    before an arm existed is re-judged without it)."""
    gone, cut = set(missing), {}
    for arm in sorted({arm_of(n) for n in gone} - {None}):
        seeds = [seed_of(n) for n in gone if arm_of(n) == arm]
        k = None if None in seeds else min(seeds)
        cut[arm] = k if k is not None and k >= MIN_ARM_SEEDS else None
    return cut


def keeps(cut: dict[str, int | None], run: str) -> bool:
    """Whether `run` is judged, given complete_arms' answer: the study's own runs always, an arm's runs where
    the arm is whole at the seed the run has."""
    arm = arm_of(run)
    if arm not in cut:
        return True
    k, seed = cut[arm], seed_of(run)
    return k is not None and seed is not None and seed < k


def split_arms(df) -> tuple:
    """(the study's own rows, {arm name: its rows with the arm-<name>/ prefix removed from `run`})."""
    if df.empty or "run" not in df:
        return df, {}
    arms = df["run"].map(arm_of)
    parts = {}
    for name in sorted(set(arms.dropna())):
        sub = df[arms == name].copy()
        sub["run"] = sub["run"].str.slice(len(ARM) + len(name) + 1)
        parts[name] = sub
    return df[arms.isna()], parts


def combine(claim: Claim, alt: Claim | None, a: Assumption, seeds: int | None = None) -> Claim:
    """`claim` (judged with our value) given the same claim judged on the arm with `a.other` (module doc).
    claim.sensitivity[field] says what the *other* value gave: {"ours", "other", "at": the value that entry
    was judged with, "verdict", "note", "per_seed"} (and, when the claim was judged on the arm, "judged_with" and ours'
    per-seed values and aggregate). `seeds`: the arm was judged at fewer seeds than the study (complete_arms),
    said in the entry and the note."""
    entry = {"ours": a.ours, "other": " ".join((a.other, *a.extra)), **({"seeds": seeds} if seeds else {})}
    fewer = f" (its arm at {seeds} seeds)" if seeds else ""
    if alt is None:
        claim.sensitivity[a.field] = {**entry, "at": a.other,
                                      "verdict": "not judged (the arm is not trained whole at these seeds)"}
        return claim
    if alt.holds is not None and claim.holds is None and claim.reason == "precondition":
        ours = {**entry, "judged_with": a.other, "at": a.ours, "verdict": verdict_of(claim.holds, claim.reason),
                "note": claim.note, "per_seed": claim.per_seed, "aggregate": claim.aggregate}
        why = alt.note or "its runs meet the precondition"
        # ours, where its runs met the precondition, decided the opposite of the arm: the setting decides it
        split = claim.aggregate.get(TRAINED) == {True: "does not hold", False: "holds"}[alt.holds]
        out = Claim(claim.id, claim.text, claim.statistic, alt.per_seed, alt.aggregate, alt.holds,
                    note=f"judged with {a.field}={a.named}{fewer} ({why}); with our {a.ours}: {claim.note}",
                    reason=alt.reason, sensitivity={**alt.sensitivity, a.field: ours}, post_hoc=alt.post_hoc,
                    depends_on=list(alt.depends_on))  # the arm's own readings (choices.py) come with it
        if not split:
            return out
        alone = deepcopy(out)
        out.depends_on.append(a.field)
        return revised(out, alone, SPLIT)
    # the arm's verdict as it reads, its own readings' dependence included (an audit: "with kaiming it holds" where
    # the arm itself depends on the reading of 'over-fitting stage')
    there = {**entry, "at": a.other, "verdict": verdict_words(alt.holds, alt.reason, alt.depends_on), "note": alt.note,
             "per_seed": alt.per_seed}  # the arm's own values: what a reader cites beside the verdict
    claim.sensitivity[a.field] = there
    same = (alt.holds, alt.reason) == (claim.holds, claim.reason)
    # the very values: the arm trains none of the claim's cells, or the setting cannot move them (an init at step 0)
    if same and alt.per_seed == claim.per_seed and alt.aggregate == claim.aggregate:
        # the arm trains none of its cells: a verdict there would read as a test of the claim (a fresh read,
        # 2026-12-07: BiRNN's weight-decay arm sat beside the depth claim it never trains)
        claim.sensitivity[a.field] = {**entry, "at": a.other, "verdict": "not tested: the arm moves none of this "
                                      "claim's values (it retrains other runs, or the setting cannot reach them)"}
        return claim
    elif alt.holds == claim.holds and alt.holds is not None:  # its values beside: "the same" can hide a split
        said = f"the same with {a.field}={a.named}{fewer}{_moved(alt, claim)}"
    elif alt.holds is None and claim.holds is None and alt.reason == claim.reason:  # undecided alike: no support
        said = f"with {a.field}={a.named}{fewer} also {there['verdict']}: neither value decides it{_moved(alt, claim)}"
    elif alt.holds is not None and claim.holds is not None:
        claim.depends_on.append(a.field)
        said = f"depends on {a.field}: with {a.named}{fewer} it {there['verdict']}{_moved(alt, claim)}"
    else:
        said = f"with {a.field}={a.named}{fewer}: {there['verdict']}{_moved(alt, claim)}"
    claim.note = "; ".join(filter(None, [claim.note, said]))
    return claim


def _moved(alt: Claim, claim: Claim) -> str:
    """" (the arm's values where they differ from ours: cell v1, v2, ...; ...)": what an undecided arm measured,
    so a reader sees it beside 'neither value decides it' (a fresh read, 2026-12-07: an arm nearest the sentence
    reduced to a phrase)."""
    said = []
    for k, v in alt.per_seed.items():
        nums = [float(x) for x in (v if isinstance(v, list) else []) if isinstance(x, (int, float))
                and not isinstance(x, bool)]
        if nums and v != claim.per_seed.get(k):  # a few seeds each said (a fresh read: a range hid one outlier)
            lo, hi = f"{min(nums):.3g}", f"{max(nums):.3g}"
            said.append(f"{k} " + (", ".join(f"{x:.3g}" for x in nums) if len(nums) <= 5 else
                                   lo if lo == hi else f"{lo}-{hi}"))
    more = "; ..." if len(said) > 6 else ""
    return f" (the arm's values where they differ from ours: {'; '.join(said[:6])}{more})" if said else ""


def judge_arms(module, primary: list[Claim], arms: dict[str, list[Claim]], profile: str,
               seeds: dict[str, int] | None = None) -> list[Claim]:
    """Every claim combined with each armed assumption's verdict for it (`seeds`: {arm: k} for an arm judged
    at fewer seeds than the study)."""
    out = []
    for c in primary:
        for a in assumptions_of(module):
            if a.armed(profile):
                alt = {x.id: x for x in arms.get(a.name, [])}.get(c.id)
                c = combine(c, alt, a, (seeds or {}).get(a.name))
        out.append(c)
    return out
