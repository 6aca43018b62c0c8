"""002 §3.1 (Figs 7-8): Adam's coupled L2 against AdamW's decoupled weight decay over lr x wd grids.

torch's Adam adds lambda * theta to the gradient before the moment estimates; AdamW shrinks theta by
lr * lambda outside them. 002 argues the Adam decay "should be set as learning rate x AdamW decay". Test: for
every AdamW cell (lr, lambda) run Adam at the matched decay lr * lambda and at the naive decay lambda; per seed,
MAD = the mean over cells of |final test acc of AdamW - final test acc of that Adam cell|. The relation holds if
the matched MAD is smaller than the naive one beyond seed noise and (since 2026-12-06, post hoc) at most 0.1 above
AdamW's own seed-to-seed MAD (95% CI): "should be set as" is equivalence, and the naive cells sit at chance; and
(since 2026-12-07, post hoc) no cell where matched Adam parts from AdamW beyond noise, by ranks (the pooled MAD hid
one: at lambda 1, 002's own setting, matched Adam fails where AdamW groks).
Model: the p = 59 MLP of 002's code, batch 256.

Differences from the paper and its released code:
- Model, p = 59, alpha 0.5, batch 256: t3_MLP/t3_MLP.py's (profile.py CODE_MLP); its init is Kaiming / Xavier
  normal, ours torch's default.
- AdamW grid (paper profile): lr {1e-4, 5e-4, 1e-3, 5e-3} x lambda {0.1, 0.2, 0.5, 1}, t3_MLP.py's last loop (its
  logs are not released); quick lr {2e-3, 5e-3} x lambda {0.1, 0.3, 1} (CPU budget).
- Control: the claim is about the MLP that groks, so AdamW at wd 1 and the lr where it groks (quick 2e-3; paper
  5e-4, the release's base cell) must reach 0.99 at least 3x its fit; until 2026-11-28 the quick profile ran
  2,500 steps, where AdamW reached 0.99 in 2 of 6 cells and only 1.6-2.4x after its fit (no control).
- Fig 7's caption describes an AdamW grid over lr and batch size at weight decay 1 (and "batch size fixed as 256"):
  no lambda axis; the text gives neither grid's values.
- Adam grid: the release's (Fig 8; t3_MLP/decay_logs, t3_plots_grid_search.py) is lr {1e-4, 5e-4, 1e-3, 5e-3} x
  coupled decay d {1e-4, 5e-4, 1e-3, 5e-3}; ours runs d = lr x lambda (matched, 1e-5..5e-3) and d = lambda (naive).
- In those logs d = 5e-3 fits no training set (train acc 0.022 at every lr), so our naive cells (d = 0.1..1) lie
  past every run the release made: the contrast is against cells expected not to learn at all.
- At the release's base cell (lr 5e-4, AdamW lambda 1: test 0.96 at step 36,743), matched Adam d = 5e-4 never
  generalizes in 70,000 steps (max test 0.016) while d = 1e-3 does (step 51,968): a cell against the relation.
- Horizon: the captions say 1e4 epochs ~ 1.4e5 steps; t3_MLP.py's 1e4 epochs of 7 batches are 70,000 steps; ours
  70,000 (paper profile, eval every 500), 12,000 (quick, every 50; 2,500 until 2026-11-28).
- Statistics: 002 states the relation as an intuition and reports no grid result in words; the MAD of final test
  accuracy and its bootstrap contrast are ours (the release records curves and the best test accuracy).
- Accuracy: the release divides by batches x batch size (ceiling 0.9715 here); ours by rows.
- Seeds: the release seeds 42, one run per cell; ours 5 (quick) / 3 (paper) seeds per cell, split seed = init seed.
"""
from __future__ import annotations

import statistics
from pathlib import Path

import numpy as np

from groklab.experiments.claims import lower
from groklab.experiments.controls import DELAY, Control
from groklab.experiments.investigation.compare import TIMES, median_time, table
from groklab.experiments.investigation.profile import CODE_STEPS, GROKS_QUICK_STEPS, budget, code_mlp
from groklab.experiments.levels import all_of, below, contrast
from groklab.experiments.posthoc import CENSOR_RISING, Revision, revised
from groklab.experiments.spec import Claim, RunSpec, grid_runs
from groklab.experiments.stats import alpha
from groklab.plots.heat import heat
from groklab.plots.style import STYLE, plt, save

NAME = "decay"
TITLE = "Coupled (Adam) vs decoupled (AdamW) weight decay: lr x wd grids"
PAPER = "Intuitively, the Adam decay should be set as learning rate x AdamW decay."
GRID = {"quick": ((2e-3, 5e-3), (0.1, 0.3, 1.0)), "paper": ((1e-4, 5e-4, 1e-3, 5e-3), (0.1, 0.2, 0.5, 1.0))}
# the grokking setting of each profile's grid (quick: the optimizers study's lr; paper: the release's base cell)
CONTROLS = [Control("adamw-lr0.002-wd1/*|adamw-lr0.0005-wd1/*", "AdamW at wd 1 and the lr where it groks", 0.99,
                    delay=DELAY)]
KINDS = {"adamw": "AdamW, lambda", "matched": "Adam, lr x lambda", "naive": "Adam, lambda"}  # what each map runs


def name(kind: str, lr: float, wd: float) -> str:
    return f"{kind}-lr{lr:g}-wd{wd:g}"


def cells(profile: str) -> dict[str, list[str]]:
    lrs, wds = GRID[profile]
    out = {}
    for lr in lrs:
        for wd in wds:
            out[name("adamw", lr, wd)] = ["optim=adamw", f"optim.lr={lr}", f"optim.weight_decay={wd}"]
            out[name("matched", lr, wd)] = ["optim=adam", f"optim.lr={lr}", f"optim.weight_decay={lr * wd:.6g}"]
            out[name("naive", lr, wd)] = ["optim=adam", f"optim.lr={lr}", f"optim.weight_decay={wd}"]
    return out


def runs(profile: str, seeds: int) -> list[RunSpec]:
    return grid_runs(cells(profile), code_mlp(profile) + budget(profile, GROKS_QUICK_STEPS, 50, CODE_STEPS), seeds)


def analyze(df, out: Path, profile: str = "quick") -> tuple[list[Path], list[Claim]]:
    lrs, wds = GRID[profile]
    t = table(df, cols=TIMES + ("drops", "final_test", "max_test", "u_acc", "rising_test", "final_train"))
    figs = heat_maps(t, lrs, wds, out / "decay") if not df.empty else []
    return figs, claims(t, lrs, wds)


def mads(t: dict, lrs, wds) -> dict[str, list]:
    """Per seed: mean over (lr, lambda) of |AdamW - Adam| final test accuracy, for the matched and naive maps."""
    acc = t["final_test"]
    out = {}
    for kind in ("matched", "naive"):
        per = [[abs(a - b) for a, b in zip(acc.get(name("adamw", lr, wd), []), acc.get(name(kind, lr, wd), []))]
               for lr in lrs for wd in wds]
        n = min((len(x) for x in per), default=0)
        out[kind] = [statistics.fmean(x[s] for x in per) for s in range(n)]
    # AdamW against itself, seed s against seed s + 1: how far two runs of the same cell end apart (the noise floor)
    per = [acc.get(name("adamw", lr, wd), []) for lr in lrs for wd in wds]
    n = min((len(x) for x in per), default=0)
    out["adamw itself"] = [statistics.fmean(abs(x[s] - x[(s + 1) % n]) for x in per) for s in range(n)] if n > 1 else []
    return out


# "should be set as" is a claim of equivalence: matched Adam ends as far from AdamW as AdamW's own seeds end from
# each other, within CLOSE of final test accuracy (ours; the paper gives no number). Beating the naive map alone
# cannot fail where the naive cells sit at chance (every quick cell: 0.011-0.014): the contrast stays, as a part.
# Written after the data; a first version (the same day) put the bar on the MAD itself, which AdamW against its
# own seeds (0.2-0.3 at the quick profile) could not pass either.
CLOSE = 0.1
EQUIVALENCE = Revision("2026-12-06", f"also equivalence: the matched map's MAD no more than {CLOSE} above AdamW's "
                       "seed-to-seed MAD (the 95% CI of the difference)", "the matched map closer to AdamW than the "
                       "naive map", "fresh reads of the verdicts (2026-12-06): the naive map sits at chance, so "
                       "beating it says nothing of 'behaves like'; the bar is set against AdamW's own noise")


def claims(t: dict, lrs, wds) -> list[Claim]:
    text = "Adam's coupled decay behaves like lr x AdamW's decay."
    what = ("MAD over the lr x lambda grid of |final test acc AdamW(lr, lambda) - Adam(lr, d)|, d = lr * lambda "
            "(matched) or lambda (naive)")
    m = mads(t, lrs, wds)
    closer = contrast("coupled_is_lr_times_decoupled", text, what, m, "matched", "naive", -1)
    floor = m.pop("adamw itself", [])
    excess = [a - b for a, b in zip(m.get("matched", []), floor)]
    near = below("matched within reach", text, f"{what}, minus AdamW's own seed-to-seed MAD (seed s vs s + 1)",
                 {"matched - adamw itself": excess}, ["matched - adamw itself"], CLOSE)
    both = all_of("coupled_is_lr_times_decoupled", text, {"closer than naive": closer, "equivalent": near})
    both = revised(both, closer, EQUIVALENCE)
    def per_cell(censor: bool) -> Claim:
        c = all_of(both.id, text, {"closer than naive": closer, "equivalent": near,
                                   "no cell departs": departures(t, lrs, wds, censor)})
        c.note = "; ".join(filter(None, [c.note, RELEASE]))
        c.post_hoc = dict(both.post_hoc)  # the first rule replaced (the contrast alone) and its verdict stay
        return c
    now, was = per_cell(True), per_cell(False)
    now = revised(now, both, PER_CELL)
    if (now.holds, now.reason) == (was.holds, was.reason):
        return [now]
    return [revised(now, revised(was, both, PER_CELL), CENSOR_RISING)]  # a cell's bounds no longer part it


# A pooled MAD can hide a cell where the maps part every seed (a fresh read, 2026-12-07: at lambda 1, 002's own
# setting, matched Adam fails where AdamW groks): each cell compared by ranks, two-sided, Bonferroni over cells
PER_CELL = Revision("2026-12-07", "also no cell where matched Adam's final test accuracy parts from AdamW's beyond "
                    "noise (Mann-Whitney, exact two-sided p <= 0.05 / the number of cells)", "the pooled MAD alone",
                    "a fresh read: the pooled MAD hid a systematic departure at lambda 1")
RELEASE = ("002 states the relation as an intuition ('Intuitively, ...') and reports no grid result; in its "
           "release's logs, at the base cell (lr 5e-4, AdamW lambda 1: test 0.96), matched Adam d = 5e-4 never "
           "generalizes in 70,000 steps (max test 0.016): a cell against the relation there too")


def departures(t: dict, lrs, wds, censor: bool = True) -> Claim:
    """Per (lr, lambda) cell: P(matched Adam ends below AdamW) by ranks with exact one-sided p both ways, each at
    alpha / (2 x cells); holds where no cell parts beyond noise, fails naming the cells that do."""
    acc, level = t["final_test"], alpha() / (2 * len(lrs) * len(wds))
    agg, parted, per, parted_not, cut = {}, [], {}, [], []
    for lr in lrs:
        for wd in wds:
            a, m = acc.get(name("adamw", lr, wd), []), acc.get(name("matched", lr, wd), [])
            if not a or not m:
                continue
            down, up = lower(m, a, level), lower(a, m, level)
            key = f"lr {lr:g}, lambda {wd:g}"
            agg[key] = {"P(matched lower)": down["P(A lower)"], "p lower": down["p"], "p higher": up["p"],
                        "median adamw": down["median B"], "median matched": down["median A"], "n": down["n"]}
            per[f"{key} adamw"], per[f"{key} matched"] = a, m
            rising = sum(bool(x) for x in t.get("rising_test", {}).get(name("matched", lr, wd), []))
            unfit = sum(x is not None and x < 0.1 for x in t.get("final_train", {}).get(name("matched", lr, wd), []))
            what = ", ".join(filter(None, [f"{rising} of {len(m)} matched runs still rising at the horizon (their "
                                           "finals are bounds: they may grok later)" if rising else "",
                                           f"{unfit} of {len(m)} never fit the training set" if unfit else ""]))
            for v, word in ((down, "below"), (up, "above")):
                if v["verdict"][0] is True:
                    said = (f"{key}: matched ends {word} AdamW (medians {down['median A']:.2f} against "
                            f"{down['median B']:.2f}, p = {v['p']:.3g})" + (f"; {what}" if what else ""))
                    # ending below on runs mostly still rising is a bound, not a departure (CENSOR_RISING's rule)
                    (cut if censor and word == "below" and 2 * rising > len(m) else parted).append(said)
            if unfit == len(m) and down["verdict"][0] is not True:  # a departure the horizon cannot undo (an audit)
                parted_not.append(f"{key}: matched never fits the training set on any run (medians "
                                  f"{down['median A']:.2f} against AdamW's {down['median B']:.2f}, p = {down['p']:.3g}:"
                                  " not beyond the bar)")
    stat = ("final test acc per cell, matched Adam against AdamW: Mann-Whitney P with exact one-sided p both ways; "
            f"fails if some cell parts beyond noise (p <= {level:.3g} = {alpha():g} / 2 / cells)")
    c = Claim("no cell departs", text="", statistic=stat, per_seed=per, aggregate=agg, holds=not parted,
              note="; ".join(parted + parted_not))
    if not agg:
        return c.inconclusive("precondition", "no cell has both maps' runs")
    if cut and not parted:
        c.note = ""
        return c.inconclusive("censored", "; ".join(cut + parted_not))
    return c


def heat_maps(t: dict, lrs, wds, path: Path) -> list[Path]:
    """Final test accuracy (mean over seeds) and the Kaplan-Meier median steps to test acc 0.99 (a cell that
    half its seeds never reached says so, never coloured at the horizon), per map."""
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(2, 3, figsize=(9.6, 6.0), squeeze=False)
        for row, (col, label) in enumerate((("final_test", "final test acc"),
                                            ("t_test", "median steps to test acc 0.99"))):
            get = median_time if col == "t_test" else (lambda v: np.mean(v) if v else None)
            maps = {kind: np.array([[get(t[col].get(name(kind, lr, wd)) or []) for lr in lrs] for wd in wds],
                                   dtype=float) for kind in KINDS}
            top = 1.0 if col == "final_test" else max([np.nanmax(m) for m in maps.values() if np.isfinite(m).any()]
                                                      + [1.0])
            for j, (kind, m) in enumerate(maps.items()):  # one colour scale per row: maps compare at a glance
                ylabel = "AdamW lambda" if j == 0 else ("Adam decay / lr" if kind == "matched" else "Adam decay")
                heat(fig, axes[row, j], m, lrs, wds, "lr", ylabel, f"{KINDS[kind]}:\n{label}", vmax=top)
        return save(fig, path)
