"""After the fact: a run's model at a kept checkpoint, loaded (`groklab.load_model`) or measured (`groklab measure
RUN --at STEP`)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from groklab.config import make_config
from groklab.engine.setup import build
from groklab.errors import ConfigError
from groklab.measures import MEASURES, run_measures
from groklab.store import RunStore


def load_model(run: str | Path, step: Optional[int] = None):
    """The trained model of a run directory, in eval mode: rebuilt from its config.yaml and loaded from its latest
    checkpoint (or the kept one at `step`; 0: the initial model, rebuilt from the seed), weights only. Its task
    (inputs, labels, split) is `model.task`."""
    store = RunStore.open(run)
    exp = build(make_config(base=store.config()))
    if step != 0 or 0 in store.kept_steps():
        _load(exp.model, _checkpoint(store, step), store)
    exp.model.task = exp.task
    return exp.model.eval()


def measure_checkpoint(run: str | Path, step: Optional[int] = None, names: Sequence[str] = MEASURES,
                       overrides: Sequence[str] = ()) -> tuple[int, dict, dict]:
    """(step, scalars, arrays) of the run's model at `step` (None: the latest checkpoint; 0: the init,
    rebuilt from the seed). Writes posthoc/step_<N>.json and .npz in the run directory."""
    for text in overrides:
        if not text.startswith("measures."):
            raise ConfigError("override", text, "only measures.* keys may be set here, e.g. measures.hessian.k=3")
    bad = [n for n in names if n not in MEASURES]
    if bad:
        raise ConfigError("what", ",".join(bad), f"allowed: {', '.join(MEASURES)}")
    store = RunStore.open(run)
    exp = build(make_config(list(overrides), base=store.config()))
    if step is None or step != 0 or 0 in store.kept_steps():
        ckpt = _checkpoint(store, step)
        _load(exp.model, ckpt, store)
        step = ckpt["step"]
    scalars, arrays = run_measures(exp, step, names)
    store.write_posthoc(step, scalars, arrays)
    return step, scalars, arrays


def _load(model, ckpt: dict, store: RunStore) -> None:
    """The checkpoint's weights into the model its config.yaml builds; a checkpoint of another model (a swapped
    ckpt.pt: p = 11 weights beside a p = 7 config) is one line naming the file, not torch's size-mismatch dump."""
    try:
        model.load_state_dict(ckpt["model"])
    except (RuntimeError, KeyError, TypeError) as e:
        first = str(e).strip().splitlines()[-1].strip() if str(e).strip() else type(e).__name__
        raise ConfigError("checkpoint", str(store.path), f"does not fit the model its config.yaml builds "
                                                         f"({first[:160]})") from None


def _checkpoint(store: RunStore, step: Optional[int]) -> dict:
    if step is None:
        if not store.has_checkpoint():
            raise ConfigError("run", str(store.path), "has no checkpoint yet")
        return store.load_checkpoint()
    if step in store.kept_steps():
        return store.load_checkpoint(step=step)
    latest = store.load_checkpoint() if store.has_checkpoint() else None
    if latest is not None and latest["step"] == step:
        return latest
    have = sorted({0, *store.kept_steps(), *([latest["step"]] if latest else [])})
    raise ConfigError("--at", step, f"no checkpoint at that step; available: {have} "
                      "(keep more with checkpoint_keep=K when training)")
