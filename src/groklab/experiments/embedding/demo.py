"""`groklab demo`: the core observation of paper 000 on a CPU in a few minutes.

MLP without embeddings (raw values, 000 eq. 1) vs with embeddings (eq. 2), on add and mul,
and Adam vs Adam-LR (embedding lr x10) for the embedding model. Re-running resumes or skips runs.
"""
from __future__ import annotations

from pathlib import Path

from groklab.config import make_config
from groklab.experiments.runner import execute
from groklab.plots.curves import plot_curves
from groklab.store import load_runs, make_out

VARIANTS = {  # label -> overrides
    "mlp (no emb), adam": ["model=mlp", "optim=adam"],
    "mlp_emb, adam": ["model=mlp_emb", "optim=adam"],
    "mlp_emb, adam_lr c=10": ["model=mlp_emb", "optim=adam", "optim.c=10"],
}
COLUMNS = ("status", "steps", "t_train", "t_test", "gap", "final/train_acc", "final/test_acc", "wall_s")


def demo_configs(p: int = 47, steps: int = 6000, seeds: int = 3, frac: float = 0.5) -> dict:
    """Run name -> Config for every (task, variant, seed) of the demo."""
    base = [f"p={p}", f"steps={steps}", f"split.frac_train={frac}", "optim.lr=0.01", "batch_size=512",
            "eval.every=25", "eval.log_points=20", "stop.patience=200", "bar=false"]
    out = {}
    for task in ("add", "mul"):
        for label, extra in VARIANTS.items():
            for seed in range(seeds):
                name = f"{task}/{extra[0].split('=')[1]}-{'adam_lr' if 'optim.c=10' in extra else 'adam'}/s{seed}"
                out[name] = (label, make_config(base + extra + [f"task={task}", f"seed={seed}"]))
    return out


def run_demo(out: Path = Path("runs/demo"), p: int = 47, steps: int = 6000, seeds: int = 3,
             frac: float = 0.5, echo=print, jobs: int = 1) -> list[dict]:
    """Train (or resume / skip finished) every demo run, `jobs` at once, print a table, write demo.png."""
    configs = demo_configs(p, steps, seeds, frac)  # validated before anything is written
    out = make_out(out)  # new, empty or groklab's own: a folder of the user's files is refused
    echo(f"groklab demo: p={p}, train fraction {frac}, lr 0.01, batch 512, up to {steps} steps, {jobs} at once "
         f"-> {out}")
    # the one place runs are trained (experiments/runner.py): finished runs skipped, unfinished ones resumed
    summaries = execute(Path(out), {name: cfg.to_dict() for name, (_, cfg) in configs.items()}, jobs, echo)
    rows = []
    for name, (label, cfg) in configs.items():
        rows.append({"task": cfg.task.name, "variant": label, "seed": cfg.seed, **summaries[name]})
        echo(_fmt_row(rows[-1]))
    echo(_medians(rows))
    df = load_runs(out)
    c = df["optim.c"].map(lambda c: "" if c == 1 else f" c={c:g}")
    df["variant"] = df["model.name"] + ", " + df["optim.name"] + c
    fig = plot_curves(df[df["seed"] == 0], Path(out) / "demo.png", panel="task.name", line="variant",
                      title=f"MLP with / without embeddings, Adam vs Adam-LR (p={p})")
    echo(f"figure: {fig}")
    return rows


def _fmt_row(r: dict) -> str:
    f = lambda v: "-" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))  # noqa: E731
    return (f"{r['task']:>4}  {r['variant']:<22} seed {r['seed']}  t_train {f(r.get('t_train')):>5}  "
            f"t_test {f(r.get('t_test')):>5}  gap {f(r.get('gap')):>5}  train {f(r.get('final/train_acc'))}  "
            f"test {f(r.get('final/test_acc'))}  ({r['status']}, {f(r.get('steps'))} steps, {f(r.get('wall_s'))} s)")


def _medians(rows: list[dict]) -> str:
    """Per task and variant: median t_test and final test accuracy over seeds; Adam / Adam-LR ratio."""
    import statistics

    lines, med = ["median over seeds:"], {}
    for task in dict.fromkeys(r["task"] for r in rows):
        for label in VARIANTS:
            rs = [r for r in rows if r["task"] == task and r["variant"] == label]
            t = [r["t_test"] for r in rs if r.get("t_test") is not None]
            med[task, label] = statistics.median(t) if len(t) == len(rs) else None
            accs = [r["final/test_acc"] for r in rs if r.get("final/test_acc") is not None]  # none: a run failed
            acc = statistics.median(accs) if accs else float("nan")
            lines.append(f"{task:>4}  {label:<22} t_test {med[task, label] or 'not reached':>11}  "
                         f"({len(t)}/{len(rs)} seeds reach it)  final test acc {acc:.3f}")
        a, b = med[task, "mlp_emb, adam"], med[task, "mlp_emb, adam_lr c=10"]
        if a and b:
            lines.append(f"{task:>4}  Adam-LR reaches t_test (test acc >= 0.99) "
                         f"{a / b:.1f}x sooner than Adam")
    return "\n".join(lines)
