"""groklab's Transformer training step against a minimal inline Transformer loop, same process.

    python benchmarks/bench_transformer.py            # both cases below, p=97
    python benchmarks/bench_transformer.py --case beyond --repeats 7
    python benchmarks/bench_transformer.py --smoke    # seconds: checks the script still runs

Cases (d_model 128, 4 heads, d_mlp 512, fused AdamW wd 1):
- power: 2 layers, batch 512, [a, op, b, =]. Reference: the replications' straightforward model
  (danielmamay/grokking): nn.MultiheadAttention with a causal mask, post-LayerNorm, GELU MLP, final
  LayerNorm, every position computed, logits at the last one.
- beyond: paper 004's model at full batch: 1 layer, no LayerNorm, no Q/K/V/O/unembedding biases, ReLU,
  [a, b, =], the whole 30% training set (2,822 rows at p=97) every step. Reference: the inline model of
  004's code (Nanda et al. style): explicit Q, K, V einsums, masked scores / sqrt(d_head), softmax.
Reports the median ms/step of each over alternating repeats and the ratio groklab/reference
(targets: <= 1.0 for power, <= 0.8 for beyond).
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


class NandaTransformer(nn.Module):
    """004's code, inline: W_E, W_pos, one block of explicit attention (no biases) + ReLU MLP, W_U; no LayerNorm."""

    def __init__(self, p: int, vocab: int, T: int, d: int, heads: int):
        super().__init__()
        s, dh = d ** -0.5, d // heads
        P = lambda *shape: nn.Parameter(torch.randn(*shape) * s)  # noqa: E731
        self.W_E, self.W_pos, self.W_U = P(vocab, d), P(T, d), P(d, p)
        self.W_Q, self.W_K, self.W_V, self.W_O = P(heads, dh, d), P(heads, dh, d), P(heads, dh, d), P(heads * dh, d)
        self.W_in, self.W_out = P(d, 4 * d), P(4 * d, d)
        self.b_in, self.b_out = nn.Parameter(torch.zeros(4 * d)), nn.Parameter(torch.zeros(d))
        self.register_buffer("mask", torch.tril(torch.ones(T, T)))
        self.dh = dh

    def forward(self, x):
        h = self.W_E[x] + self.W_pos  # [B, T, d]
        q, k, v = (torch.einsum("ihd,bpd->biph", W, h) for W in (self.W_Q, self.W_K, self.W_V))
        scores = torch.einsum("biph,biqh->biqp", k, q)
        scores = (scores * self.mask - 1e10 * (1 - self.mask)) / self.dh ** 0.5
        z = torch.einsum("biph,biqp->biqh", v, scores.softmax(-1))
        h = h + z.transpose(1, 2).flatten(2) @ self.W_O
        h = h + torch.relu(h @ self.W_in + self.b_in) @ self.W_out + self.b_out
        return h[:, -1] @ self.W_U


def _data(p: int, tokens: str, frac: float, seed: int, device: str):
    a = torch.arange(p).repeat_interleave(p)
    b = torch.arange(p).repeat(p)
    eq = torch.full_like(a, p + 1 if tokens == "op" else p)
    X = torch.stack([a, torch.full_like(a, p), b, eq] if tokens == "op" else [a, b, eq], 1)
    y = (a + b) % p
    g = torch.Generator().manual_seed(seed)
    idx = torch.randperm(p * p, generator=g)[: int(frac * p * p)]
    return X[idx].to(device), y[idx].to(device), g


def reference_ms(case: str, p: int, B: int | None, steps: int, d: int, layers: int, device: str = "cpu",
                 frac: float = 0.3, seed: int = 0) -> float:
    Xtr, ytr, g = _data(p, "op" if case == "power" else "eq", frac, seed, device)
    torch.manual_seed(seed)
    if case == "power":
        model = RefTransformer(p, p + 2, 4, d, 4, layers).to(device)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1.0, fused=True)
    else:
        model = NandaTransformer(p, p + 1, 3, d, 4).to(device)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1.0, betas=(0.9, 0.98), fused=True)
    n, perm, pos = len(ytr), torch.randperm(len(ytr), generator=g).to(device), 0
    B = B or n
    _sync(device)
    t0 = time.perf_counter()
    for _ in range(steps):
        if B == n:
            xb, yb = Xtr, ytr
        else:
            if pos + B > n:
                perm, pos = torch.randperm(n, generator=g).to(device), 0
            i = perm[pos:pos + B]
            pos += B
            xb, yb = Xtr[i], ytr[i]
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    _sync(device)
    return (time.perf_counter() - t0) / steps * 1e3


BEYOND = ["model.norm=none", "model.bias=false", "model.init=scaled", "model.act=relu", "encoding=eq",
          "sampler=full", "optim.betas=[0.9,0.98]"]


def groklab_ms(case: str, p: int, B: int | None, steps: int, d: int, layers: int, device: str = "cpu") -> float:
    cfg = make_config([f"p={p}", "task=add", "model=transformer", f"model.d_emb={d}", f"model.d_hidden={4 * d}",
                       f"model.depth={layers}", f"device={device}", "optim=adamw", "optim.weight_decay=1",
                       f"steps={steps}", f"batch_size={B or 1}", f"eval.every={steps}", "eval.log_points=0",
                       "bar=false", "stop.early=false", *(BEYOND if case == "beyond" else [])])
    s = train(cfg).summary
    return (s["wall_s"] - s["eval_s"]) / steps * 1e3


CASES = {"power": (512, 2), "beyond": (None, 1)}  # batch (None: full) and layers


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--p", type=int, default=97)
    ap.add_argument("--case", choices=["all", *CASES], default="all")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes: the script runs, numbers mean nothing")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)
    p, repeats, steps, d = (11, 1, 3, 16) if args.smoke else (args.p, args.repeats, args.steps, 128)
    dev, out = args.device, []
    print(f"torch {torch.__version__}, {dev}, {torch.get_num_threads()} threads, p={p}, d_model {d}, "
          f"median of {repeats}")
    for case in (CASES if args.case == "all" else [args.case]):
        B, layers = CASES[case]
        B = 32 if args.smoke and B else B
        groklab_ms(case, p, B, max(steps // 5, 2), d, layers, dev)  # warm-up
        reference_ms(case, p, B, max(steps // 5, 2), d, layers, dev)
        ref, ours = [], []
        for _ in range(repeats):
            ref.append(reference_ms(case, p, B, steps, d, layers, dev))
            ours.append(groklab_ms(case, p, B, steps, d, layers, dev))
        r, o = statistics.median(ref), statistics.median(ours)
        out.append({"case": case, "device": dev, "batch": B or "full", "d_model": d, "layers": layers,
                    "ref_ms": round(r, 3), "groklab_ms": round(o, 3), "ratio": round(o / r, 3),
                    "ref_all": [round(x, 3) for x in ref], "groklab_all": [round(x, 3) for x in ours]})
        print(f"{case:>6} (batch {B or 'full'}, {layers} layer(s)): reference {r:7.3f} ms/step  groklab {o:7.3f} "
              f"ms/step  ratio {o / r:.3f}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
