"""The output layer's state: logit scale, softmax collapse, and Nanda et al.'s restricted and excluded losses.

- logits/scale: the mean over training rows of the l2 norm of the centred logit vector (logits minus their mean
  over classes, the part softmax reads).
- logits/collapse_share: the share of training rows whose correct-class softmax probability is exactly 1 in
  float32 -- "softmax collapse" (Prieto et al., "Grokking at the edge of numerical stability", arXiv 2501.04697):
  such a row's loss and gradient are exactly zero at the precision most runs train in.
- logits/restricted_loss and logits/excluded_loss (Nanda et al., "Progress measures for grokking via mechanistic
  interpretability", arXiv 2301.05217, §5.1): write the logits over the whole table as L[a, b, c] and keep
  (restricted) or remove (excluded) their components along cos(w_k (a + b - c)) and sin(w_k (a + b - c)) for the
  key frequencies k; the restricted loss is the cross-entropy over every row, the excluded loss over the training
  rows. Nanda takes the key frequencies from the final model; a warning may not read the future, so here they are
  the current embedding's `n_key` strongest (measures.fourier). Addition over Z_p in token order; multiplication
  over Z_p^* in discrete-log order (a * b = g^(i + j)): rows with a zero operand and the class 0 logit are left
  out of the decomposition, the rows out of both losses. Both read the model's logits on the test inputs, and
  the restricted loss the test labels: oracles for a prediction study, never warnings.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from groklab.config.rules import is_prime
from groklab.measures.fourier import dlog_order, fourier_spectrum, key_frequencies


@torch.no_grad()
def scale_and_collapse(logits: torch.Tensor, y: torch.Tensor) -> dict:
    """logits/scale and logits/collapse_share of [N, C] logits against labels y."""
    centred = logits.double() - logits.double().mean(1, keepdim=True)
    prob = torch.softmax(logits.float(), 1).gather(1, y[:, None]).squeeze(1)
    return {"logits/scale": centred.norm(dim=1).mean().item(),
            "logits/collapse_share": (prob == 1.0).double().mean().item()}


def key_directions(n: int, keys: list[int]) -> torch.Tensor:
    """[n, n, n] mask of the 3-d DFT entries (k, k, -k) and (-k, -k, k) for each key k: the components of a
    function of (a, b, c) along cos and sin of 2 pi k (a + b - c) / n."""
    M = torch.zeros(n, n, n, dtype=torch.float64)
    for k in keys:
        M[k % n, k % n, -k % n] = M[-k % n, -k % n, k % n] = 1.0
    return M


def split_by_keys(L: torch.Tensor, keys: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """L [n, n, n] (a, b, c) -> (its part along the key directions, the rest); the two sum to L."""
    F3 = torch.fft.fftn(L.double())
    kept = torch.fft.ifftn(F3 * key_directions(L.shape[0], keys)).real
    return kept, L.double() - kept


@torch.no_grad()
def nanda_losses(model, task, train_rows: torch.Tensor, n_key: int, chunk: int = 4096) -> dict:
    """logits/restricted_loss and logits/excluded_loss for task add (any p) or mul (prime p > 3) with two
    operands in token order; {} for any other task or a model without an embedding table of p rows."""
    t = task.table
    name, p = t.name, t.p
    E = model.blocks().get("E")
    if name not in ("add", "mul") or t.n_operands != 2 or not E or E[0].shape[0] < p:
        return {}
    if name == "mul" and not (is_prime(p) and p > 3):
        return {}
    device = next(model.parameters()).device
    logits = torch.cat([model(task.inputs[i:i + chunk].to(device)) for i in range(0, len(t), chunk)])
    logits = logits.double().cpu()[:, :p].reshape(p, p, p)  # rows are (a, b) in lexicographic order
    train = torch.zeros(p * p, dtype=torch.bool)
    train[train_rows.cpu()] = True
    train = train.reshape(p, p)
    if name == "add":
        order, emb = list(range(p)), E[0]
    else:
        order = dlog_order(p)  # tokens g^0, ..., g^(p-2); classes in the same order
        emb = E[0][order]
    n = len(order)
    keys, _ = key_frequencies(fourier_spectrum(emb, n), n, n_key)
    idx = torch.tensor(order)
    L = logits[idx][:, idx][:, :, idx]  # [n, n, n] in (log) order
    kept, rest = split_by_keys(L, keys)
    a, b = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
    c = (a + b) % n  # the answer's position in the same order
    out = {}
    for key, part, rows in (("restricted", kept, torch.ones(n, n, dtype=torch.bool)),
                            ("excluded", rest, train[idx][:, idx])):
        target = c
        if name == "mul":  # the class 0 logit stays as the model gave it, first; class g^j is j + 1 after it
            part, target = torch.cat([logits[idx][:, idx][:, :, :1], part], 2), c + 1
        if rows.any():
            out[f"logits/{key}_loss"] = F.cross_entropy(part[rows], target[rows]).item()
    return out
