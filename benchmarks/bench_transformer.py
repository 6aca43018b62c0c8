"""groklab's Transformer training step against a minimal inline Transformer loop, same process.

    python benchmarks/bench_transformer.py            # 2 layers, d_model 128, batch 512, [a, op, b, =], p=97
    python benchmarks/bench_transformer.py --smoke    # seconds: checks the script still runs

The reference is the straightforward implementation of the replications (danielmamay/grokking):
nn.MultiheadAttention with a causal mask, post-LayerNorm, GELU MLP, final LayerNorm, every position
computed, logits read at the last one; fused AdamW. Reports the median ms/step of each over
alternating repeats and the ratio groklab/reference (target <= 1.0-1.1).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

from groklab import make_config, train


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


class RefBlock(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        T = x.shape[1]
        mask = torch.triu(torch.full((T, T), float("-inf"), device=x.device), diagonal=1)
        a, _ = self.attn(x, x, x, attn_mask=mask, need_weights=False)
        x = self.ln1(x + a)
        return self.ln2(x + self.mlp(x))


class RefTransformer(nn.Module):
    def __init__(self, p: int, vocab: int, T: int, d: int, heads: int, layers: int):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(T, d)
        self.body = nn.Sequential(*[RefBlock(d, heads) for _ in range(layers)], nn.LayerNorm(d))
        self.out = nn.Linear(d, p)

    def forward(self, x):
        h = self.tok(x) + self.pos(torch.arange(x.shape[1], device=x.device))
        return self.out(self.body(h)[:, -1])


def reference_ms(p: int, B: int, steps: int, d: int, layers: int, device: str = "cpu", frac: float = 0.3,
                 seed: int = 0) -> float:
    a = torch.arange(p).repeat_interleave(p)
    b = torch.arange(p).repeat(p)
    X = torch.stack([a, torch.full_like(a, p), b, torch.full_like(a, p + 1)], 1)
    y = (a + b) % p
    g = torch.Generator().manual_seed(seed)
    idx = torch.randperm(p * p, generator=g)[: round(frac * p * p)]
    Xtr, ytr = X[idx].to(device), y[idx].to(device)
    torch.manual_seed(seed)
    model = RefTransformer(p, p + 2, 4, d, 4, layers).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1.0, fused=True)
    n, perm, pos = len(ytr), torch.randperm(len(ytr), generator=g).to(device), 0
    _sync(device)
    t0 = time.perf_counter()
    for _ in range(steps):
        if pos + B > n:
            perm, pos = torch.randperm(n, generator=g).to(device), 0
        i = perm[pos:pos + B]
        pos += B
        loss = F.cross_entropy(model(Xtr[i]), ytr[i])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    _sync(device)
    return (time.perf_counter() - t0) / steps * 1e3


def groklab_ms(p: int, B: int, steps: int, d: int, layers: int, device: str = "cpu") -> float:
    cfg = make_config([f"p={p}", "task=add", "model=transformer", f"model.d_emb={d}", f"model.d_hidden={4 * d}",
                       f"model.depth={layers}", f"device={device}", "optim=adamw", "optim.weight_decay=1",
                       f"steps={steps}", f"batch_size={B}", f"eval.every={steps}", "eval.log_points=0",
                       "progress=false", "stop.early=false"])
    s = train(cfg).summary
    return (s["wall_s"] - s["eval_s"]) / steps * 1e3


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--p", type=int, default=97)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes: the script runs, numbers mean nothing")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)
    p, repeats, steps, B, d = (11, 1, 3, 32, 16) if args.smoke else (args.p, args.repeats, args.steps, 512, 128)
    layers = 2
    print(f"torch {torch.__version__}, {args.device}, {torch.get_num_threads()} threads, p={p}, batch {B}, "
          f"d_model {d}, {layers} layers, median of {repeats}")
    dev = args.device
    groklab_ms(p, B, max(steps // 5, 2), d, layers, dev)  # warm-up
    reference_ms(p, B, max(steps // 5, 2), d, layers, dev)
    ref, ours = [], []
    for _ in range(repeats):
        ref.append(reference_ms(p, B, steps, d, layers, dev))
        ours.append(groklab_ms(p, B, steps, d, layers, dev))
    r, o = statistics.median(ref), statistics.median(ours)
    res = {"device": dev, "batch": B, "d_model": d, "layers": layers, "ref_ms": round(r, 3), "groklab_ms": round(o, 3),
           "ratio": round(o / r, 3), "ref_all": [round(x, 3) for x in ref], "groklab_all": [round(x, 3) for x in ours]}
    print(f"reference {r:7.3f} ms/step  groklab {o:7.3f} ms/step  ratio {o / r:.3f}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
