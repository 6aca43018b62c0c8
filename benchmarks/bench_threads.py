"""Threads under load: one and two `groklab train` processes at once on this machine's CPUs, per thread policy.

    python benchmarks/bench_threads.py [--steps 400] [--repeats 3] [--json out.json]

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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--policies", nargs="+", default=list(POLICIES))
    ap.add_argument("--json")
    a = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="groklab-threads-"))
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
