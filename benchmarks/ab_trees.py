"""One training config timed under two groklab source trees: the before/after of a training-path change.

    git worktree add /tmp/before HEAD~1
    python benchmarks/ab_trees.py /tmp/before/src src                       # Adam-LR c = 10, linear schedule
    python benchmarks/ab_trees.py /tmp/before/src src optim.c_mode=adaptive --repeats 7
    python benchmarks/ab_trees.py src src --smoke                            # seconds: the script still runs

Each repeat trains the config in a fresh process per tree (PYTHONPATH = the tree, one thread, evaluation only at
the ends), alternating the trees so drifting machine load hits both alike; prints the median ms/step of each and
the ratio after/before. Used for the param-group ratio c (2026-11-26: 1.001 fixed c, 1.019 adaptive, idle cores).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

# progress=false: the bar flag under its name before 2026-11-26 (`bar`), which later trees still read (deprecated),
# so one script times trees from either side of the rename
RUN = r"""
import json, sys, torch
from groklab import make_config, train
torch.set_num_threads(1)
steps = int(sys.argv[1])
cfg = make_config(["progress=false", "stop.early=false", f"steps={steps}", f"eval.every={steps}",
                   "eval.log_points=0", *sys.argv[2:]])
s = train(cfg).summary
print(json.dumps((s["wall_s"] - s["eval_s"]) / steps * 1e3))
"""
BASE = ["p=97", "task=mul", "model=mlp_emb", "optim=adam", "optim.c=10", "optim.schedule=linear", "optim.warmup=10",
        "batch_size=512"]
SMOKE = ["p=11", "model.d_emb=8", "model.d_hidden=16", "batch_size=16"]


def ms_per_step(src: str, steps: int, overrides: list[str]) -> float:
    env = {**os.environ, "PYTHONPATH": os.path.abspath(src), "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", RUN, str(steps), *overrides], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", help="the src/ folder of the tree before the change")
    ap.add_argument("after", help="the src/ folder of the tree after it")
    ap.add_argument("overrides", nargs="*", help="config overrides on top of Adam-LR c = 10 at p = 97, batch 512")
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--smoke", action="store_true", help="tiny sizes: the script runs, numbers mean nothing")
    args = ap.parse_args(argv)
    overrides = BASE + (SMOKE if args.smoke else []) + args.overrides
    steps, repeats = (20, 1) if args.smoke else (args.steps, args.repeats)
    before, after = [], []
    for _ in range(repeats):
        before.append(ms_per_step(args.before, steps, overrides))
        after.append(ms_per_step(args.after, steps, overrides))
    b, a = statistics.median(before), statistics.median(after)
    print(f"{' '.join(args.overrides) or 'Adam-LR c=10, linear schedule'}: before {b:.3f} ms/step, after {a:.3f} "
          f"ms/step, ratio after/before {a / b:.3f} (median of {repeats}; before {[round(x, 2) for x in before]}, "
          f"after {[round(x, 2) for x in after]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
