"""GrokBench II end to end (protocol v2): every study of every method and task tuned by successive halving
(studies.py), each study's choice evaluated on the evaluation seeds, each method's source-task choices carried to
the held-out tasks, the evaluation runs packed, then judged (board_v2.py).

Layout of DIR: tune/<task>/<method>/k<study>/ (sweep.tune's trials), eval/<task>/<method>/k<study>/s<seed> (the
evaluation runs, held-out tasks alike), then the evidence: runs.csv.gz (every evaluation row), runs.json (each
evaluation run's overrides and values), selection.json ({task: {method: {study: the study's choice}}}, held-out
tasks naming the source they carry), protocol.json.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Callable

from groklab.experiments.grokbench.protocol import Method, Profile, Protocol, fixed_trials, overrides


def eval_runs(prof: Profile, methods: dict[str, Method], tasks: list[str], selection: dict) -> dict:
    """{run name: {"overrides", "values"}}: each study's choice on every evaluation seed, on its own task and (the
    source task's choice) on every held-out task. A study with no complete trial runs the method's nested point
    (said in the selection as `fallback`)."""
    held = prof.heldout
    every = {**prof.tasks, **(held.tasks if held else {})}
    plan = [(t, t) for t in tasks] + ([(h, held.source) for h in held.tasks] if held and held.source in tasks else [])
    out = {}
    for task, source in plan:
        for name, m in methods.items():
            for k, row in selection[source][name].items():
                if row.get("values") is None:
                    row.update(values=fixed_trials(m)[0] if fixed_trials(m) else {}, fallback="nested point")
                for s in prof.eval_seeds:
                    out[f"eval/{task}/{name}/k{k}/s{s}"] = {
                        "overrides": overrides(prof, m, task, row["values"], s, every), "values": row["values"]}
    return out


def run_v2(proto: Protocol, prof: Profile, profile: str, methods: dict[str, Method], tasks: list[str], out: Path,
           jobs: int, echo: Callable, t0: float) -> dict:
    """Tune, evaluate, pack and judge; returns the judged document."""
    from groklab.engine.machine import describe
    from groklab.experiments.grokbench.board_v2 import judge_v2
    from groklab.experiments.grokbench.runs import pack, read_rows, train_runs
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
    echo(f"grokbench v2: evaluation, {len(evals)} runs")
    train_runs(out, evals, jobs, echo)
    pack(out, read_rows(out, list(evals)), evals)
    atomic_write(out / "selection.json", json.dumps(selection, indent=1))
    heldout = [h for h in (prof.heldout.tasks if prof.heldout else {}) if h in selection]
    atomic_write(out / "protocol.json", json.dumps({
        "profile": profile, "protocol": proto.model_dump(mode="json"),
        "methods": {n: m.model_dump(mode="json") for n, m in methods.items()}, "tasks": tasks, "heldout": heldout,
        "train_s": round(time.perf_counter() - t0, 1), "jobs": jobs, "machine": describe()}, indent=1))
    return judge_v2(out, echo, time.perf_counter() - t0)


__all__ = ["eval_runs", "run_v2"]
