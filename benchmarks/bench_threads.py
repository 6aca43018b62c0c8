"""Threads under load: one and two `groklab train` processes at once on this machine's CPUs, per thread policy.

    python benchmarks/bench_threads.py [--steps 400] [--repeats 3] [--json out.json]
    python benchmarks/bench_threads.py --sizes [--json out.json]   # 1 vs 2 threads by step size, and beside
                                                                   # one busy process: default vs 1 thread

Each case starts `jobs` training processes together (p = 47, batch 512, d_emb 128, d_hidden 512) and reads
their steps/s from summary.json; the median over repeats is reported with the ratio to one process alone
under groklab's default. Policies: `torch` (torch's own choice: one thread per core, OpenMP threads
spin while they wait), `spin1` (1 thread, spinning), `groklab` (what the CLI does: threads = usable CPUs /
jobs and passive OpenMP waiting), `passive` (torch's thread count with passive waiting).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CFG = ["p=47", "task=add", "batch_size=512", "model.d_emb=128", "model.d_hidden=512", "eval.every=1000000",
       "eval.log_points=0", "bar=false", "checkpoint_every=0", "stop.early=false"]
POLICIES = {"torch": {"GROKLAB_THREADS": "torch", "OMP_WAIT_POLICY": "ACTIVE"},
            "spin1": {"GROKLAB_THREADS": "1", "OMP_WAIT_POLICY": "ACTIVE"},
            "passive": {"GROKLAB_THREADS": "torch", "OMP_WAIT_POLICY": "PASSIVE"},
            "groklab": {}}


def once(policy: str, jobs: int, steps: int, root: Path) -> list[float]:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "GROKLAB_THREADS")}
    env.update(POLICIES[policy])
    if policy == "groklab":
        env["GROKLAB_JOBS"] = str(jobs)  # what a sweep or reproduce tells its workers
    outs = [Path(tempfile.mkdtemp(dir=root)) / "run" for _ in range(jobs)]
    procs = [subprocess.Popen([sys.executable, "-m", "groklab", "train", *CFG, f"steps={steps}", "--out", str(o)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for o in outs]
    for p in procs:
        if p.wait() != 0:
            raise SystemExit(f"training failed: {p.stderr.read().decode()[-500:]}")
    return [json.loads((o / "summary.json").read_text())["steps_per_s"] for o in outs]


SIZES = {  # the work of one training step (engine/threads.step_flops), from tiny to 000's paper MLP
    "tiny p=23": ["p=23", "model.d_emb=32", "model.d_hidden=128", "batch_size=128"],
    "small p=47": ["p=47", "model.d_emb=64", "model.d_hidden=256", "batch_size=256"],
    "medium p=47": ["p=47", "model.d_emb=128", "model.d_hidden=512", "batch_size=512"],
    "paper p=97": ["p=97", "model.d_emb=128", "model.d_hidden=512", "batch_size=512"],
}


def timed(size: str, threads: str | None, steps: int, root: Path) -> dict:
    """One run of `size` on `threads` (None: groklab's default); its steps/s and the threads it chose."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "GROKLAB_THREADS", "GROKLAB_JOBS")}
    if threads:
        env["GROKLAB_THREADS"] = threads
    out = Path(tempfile.mkdtemp(dir=root)) / "run"
    cfg = [c for c in CFG if not c.startswith(("p=", "batch_size=", "model."))] + SIZES[size]
    r = subprocess.run([sys.executable, "-m", "groklab", "train", *cfg, f"steps={steps}", "--out", str(out)],
                       env=env, capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"training failed: {r.stderr[-500:]}")
    s = json.loads((out / "summary.json").read_text())
    return {"steps_per_s": s["steps_per_s"], "threads": s.get("threads")}


def sizes(steps: int, repeats: int, root: Path) -> dict:
    """Idle: steps/s on 1 and 2 threads per size (where a second thread starts to pay). Then beside one busy
    process (a spinning Python loop, started first): groklab's default vs 1."""
    idle = {k: {t: statistics.median(timed(k, t, steps, root)["steps_per_s"] for _ in range(repeats))
                for t in ("1", "2")} for k in SIZES}
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(1)  # running before the timed runs start
        beside = {}
        for k in SIZES:
            runs = {t: [timed(k, t, steps, root) for _ in range(repeats)] for t in (None, "1")}
            beside[k] = {"default": statistics.median(r["steps_per_s"] for r in runs[None]),
                         "default_threads": runs[None][0]["threads"],
                         "one": statistics.median(r["steps_per_s"] for r in runs["1"])}
    finally:
        busy.kill()
    print(f"{'size':12s} {'idle 1 thr':>10s} {'idle 2 thr':>10s} | {'busy: default':>13s} {'(thr)':>5s} "
          f"{'1 thr':>7s} {'time default / 1 thr':>21s}")
    for k in SIZES:
        i, b = idle[k], beside[k]
        print(f"{k:12s} {i['1']:10.1f} {i['2']:10.1f} | {b['default']:13.1f} {b['default_threads']!s:>5s} "
              f"{b['one']:7.1f} {b['one'] / b['default']:21.2f}")
    return {"idle_steps_per_s": idle, "beside_one_busy": beside}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", action="store_true", help="1 vs 2 threads by step size, idle and beside a busy "
                    "process")
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--policies", nargs="+", default=list(POLICIES))
    ap.add_argument("--json")
    a = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="groklab-threads-"))
    if a.sizes:
        doc = sizes(a.steps, a.repeats, root)
        if a.json:
            Path(a.json).write_text(json.dumps({"cpus": len(os.sched_getaffinity(0)), **doc}, indent=1))
        return 0
    rows = []
    for _ in range(a.repeats):  # repeats outermost: slow drifts of the machine hit every case alike
        for jobs in a.jobs:
            for policy in a.policies:
                rates = once(policy, jobs, a.steps, root)
                rows.append({"policy": policy, "jobs": jobs, "per_process": rates})
    table = []
    for jobs in a.jobs:
        for policy in a.policies:
            per = [statistics.mean(r["per_process"]) for r in rows if r["policy"] == policy and r["jobs"] == jobs]
            table.append({"policy": policy, "jobs": jobs, "steps_per_s": statistics.median(per),
                          "total_steps_per_s": statistics.median(per) * jobs})
    base = next((t["steps_per_s"] for t in table if t["policy"] == "groklab" and t["jobs"] == 1), None)
    print(f"{'policy':8s} {'jobs':>4s} {'steps/s each':>13s} {'total':>8s} {'vs groklab alone':>17s}")
    for t in table:
        t["ratio"] = t["total_steps_per_s"] / base if base else None
        print(f"{t['policy']:8s} {t['jobs']:4d} {t['steps_per_s']:13.1f} {t['total_steps_per_s']:8.1f} "
              f"{t['ratio'] or float('nan'):17.2f}")
    if a.json:
        Path(a.json).write_text(json.dumps({"cpus": len(os.sched_getaffinity(0)), "table": table, "runs": rows},
                                           indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
