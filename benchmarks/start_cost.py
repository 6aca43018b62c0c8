"""What one unit of work costs before its first useful step, in measured terms (issue 66: no fitted constant).

    python benchmarks/start_cost.py [--device cpu|cuda] [--repeats 5] [--json benchmarks/results/start_cpu.json]

Each term is the median wall time of fresh processes, measured from the parent (what a plan pays per unit):
- `python`: the interpreter alone (`python -c pass`);
- `import torch`: `python -c "import torch"` minus the interpreter;
- `import groklab`: what a run imports (the engine, models and data modules) minus `import torch`;
- `run, 1 step`: `groklab train` of a small MLP for one step on the device (config, data, model, optimizer, a CUDA
  context on a GPU, the run's files) minus `import groklab`;
- `step`: (`groklab train` of `--steps` steps minus the one-step run) / (steps - 1), the steady step the start is
  not. The start of a unit is the sum of the first four terms less one step; `fit_cost.py` takes it as the cost
  model's start for this device instead of fitting one.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

IMPORTS = "import torch, groklab.engine.loop, groklab.models, groklab.data.task, groklab.store"  # a run's own
RUN = ["task=add", "p=47", "model.d_emb=64", "model.d_hidden=256", "batch_size=256", "eval.every=1000000",
       "eval.log_points=0", "bar=false", "stop.early=false"]


def wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def train(device: str, steps: int, root: Path) -> list[str]:
    out = Path(tempfile.mkdtemp(dir=root)) / "run"
    return [sys.executable, "-m", "groklab", "train", *RUN, f"device={device}", f"steps={steps}", "--out", str(out)]


def measure(device: str, repeats: int, steps: int) -> dict:
    py = sys.executable
    cases = {"python": lambda _: [py, "-c", "pass"], "torch": lambda _: [py, "-c", "import torch"],
             "groklab": lambda _: [py, "-c", IMPORTS],
             "one": lambda root: train(device, 1, root), "many": lambda root: train(device, steps, root)}
    got: dict[str, list[float]] = {k: [] for k in cases}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):  # interleaved: a drift in the machine's speed touches every term alike
            for k, cmd in cases.items():
                got[k].append(wall(cmd(Path(tmp))))
    m = {k: statistics.median(v) for k, v in got.items()}
    step = (m["many"] - m["one"]) / (steps - 1)
    terms = {"python": m["python"], "import torch": m["torch"] - m["python"],
             "import groklab": m["groklab"] - m["torch"], "run, 1 step": m["one"] - m["groklab"]}
    return {"device": device, "repeats": repeats, "steps": steps, "terms_s": {k: round(v, 3) for k, v in terms.items()},
            "step_ms": round(1e3 * step, 3), "start_s": round(sum(terms.values()) - step, 3),
            "spread_s": {k: [round(min(v), 3), round(max(v), 3)] for k, v in got.items()}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--steps", type=int, default=2001)  # the steady step must stand out of process noise
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    for name, value, least in (("--repeats", a.repeats, 1), ("--steps", a.steps, 2)):
        if value < least:
            print(f"start_cost: {name}={value}: must be an integer >= {least}", file=sys.stderr)
            return 2
    from groklab.engine.machine import describe

    doc = {**measure(a.device, a.repeats, a.steps), "machine": describe(), "by": "benchmarks/start_cost.py",
           "date": time.strftime("%Y-%m-%d")}
    print(json.dumps(doc, indent=1))
    if a.json:
        a.json.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
