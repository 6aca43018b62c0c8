"""A population: M runs of one architecture, trained one after another or stacked, through the one loop.

`sequential` trains each member as a run of its own (identical to solo runs by construction). `stacked`
trains the members together (StackedStep); each member still writes a normal run directory whose
checkpoint is its own solo state, so `--resume` and load_runs work on it.
"""
from __future__ import annotations

import os
from typing import Optional, Sequence

import yaml

from groklab.config import Config, flatten, validate
from groklab.config.arguments import mapping_arg, path_arg
from groklab.engine.loop import train_members
from groklab.engine.record import RunResult
from groklab.engine.setup import resolve_device
from groklab.errors import ConfigError

PACKINGS = ("auto", "sequential", "stacked")
STACKED_MODELS = ("mlp", "mlp_emb", "transformer", "lstm", "birnn")
STACKED_OPTIMS = ("sgd", "adam", "adamw", "nadam", "rmsprop")
STACKED_SAMPLERS = ("epoch", "replacement", "full")
# The config keys stacked members may differ in; every other key must be equal across members.
PER_MEMBER = ("seed", "split.", "optim.lr", "optim.weight_decay", "optim.c", "steps", "eval.", "grok.", "stop.",
              "checkpoint_every", "checkpoint_keep", "bar", "model.emb_init_std", "model.emb_init", "model.init",
              "model.freeze_emb", "track.", "measures.")  # inits: only the members' starting values differ


def _per_member(key: str) -> bool:
    return any(key == p or (p.endswith(".") and key.startswith(p)) for p in PER_MEMBER)


def stack_key(cfg: Config) -> str:
    """What stacked members must share: runs with equal keys can be trained as one population."""
    return yaml.safe_dump({k: v for k, v in flatten(cfg.to_dict()).items() if not _per_member(k)}, sort_keys=True)


def check_stackable(cfgs: Sequence[Config]) -> None:
    """Raise a one-line ConfigError if the stacked packing cannot train these members together."""
    first = flatten(cfgs[0].to_dict())
    for cfg in cfgs:
        m, o = cfg.model, cfg.optim
        for key, value, ok, allowed in (
                ("model.name", m.name, m.name in STACKED_MODELS, ", ".join(STACKED_MODELS)),
                ("optim.name", o.name, o.name in STACKED_OPTIMS, ", ".join(STACKED_OPTIMS)),
                ("model.dropout", m.dropout, m.dropout == 0 or (m.name in ("mlp", "mlp_emb") and cfg.sampler != "full"),
                 "0 (dropout stacks for the MLP, not with full batches)"),
                ("sampler", cfg.sampler, cfg.sampler in STACKED_SAMPLERS, ", ".join(STACKED_SAMPLERS)),
                ("amp", cfg.amp, cfg.amp == "off", "off"),
                ("optim.c_mode", o.c_mode, o.c_mode == "fixed" or (o.c_freq == "mean" and cfg.sampler != "full"),
                 "fixed, or adaptive with c_freq=mean and batches (not the full batch)")):
            if not ok:
                raise ConfigError(key, value, f"packing=stacked supports {allowed}; use packing=sequential")
        for key, value in flatten(cfg.to_dict()).items():
            if not _per_member(key) and value != first.get(key):
                raise ConfigError(key, value, f"stacked members must share {key} (member 0 has "
                                  f"{first.get(key)!r}); group runs by it or use packing=sequential")


def choose_packing(cfgs: Sequence[Config], packing: str = "auto") -> str:
    """auto: stacked on a GPU when the members allow it, else sequential (CPU: stacking gains little)."""
    if packing not in PACKINGS:
        raise ConfigError("packing", packing, f"allowed: {', '.join(PACKINGS)}")
    if packing != "auto":
        return packing
    if len(cfgs) < 2 or resolve_device(cfgs[0].device).type != "cuda":
        return "sequential"
    try:
        check_stackable(cfgs)
    except ConfigError:
        return "sequential"
    return "stacked"


def train_population(configs: Sequence[Config | dict], out_dirs: Optional[Sequence] = None,
                     packing: str = "auto") -> list[RunResult]:
    """Train M members; a member whose out dir holds an unfinished run resumes it, a finished one is skipped."""
    if isinstance(configs, (str, dict, Config)) or not isinstance(configs, Sequence):
        raise ConfigError("configs", repr(configs)[:60], "must be a list of Configs or dicts")
    cfgs = [c if isinstance(c, Config) else validate(dict(mapping_arg(c, "configs"))) for c in configs]
    if out_dirs is not None and (isinstance(out_dirs, (str, os.PathLike)) or not isinstance(out_dirs, Sequence)):
        raise ConfigError("out_dirs", repr(out_dirs)[:60], "must be a list of folders, one per config")
    outs = [path_arg(o, "out_dirs", optional=True) for o in out_dirs] if out_dirs is not None else [None] * len(cfgs)
    if len(outs) != len(cfgs):
        raise ConfigError("out_dirs", len(outs), f"need one per config ({len(cfgs)})")
    seen = [o.resolve() for o in outs if o is not None]
    if len(seen) != len(set(seen)):  # checked before any member trains: two members would share one run
        twice = next(str(o) for o in seen if seen.count(o) > 1)
        raise ConfigError("out_dirs", twice, "each member needs its own folder")
    if choose_packing(cfgs, packing) == "sequential":
        return [train_members([c], [o])[0] for c, o in zip(cfgs, outs)]
    check_stackable(cfgs)
    return train_members(cfgs, outs, stacked=True)
