"""GrokBench end to end: tune every method alike, evaluate its best configuration on held-out seeds, pack the
runs, judge. `--from` re-judges a packed benchmark without training.

Layout of DIR: tune/<task>/<method>/c<i>s<seed> and eval/<task>/<method>/s<seed> (run folders, while training),
then runs.csv.gz (every evaluation row of every run: what judging reads), runs.json (each run's overrides),
protocol.json (the protocol, the methods and the profile as run), selection.json (each method's chosen
configuration per task and why), leaderboard.csv / .md, aggregate.csv, figures, report.html.
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Callable, Optional

from groklab.errors import ConfigError, printable
from groklab.experiments.grokbench.evidence import parse, read_evidence
from groklab.experiments.grokbench.protocol import check, draws, load_methods, load_protocol, overrides
from groklab.experiments.grokbench.runs import pack, read_rows, train_runs
from groklab.store import atomic_write
from groklab.store.tree import check_out, make_out


def pick(names: list[str], chosen: Optional[str], what: str) -> list[str]:
    """`chosen` ('a,b') as a sub-list of names in their order; a one-line error naming an unknown one."""
    if not chosen:
        return list(names)
    want = [x.strip() for x in chosen.split(",") if x.strip()]
    bad = [x for x in want if x not in names]
    if bad or not want:
        raise ConfigError(f"--{what}", chosen, f"a comma list of {', '.join(names)}")
    return [n for n in names if n in want]


def grokbench(profile: str, out, source=None, methods: Optional[str] = None, tasks: Optional[str] = None,
              jobs: Optional[int] = None, echo: Callable = print,
              protocol_path=None, methods_path=None) -> dict:
    """Train (or with `source`, re-judge) GrokBench at `profile` into `out`; returns the judged document.
    `methods_path`: a YAML file of methods added to (or replacing) the built-in ones; `protocol_path`: a
    protocol file in place of the built-in one (e.g. a smaller profile)."""
    from groklab.config.arguments import path_arg
    from groklab.engine.machine import describe
    from groklab.experiments.grokbench.board import judge
    from groklab.experiments.runner import default_jobs

    if jobs is not None and jobs < 0:
        raise ConfigError("--jobs", jobs, "must be >= 1 (0: one per CPU core)")
    t0 = time.perf_counter()
    out, source = path_arg(out, "--out"), path_arg(source, "--from", optional=True)
    protocol_path = path_arg(protocol_path, "--protocol", optional=True)
    methods_path, jobs = path_arg(methods_path, "--add-methods", optional=True), jobs or default_jobs()
    check_out(out, "--out")  # one ownership rule (reproduce's, sweep's): refused before anything is read or trained
    if source is not None:
        evidence = read_evidence(Path(source))  # all read and checked before any write
        parsed = parse(evidence)
        doc = parsed[0]
        make_out(out, "--out")
        for name, data in evidence.items():
            (out / name).parent.mkdir(exist_ok=True)  # evals/ of a v2 benchmark
            atomic_write(out / name, data)
        echo(f"grokbench: re-judged from {source} ({doc['profile']} profile)")
        if (doc["protocol"].get("profiles", {}).get(doc["profile"]) or {}).get("tuner"):
            from groklab.experiments.grokbench.board_v2 import judge_v2

            return judge_v2(out, echo, time.perf_counter() - t0, parsed)
        return judge(out, echo, time.perf_counter() - t0, parsed)  # checked once, judged as read
    proto = load_protocol(protocol_path) if protocol_path else load_protocol()
    every = {**load_methods(), **(load_methods(methods_path) if methods_path else {})}  # a user's file adds
    if profile not in proto.profiles:
        raise ConfigError("--profile", profile, f"one of {', '.join(proto.profiles)}")
    prof = proto.profiles[profile]
    names = pick(list(every), methods, "methods")
    if proto.baseline not in names:
        names = [proto.baseline] + names  # P(improvement) needs the baseline
    chosen = {n: every[n] for n in names}
    task_names = pick(list(prof.tasks), tasks, "tasks")
    check(proto, chosen, profile)
    if prof.tuner is not None:  # protocol v2: tuned by successive halving over repeated studies
        from groklab.experiments.grokbench.bench_v2 import run_v2

        make_out(out, "--out")
        return run_v2(proto, prof, profile, chosen, task_names, out, jobs, echo, t0)
    _announce(proto, prof, chosen, task_names, profile, echo)
    make_out(out, "--out")
    tuning = {}  # name -> {"overrides", "values"}
    for task in task_names:
        for name, m in chosen.items():
            for i, values in enumerate(draws(name, m, task, prof.tuning_configs, proto.draw_seed)):
                for s in prof.tuning_seeds:
                    tuning[f"tune/{task}/{name}/c{i}s{s}"] = {"overrides": overrides(prof, m, task, values, s),
                                                              "values": values}
    echo(f"grokbench: tuning, {len(tuning)} runs ({prof.tuning_runs} per method and task)")
    train_runs(out, tuning, jobs, echo)
    selection = select(read_rows(out, list(tuning)), tuning, proto.threshold)
    evals = {}
    for task in task_names:
        for name, m in chosen.items():
            values = selection[task][name]["values"]
            for s in prof.eval_seeds:
                evals[f"eval/{task}/{name}/s{s}"] = {"overrides": overrides(prof, m, task, values, s),
                                                     "values": values}
    echo(f"grokbench: evaluation, {len(evals)} runs ({len(prof.eval_seeds)} held-out seeds per method and task)")
    train_runs(out, evals, jobs, echo)
    runs = {**tuning, **evals}
    pack(out, read_rows(out, list(runs)), runs)
    atomic_write(out / "selection.json", json.dumps(selection, indent=1))
    atomic_write(out / "protocol.json", json.dumps({
        "profile": profile, "protocol": proto.model_dump(mode="json"), "methods": {n: m.model_dump(mode="json")
                                                                                    for n, m in chosen.items()},
        "tasks": task_names, "train_s": round(time.perf_counter() - t0, 1), "jobs": jobs,
        "machine": describe()}, indent=1))  # wall times read against this session's matmul speed
    return judge(out, echo, time.perf_counter() - t0)


def _announce(proto, prof, methods, tasks, profile, echo) -> None:
    echo(f"grokbench ({profile}): {len(methods)} methods x {len(tasks)} tasks; per method and task "
         f"{prof.tuning_runs} tuning runs (seeds {prof.tuning_seeds}) and {len(prof.eval_seeds)} evaluation seeds "
         f"({prof.eval_seeds[0]}..{prof.eval_seeds[-1]}); baseline {proto.baseline}; grokked = test acc >= "
         f"{proto.threshold:g}")
    echo(f"  selection: {proto.criterion}")
    for name, m in methods.items():
        ranges = "; ".join(f"{k} {_show(r)}" for k, r in sorted(m.tune.items()))
        echo(printable(f"  {name}: {m.about} | {' '.join(m.set) or '-'} | tuned: {ranges}"))  # a user's file


def _show(r) -> str:
    if r.log is not None:
        return f"log[{r.log[0]:g}, {r.log[1]:g}]"
    if r.uniform is not None:
        return f"[{r.uniform[0]:g}, {r.uniform[1]:g}]"
    return "{" + ", ".join(map(str, r.choice)) + "}"


def select(rows, tuning: dict[str, dict], thr: float) -> dict:
    """Per task and method, the tuning configuration by the protocol's criterion: the smallest median steps to
    `thr` over its tuning seeds (never reached: infinite), ties by the higher mean best test accuracy, then by
    the draw's index."""
    best_acc = rows.groupby("run")["test/acc"].max().to_dict()
    hit = rows[rows["test/acc"] >= thr].groupby("run")["step"].min().to_dict()
    cands: dict = {}
    for name, run in tuning.items():
        _, task, method, tag = name.split("/")
        c = cands.setdefault(task, {}).setdefault(method, {}).setdefault(
            int(tag[1:].split("s")[0]), {"times": [], "acc": [], "values": run["values"]})
        c["times"].append(float(hit.get(name, math.inf)))
        c["acc"].append(float(best_acc.get(name, 0.0)))
    out: dict = {}
    for task, per in cands.items():
        for method, configs in per.items():
            score = {i: (_median(c["times"]), -sum(c["acc"]) / len(c["acc"]), i) for i, c in configs.items()}
            best = min(score, key=score.get)
            shown = lambda i: {"median_steps": None if math.isinf(score[i][0]) else score[i][0],  # noqa: E731
                               "mean_best_acc": round(-score[i][1], 6), "values": configs[i]["values"]}
            out.setdefault(task, {})[method] = {"config": best, **shown(best),
                                                "candidates": {str(i): shown(i) for i in sorted(configs)}}
    return out


def _median(values: list[float]) -> float:
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
