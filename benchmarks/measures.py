"""Cost of each measure at the paper size (p=97, d_emb 128, hidden 512, mul, 30% train), this CPU.

    python benchmarks/measures.py            # after 300 training steps, median of 3 repeats
    python benchmarks/measures.py --smoke    # seconds: checks the script still runs

Prints ms per measure call, ms per HVP, and for the Hessian blocks E, W and the whole model the
HVPs Lanczos and plain power iteration need to get within 1% of the top eigenvalue (reference:
Lanczos to 1e-10; "to 1%" = first iterate within 1% of it). Power iteration targets the largest
|eigenvalue|; the reference is compared with the same kind. Also power iteration's own stopping rule
(relative change < tol), which does not bound its error.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import torch

from groklab import make_config, train
from groklab.engine.setup import build
from groklab.measures import MEASURES, run_measures
from groklab.measures.hessian import HVP, block_params, lanczos, power_iteration


def first_within(history, ref, rel=0.01):
    return next((i + 1 for i, x in enumerate(history) if abs(x - ref) <= rel * abs(ref)), None)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=300, help="training steps before measuring")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--only", default=",".join(MEASURES), help="measures to time (comma list)")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    size = (["p=11", "model.d_emb=8", "model.d_hidden=32", "batch_size=16"] if args.smoke else ["p=97"])
    steps, repeats = (20, 1) if args.smoke else (args.steps, args.repeats)
    over = size + ["task=mul", f"steps={steps}", "bar=false", "stop.early=false", "optim.lr=0.01",
                   "measures.landscape.n_points=11" if not args.smoke else "measures.landscape.n_points=3"]
    cfg = make_config(over)
    trained = train(cfg).model
    exp = build(cfg)
    exp.model.load_state_dict(trained.state_dict())
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, n_train={len(exp.y_train)}, "
          f"after {steps} steps, median of {repeats}")
    res = {"ms": {}, "hessian": {}}
    for name in args.only.split(",") if args.only else []:
        run_measures(exp, 0, [name])  # warm-up
        t = []
        for r in range(repeats):
            t0 = time.perf_counter()
            run_measures(exp, r, [name])
            t.append((time.perf_counter() - t0) * 1e3)
        res["ms"][name] = round(statistics.median(t), 1)
        print(f"{name:12s} {res['ms'][name]:9.1f} ms per call", flush=True)
    params = [t for t in exp.model.parameters()]
    fb = []
    for _ in range(repeats + 1):  # a train-set gradient: the unit an HVP is compared with
        t0 = time.perf_counter()
        torch.autograd.grad(torch.nn.functional.cross_entropy(exp.model(exp.X_train), exp.y_train), params)
        fb.append((time.perf_counter() - t0) * 1e3)
    res["grad_ms"] = round(statistics.median(fb[1:]), 1)
    print(f"train-set loss gradient (forward + backward): {res['grad_ms']:.1f} ms", flush=True)
    for block in ("E", "W", "all"):
        hvp = HVP(exp.model, block_params(exp.model, block), exp.X_train, exp.y_train)
        g = lambda: torch.Generator().manual_seed(0)  # noqa: E731
        t0 = time.perf_counter()
        fast = lanczos(hvp, hvp.dim, k=1, tol=cfg.measures.hessian.tol, generator=g())
        ms_top = (time.perf_counter() - t0) * 1e3
        ms_hvp = ms_top / fast.n_hvp
        la = lanczos(hvp, hvp.dim, k=1, tol=1e-10, max_iter=300, generator=g())
        lm = lanczos(hvp, hvp.dim, k=1, tol=1e-10, max_iter=300, which="LM", generator=g())
        pw = power_iteration(hvp, hvp.dim, tol=1e-7, max_iter=20 if args.smoke else 200, generator=g())
        pw_rule = power_iteration(hvp, hvp.dim, tol=cfg.measures.hessian.tol, generator=g())  # its own stop
        row = {"dim": hvp.dim, "lambda_max": la.values[0].item(), "ms_per_hvp": round(ms_hvp, 1),
               "hvp_over_grad": round(ms_hvp / res["grad_ms"], 2),
               "ms_top_default_tol": round(ms_top, 1), "hvp_default_tol": fast.n_hvp,
               "rel_err_default_tol": abs(fast.values[0].item() / la.values[0].item() - 1),
               "hvp_to_1pct_lanczos": first_within(la.history, la.values[0].item()),
               "hvp_to_1pct_power": first_within(pw.history, lm.values[0].item()),
               "power_stop_rule_hvp": pw_rule.n_hvp,
               "power_stop_rule_rel_err": abs(pw_rule.values[0].item() / lm.values[0].item() - 1)}
        res["hessian"][block] = row
        print(f"hessian {block:3s} dim {row['dim']:7d}: lambda_max {row['lambda_max']:.4g}, "
              f"{row['ms_per_hvp']:.1f} ms/HVP ({row['hvp_over_grad']:.1f}x a gradient), "
              f"top at tol {cfg.measures.hessian.tol:g}: {row['hvp_default_tol']} HVPs "
              f"{row['ms_top_default_tol']:.0f} ms (rel err {row['rel_err_default_tol']:.1e}); to 1%: Lanczos "
              f"{row['hvp_to_1pct_lanczos']} HVPs, power {row['hvp_to_1pct_power']} HVPs (its own 1% stop rule: "
              f"{row['power_stop_rule_hvp']} HVPs, rel err {row['power_stop_rule_rel_err']:.1e})", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
