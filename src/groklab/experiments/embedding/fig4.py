"""Fig. 4 of paper 000: split strategy (random, uniform, skewed) x batch size (64, 128, 512) x dataset."""
from __future__ import annotations

import math
from copy import deepcopy
from dataclasses import replace
from pathlib import Path
from typing import Optional

from groklab.experiments.assumptions import Assumption
from groklab.experiments.choices import weigh
from groklab.experiments.claims import (
    event_times,
    horizon_of,
    level_claim,
    no_later_claim,
    says,
    shown,
    time_claim,
)
from groklab.experiments.embedding import profile as emb  # the shared settings and the rare-token gate
from groklab.experiments.levels import all_of, every_seed
from groklab.experiments.posthoc import Revision, revised
from groklab.experiments.spec import Claim, RunSpec, grid_runs
from groklab.experiments.stats import run_table, select
from groklab.plots.curves import acc_grid
from groklab.survival import km_median

NAME = "fig4"
TITLE = "Sampling strategy x batch size x dataset (paper: Adam lr 1e-3; quick: 1e-2)"
PAPER = ("Uniform sampling generalizes faster than random sampling, but the gap diminishes for batch "
         "sizes of 512 and more. Skewed sampling fits the training data but fails to generalize.")
TASKS = ("add", "mul")
SPLITS = ("random", "uniform", "skewed")
BATCHES = (64, 128, 512)
MARGIN = 0.25  # "nearly as effective": random's t_test at most 25% later than uniform's (our reading)

# quick uses lr 0.01: at lr 1e-3, p = 47, batch 64, add had not generalized after 5000 steps
QUICK = ["optim.lr=0.01", "steps=4000"]
PAPER_SIZES = ["optim.lr=0.001", "steps=30000", "eval.every=100", "stop.patience=2000"]
ASSUMPTIONS = [emb.SKEW, emb.WD_MODE,
               Assumption("steps", "steps", "30000", "not stated; Fig. 4's x-axis is logarithmic up to ~10^4-10^5")]


def runs(profile: str, seeds: int) -> list[RunSpec]:
    base = emb.base_overrides(profile, QUICK, PAPER_SIZES)
    return grid_runs({f"{task}/b{B}/{split}": [f"task={task}", f"batch_size={B}", f"split={split}"]
                      for task in TASKS for B in BATCHES for split in SPLITS}, base, seeds)


def analyze(df, out: Path, profile: str = "quick") -> tuple[list[Path], list[Claim]]:
    figs = []
    if not df.empty:
        figs = acc_grid(df, out / "fig4", rows="batch_size", cols="task.name", line="split.name",
                        title=f"Fig. 4: sampling strategies (Adam lr {df['optim.lr'].iloc[0]:g})",
                        order={"split.name": list(SPLITS), "batch_size": list(BATCHES)})
    judged = claims(run_table(df), run_table(df, test_thr=0.95), rare=emb.rare_rows(df, out))
    if profile == "quick":  # the quick sizes dilute the token imbalance the sentence is about: said beside
        judged[0].note = "; ".join(filter(None, [judged[0].note, "the quick profile trains half of the p = 47 table "
                                                 "at lr 0.01 (Fig. 4: 30% of p = 97 at lr 1e-3), so a random split "
                                                 "leaves token counts nearer uniform; the paper profile judges Fig. "
                                                 "4's sizes"]))
        judged[1].note = "; ".join(filter(None, [judged[1].note, "judged at the quick sizes (half of the p = 47 table "
                                                 "at lr 0.01; Fig. 4: 30% of p = 97 at lr 1e-3), where uniform is "
                                                 "faster at the small batch on add; at Fig. 4's sizes (the paper "
                                                 "profile) the premise decides the claim"]))
    return figs, judged


def _t(t, task, B, split, col="t_test"):
    return event_times(t, col, task__name=task, batch_size=B, split__name=split) if t is not None and len(t) else []


def claims(t, t95=None, *, rare: dict[str, int]) -> list[Claim]:
    """Fig. 4's three claims on the run table `t` (`t95`: at test acc 0.95); `rare`: {skewed run: its rarest
    token's training rows} (profile.rare_rows), the skew claim's precondition."""
    small, large = min(BATCHES), max(BATCHES)
    event = "t_test = first eval step with test acc >= {:g}"
    # 1. a uniform run reaches 99% test accuracy before a random one at the smallest batch, on every dataset
    pair = lambda tb, B: {task: (_t(tb, task, B, "uniform"), _t(tb, task, B, "random")) for task in TASKS}  # noqa: E731
    alt = {"test acc 0.95": pair(t95, small)} if t95 is not None else None
    c1 = time_claim("uniform_faster_small_batch",
                    f"Uniform sampling generalizes faster than random sampling at batch {small}.",
                    pair(t, small), ("uniform", "random"), event.format(0.99), alt)
    # "on every dataset" is ours: the caption's "generally" read as in some dataset (Bonferroni), weighed beside
    some = time_claim(c1.id, c1.text, pair(t, small), ("uniform", "random"), event.format(0.99), quantifier="some")
    c1 = weigh(c1, "datasets the order must hold on", "every dataset", {"some dataset ('generally')": some})
    sizes = sorted({tuple(a["n"]) for a in c1.aggregate.values() if isinstance(a, dict) and "n" in a})
    c1.note = "; ".join(filter(None, [c1.note, "our uniform split gives every value of a and of b the floor or ceil "
                                      "of n_train / p training rows (§4.2 names no construction; no other was run)",
                                      *(f"at n = {a}, {b} the exact p moves in steps of 1/{math.comb(a + b, a):,} "
                                        f"({1 / math.comb(a + b, a):.3g}): read a p near the bar with that grain"
                                        for a, b in sizes)]))
    # 2. "its benefits diminish at larger batch sizes (e.g., beyond 512), where random sampling becomes nearly
    # as effective": random reaches 0.99 no later than (1 + MARGIN) x uniform at the largest batch; it presumes
    # the benefit at the smallest batch (claim 1), without which there is nothing to diminish
    def diminish(tasks) -> Claim:
        c = no_later_claim("gap_shrinks_large_batch", f"The random-uniform gap diminishes at batch {large}: random "
                           "sampling becomes nearly as effective.",
                           {task: _both(t, task, large)[::-1] for task in tasks}, ("random", "uniform"),
                           event.format(0.99), MARGIN)
        for task in tasks:  # the point estimates the claim judged until 2026-11-26, shown beside
            gap = [_log_gap(t, task, B) for B in (small, large)]
            c.aggregate[f"{task} |log(median random / median uniform)| b{small} -> b{large}"] = gap
        return c
    c2 = diminish(TASKS)
    if c1.holds is not True:
        alone = says((c2.holds, c2.reason))
        why = (f"uniform is not shown faster at batch {small} (uniform_faster_small_batch "
               f"{'does not hold' if c1.holds is False else 'is inconclusive'}): no benefit to diminish; at batch "
               f"{large} alone the rule {alone}" + (f" ({c2.note})" if c2.note else ""))
        c2.note = ""
        c2.inconclusive("precondition", why)
        c2 = _per_dataset(c2, diminish, {task: time_claim(c1.id, "", {task: pair(t, small)[task]}, ("uniform",
                                                                      "random"), event.format(0.99)) for task in TASKS})
    # 3. skewed fits the training set, yet fails to generalize: it ends below random in test accuracy with a gap of
    # at least GAP below its own training accuracy, at every batch and dataset (post hoc since 2026-11-28)
    # (ending below random alone is not read beside as a plausible reading: runs at test 0.98-0.997 generalize)
    # the rule's history in order: the gate (11-26; the first rule, below random on any split, beside), the gap
    # (11-28), the gate dropped (12-07; the gated verdict beside)
    c3 = revised(_skewed(t, gap=True), _skewed(t, gap=False), GATE)
    return [c1, c2, _ungated(revised(c3, deepcopy(c3), PLATEAU), rare)]


# Since 2026-12-07 (a twenty-first read): the premise read per dataset -- where uniform is faster at the small batch
# on one dataset, the diminishing is judged there, the other said without a premise
PREMISE = Revision("2026-12-07", "the premise per dataset: judged on the datasets where uniform is faster at the "
                   "small batch", "inconclusive (precondition) unless uniform is faster on every dataset",
                   "a fresh read: add met the premise (p = 0.0017) and was never judged")


def _per_dataset(c2: Claim, diminish, premise: dict[str, Claim]) -> Claim:
    """`c2` (inconclusive: the premise missed on some dataset) judged on the datasets whose premise holds."""
    met = [task for task, c in premise.items() if c.holds is True]
    if not met or len(met) == len(premise):
        return c2
    per = diminish(met)
    said = "; ".join(f"{task}: no premise (uniform not shown faster at the small batch: it {says((c.holds, c.reason))})"
                     for task, c in premise.items() if task not in met)
    per.note = "; ".join(filter(None, [f"judged on {', '.join(met)}, where uniform is faster at the small batch",
                                       per.note, said]))
    return revised(per, c2, PREMISE)


GAP = 0.1  # "fails to generalize": its final test accuracy at least this below its final training accuracy (ours)
PLATEAU = Revision("2026-11-28", f"also a final train - test gap >= {GAP} on every skewed run ('fails to "
                   "generalize')", "final test accuracy below random's",
                   "ending below random is not failing to generalize: the paper-profile skewed mul runs end at test "
                   "0.984-0.997 (a second read of the verdicts, 2026-11-28)")


# §5.1 defines the skewed split as "a bias in the combinations of a"; no skew of a alone can leave a token in <= RARE
# rows (as operand b each keeps ~n/p), so the rare-token gate (2026-11-26) made the paper's own design unjudgeable
SKEW_OF_A = Revision("2026-12-07", "judged on the skew the runs train with; whether it leaves a token in <= "
                     f"{emb.RARE} training rows said beside, not a gate", "inconclusive (precondition) unless "
                     f"every skewed run's split leaves some token in <= {emb.RARE} training rows (2026-11-26)",
                     "a fresh read (2026-12-07): the gate cannot be met by the skew on a that §5.1 defines")


GATE = replace(emb.RARE_TOKENS, replaced="final test accuracy below random's, on any skewed split")


def _ungated(c3: Claim, rare: dict[str, int]) -> Claim:
    """`c3` judged on every skewed run, the rare-token gate's verdict beside it (post hoc since SKEW_OF_A)."""
    gated = emb.needs_rare(deepcopy(c3), rare)
    c3.aggregate["skewed: rarest token's training rows"] = sorted(rare.values())
    if rare:
        few = sum(n <= emb.RARE for n in rare.values())
        c3.note = "; ".join(filter(None, [c3.note, f"{few} of {len(rare)} skewed runs leave a token in <= {emb.RARE} "
                                          f"training rows (rarest: {min(rare.values())}-{max(rare.values())}; a skew "
                                          "on a alone, ours exp(-3a/(p-1)), leaves every token ~n/p rows as operand "
                                          "b); a heavier skew, on a + b, is the paper profile's arm (skew)"]))
    return revised(c3, gated, SKEW_OF_A)


def _skewed(t, gap: bool) -> Claim:
    """"Skewed fits but fails to generalize": below random in final test accuracy, and with `gap` a final train -
    test gap of at least GAP on every skewed run; every skewed run must fit."""
    cells = {f"{task}/b{B}": (_levels(t, task, B, "skewed"), _levels(t, task, B, "random"))
             for task in TASKS for B in BATCHES}
    c3 = level_claim("below random" if gap else "skewed_fits_but_generalizes_worse",
                     "Skewed sampling fits the training data but generalizes worse than random sampling.",
                     cells, ("skewed", "random"), "final test accuracy")
    if gap:
        gaps = {f"{task}/b{B}": _levels(t, task, B, "skewed", "final_train", minus="final_test")
                for task in TASKS for B in BATCHES}
        fails = every_seed("plateau gap", "", "final train accuracy - final test accuracy of a skewed run", gaps,
                           lambda g: g >= GAP, f"it is >= {GAP}")
        c3 = all_of("skewed_fits_but_generalizes_worse", "Skewed sampling fits the training data but fails to "
                    f"generalize: it ends below random sampling, at least {GAP} below its own training accuracy.",
                    {"below random": c3, "plateau gap": fails})
        c3.note = "; ".join(filter(None, [c3.note, _per_task(t, gaps)]))
    unfit = {f"{task}/b{B}": shown(_t(t, task, B, "skewed", "t_train")) for task in TASKS for B in BATCHES}
    c3.per_seed.update({f"{k} skewed t_train": v for k, v in unfit.items()})
    if any(None in v for v in unfit.values()) and c3.holds is not False:  # "fitting the training data well"
        c3.holds, c3.reason = False, ""
        c3.note = "a skewed run never reaches train acc 0.99"
    c3.statistic = "every skewed seed reaches train acc >= 0.99 (t_train), and " + c3.statistic
    return c3


def _per_task(t, gaps: dict) -> str:
    """Each dataset weighed apart (a verdict over both can hide one that agrees with the sentence): where its
    skewed runs end, their plateau gaps, and how many of its seeds pass the gap bar."""
    parts = []
    for task in TASKS:
        ends = [x for B in BATCHES for x in _levels(t, task, B, "skewed") if x is not None]
        g = [x for B in BATCHES for x in gaps[f"{task}/b{B}"] if x is not None]
        if ends and g:
            parts.append(f"{task}: skewed ends at {min(ends):.3f}-{max(ends):.3f} test accuracy, plateau gap "
                         f"{min(g):.3f}-{max(g):.3f}, {sum(x >= GAP for x in g)} of {len(g)} runs at >= {GAP}")
    return "per dataset: " + "; ".join(parts) if parts else ""


def _log_gap(t, task, B) -> Optional[float]:
    """|log(Kaplan-Meier median t_test random / uniform)| at batch B; None where a median lies beyond the horizon."""
    u, r = (km_median(_t(t, task, B, sp), horizon_of(*_both(t, task, B)))["median"] for sp in ("uniform", "random"))
    return abs(math.log(r / u)) if u and r else None


def _both(t, task, B) -> list:
    return [_t(t, task, B, "uniform"), _t(t, task, B, "random")]


def _levels(t, task, B, split, col: str = "final_test", minus: str | None = None) -> list[float]:
    """`col` per seed of one cell (minus `minus`, when given)."""
    sub = select(t, task__name=task, batch_size=B, split__name=split) if len(t) else t
    if not len(sub):
        return []
    return [float(x) - (float(y) if minus else 0.0) for x, y in zip(sub[col], sub[minus or col])]
