"""Hidden states of numerals in a Hugging Face model loaded from a local directory (never downloaded).

Which hidden state: the one at the numeral's LAST sub-token (the first position that has read the whole
numeral in a causal model), at every layer: index 0 is the embedding output, index l >= 1 the output
of block l (in most models the last index has the final norm applied). The numeral's tokens are found
from the character span of "{n}" in the text: with a fast tokenizer, the last token whose offset
mapping overlaps that span; otherwise (fallback) the text is tokenized up to the numeral's end and
its last token is taken, after checking those tokens begin the full text's tokens.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from groklab.errors import ConfigError


@dataclass
class LM:
    model: torch.nn.Module
    tokenizer: object
    causal: bool  # has a next-token head (needed for interventions)
    n_layers: int  # blocks; hidden-state indices are 0..n_layers
    device: torch.device


def _offline() -> None:
    """Forbid network access before transformers / huggingface_hub read their settings."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


def check_model_dir(path: str | Path) -> Path:
    """The path as a local model directory, or a one-line ConfigError."""
    path = Path(path)
    if not path.is_dir():
        raise ConfigError("model", str(path), "no such local directory; groklab loads models from disk only "
                                              "(download them yourself first, e.g. with `hf download`)")
    if not (path / "config.json").is_file():
        raise ConfigError("model", str(path), "not a Hugging Face model directory (no config.json)")
    for name in ("config.json", "tokenizer_config.json"):
        if _auto_map(path / name):
            raise ConfigError("model", str(path), f"{name} names custom code (auto_map); groklab never runs code "
                                                  "that comes with a model, only architectures transformers ships")
    return path


def _auto_map(path: Path) -> bool:
    """Whether a model file asks for code of its own (`auto_map`); an unreadable file is left to the loader."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and "auto_map" in doc


def blocks(model: torch.nn.Module, n_layers: int) -> torch.nn.ModuleList:
    """The model's list of transformer blocks: the ModuleList with n_layers entries."""
    lists = [m for m in model.modules() if isinstance(m, torch.nn.ModuleList) and len(m) == n_layers]
    if not lists:
        raise ConfigError("model", type(model).__name__, f"found no list of {n_layers} blocks to hook")
    return lists[0]


def load(path: str | Path, device: str | torch.device = "cpu", dtype: str = "float32") -> LM:
    """Model + tokenizer from a local directory, with every download disabled."""
    path = check_model_dir(path)
    _offline()
    try:
        import transformers
        from transformers import AutoConfig, AutoModel, AutoModelForCausalLM, AutoTokenizer
    except ImportError:
        raise ConfigError("model", str(path), "needs the optional extra: pip install 'groklab[llm]'") from None
    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    try:
        # trust_remote_code=False: code shipped with a model is never run, and transformers never prompts
        # for it (the prompt would read "y" from stdin and run it)
        safe = {"local_files_only": True, "trust_remote_code": False}
        config = AutoConfig.from_pretrained(path, **safe)
        archs = config.architectures or []
        causal = any(a.endswith(("ForCausalLM", "LMHeadModel")) for a in archs)
        cls = AutoModelForCausalLM if causal else AutoModel
        model = cls.from_pretrained(path, dtype=getattr(torch, dtype), **safe)
        tokenizer = AutoTokenizer.from_pretrained(path, **safe)
    except (OSError, ValueError, KeyError) as err:
        reason = str(err).splitlines()[0][:160] if str(err) else type(err).__name__
        raise ConfigError("model", str(path), f"could not be loaded offline ({reason})") from None
    model.eval().to(device)
    n_layers = getattr(model.config, "num_hidden_layers", None)
    if n_layers is None:
        n_layers = max(len(m) for m in model.modules() if isinstance(m, torch.nn.ModuleList))
    return LM(model, tokenizer, causal, int(n_layers), torch.device(device))


def split_template(template: str) -> tuple[str, str]:
    """Text before and after the one '{n}' of a template."""
    parts = template.split("{n}")
    if len(parts) != 2:
        raise ConfigError("template", template, "must contain '{n}' exactly once, e.g. 'The number {n}'")
    return parts[0], parts[1]


@dataclass
class Encoded:
    ids: list[list[int]]  # token ids per text
    pos: np.ndarray  # [N] index of the numeral's last sub-token
    n_sub: np.ndarray  # [N] sub-tokens the numeral spans
    clean: np.ndarray  # [N] the last sub-token ends exactly where the numeral ends


def encode(tokenizer, numerals: list[str], template: str) -> Encoded:
    """Token ids of every templated text and where each numeral's last sub-token sits."""
    pre, post = split_template(template)
    ids, pos, n_sub, clean = [], [], [], []
    for s in numerals:
        start, end = len(pre), len(pre) + len(s)
        text = pre + s + post
        if getattr(tokenizer, "is_fast", False):
            enc = tokenizer(text, return_offsets_mapping=True)
            span = [i for i, (a, b) in enumerate(enc["offset_mapping"]) if a < end and b > start and b > a]
            if not span:
                raise ConfigError("template", template, f"the tokenizer gives numeral {s!r} no token")
            ids.append(list(enc["input_ids"]))
            pos.append(span[-1])
            n_sub.append(len(span))
            clean.append(enc["offset_mapping"][span[-1]][1] == end)
        else:  # fallback for slow tokenizers (no offsets)
            full = list(tokenizer(text)["input_ids"])
            upto = _strip_special(tokenizer, list(tokenizer(pre + s)["input_ids"]))
            before = _strip_special(tokenizer, list(tokenizer(pre)["input_ids"]))
            n_pre = next((i for i, (a, b) in enumerate(zip(before, upto)) if a != b), min(len(before), len(upto)))
            if full[:len(upto)] != upto or len(upto) <= n_pre:  # (a space before {n} may merge into the numeral)
                raise ConfigError("template", template, f"numeral {s!r} does not end on a token boundary")
            ids.append(full)
            pos.append(len(upto) - 1)
            n_sub.append(len(upto) - n_pre)
            clean.append(True)
    return Encoded(ids, np.asarray(pos), np.asarray(n_sub), np.asarray(clean, dtype=bool))


def _strip_special(tokenizer, ids: list[int]) -> list[int]:
    """Ids without trailing special tokens (e.g. an appended </s>)."""
    special = set(tokenizer.all_special_ids)
    while ids and ids[-1] in special:
        ids = ids[:-1]
    return ids


def batches(enc: Encoded, batch_size: int, pad_id: int, device):
    """(rows, input_ids, attention_mask) per batch, right-padded (the numeral's position is unchanged)."""
    for i in range(0, len(enc.ids), batch_size):
        rows = list(range(i, min(i + batch_size, len(enc.ids))))
        T = max(len(enc.ids[r]) for r in rows)
        input_ids = torch.full((len(rows), T), pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), T), dtype=torch.long)
        for j, r in enumerate(rows):
            input_ids[j, :len(enc.ids[r])] = torch.tensor(enc.ids[r])
            mask[j, :len(enc.ids[r])] = 1
        yield rows, input_ids.to(device), mask.to(device)


def pad_id(tokenizer) -> int:
    for t in (tokenizer.pad_token_id, tokenizer.eos_token_id, tokenizer.unk_token_id):
        if t is not None:
            return int(t)
    return 0  # masked out anyway


@torch.no_grad()
def hidden_states(lm: LM, enc: Encoded, layers: list[int], batch_size: int = 16) -> dict[int, np.ndarray]:
    """{layer: H [N, d_model]} at each numeral's last sub-token, float32 numpy."""
    out = {layer: [] for layer in layers}
    for rows, input_ids, mask in batches(enc, batch_size, pad_id(lm.tokenizer), lm.device):
        hs = lm.model(input_ids=input_ids, attention_mask=mask, output_hidden_states=True).hidden_states
        at = torch.as_tensor(enc.pos[rows], device=lm.device)
        arange = torch.arange(len(rows), device=lm.device)
        for layer in layers:
            out[layer].append(hs[layer][arange, at].float().cpu().numpy())
    return {layer: np.concatenate(v) for layer, v in out.items()}
