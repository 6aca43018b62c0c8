"""Population throughput: model-steps per second, stacked vs one-by-one, same process, same code as training.

    python benchmarks/bench_population.py                      # CPU: M = 1..256, batch 512 and 64
    python benchmarks/bench_population.py --device cuda        # the same on a GPU (--tf32: TF32 matmuls in the stack)
    python benchmarks/bench_population.py --smoke --json x.json  # seconds: the script still runs
    python benchmarks/bench_population.py --model transformer --members 1,8,32 --batches full --device cuda
    python benchmarks/bench_population.py --model code_mlp --members 1,3,9 --batches 256
    python benchmarks/bench_population.py --model lstm --members 1,4,16 --batches own   # 002's paper LSTM

Paper MLP (p=97, mul, d_emb 128, hidden 512, Adam, 30% split). "one-by-one" trains members one after
another with the solo loop's step (fused Adam); "stacked" trains M members at once with the population
engine's step (Stacked + its batch blocks; on CUDA its matmuls use TF32 with --tf32, i.e.
the config's tf32=true). Repeats alternate the two; the median is reported. --model transformer: paper 004's
Transformer (1 layer, no LayerNorm, no biases, AdamW wd 1, [a, b, =] on add), stacked through
functional_call + vmap; --batches full trains on the whole 30% split every step, as 004 does.
--model code_mlp: paper 002's code MLP (44k parameters, one hidden layer applied 4 times, p = 59, AdamW), the
smallest net groklab trains; even there stacking gains only 1.05-1.09x on one CPU thread (3-9 members), so
`packing=auto` stays sequential on a CPU.
--model lstm / birnn / deep_mlp / transformer002: paper 002's families at its sizes (p = 97, add; `--batches own`
keeps each one's batch), stacked through the model's own batched forward (LSTM, BiRNN, MLP) or vmap.
Every row also gives the FLOPs of one member-step (torch's FlopCounterMode on one solo step) and the GFLOP/s
the stack reached, as a share of the fp32 matmul GFLOP/s measured in the same session (engine/machine.py):
how far each family is from what the device can do.
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
from groklab.engine.step import SoloStep, StackedStep


def _sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


TRANSFORMER = ["model=transformer", "model.depth=1", "model.norm=none", "model.bias=false", "model.init=scaled",
               "model.act=relu", "encoding=eq", "optim=adamw", "optim.betas=[0.9,0.98]", "optim.weight_decay=1",
               "task=add"]


FAMILIES_002 = {"lstm": "lstm", "birnn": "birnn", "deep_mlp": "mlp", "transformer002": "transformer"}


def configs(M: int, B: int | None, p: int, d: int, device: str, smoke: bool, model: str = "mlp",
            tf32: bool = False) -> list:
    extra = ["model.d_emb=8", "model.d_hidden=32"] if smoke else [f"model.d_emb={d}", f"model.d_hidden={4 * d}"]
    kind = TRANSFORMER if model == "transformer" else ["task=mul", "optim=adam"]
    if model in FAMILIES_002:  # 002's paper sizes, its own widths (smoke: tiny widths)
        from groklab.experiments.investigation.profile import model as arch
        kind, extra = arch(FAMILIES_002[model], "paper"), extra if smoke else []
        extra += ["model.n_heads=2"] if smoke and model == "transformer002" else []
    if model == "code_mlp":
        from groklab.experiments.investigation.profile import code_mlp
        kind, extra = [o for o in code_mlp("quick") if not o.startswith(("p=", "batch_size="))], extra[:2 * smoke]
    batch = ["sampler=full"] if B is None else [] if B == "own" else [f"batch_size={B}"]
    return [make_config([f"p={p}", *kind, *batch, f"seed={i}", f"device={device}", "bar=false", f"tf32={tf32}",
                         *extra])
            for i in range(M)]


def one_by_one(exps: list, steps: int) -> float:
    """Model-steps/s of the solo stepper (the loop's SoloStep), members trained one after another."""
    device = exps[0].device
    solos = [SoloStep(e) for e in exps]
    for s in solos:  # warm-up
        for step in range(2):
            s.step(step)
    _sync(device)
    t0 = time.perf_counter()
    for s in solos:
        for step in range(2, steps + 2):
            s.step(step)
    _sync(device)
    return len(exps) * steps / (time.perf_counter() - t0)


def stacked(exps: list, steps: int) -> float:
    """Model-steps/s of the loop's StackedStep (batched members), batch blocks included."""
    device = exps[0].device
    st = StackedStep(exps, 0)
    for step in range(2):
        st.step(step)
    _sync(device)
    t0 = time.perf_counter()
    for step in range(2, steps + 2):
        st.step(step)
    _sync(device)
    return len(exps) * steps / (time.perf_counter() - t0)


def flops_per_step(exp) -> int:
    """FLOPs of one member's training step as the stack runs it (a stack of one: forward and backward through the
    model's batched forward; torch's FlopCounterMode counts matmuls, which dominate; nn.LSTM's own kernel it
    cannot see, the stacked LSTM's matmuls it can)."""
    from torch.utils.flop_counter import FlopCounterMode

    st = StackedStep([exp], 0)
    with FlopCounterMode(display=False) as fc:
        st.step(0)
    return fc.get_total_flops()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--members", default="1,4,16,64,256", help="comma-separated population sizes M")
    ap.add_argument("--batches", default="512,64", help="comma-separated batch sizes, or full")
    ap.add_argument("--model", default="mlp", choices=["mlp", "transformer", "code_mlp", *FAMILIES_002],
                    help="paper 000's MLP, 004's Transformer, 002's code MLP or 002's paper families")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=1.0, help="target seconds per timed repeat")
    ap.add_argument("--solo-members", type=int, default=4, help="members the one-by-one baseline trains per repeat")
    ap.add_argument("--tf32", action="store_true", help="CUDA: TF32 matmuls in the stack (config tf32=true)")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes: the script runs, numbers mean nothing")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)
    tf32 = args.device == "cuda" and args.tf32
    Ms = [1, 4] if args.smoke else [int(m) for m in args.members.split(",")]
    Bs = [16] if args.smoke else [None if b == "full" else b if b == "own" else int(b)
                                  for b in args.batches.split(",")]
    p, repeats = (11, 1) if args.smoke else (59 if args.model == "code_mlp" else 97, args.repeats)
    device = torch.device(args.device)
    name = torch.cuda.get_device_name() if device.type == "cuda" else f"cpu, {torch.get_num_threads()} threads"
    from groklab.engine.machine import gpu_gflops, matmul_gflops
    peak = gpu_gflops() if device.type == "cuda" else matmul_gflops()
    print(f"torch {torch.__version__}, {name}, p={p}, median of {repeats}, stacked tf32={tf32}, "
          f"fp32 matmul {peak:.0f} GFLOP/s")
    head = (f"{'batch':>5} {'M':>4} {'one-by-one steps/s':>19} {'stacked steps/s':>16} {'stacked ms/step':>16} "
            f"{'speedup':>8} {'GFLOP/s':>8} {'of peak':>8}")
    print(head + "\n" + "-" * len(head), flush=True)
    results = []
    for B in Bs:
        for M in Ms:
            exps = [build(c) for c in configs(M, B, p, 128, args.device, args.smoke, args.model, tf32)]
            solo_exps = exps[:min(M, args.solo_members)]
            # steps per repeat: about --seconds of work, from one quick probe of each
            probe_solo, probe_st = one_by_one(solo_exps[:1], 3), stacked(exps, 2)
            n_solo = 2 if args.smoke else max(3, int(args.seconds * probe_solo / len(solo_exps)))
            n_st = 2 if args.smoke else max(3, int(args.seconds * probe_st / M))
            solo, st = [], []
            for _ in range(repeats):
                solo.append(one_by_one(solo_exps, n_solo))
                st.append(stacked(exps, n_st))
            a, b = statistics.median(solo), statistics.median(st)
            gf = flops_per_step(solo_exps[0]) * b / 1e9
            results.append({"model": args.model, "batch": B or "full", "M": M, "one_by_one_steps_per_s": round(a, 1),
                            "stacked_steps_per_s": round(b, 1), "stacked_ms_per_step": round(1e3 * M / b, 3),
                            "speedup": round(b / a, 2), "solo_steps": n_solo, "stacked_steps": n_st,
                            "stacked_gflops": round(gf, 2), "share_of_peak": round(gf / peak, 4)})
            print(f"{B or 'full':>5} {M:>4} {a:>19.1f} {b:>16.1f} {1e3 * M / b:>16.3f} {b / a:>7.2f}x "
                  f"{gf:>8.1f} {gf / peak:>7.1%}", flush=True)
            del exps, solo_exps
            if device.type == "cuda":
                torch.cuda.empty_cache()
            if args.json:  # after every row: a run stopped by its time limit keeps the rows it finished
                with open(args.json, "w") as f:
                    json.dump({"device": name, "torch": torch.__version__, "tf32": tf32,
                               "date": time.strftime("%Y-%m-%d"), "fp32_matmul_gflops": round(peak, 1),
                               "rows": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
