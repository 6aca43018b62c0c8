"""Sweeps: a YAML file (base config, grid of overrides, seeds) expanded into named runs and populations.

    config: base.yaml              # optional base config file, relative to the sweep file
    base: {p: 47, steps: 3000}     # overrides applied to every run (dotted keys allowed)
    grid: {optim: [adam, adam_lr], optim.lr: [0.001, 0.01]}   # the cartesian product of these
    seeds: 3                       # or a list [0, 1, 2]
    seed_keys: [seed]              # config keys each seed sets (e.g. [seed, split.seed])

Run r of grid point g and seed s lives in <out>/<g>/seed=<s>, g = "optim=adam,optim.lr=0.01".
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from groklab.config import Config, load_yaml, make_config
from groklab.engine.budget import allow_large
from groklab.engine.population import check_stackable, choose_packing, stack_key
from groklab.engine.record import RunRecord
from groklab.errors import ConfigError
from groklab.store import RunStore, holder, is_run, read_sweep_file
from groklab.store.names import check_name, links_below, tree_root

SWEEP_KEYS = ("config", "base", "grid", "seeds", "seed_keys")
MAX_RUNS = 100_000  # runs in one sweep (100,000 tiny runs already fill hours of a GPU)


@dataclass
class Run:
    name: str  # "<grid point>/seed=<s>"
    point: str
    cfg: Config
    out: Path
    start: int = 0  # the step it resumes from

    @property
    def state(self) -> str:
        """fresh (nothing to resume), resume (an unfinished run), done (finished) or busy (being written)."""
        if holder(self.out) is not None:
            return "busy"
        if not is_run(self.out):
            return "fresh"
        store = RunStore(self.out)
        if store.finished:
            return "done"
        return "resume" if store.has_checkpoint() else "fresh"


@dataclass
class Sweep:
    base: dict
    grid: dict
    seeds: list
    seed_keys: list = field(default_factory=lambda: ["seed"])


def load_sweep(path: str | Path) -> Sweep:
    path = Path(path)
    spec = load_yaml(path)
    unknown = set(spec) - set(SWEEP_KEYS)
    if unknown:
        raise ConfigError("sweep", sorted(unknown)[0], f"unknown sweep key; allowed: {', '.join(SWEEP_KEYS)}")
    base = {}
    if spec.get("config") is not None and not isinstance(spec["config"], str):
        raise ConfigError("sweep.config", spec["config"], "must be a config file name, relative to the sweep file")
    if spec.get("config"):
        base.update(load_yaml(path.parent / spec["config"]))
    if not isinstance(spec.get("base") or {}, dict):
        raise ConfigError("sweep.base", spec["base"], "must map config keys to values, e.g. {p: 97, optim: adam_lr}")
    base.update(spec.get("base") or {})
    grid = spec.get("grid") or {}
    if not isinstance(grid, dict) or not all(isinstance(k, str) and isinstance(v, list) and v for k, v in grid.items()):
        raise ConfigError("sweep.grid", grid, "must map config keys to non-empty lists of values")
    seeds = spec.get("seeds", 1)
    n_seeds = seeds if isinstance(seeds, int) else len(seeds) if isinstance(seeds, list) else 0
    n_runs = n_seeds * math.prod(len(v) for v in grid.values())  # counted before any list is built
    if n_runs > MAX_RUNS and not allow_large():
        raise ConfigError("sweep.seeds" if n_seeds > MAX_RUNS else "sweep.grid", seeds if n_seeds > MAX_RUNS else
                          {k: len(v) for k, v in grid.items()}, f"the sweep has {n_runs:,} runs, above the limit "
                          f"{MAX_RUNS:,}; split it, or pass --allow-large")
    seeds = list(range(seeds)) if isinstance(seeds, int) and not isinstance(seeds, bool) else seeds
    if not isinstance(seeds, list) or not seeds or not all(type(s) is int for s in seeds):
        raise ConfigError("sweep.seeds", seeds, "a count or a non-empty list of integers")
    keys = spec.get("seed_keys", ["seed"])
    if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
        raise ConfigError("sweep.seed_keys", keys, "a non-empty list of config keys, e.g. [seed, split.seed]")
    both = [k for k in grid if k in keys]
    if both:
        raise ConfigError(f"sweep.grid.{both[0]}", grid[both[0]], f"is set by `seeds` (seed_keys: {keys}); "
                          "give the values as `seeds: [...]` instead, or drop it from seed_keys")
    return Sweep(base, grid, seeds, keys)


def _label(value) -> str:
    text = str(value) if not isinstance(value, (list, dict)) else yaml.safe_dump(
        value, default_flow_style=True).splitlines()[0]
    return re.sub(r"[^A-Za-z0-9._+\-^*\[\]]", "_", str(text))


def expand(sweep: Sweep, out: str | Path) -> list[Run]:
    """Every (grid point, seed) as a validated Run with a deterministic directory name."""
    runs, names = [], set()
    keys = list(sweep.grid)
    for values in itertools.product(*(sweep.grid[k] for k in keys)):
        point = ",".join(f"{k}={_label(v)}" for k, v in zip(keys, values)) or "base"
        for seed in sweep.seeds:
            base = {**sweep.base, **dict(zip(keys, values)), **{k: seed for k in sweep.seed_keys}, "bar": False}
            cfg = make_config(base=base)
            name = check_name(f"{point}/seed={seed}", "sweep.grid")
            if name in names:
                raise ConfigError("sweep.grid", point, "two grid points map to the same run name")
            names.add(name)
            runs.append(Run(name, point, cfg, Path(out) / point / f"seed={seed}"))
    return runs


def plan(runs: list[Run], packing: str = "auto", members: int = 256) -> tuple[list[list[Run]], list[Run], list[Run]]:
    """(units of work, finished runs, busy runs). Every run on disk is checked first (same config, readable
    files); unfinished runs resume, runs another process is writing are left to it.

    stacked: compatible runs at the same start step form populations of at most `members`; auto: the same on a
    GPU for the runs whose model and optimizer stack (any other run is a unit of its own);
    sequential (and auto on a CPU): one run per unit, so executors spread runs over workers.
    """
    todo, done, busy = [], [], []
    for r in runs:
        links_below(tree_root(r.out), r.out)  # before anything trains: a link in the tree is refused, not a failure
        if holder(r.out) is not None:
            busy.append(r)
            continue
        record = RunRecord(r.cfg, r.out, "auto")  # raises on a different config or a damaged file
        if record.done is not None:
            done.append(r)
            continue
        r.start = record.start
        todo.append(r)
    if not todo:
        return [], done, busy
    choose_packing([], packing)  # checks the name
    if packing == "sequential":
        return [[r] for r in todo], done, busy
    groups: dict = {}
    units = []
    for r in todo:  # auto: stacked on a GPU where the run's model and optimizer allow it, else a unit of its own
        if packing == "auto" and choose_packing([r.cfg] * 2) != "stacked":
            units.append([r])
            continue
        groups.setdefault((stack_key(r.cfg), r.start), []).append(r)
    for group in groups.values():
        for i in range(0, len(group), members):
            unit = group[i:i + members]
            check_stackable([r.cfg for r in unit])
            units.append(unit)
    return units, done, busy


def seed_keys_of(root: str | Path) -> list[str]:
    """The seed keys of the sweep kept in `root` (default [seed])."""
    keys = (read_sweep_file(root) or {}).get("seed_keys", ["seed"])
    return keys if isinstance(keys, list) else ["seed"]
