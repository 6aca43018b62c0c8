"""Measures after the fact: load a run's checkpoint at a step and measure it (`groklab measure RUN --at STEP`)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional, Sequence

from groklab.errors import ConfigError
from groklab.measures.schedule import MEASURES, run_measures, save_arrays
from groklab.store import RunStore, is_run

POSTHOC = "posthoc"


def measure_checkpoint(run: str | Path, step: Optional[int] = None, names: Sequence[str] = MEASURES,
                       overrides: Sequence[str] = ()) -> tuple[int, dict, dict]:
    """(step, scalars, arrays) of the run's model at `step` (None: the latest checkpoint; 0: the init,
    rebuilt from the seed). Writes posthoc/step_<N>.json and .npz in the run directory."""
    from groklab.config import make_config
    from groklab.engine.setup import build

    if not is_run(run):
        raise ConfigError("run", str(run), "not a run directory (no config.yaml)")
    for text in overrides:
        if not text.startswith("measures."):
            raise ConfigError("override", text, "only measures.* keys may be set here, e.g. measures.hessian.k=3")
    bad = [n for n in names if n not in MEASURES]
    if bad:
        raise ConfigError("what", ",".join(bad), f"allowed: {', '.join(MEASURES)}")
    store = RunStore(run)
    exp = build(make_config(list(overrides), base=store.config()))
    if step is None or step != 0 or 0 in store.kept_steps():
        ckpt = _checkpoint(store, step)
        exp.model.load_state_dict(ckpt["model"])
        step = ckpt["step"]
    scalars, arrays = run_measures(exp, step, names)
    out = Path(run) / POSTHOC
    out.mkdir(exist_ok=True)
    (out / f"step_{step:09d}.json").write_text(json.dumps({"step": step, **scalars}, indent=1))
    save_arrays(run, step, arrays, folder=POSTHOC)
    return step, scalars, arrays


def _checkpoint(store: RunStore, step: Optional[int]) -> dict:
    if step is None:
        return store.load_checkpoint()
    if step in store.kept_steps():
        return store.load_checkpoint(step=step)
    latest = store.load_checkpoint() if (store.path / "ckpt.pt").is_file() else None
    if latest is not None and latest["step"] == step:
        return latest
    have = sorted({0, *store.kept_steps(), *([latest["step"]] if latest else [])})
    raise ConfigError("--at", step, f"no checkpoint at that step; available: {have} "
                      "(keep more with checkpoint_keep=K when training)")
