"""Fig. 6 of paper 000: Adam vs Adam-LR (embedding lr x c) on add, sub, mul, div at lr 0.01, batch 512."""
from __future__ import annotations

from pathlib import Path

from groklab.experiments.embedding.profile import base_overrides
from groklab.experiments.spec import Claim, RunSpec, seeded
from groklab.experiments.stats import boot_ratio, censor, median_censored, paired_ratios, per_seed, run_table
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


def runs(profile: str, seeds: int) -> list[RunSpec]:
    base = base_overrides(profile, QUICK, PAPER_SIZES)
    return [spec for task in TASKS for name, extra in OPTIMS.items()
            for spec in seeded(f"{task}/{name}", base + [f"task={task}"] + extra, seeds)]


def label(df):
    """Optimizer label per row: 'adam' (c = 1), 'adam_lr c=<c>' or 'adam_lr adaptive c'."""
    c = df["optim.c"].map("adam_lr c={:g}".format)
    adaptive = df["optim.c_mode"] == "adaptive"
    return c.where(df["optim.c"] != 1.0, "adam").where(~adaptive, "adam_lr adaptive c")


def analyze(df, out: Path) -> tuple[list[Path], list[Claim]]:
    figs = []
    if not df.empty:
        figs = acc_grid(df.assign(optimizer=label(df)), out / "fig6", rows=None, cols="task.name",
                        line="optimizer", title="Fig. 6: Adam vs Adam-LR", order={"task.name": list(TASKS)})
    return figs, claims(run_table(df))


def claims(t) -> list[Claim]:
    """Per task and Adam-LR variant: steps to 99% test accuracy per seed, and the Adam / Adam-LR ratio."""
    out = []
    horizon = int(t["last_step"].max()) if len(t) else 0
    for variant, where in VARIANTS.items():
        ok = []
        for task in TASKS:
            adam = per_seed(t, "t_test", task__name=task, **ADAM) if len(t) else []
            lr = per_seed(t, "t_test", task__name=task, **where) if len(t) else []
            r = boot_ratio(censor(adam, horizon), censor(lr, horizon))
            holds = r["sign"] == 1  # faster: the ratio's CI excludes 1
            ok.append(holds)
            out.append(Claim(f"{variant}_faster_{task}", f"{_name(variant)} groks {task} faster than Adam.",
                             "t_test = first eval step with test acc >= 0.99 (not reached: the run's horizon, a "
                             f"lower bound); ratio = mean t_test(adam) / mean t_test({variant}) with a 95% bootstrap "
                             "CI over seeds; holds if the whole CI lies above 1",
                             {"adam": adam, variant: lr, f"adam/{variant} per seed": paired_ratios(adam, lr)},
                             {"median_adam": median_censored(adam) if adam else None,
                              f"median_{variant}": median_censored(lr) if lr else None, "ratio": r["ratio"],
                              "lo": r["lo"], "hi": r["hi"]}, holds))
        out.append(Claim(f"{variant}_faster_all", f"{_name(variant)} groks faster than Adam on all four tasks.",
                         "the four per-task claims above all hold", {}, {"tasks_holding": sum(ok)}, all(ok)))
    return out


def _name(variant: str) -> str:
    return {"adam_lr": "Adam-LR (c = 10)", "adam_lr_adaptive": "Adam-LR with adaptive c"}[variant]
