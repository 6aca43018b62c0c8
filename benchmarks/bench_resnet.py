"""The image task's cost: rendering, and groklab's ResNet-18 training step against an inline torchvision loop.

    python benchmarks/bench_resnet.py                  # quick and paper cases on this machine
    python benchmarks/bench_resnet.py --case quick --repeats 7
    python benchmarks/bench_resnet.py --smoke          # seconds: checks the script still runs
    python benchmarks/bench_resnet.py --device cuda --case paper --amp   # forward in bfloat16 autocast

Cases (2 x 2 grids, 25% train, batch 200, Adam lr 1e-3):
- quick: 6 pictures, 32 px, ResNet-18 topology at width 8, small-image stem.
- paper: 11 pictures, 224 px, torchvision's ResNet-18 (width 64, ImageNet stem) -- 004's setting.
Reference: torchvision's model on float images held in memory, cross-entropy, torch's Adam, nothing else
(no sampler, no eval). Reports render seconds and MiB, the median ms per step of each over alternating
repeats, the ratio groklab/reference (target <= 1.05), training and eval images/s, and the extrapolated
wall time of one paper-profile run (steps x step time + evals).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F

from groklab import make_config
from groklab.data.images import make_image_task
from groklab.engine.precision import fp32_precision
from groklab.engine.setup import build
from groklab.engine.step import SoloStep, evaluate
from groklab.experiments.beyond.resnet import profile_overrides
from groklab.models.resnet import resnet18
from groklab.sweep.cost import shape_of

CASES = {"quick": {"entries": 6, "image": 32, "width": 8}, "paper": {"entries": 11, "image": 224, "width": 64}}


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def timed(fn, steps: int, device: str) -> float:
    """ms per call of fn over `steps` calls, after one warm-up call."""
    fn()
    _sync(device)
    t = time.perf_counter()
    for _ in range(steps):
        fn()
    _sync(device)
    return (time.perf_counter() - t) / steps * 1e3


def groklab_step(case: str, device: str, smoke: bool, amp: bool = False):
    c = CASES[case]
    over = [o for o in profile_overrides("quick" if case == "quick" else "paper") if not o.startswith("steps=")]
    over += [f"task.entries={c['entries']}", f"task.image={c['image']}", f"model.width={c['width']}",
             f"device={device}", "steps=10"]
    if smoke:
        over += ["task.entries=3", "task.image=16", "model.width=4"]
    if amp:
        over += ["amp=bf16"]
    exp = build(make_config(over))
    step, i = SoloStep(exp), iter(range(10 ** 9))
    return exp, lambda: step.step(next(i))


def reference_step(exp, device: str):
    """torchvision's network with the same shape, on the same images as floats, plain Adam."""
    m = exp.cfg.model
    net = resnet18(exp.task.n_classes, m.width, exp.cfg.task.image <= 64).to(device, memory_format=torch.channels_last)
    X = ((exp.X_train.float() / 255 - 0.5) / 0.5).expand(-1, 3, -1, -1).contiguous(memory_format=torch.channels_last)
    y, B = exp.y_train, exp.cfg.batch_size
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=exp.cfg.optim.weight_decay)
    g = torch.Generator(device="cpu").manual_seed(0)

    def step():
        idx = torch.randint(0, len(y), (B,), generator=g).to(device)
        with torch.autocast(torch.device(device).type, torch.bfloat16, enabled=exp.cfg.amp == "bf16"):
            loss = F.cross_entropy(net(X[idx]), y[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return step


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", choices=["all", *CASES], default="all")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes: the script runs, numbers mean nothing")
    ap.add_argument("--amp", action="store_true", help="both loops' forward in bfloat16 autocast (config amp=bf16)")
    ap.add_argument("--json", help="also write the results to this file")
    a = ap.parse_args(argv)
    steps, repeats = (1, 1) if a.smoke else (a.steps, a.repeats)
    out = {"torch": torch.__version__, "threads": torch.get_num_threads(), "device": a.device}
    for case in (CASES if a.case == "all" else [a.case]):
        c = CASES[case]
        t = time.perf_counter()
        task = make_image_task(2, 3 if a.smoke else c["entries"], 16 if a.smoke else c["image"])
        render_s, mib = time.perf_counter() - t, task.inputs.numel() / 2 ** 20
        exp, ours = groklab_step(case, a.device, a.smoke, a.amp)
        ref = reference_step(exp, a.device)
        g_ms, r_ms = [], []
        for _ in range(repeats):  # alternate, so drift hits both
            g_ms.append(timed(ours, steps, a.device))
            r_ms.append(timed(ref, steps, a.device))
        n_eval = min(len(exp.X_test), 2000)
        with fp32_precision(False if a.device == "cuda" else None):  # groklab evaluates in full float32
            e_ms = timed(lambda: evaluate(exp.model, exp.X_test[:n_eval], exp.y_test[:n_eval], 16384), 1, a.device)
        g, r = statistics.median(g_ms), statistics.median(r_ms)
        B, n_all = exp.cfg.batch_size, len(exp.X_train) + len(exp.X_test)
        prof = make_config(profile_overrides(case))
        evals = prof.steps // prof.eval.every + 1
        total_h = (prof.steps * g + evals * e_ms * n_all / n_eval) / 3.6e6
        out[case] = {"render_s": round(render_s, 2), "images_mib": round(mib, 1), "groklab_ms": round(g, 1),
                     "reference_ms": round(r, 1), "ratio": round(g / r, 3), "train_img_s": round(B / g * 1e3, 1),
                     "eval_img_s": round(n_eval / e_ms * 1e3, 1), "profile_steps": prof.steps,
                     "profile_run_hours": round(total_h, 2), "tf32": exp.cfg.tf32, "amp": exp.cfg.amp,
                     "gflop_per_step": round(shape_of(exp.cfg.to_dict())[3] * B / 1e9, 1)}
        print(f"{case}: render {render_s:.2f} s ({mib:.1f} MiB), groklab {g:.1f} ms/step, reference {r:.1f} "
              f"ms/step, ratio {g / r:.3f}, train {B / g * 1e3:.0f} img/s, eval {n_eval / e_ms * 1e3:.0f} img/s; "
              f"one {case}-profile run ({prof.steps} steps) ~ {total_h:.2f} h", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
