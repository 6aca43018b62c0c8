"""Code names as the papers write them, for every figure's titles and legends: one mapping.

    label("mlp_emb") -> "MLP with embeddings"    label("mul") -> "a × b"    label("adam_lr") -> "Adam-LR (c = 10)"
    label("k30") -> "k = 30"    label("op-a0.3-p97-L2") -> "operator tokens, α = 0.3, p = 97, 2 layers"

A name the mapping does not know is shown as it is.
"""
from __future__ import annotations

import re

NAMES = {
    # models (000 eq. 1 and 2; 002's and 004's families)
    "mlp": "MLP on raw values", "mlp_emb": "MLP with embeddings", "transformer": "Transformer", "lstm": "LSTM",
    "birnn": "BiRNN", "resnet18": "ResNet-18", "dnn": "MLP",
    # tasks
    "add": "a + b", "sub": "a − b", "mul": "a × b", "div": "a ÷ b", "poly": "polynomial", "sum": "sum of K",
    "dihedral": "D_n", "perm": "S_m", "parity": "sparse parity",
    # optimizers and 000's variants
    "adam": "Adam", "adamw": "AdamW", "sgd": "SGD", "nadam": "NAdam", "rmsprop": "RMSprop",
    "adam_lr": "Adam-LR (c = 10)", "adam_lr_adaptive": "Adam-LR (adaptive c)", "adam_lr_row": "Adam-LR (per-row c)",
    # encodings and splits
    "op": "operator tokens", "no_op": "no operator tokens", "eq": "[a, b, =]", "square": "SQUARE holdout",
    "strip": "STRIP holdout", "random": "random split", "uniform": "uniform split", "skewed": "skewed split",
}
PATTERNS = [  # short run-name parts: (regex, text)
    (r"k(\d+)", r"k = \1"), (r"p(\d+)", r"p = \1"), (r"c(\d+(?:\.\d+)?)", r"c = \1"), (r"K(\d+)", r"K = \1"),
    (r"a(0\.\d+)", r"α = \1"), (r"alpha(0\.\d+)", r"α = \1"), (r"frac(0\.\d+)", r"train fraction \1"),
    (r"f(0\.\d+)", r"train fraction \1"), (r"wd(\d+(?:\.\d+)?(?:e-?\d+)?)", r"weight decay \1"),
    (r"lr(\d+(?:\.\d+)?(?:e-?\d+)?)", r"lr \1"), (r"b(\d+)", r"batch \1"), (r"bfull", "full batch"),
    (r"d(\d+)", r"d_emb = \1"), (r"w(\d+)", r"width \1"), (r"L(\d+)", r"\1 layers"), (r"layers(\d+)", r"\1 layers"),
    (r"s(\d+)", r"seed \1"), (r"dropout(0\.\d+)", r"dropout \1"), (r"emb(\d+)", r"d_emb = \1"),
    (r"width(\d+)", r"width \1"), (r"op(\d+)", r"polynomial \1"),
]


def _part(text: str) -> str:
    if text in NAMES:
        return NAMES[text]
    for pattern, repl in PATTERNS:
        if re.fullmatch(pattern, text):
            return re.sub(r"^1 layers$", "1 layer", re.sub(pattern, repl, text))
    key, eq, value = text.partition("=")
    if eq and key:  # optim.lr=0.01 -> lr = 0.01
        return f"{key.rsplit('.', 1)[-1]} = {value}"
    return text


def label(value) -> str:
    """`value` (a config value or a run-name part, possibly joined by '-' or '/') as the papers write it."""
    text = str(value)
    if text in NAMES:
        return NAMES[text]
    if " " in text:  # prose already (a study's own label: "Adam-LR, c = 10")
        return text
    for sep in ("/", "-"):
        parts = text.split(sep)
        if len(parts) > 1 and all(parts):
            shown = [_part(p) for p in parts]
            kept = [p for p, s in zip(parts, shown) if p == s]
            if shown != parts and not any(any(ch.isupper() for ch in p) for p in kept):  # "Adam-LR" is a name
                return ", ".join(shown)
    return _part(text)
