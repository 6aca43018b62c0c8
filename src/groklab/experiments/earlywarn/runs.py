"""The early-warning study's runs, as the frozen protocol names them, trained with the sweep machinery into study
folders an archive keeps: `pilot` (pilot/<setting>/f<fraction>/s<seed>, no measures) and `earlywarn`
(<block>/<setting>/s<seed> for the explore, evaluate and held_out blocks, measured). Finished runs are skipped
and unfinished ones resume, so a long run is continued by the same command in another session."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from groklab.config import make_config
from groklab.experiments.earlywarn.protocol import Protocol, held_out_settings, sha256
from groklab.store import make_out
from groklab.store.archive_write import KEEP
from groklab.store.tree import MANIFEST, read_manifest, write_manifest

PILOT, STUDY = "pilot", "earlywarn"
BLOCKS = ("explore", "evaluate", "held_out")
TITLES = {PILOT: "Early warning: the pilot that chose each setting's training fraction",
          STUDY: "Early warning: which progress measure tells, before the test set does, that a run will grok"}


def _seeded(proto: Protocol, overrides: list[str], seed: int) -> list[str]:
    return [*proto.population.base, *overrides, f"seed={seed}", f"split.seed={seed}"]


def pilot_specs(proto: Protocol) -> dict[str, list[str]]:
    """<setting>/f<fraction>/s<seed> -> overrides (below the pilot folder): every setting, those dropped too, at
    every fraction the pilot tried, on the pilot seeds, without measures."""
    pilot = proto.population.pilot
    settings = {**{k: v for k, (_, v) in proto.population.settings.items()}, **pilot.dropped}
    out = {}
    for name, overrides in settings.items():
        for frac in sorted({*pilot.fracs, *pilot.second_round.get(name, [])}):
            for s in pilot.seeds:
                out[f"{name}/f{frac:g}/s{s}"] = _seeded(proto, [*overrides, f"split.frac_train={frac:g}"], s)
    return out


def study_specs(proto: Protocol, blocks: tuple[str, ...] = BLOCKS) -> dict[str, list[str]]:
    """<block>/<setting>/s<seed> -> overrides: the settings on the explore and evaluate seeds, the held-out
    settings on the held-out seeds, each at its fraction with the measures on."""
    pop = proto.population
    out = {}
    for block in blocks:
        settings = held_out_settings(proto) if block == "held_out" else pop.settings
        for name, (frac, overrides) in settings.items():
            for s in getattr(proto.seeds, block):
                out[f"{block}/{name}/s{s}"] = _seeded(proto, [*overrides, f"split.frac_train={frac:g}", *pop.measured],
                                                      s)
    return out


def block_of(run: str) -> str:
    return run.split("/", 1)[0]


def setting_of(run: str) -> str:
    return run.split("/")[1]


def train_study(proto: Protocol, out: str | Path, study: str, jobs: int = 1, echo: Callable = print,
                session: dict | None = None, digest: str | None = None) -> Path:
    """Train (or continue) one study folder below `out` (PILOT or STUDY); returns the folder. Its manifest names
    every run and the protocol's version and sha256, and keeps the list of calls that built it."""
    from groklab.experiments.runner import execute  # torch: not imported by a re-judge

    specs = pilot_specs(proto) if study == PILOT else study_specs(proto)
    configs = {name: make_config(overrides).to_dict() for name, overrides in specs.items()}  # all validated first
    root = make_out(out) / study
    root.mkdir(parents=True, exist_ok=True)
    before = read_manifest(root).get("sessions", []) if (root / MANIFEST).is_file() else []
    write_manifest(root, manifest(proto, study, specs, [*before, *([session] if session else [])],
                                  digest or sha256()))
    echo(f"{study}: {TITLES[study]} ({len(specs)} runs) -> {root}")
    t0 = time.perf_counter()
    execute(root, configs, jobs, echo)
    if session:  # the call's wall time, as reproduce records it (an archive sums its sessions')
        doc = read_manifest(root)
        doc["sessions"][-1]["wall_s"] = round(time.perf_counter() - t0, 1)
        write_manifest(root, doc)
    return root


def manifest(proto: Protocol, study: str, specs: dict[str, list[str]], sessions: list[dict], digest: str) -> dict:
    seeds = proto.population.pilot.seeds if study == PILOT else proto.seeds.explore
    keep = ["train/acc", "test/acc"] + ([] if study == PILOT else sorted({k for k, *_ in proto.measures.values()}))
    return {"figure": study, "title": TITLES[study], "paper": "", "profile": "quick", "seeds": len(seeds),
            KEEP: keep,  # what the judges read: the archive keeps these series alone (store/archive_write.py)
            "overrides": [], "runs": specs, "protocol": {"version": proto.version, "sha256": digest},
            "sessions": sessions}
