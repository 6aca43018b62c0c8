"""GrokBench II end to end (protocol v2): every study of every method and task tuned by successive halving
(studies.py), each study's choice evaluated on the evaluation seeds, each method's source-task choices carried to
the held-out tasks, the evaluation runs packed, then judged (board_v2.py).

Layout of DIR: tune/<task>/<method>/k<study>/ (sweep.tune's trials), eval/<task>/<method>/k<study>/s<seed> (the
evaluation runs, held-out tasks alike), then the evidence: evals/<task>.npz (every evaluation run's rows as exact
counts, packed as the runs finish: evals.py), selection.json ({task: {method: {study: the study's choice}}},
held-out tasks naming the source they carry), protocol.json. A run's overrides are not stored: the protocol and
the selection draw them again (eval_runs), and each packed run's digest must match.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Callable

from groklab.errors import ConfigError
from groklab.experiments.grokbench.evals import eval_runs
from groklab.experiments.grokbench.protocol import Method, Profile, Protocol

REUSE = "reuse"  # DIR/reuse/<task>.npz: packed runs of another benchmark, adopted where this draw repeats them


def evaluate(out: Path, evals: dict, jobs: int, echo: Callable, chunk: int = 0) -> None:
    """Train the evaluation runs no task file holds yet, a chunk at a time, packing each chunk into
    evals/<task>.npz as it ends: an interrupted evaluation goes on from its packed runs, on this machine or
    (the files copied into DIR) another. A run another benchmark packed (DIR/reuse/<task>.npz) is adopted where
    this protocol and selection draw the very same overrides (its digest), never otherwise."""
    from groklab.experiments.grokbench import evals as E
    from groklab.experiments.grokbench.runs import train_runs

    def task(n: str) -> str:
        return n.split("/")[1]

    packed = {t: E.load(out / "evals" / f"{t}.npz") for t in dict.fromkeys(map(task, evals))}
    for t in packed:  # runs carried in reuse/ (another run's evals/, e.g. the budget check's) that this draw repeats
        carried = {n: r for n, r in E.load(out / REUSE / f"{t}.npz").items()
                   if n in evals and n not in packed[t] and r["digest"] == E.digest(evals[n]["overrides"])}
        if carried:
            packed[t].update(carried)
            E.save(out / "evals" / f"{t}.npz", packed[t])
            echo(f"grokbench v2: {len(carried)} evaluation runs of {t} carried from {REUSE}/ (the same overrides)")
    for t, got in packed.items():
        odd = [n for n in got if n not in evals or got[n]["digest"] != E.digest(evals[n]["overrides"])]
        if odd:  # never judged as this protocol's, never retrained over silently
            raise ConfigError(f"{out}/evals/{t}.npz", ascii(odd[0])[:80], "a run packed with overrides this "
                              "protocol and selection do not draw; move the file away to train its runs again")
    todo = [n for n in evals if n not in packed[task(n)]]
    echo(f"grokbench v2: evaluation, {len(evals)} runs ({len(evals) - len(todo)} packed before)")
    size = chunk or max(8, 4 * jobs)
    for i in range(0, len(todo), size):
        part = todo[i:i + size]
        train_runs(out, {n: evals[n] for n in part}, jobs, echo)
        for t in dict.fromkeys(map(task, part)):
            packed[t].update({n: E.record(out / n, evals[n]["overrides"]) for n in part if task(n) == t})
            E.save(out / "evals" / f"{t}.npz", packed[t])


def run_v2(proto: Protocol, prof: Profile, profile: str, methods: dict[str, Method], tasks: list[str], out: Path,
           jobs: int, echo: Callable, t0: float) -> dict:
    """Tune, evaluate, pack and judge; returns the judged document."""
    from groklab.engine.machine import describe
    from groklab.experiments.grokbench.board_v2 import judge_v2
    from groklab.experiments.grokbench.studies import tune_studies
    from groklab.store import atomic_write

    t = prof.tuner
    echo(f"grokbench v2 ({profile}): {len(methods)} methods x {len(tasks)} tasks x {len(t.studies)} studies of "
         f"{t.budget_steps:,} training steps (successive halving from {t.min_steps:,}, eta {t.eta}, {t.sampler}); "
         f"{len(prof.eval_seeds)} evaluation seeds per study's choice; held out: "
         + (", ".join(prof.heldout.tasks) if prof.heldout and prof.heldout.source in tasks else
            f"none in this run (they carry {prof.heldout.source}'s choices)" if prof.heldout else "none"))
    selection = tune_studies(proto, prof, methods, tasks, out, echo)
    evals = eval_runs(prof, methods, tasks, selection)  # fills a study's fallback first: the copies below carry it
    if prof.heldout and prof.heldout.source in tasks:
        for h in prof.heldout.tasks:
            selection[h] = {name: {k: {"carried_from": prof.heldout.source, **row} for k, row in per.items()}
                            for name, per in selection[prof.heldout.source].items()}
    evaluate(out, evals, jobs, echo)
    atomic_write(out / "selection.json", json.dumps(selection, indent=1))
    heldout = [h for h in (prof.heldout.tasks if prof.heldout else {}) if h in selection]
    atomic_write(out / "protocol.json", json.dumps({
        "profile": profile, "protocol": proto.model_dump(mode="json"),
        "methods": {n: m.model_dump(mode="json") for n, m in methods.items()}, "tasks": tasks, "heldout": heldout,
        "train_s": round(time.perf_counter() - t0, 1), "jobs": jobs, "machine": describe()}, indent=1))
    return judge_v2(out, echo, time.perf_counter() - t0)


__all__ = ["REUSE", "evaluate", "run_v2"]
