"""Fig. 6 of paper 000: Adam vs Adam-LR (embedding lr x c) on add, sub, mul, div at lr 0.01, batch 512."""
from __future__ import annotations

from copy import deepcopy
from dataclasses import replace
from pathlib import Path

from groklab.experiments.choices import weigh
from groklab.experiments.claims import event_times, time_claim
from groklab.experiments.embedding.profile import WD_MODE, base_overrides
from groklab.experiments.posthoc import Revision, revised
from groklab.experiments.spec import Claim, RunSpec, seeded
from groklab.experiments.stats import alpha, run_table, select
from groklab.plots.curves import acc_grid

NAME = "fig6"
TITLE = "Adam vs Adam-LR (c = 10 and adaptive c) on four tasks, lr 0.01, batch 512"
PAPER = ("Adam-LR (embedding learning rate x10) groks significantly faster than Adam on all four "
         "datasets (add, sub, mul, div) under identical settings (lr 0.01, batch 512).")
TASKS = ("add", "sub", "mul", "div")
# the paper's Adam-LR uses c = 10; the adaptive c of Prop. 4.1 (sigma_max ratio x update-frequency ratio)
# runs beside it
OPTIMS = {"adam": ["optim=adam"], "adam_lr": ["optim=adam", "optim.c=10"],
          "adam_lr_adaptive": ["optim=adam", "optim.c=10", "optim.c_mode=adaptive"]}
ADAM = dict(optim__name="adam", optim__c=1.0)
VARIANTS = {"adam_lr": dict(optim__name="adam", optim__c=10.0, optim__c_mode="fixed"),
            "adam_lr_adaptive": dict(optim__name="adam", optim__c_mode="adaptive")}

QUICK = ["batch_size=512", "steps=3000"]
PAPER_SIZES = ["optim.lr=0.01", "batch_size=512", "steps=20000"]
# Fig. 6 states lr 0.01 and batch 512 but not how Adam applies its decay; with coupled decay an embedding lr of
# 0.1 can collapse E and W to zero (add, seed 0), so decoupled decay is run beside it at the paper profile.
ASSUMPTIONS = [replace(WD_MODE, other="decoupled", profiles=("paper",))]


def runs(profile: str, seeds: int) -> list[RunSpec]:
    base = base_overrides(profile, QUICK, PAPER_SIZES)
    return [spec for task in TASKS for name, extra in OPTIMS.items()
            for spec in seeded(f"{task}/{name}", base + [f"task={task}"] + extra, seeds)]


def label(df):
    """Optimizer label per row, in the paper's words: 'Adam' (c = 1), 'Adam-LR, c = <c>' or 'Adam-LR, adaptive c'."""
    c = df["optim.c"].map("Adam-LR, c = {:g}".format)
    adaptive = df["optim.c_mode"] == "adaptive"
    return c.where(df["optim.c"] != 1.0, "Adam").where(~adaptive, "Adam-LR, adaptive c")


def analyze(df, out: Path, profile: str = "quick") -> tuple[list[Path], list[Claim]]:
    figs = []
    if not df.empty:
        figs = acc_grid(df.assign(optimizer=label(df)), out / "fig6", rows=None, cols="task.name",
                        line="optimizer", title=f"Adam vs Adam-LR ({profile} profile: p = {int(df['p'].iloc[0])}; "
                        "the paper's Fig. 6 is at p = 97)", order={"task.name": list(TASKS)})
    return figs, claims(run_table(df), run_table(df, test_thr=0.95))


EVENT = "t_test = first eval step with test acc >= {:g}"


def claims(t, t95=None) -> list[Claim]:
    """Per task and Adam-LR variant: does a run of it reach 99% test accuracy before a run of Adam (censored
    times; judged again at 95%, and said so when the verdict changes)? Then: on all four tasks."""
    out = []
    for variant, where in VARIANTS.items():
        cells = {task: _pair(t, task, where) for task in TASKS}
        alt = {"test acc 0.95": {task: _pair(t95, task, where) for task in TASKS}} if t95 is not None else None
        for task in TASKS:
            one = {k: {task: v[task]} for k, v in alt.items()} if alt else None
            out.append(time_claim(f"{variant}_faster_{task}", f"{_name(variant)} groks {task} faster than Adam.",
                                  {task: cells[task]}, (variant, "adam"), EVENT.format(0.99), one))
        out.append(time_claim(f"{variant}_faster_all", f"{_name(variant)} groks faster than Adam on all four tasks.",
                              cells, (variant, "adam"), EVENT.format(0.99), alt))
    judged = []
    for c in out:  # a run that never reaches 0.99 is censored: say what it did instead, per arm
        tasks = TASKS if c.id.endswith("_all") else [c.id.rsplit("_", 1)[1]]
        variant = c.id.rsplit("_faster_", 1)[0]
        said = [m for task in tasks for arm, where in ((variant, VARIANTS[variant]), ("adam", ADAM))
                for m in [_missed(t, task, where, arm)] if m]
        c.note = "; ".join(filter(None, [c.note, *said, _bar(c, tasks, variant)]))
        judged.append(_never(c, [k for k, down in _near(c, tasks, variant).items() if down], variant, t))
    by = {c.id: c for c in judged}
    if {"adam_lr_faster_all", "adam_lr_adaptive_faster_all"} <= set(by):  # the caption's Adam-LR is the adaptive
        weigh(by["adam_lr_faster_all"], "which Adam-LR the caption means", "c = 10 (§5.2, the runs of Fig. 6)",
              {"adaptive c (the caption: 'based on the singular values')": by["adam_lr_adaptive_faster_all"]})
    return judged


# Since 2026-12-07 (a seventeenth fresh read: "underpowered" at 30 runs an arm misnamed why add stayed open): where
# what holds P down is runs that never reach 0.99 (right-censored at the horizon), the reason says so, first
NEVER = Revision("2026-12-07", "inconclusive (censored) where runs that never reach 0.99 hold P down, said first",
                 "inconclusive (underpowered) whatever held P down", "a fresh read: 8 of 30 Adam-LR runs on add never "
                 "reach 0.99; too few seeds is not why the cell stays open")


# Since 2026-12-07 (a twentieth read): where none of those runs is still rising at the horizon they are failures,
# not runs cut short -- ranked after every run that groks, as failures rank -- and the reason says "failures"
FAILED = Revision("2026-12-07", "inconclusive (failures) where no run that misses 0.99 is still rising at the horizon",
                  "inconclusive (censored) for every run that misses 0.99", "a fresh read: 3 never fit, 5 flat at "
                  "0.971-0.982 and none still rising; 'censored' told a reader they were cut short")


def _never(c: Claim, held: list[str], variant: str, t=None) -> Claim:
    """`c` relabelled (NEVER) where its undecided cells `held` are held down by runs that never reach 0.99, each
    said as what it is: a failure (never fit, or stalled and no longer rising) or a run cut short (still rising);
    where none is still rising, the reason is "failures" (FAILED), else "censored"."""
    if c.holds is not None or c.reason != "underpowered" or not held:
        return c
    lead, cut = [], False
    for task in held:
        a, times = c.aggregate[task], c.per_seed.get(f"{task} {variant}", [])
        got = _outcomes(t, task, VARIANTS[variant])
        cut = cut or got is None or bool(got[3].any())
        lead.append(f"{task}: {_name(variant)} is faster in median ({a[f'median {variant}'][0]:,.0f} against "
                    f"{a['median adam'][0]:,.0f} steps) but {sum(x is None for x in times)} of {len(times)} of its "
                    f"runs never reach 0.99{_kinds(t, task, VARIANTS[variant])}, ranked after every run that does"
                    + (" (right-censored at the horizon)" if cut else ": failures, not runs cut short"))
    old = deepcopy(c)
    note, c.note = c.note, ""
    c.inconclusive("censored", "; ".join([*lead, note]))
    c = revised(c, deepcopy(old), NEVER)
    if cut:
        return c
    was = deepcopy(c)
    c.reason = "failures"
    return revised(c, was, FAILED)


def _near(c: Claim, tasks, variant: str) -> dict[str, bool]:
    """Undecided cells that lean the claimed way with p <= 0.05 but above the looks' bar -> whether runs that never
    reach 0.99 (pairs left open or lost) hold their P down, rather than overlapping times."""
    if c.holds is not None or alpha() >= 0.05:
        return {}
    near = [k for k in tasks for a in [c.aggregate.get(k, {})] if a.get("p") is not None
            and alpha() < a["p"] <= 0.05 and a.get(f"P({variant} first)", 0) > 0.5]
    return {k: any(x is None for v in c.per_seed.items() if v[0].startswith(k) for x in v[1]) for k in near}


def _bar(c: Claim, tasks, variant: str) -> str:
    """Where an undecided cell leans the claimed way with p <= 0.05 but above the looks' bar (_near): the bar
    decides it, and the runs that never reach 0.99 (said beside) pull P down, not too few seeds (a fresh read)."""
    said = []
    for k, down in _near(c, tasks, variant).items():
        a = c.aggregate[k]
        why = ("runs that never reach 0.99 hold P down" if down
               else "every run reaches 0.99 and the two arms' times overlap: more seeds could settle it")
        said.append(f"{k}: P = {a['P(' + variant + ' first)']:.2f}, p = {a['p']:.3g} ({why})")
    return (f"{'; '.join(said)}: within 0.05 on one look, not within the bar {alpha():.3g} of the looks at these "
            "runs") if said else ""


def _missed(t, task: str, where: dict, arm: str) -> str:
    """'arm on task: k of n runs never fit the training set, m fit but end below test acc 0.99 (final ...)' or ''."""
    got = _outcomes(t, task, where)
    if got is None:
        return ""
    sub, unfit, stalled, _ = got
    if not unfit.any() and not stalled.any():
        return ""
    finals = sub.loc[stalled, "final_test"]
    lo, hi = (f"{finals.min():.3g}", f"{finals.max():.3g}") if len(finals) else ("", "")
    end = f" (final test {lo if lo == hi else f'{lo}-{hi}'})" if len(finals) else ""
    return (f"{arm} on {task}: {int(unfit.sum())} of {len(sub)} runs never fit the training set, "
            f"{int(stalled.sum())} fit but end below test acc 0.99{end}")


def _kinds(t, task: str, where: dict) -> str:
    """' (k fail: ... ; m still rising at the horizon: cut short)' for the runs of `task` that never reach 0.99."""
    got = _outcomes(t, task, where)
    if got is None:
        return ""
    _, unfit, stalled, up = got
    flat = stalled & ~up
    fail = [f"{int(unfit.sum())} never fit the training set"] * bool(unfit.any()) + [
        f"{int(flat.sum())} stall below it and no longer rise"] * bool(flat.any())
    said = ([f"failures: {', '.join(fail)}"] if fail else []) + (
        [f"{int(up.sum())} still rising at the horizon: cut short"] if up.any() else [])
    return f" ({'; '.join(said)})" if said else ""


def _outcomes(t, task: str, where: dict):
    """(the arm's runs on `task`, never fit, fit but never at test acc 0.99, of those still rising at the horizon)
    as masks; None without runs."""
    sub = select(t, task__name=task, **where) if t is not None and len(t) else []
    if not len(sub):
        return None
    unfit = sub["t_train"].isna()
    stalled = ~unfit & sub["t_test"].isna()
    up = stalled & sub["rising_test"].fillna(False).astype(bool) if "rising_test" in sub else stalled & False
    return sub, unfit, stalled, up


def _pair(t, task, where) -> tuple:
    if t is None or not len(t):
        return [], []
    return event_times(t, task__name=task, **where), event_times(t, task__name=task, **ADAM)


def _name(variant: str) -> str:
    return {"adam_lr": "Adam-LR (c = 10)", "adam_lr_adaptive": "Adam-LR with adaptive c"}[variant]
