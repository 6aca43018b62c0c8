"""Fit the run-cost model (src/groklab/sweep/cost.py) to the archived runs and write its coefficients.

    python benchmarks/fit_cost.py                 # every archive in results/: prints the fit, writes nothing
    python benchmarks/fit_cost.py --write         # writes src/groklab/sweep/costs.json

Each archived run's summary holds its wall seconds, steps, parameters, training and test rows, device and (a
stacked population on a GPU) its size; its config says the batch, the evaluation and measure cadences, and rebuilds
the model on the meta device for its FLOPs per row (sweep/cost.py). The coefficients are non-negative least squares
on relative error (every row divided by its wall time), one fit per device; a stack of k members counts once with
its work times k. On a GPU every archived run is a long, compute-heavy stack (20,000-30,000 steps of full
batches), so they alone cannot tell a step's fixed cost from its compute and put ~4 ms on every step; the step
times bench_population.py measured on GPUs (benchmarks/results/population_*.json: stacks of 1-256 members at
batch 64-512, ms per step, no evaluation) are fitted beside them as rows of 1,000 steps without start or
evaluation. Rows taken with TF32 matmuls count only for stacks of <= 4 members, where the matmuls are a small part
of the step; the default is float32. The archives were trained on machines whose speed varies several-fold from
day to day (the fit's error says how much that costs an estimate): these are planning numbers, with the error
printed beside them.

The start of a GPU unit is not fitted once it has been measured: benchmarks/start_cost.py times fresh processes on
a device (interpreter, imports, a one-step run with its CUDA context) and writes benchmarks/results/start_<device>
.json; on a GPU, where each archived stack paid one process start, that is the first coefficient as measured and
the others are fitted to what is left of each wall time (costs.json says which). A fitted start soaks up whatever
the other terms miss (issue 66: 101 s per unit, where a process start, the imports and a CUDA context take
seconds). On a CPU the archived runs shared their processes, so the measurement (start_cpu.json) is not a per-run
term and the CPU's small per-run start stays fitted.
"""
from __future__ import annotations

import argparse
import datetime
import gzip
import json
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import nnls

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from groklab.sweep.cost import COSTS, MEASURES, features  # noqa: E402


def rows(archives: list[Path]) -> dict[str, list]:
    """device -> [(features, wall seconds, archive/study)] over every archived run (a stack once)."""
    out: dict[str, list] = {}
    seen = set()
    for f in sorted(p for a in archives for p in a.glob("*/runs.jsonl.gz")):
        for line in gzip.open(f, "rt"):
            r = json.loads(line)
            s, cfg = r.get("summary") or {}, r.get("config") or {}
            if not s.get("wall_s") or not s.get("n_params") or not s.get("steps"):
                continue
            k = s.get("population/size", 1)
            key = (f.parent, round(s["wall_s"] / 5), s["steps"], k)
            if k > 1 and key in seen:  # the members of one stack report its wall time each (ms apart)
                continue
            seen.add(key)
            n_train = s["n_train"]
            batch = n_train if cfg.get("sampler") == "full" else min(cfg.get("batch_size", n_train), n_train)
            ms = cfg.get("measures") or {}
            calls = {m: s["steps"] // ms[m]["every"] + 1 for m in MEASURES if (ms.get(m) or {}).get("every")}
            x = features(s["steps"], batch, s["n_params"], n_train + s["n_test"], cfg["eval"]["every"], k, calls,
                         n_train, _flops_row(cfg))
            out.setdefault(s["device"], []).append((x, s["wall_s"], f"{f.parent.parent.name}/{f.parent.name}"))
    return out


def _flops_row(cfg: dict) -> float | None:
    """FLOPs of one row's forward and backward (sweep/cost.py), None where the stored config no longer builds."""
    from groklab.config import make_config
    from groklab.sweep.cost import shape_of
    try:
        return shape_of(make_config(base=cfg).to_dict())[3]
    except Exception:  # noqa: BLE001 -- an old archive's config: the dense estimate (6 per parameter)
        return None


def bench_rows(files: list[Path]) -> list:
    """[(features, seconds per 1,000 steps, file)] of bench_population.py's GPU tables (float32 rows, and TF32
    rows of stacks of <= 4 members)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_population import configs

    from groklab.sweep.cost import run_features
    out = []
    for f in files:
        doc = json.loads(f.read_text())
        if "NVIDIA" not in doc.get("device", ""):
            continue
        for r in doc["rows"]:
            if doc.get("tf32") and r["M"] > 4:
                continue
            model, B = r.get("model", "mlp"), r["batch"]
            p = 59 if model == "code_mlp" else 97
            cfg = configs(1, None if B == "full" else B, p, 128, "cpu", False, model)[0].to_dict()
            x = run_features({**cfg, "steps": 1000, "eval": {**cfg["eval"], "every": 10**9}}, r["M"])
            x[0] = x[3] = 0.0  # no start, no evaluation: a timed stretch of steps (its GFLOP: training only)
            out.append((x, r["stacked_ms_per_step"], f"{f.name} {model} B={B} M={r['M']}"))
    return out


PROCESS_PER_RUN = ("cuda",)  # devices whose archived runs (stacks) each paid a process start: a GPU slice's units


def measured_start(device: str) -> tuple[float, str] | None:
    """(seconds, file) of the unit start benchmarks/start_cost.py measured on `device`
    (benchmarks/results/start_<device>.json), None where it has not been measured yet or where it is not a
    per-run term: on a CPU a reproduction trains many runs in one process (in process or a pool's worker), so
    the archived runs paid no process start each (fitting 4.1 s on them doubled the CPU model's error)."""
    f = ROOT / "benchmarks" / "results" / f"start_{device}.json"
    if device not in PROCESS_PER_RUN:
        return None
    return (float(json.loads(f.read_text())["start_s"]), f"benchmarks/results/{f.name}") if f.is_file() else None


def fit(data: list, start: float | None = None) -> tuple[list[float], dict]:
    """Non-negative least squares on relative error; `start` (measured) fixes the first coefficient, the others
    are fitted to what is left of each wall time."""
    X = np.array([x for x, _, _ in data])
    y = np.array([w for _, w, _ in data])
    if start is None:
        coef, _ = nnls(X / y[:, None], np.ones(len(y)))
    else:
        rest, _ = nnls(X[:, 1:] / y[:, None], 1 - start * X[:, 0] / y)
        coef = np.concatenate([[start], rest])
    ratio = (X @ coef) / y
    err = np.abs(ratio - 1)
    return coef.tolist(), {"runs": len(y), "median |estimate / wall - 1|": round(float(np.median(err)), 3),
                           "90th percentile": round(float(np.percentile(err, 90)), 3),
                           "share underestimated by > 1.5x": round(float(np.mean(ratio < 1 / 1.5)), 3),
                           # what --budget multiplies an estimate by: 9 in 10 archived runs took less
                           "margin": round(max(1.0, float(np.percentile(1 / ratio, 90))), 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archives", nargs="*", type=Path)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    import torch

    archives = a.archives or sorted(p.parent for p in (ROOT / "results").glob("*/manifest.json"))
    devices = {}
    data_by = rows(archives)
    bench = bench_rows(sorted((ROOT / "benchmarks" / "results").glob("population_*.json")))
    data_by.setdefault("cuda", []).extend(bench)
    for device, data in data_by.items():
        start = measured_start(device)  # a measured start is a term of its own, not a constant soaking up error
        coef, quality = fit(data, start[0] if start else None)
        devices[device] = {"coef": [round(c, 9) for c in coef], "fit": quality,
                           "start": {"measured_by": start[1]} if start else {"fitted": "no start_cost.py "
                                                                                       "measurement yet"}}
        print(f"{device}: {quality}; coefficients {devices[device]['coef']}")
    doc = {"features": ["start", "steps", "GFLOP", "million evaluated rows",
                        *[f"{m} calls x GFLOP-like" for m in MEASURES]],
           "fitted": {"date": datetime.date.today().isoformat(), "by": "benchmarks/fit_cost.py",
                      "archives": [p.name for p in archives], "torch here": torch.__version__,
                      "note": "coefficients from runs of several machines and days; cuda from H100/H200 stacks and "
                              f"{len(bench)} step times of benchmarks/results/population_*.json"},
           "devices": devices}
    if a.write:
        COSTS.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {COSTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
