"""What a reproduction costs before running it: measured step and eval times, extrapolated to every run.

    python benchmarks/profile_cost.py investigation/all --profile paper       # 002 at the paper's sizes
    python benchmarks/profile_cost.py beyond/table1 --profile paper --device cuda
    python benchmarks/profile_cost.py embedding/all --smoke                   # seconds: the script still runs

For each distinct training shape among the target's runs (model, task, p, K, batch or full batch, optimizer,
encoding), build it as the loop does and time the loop's own step (SoloStep, median of 3 repeats of N steps
after 3 warm-up steps) and one evaluation of the train and test sets. A run costs steps x step time +
(steps / eval.every) x eval time; measures, checkpoints and start-up are left out, and early stops are not
credited: a lower bound for runs that train their whole horizon, an upper bound for runs that generalize
and stop (paper 000's fig4 at the paper profile ran in 0.4 of its estimate). One thread on a CPU
(torch.set_num_threads(1), as `reproduce --jobs N` runs each job): divide by the jobs run at once.
Prints one line per shape, the hours per figure, and the fp32 matmul GFLOP/s it ran at.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import torch

from groklab import make_config
from groklab.engine.setup import build
from groklab.engine.step import SoloStep, evaluate
from groklab.errors import ConfigError
from groklab.experiments import resolve
from groklab.experiments.runner import specs_of
from groklab.experiments.spec import PROFILES


def matmul_gflops(n: int = 1024, repeats: int = 5) -> float:
    a = torch.randn(n, n)
    torch.mm(a, a)
    rates = []
    for _ in range(repeats):
        t = time.perf_counter()
        torch.mm(a, a)
        rates.append(2 * n ** 3 / (time.perf_counter() - t) / 1e9)
    return statistics.median(rates)


def shape_key(cfg) -> tuple:
    """What a step's cost depends on (not the seed, lr, weight decay or -- except at full batch -- the split)."""
    full = cfg.sampler == "full"
    return (cfg.model.model_dump_json(), cfg.task.model_dump_json(), cfg.p, cfg.encoding, cfg.optim.name,
            cfg.sampler, 0 if full else cfg.batch_size, cfg.split.frac_train if full else 0, cfg.device)


def time_shape(cfg, n: int) -> tuple[float, float]:
    """(seconds per training step, seconds per evaluation of the train and test sets)."""
    exp = build(cfg)
    step = SoloStep(exp)
    with torch.no_grad():
        t = time.perf_counter()
        evaluate(exp.model, exp.X_train, exp.y_train, cfg.eval.chunk)
        evaluate(exp.model, exp.X_test, exp.y_test, cfg.eval.chunk)
        sync(exp.device)
        ev = time.perf_counter() - t
    for s in range(3):
        step.step(s)
    times = []
    for r in range(3):
        sync(exp.device)
        t = time.perf_counter()
        for s in range(n):
            step.step(3 + r * n + s)
        sync(exp.device)
        times.append((time.perf_counter() - t) / n)
    return statistics.median(times), ev


def sync(device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("target", help="paper/figure as for groklab reproduce, e.g. investigation/all")
    ap.add_argument("--profile", default="paper", choices=list(PROFILES))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=10, help="timed steps per repeat")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--smoke", action="store_true", help="tiny models and runs: the script runs, numbers mean nothing")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)
    try:
        modules = resolve(args.target)
    except ConfigError as err:  # an unknown paper or figure: one line, exit 2, as groklab reproduce
        print(f"error: {err}", file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    extra = [f"device={args.device}"] + (["model.d_emb=8", "model.d_hidden=16", "steps=20"] if args.smoke else [])
    gflops = matmul_gflops(256 if args.smoke else 1024)
    print(f"torch {torch.__version__}, {args.device}, 1 thread, fp32 matmul {gflops:.1f} GFLOP/s", flush=True)
    seen, figures = {}, {}
    for module in modules:
        total = 0.0
        specs = specs_of(module, args.profile, args.seeds, tuple(extra))
        for spec in specs:
            cfg = make_config(list(spec.overrides))
            key = shape_key(cfg)
            if key not in seen:
                seen[key] = time_shape(cfg, 2 if args.smoke else args.steps)
                print(f"  {module.NAME}/{spec.name}: {1e3 * seen[key][0]:.1f} ms/step, eval {seen[key][1]:.2f} s; "
                      f"{cfg.steps} steps, eval every {cfg.eval.every}", flush=True)
            step_s, eval_s = seen[key]
            total += cfg.steps * step_s + cfg.steps // cfg.eval.every * eval_s
        figures[module.NAME] = {"runs": len(specs), "seconds": round(total, 3)}
        print(f"{module.NAME}: {len(specs)} runs, {total / 3600:.2f} h on one thread", flush=True)
    seconds = sum(f["seconds"] for f in figures.values())
    print(f"total: {seconds / 3600:.1f} h on one thread ({len(seen)} shapes timed)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"target": args.target, "profile": args.profile, "device": args.device, "gflops": gflops,
                       "figures": figures, "seconds": seconds}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
