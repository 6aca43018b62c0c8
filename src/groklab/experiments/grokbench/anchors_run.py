"""GrokBench II's anchors run end to end: each declared anchor's tuned arms tuned (studies.py), every arm's
evaluation runs trained and packed as they finish (bench_v2.evaluate), the record written (anchors.json), then
judged (anchors_board.py); or a packed record re-judged. The declaration is anchors.py."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Callable, Optional

from groklab.errors import ConfigError
from groklab.experiments.grokbench.anchors import (
    check_spec,
    draw_runs,
    load_anchors,
    profile_of,
    protocol_of,
    tuned_methods,
)
from groklab.experiments.grokbench.protocol import HERE, digest, load_methods


def run_anchors(profile: str, out: str | Path, names: Optional[list[str]] = None, jobs: int = 1,
                echo: Callable = print, path: Path | None = None) -> dict:
    """Tune, evaluate, pack and judge the named anchors (all by default) at `profile` into `out`."""
    from groklab.engine.machine import describe
    from groklab.experiments.grokbench.anchors_board import judge_anchors
    from groklab.experiments.grokbench.bench_v2 import evaluate
    from groklab.experiments.grokbench.studies import tune_studies
    from groklab.store import atomic_write
    from groklab.store.tree import check_out, make_out

    path = Path(path) if path is not None else HERE / "anchors_v2.yaml"
    spec, board = load_anchors(path), load_methods(HERE / "methods_v2.yaml")
    names = list(spec.anchors) if not names else names
    unknown = [n for n in names if n not in spec.anchors]
    if unknown:
        raise ConfigError("anchors", unknown[0], f"one of {', '.join(spec.anchors)}")
    check_spec(spec, board, profile, names)
    out = check_out(out, "--out")
    make_out(out, "--out")
    t0, selection = time.perf_counter(), {}
    for name in names:
        prof = profile_of(spec, name, profile)
        methods = tuned_methods(spec, name, board)
        echo(f"anchors: {name} ({profile}): {len(spec.anchors[name].arms)} fixed arms, {len(methods)} tuned "
             f"({len(prof.tuner.studies)} studies of {prof.tuner.budget_steps:,} steps), "
             f"{len(prof.eval_seeds)} evaluation seeds")
        selection.update(tune_studies(protocol_of(spec, prof, profile), prof, methods, [name], out, echo))
        evaluate(out, draw_runs(spec, name, profile, methods, selection), jobs, echo)
    doc = {"profile": profile, "anchors": spec.model_dump(mode="json"), "digest": digest(path), "names": names,
           "methods": {n: {m: v.model_dump(mode="json") for m, v in tuned_methods(spec, n, board).items()}
                       for n in names},
           "selection": selection, "train_s": round(time.perf_counter() - t0, 1), "machine": describe()}
    atomic_write(out / "anchors.json", json.dumps(doc, indent=1))
    return judge_anchors(out, echo)


def anchors(profile: str, out, source=None, chosen: Optional[str] = None, jobs: Optional[int] = None,
            echo: Callable = print, path=None) -> dict:
    """`groklab grokbench --anchors`: run the chosen anchors (a comma list, or all), or with `source` re-judge a
    packed run of them (anchors.json and evals/ read and checked there before anything is written to `out`)."""
    from groklab.config.arguments import path_arg
    from groklab.experiments.grokbench.anchors_board import evidence, judge_anchors
    from groklab.experiments.grokbench.bench import pick
    from groklab.experiments.grokbench.evidence import read_bytes
    from groklab.experiments.runner import default_jobs
    from groklab.store import atomic_write
    from groklab.store.tree import check_out, make_out

    if jobs is not None and jobs < 0:
        raise ConfigError("--jobs", jobs, "must be >= 1 (0: one per CPU core)")
    out, source = path_arg(out, "--out"), path_arg(source, "--from", optional=True)
    check_out(out, "--out")
    if source is None:
        spec = load_anchors(Path(path) if path is not None else HERE / "anchors_v2.yaml")
        names = pick(list(spec.anchors), None if chosen in (None, "all") else chosen, "anchors")
        return run_anchors(profile, out, names, jobs or default_jobs(), echo, path)
    doc, _ = evidence(Path(source))  # every packed run checked against the declaration before any write
    files = ["anchors.json", *(f"evals/{n}.npz" for n in doc["names"])]
    data = {f: read_bytes(Path(source) / f) for f in files}
    make_out(out, "--out")
    (out / "evals").mkdir(exist_ok=True)
    for f, b in data.items():
        atomic_write(out / f, b)
    echo(f"grokbench: anchors re-judged from {source} ({doc['profile']} profile)")
    return judge_anchors(out, echo)


__all__ = ["anchors", "run_anchors"]
