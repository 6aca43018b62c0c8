"""Steering along the number line: add alpha * u to one layer's hidden state, read the next-number prediction.

Where: u is added at the numeral's last sub-token only, to the input of block `layer` (which is
hidden state index `layer`, so layer in 0..n_layers-1), via a forward pre-hook. What is read: the
next-token distribution at the text's last token, restricted to "numeral tokens" (vocabulary entries
that decode to digits, optionally with surrounding spaces): their total probability, the expected
value sum_v p(v) v / sum_v p(v), and the most likely value. A number split into several tokens is
predicted one token at a time, so only its first token is read here.
"""
from __future__ import annotations

import numpy as np
import torch
from scipy import stats

from groklab.errors import ConfigError
from groklab.numberline.hf import LM, Encoded, batches, blocks, pad_id


def numeral_tokens(tokenizer) -> tuple[np.ndarray, np.ndarray]:
    """(token ids, their integer values) of the vocabulary entries that decode to a plain numeral."""
    ids, values = [], []
    for i in range(len(tokenizer)):
        s = tokenizer.decode([i]).strip()
        if s.isascii() and s.isdigit() and len(s) <= 18:
            ids.append(i)
            values.append(int(s))
    return np.asarray(ids, dtype=np.int64), np.asarray(values, dtype=np.float64)


def _add_at(alpha: float, u: torch.Tensor, pos: torch.Tensor):
    """A forward pre-hook that adds alpha*u to the block input at positions pos (one per row)."""
    def hook(module, args, kwargs):
        h = args[0] if args else kwargs["hidden_states"]
        h = h.clone()
        h[torch.arange(len(pos), device=h.device), pos] += alpha * u.to(h.dtype)
        if args:
            return (h, *args[1:]), kwargs
        return args, {**kwargs, "hidden_states": h}
    return hook


@torch.no_grad()
def steer(lm: LM, enc: Encoded, layer: int, u: np.ndarray, alphas: list[float], batch_size: int = 16) -> list[dict]:
    """One row per (text, alpha): p_numeral, expected and argmax value of the next numeral token."""
    if not lm.causal:
        raise ConfigError("intervene", layer, "needs a causal LM (an *ForCausalLM / *LMHeadModel); "
                                              "this model has no next-token head")
    if not 0 <= layer < lm.n_layers:
        raise ConfigError("intervene", layer, f"must be a block input, 0..{lm.n_layers - 1}")
    tok_ids, values = numeral_tokens(lm.tokenizer)
    if len(tok_ids) == 0:
        raise ConfigError("intervene", layer, "the tokenizer has no numeral tokens to read a prediction from")
    block = blocks(lm.model, lm.n_layers)[layer]
    u_t = torch.as_tensor(u, dtype=torch.float32, device=lm.device)
    ids_t = torch.as_tensor(tok_ids, device=lm.device)
    vals_t = torch.as_tensor(values, dtype=torch.float64, device=lm.device)
    rows = []
    for alpha in alphas:
        for idx, input_ids, mask in batches(enc, batch_size, pad_id(lm.tokenizer), lm.device):
            pos = torch.as_tensor(enc.pos[idx], device=lm.device)
            handle = block.register_forward_pre_hook(_add_at(alpha, u_t, pos), with_kwargs=True)
            try:
                logits = lm.model(input_ids=input_ids, attention_mask=mask).logits
            finally:
                handle.remove()
            last = mask.sum(1) - 1
            prob = torch.softmax(logits[torch.arange(len(idx)), last].double(), -1)[:, ids_t]
            p_num = prob.sum(1)
            expected = (prob * vals_t).sum(1) / p_num.clamp_min(1e-300)
            top = vals_t[prob.argmax(1)]
            for j, r in enumerate(idx):
                rows.append({"row": r, "alpha": float(alpha), "p_numeral": float(p_num[j]),
                             "expected": float(expected[j]), "argmax": float(top[j])})
    return rows


def summarize(rows: list[dict], n: np.ndarray, alpha: float) -> dict:
    """How the prediction moves from alpha = 0 to +alpha and -alpha, over all numbers."""
    by = {(r["row"], r["alpha"]): r for r in rows}
    N = len(n)
    get = lambda a, k: np.array([by[(i, float(a))][k] for i in range(N)])  # noqa: E731
    e0, ep, em = get(0.0, "expected"), get(alpha, "expected"), get(-alpha, "expected")
    return {
        "alpha": alpha,
        "mean_expected": {"-alpha": float(em.mean()), "0": float(e0.mean()), "+alpha": float(ep.mean())},
        "mean_shift_plus": float(np.mean(ep - e0)), "mean_shift_minus": float(np.mean(em - e0)),
        "frac_up_plus": float(np.mean(ep > e0)), "frac_down_minus": float(np.mean(em < e0)),
        "mean_argmax": {"-alpha": float(get(-alpha, "argmax").mean()), "0": float(get(0.0, "argmax").mean()),
                        "+alpha": float(get(alpha, "argmax").mean())},
        "mean_p_numeral": float(get(0.0, "p_numeral").mean()),
        "rho_expected_n": float(stats.spearmanr(e0, n).statistic) if np.ptp(e0) > 0 else float("nan"),
    }
