"""Paper 004's model, training and run profiles.

The model and optimizer are those of 004's released code (github.com/Qihuai27/Grokking-Insight): a 1-layer
decoder without LayerNorm, no Q/K/V/O or unembedding biases, every weight N(0, 1/d_model), ReLU MLP, input
[a, b, =] with the operands sharing token ids ('=' = p; the papers' README says separate ids, but the code
shares them, and Table 1's STRIP accuracies are unreachable with separate ids), readout at '=', AdamW lr 1e-3,
betas (0.9, 0.98), weight decay 1 on every parameter, a 10-step linear warm-up, full batch (one step = one
epoch), 30,000 epochs. The code's warm-up starts at lr 0 (update e uses e/10); ours at 1/10: a one-step shift.
"""
from __future__ import annotations

P_PAPER = 97  # the paper's modulus; holdout sizes k are stated for it
MODEL = ["model=transformer", "model.depth=1", "model.norm=none", "model.bias=false", "model.init=scaled",
         "model.act=relu", "model.n_heads=4", "encoding=eq", "optim=adamw", "optim.betas=[0.9,0.98]",
         "optim.weight_decay=1", "optim.warmup=10", "sampler=full", "split.frac_train=0.3", "stop.early=false",
         "task=add", "eval.log_points=0", "bar=false"]
# quick: p = 41 (k scaled by 41/97), the paper's widths (d_model 128, d_mlp 512), lr 0.01. Calibrated on the
# random 30% split, 5 seeds, 15,000-step cap, at p = 37, 41 and 59 (docs/results.md, 2026-11-25): d_model 64
# plateaued at test 0.78-0.96 on 4 of 5 seeds at p = 37 (lr 0.01, also with a cosine decay, wd 3, or lr 0.005 +
# wd 2; lr 0.003 did not generalize); d_model 128 at lr 0.01 reached 0.99 on every seed: p = 37 at 2,500-5,500
# steps, 41 at 1,300-2,800, 59 at 650-1,850. At lr 0.005 p = 37 held 0.99 on every seed but p = 41 stalled at
# 0.96-0.97 on 2 of 5; at lr 0.003 1 of 5 by 11,550. The paper's lr 1e-3 did not grok in 6,000 steps (d 64).
QUICK = ["p=41", "model.d_emb=128", "model.d_hidden=512", "optim.lr=0.01", "steps=3000", "eval.every=50"]
# said in the note of the claim that recipe was calibrated on (a fresh read, 2026-12-07): at quick sizes its
# "holds" confirms the calibration, and the paper profile is the independent test
CALIBRATED = ("the quick recipe (p = 41, lr 0.01, d_model 128) was chosen on this random split so that it reaches "
              "0.99 on every seed (at lr 0.005, 2 of 5 seeds stalled at 0.96-0.97): at quick sizes its runs could not "
              "contradict the claim; the paper profile (p = 97, lr 1e-3) is the independent test")
# the quick horizon of the studies that watch runs grok and what follows (fig4, dnn, med, depth, embdim,
# circulant, uniformity): a 15,000-step cap, ended once neither accuracy rose 0.01 for 4,000 steps. The old
# fixed 2,500-3,000 steps were shorter than the random split needs at p = 37 (2,500-5,500 steps to 0.99).
QUICK_HORIZON = ["steps=15000", "stop.plateau=4000"]
# the polynomial studies' quick modulus: a^2+ab+b^2 factors over F_p only for p = 1 (mod 3), and its unequal
# answer classes are what they study (p = 97 = 1 mod 3; 41 = 2 mod 3 leaves every class but 0's equal)
P_POLY_QUICK = 43
PAPER = ["p=97", "model.d_emb=128", "model.d_hidden=512", "optim.lr=0.001", "steps=30000", "eval.every=100"]


def modulus(profile: str, p: int | None) -> int:
    """The modulus the runs use: an override, else the profile's."""
    return p if p is not None else (41 if profile == "quick" else P_PAPER)


def scale_k(k: int, p: int) -> int:
    """A holdout size stated for p = 97, rescaled to p (kept within split.k's range [0, p - 2])."""
    return max(0, min(p - 2, round(k * p / P_PAPER)))


def base_overrides(profile: str, quick: list[str] = (), paper: list[str] = ()) -> list[str]:
    return MODEL + (QUICK + list(quick) if profile == "quick" else PAPER + list(paper))
