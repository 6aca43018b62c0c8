"""GrokBench II's tuning stage (protocol v2): per method, task and study, successive halving in training steps
(sweep.tune) over the method's declared space, opening with its nested point and published recipe.

Layout: tune/<task>/<method>/k<seed>/trial-NNN (run folders) with trials.csv beside them, one folder per study
(its tuning seed). Each study's sampler is seeded by the protocol's draw_seed and the method's, task's and study's
names alone, so adding a method, a task or a study changes no other study. The selection per study is its best
complete trial; a chosen value in the outer 5% of its range (on the range's own scale) is named: v1's review found
the lr cap binding, and a range must be widened, then the study run again, where that happens.
"""
from __future__ import annotations

import math
import zlib
from pathlib import Path
from typing import Callable

from groklab.experiments.grokbench.protocol import Method, Profile, Protocol, fixed_trials, overrides

EDGE = 0.05  # the outer share of a range where a chosen value is named


def space(m: Method) -> dict:
    """The method's ranges in sweep.tune's terms."""
    out = {}
    for k, r in m.tune.items():
        out[k] = ("log", *r.log) if r.log is not None else ("uniform", *r.uniform) if r.uniform is not None \
            else ("choice", list(r.choice))
    return out


def study_seed(draw_seed: int, method: str, task: str, seed: int) -> int:
    """The sampler's seed of one study: the protocol's draw_seed and the names alone."""
    return zlib.crc32(f"{draw_seed}/{method}/{task}/{seed}".encode())


def edges(m: Method, values: dict) -> list[str]:
    """The tuned keys whose value lies in the outer EDGE of its range (a log range on the log scale); a choice is
    at an edge on its first or last option. A value outside the range (a nested point) is not a tuned one."""
    out = []
    for k, r in m.tune.items():
        v = values.get(k)
        if v is None:
            continue
        if r.choice is not None:
            out += [k] if len(r.choice) > 1 and v in (r.choice[0], r.choice[-1]) else []
            continue
        lo, hi = r.log if r.log is not None else r.uniform
        f = (lambda x: math.log(x)) if r.log is not None else (lambda x: x)  # noqa: E731
        if not lo <= v <= hi or hi == lo:
            continue
        u = (f(v) - f(lo)) / (f(hi) - f(lo))
        out += [k] if u < EDGE or u > 1 - EDGE else []
    return out


def curve(trials: list) -> list[list]:
    """[[training steps spent, best score so far], ...] over the trials in the order they were asked (each trial's
    last reported score): the tuning curve that shows whether the budget was enough."""
    out, spent, best = [], 0, None
    for t in trials:
        spent += t.steps
        if t.score is not None:
            best = t.score if best is None else max(best, t.score)
        out.append([spent, None if best is None else round(float(best), 6)])
    return out


def tune_studies(proto: Protocol, prof: Profile, methods: dict[str, Method], tasks: list[str], out: Path,
                 echo: Callable = print) -> dict:
    """Every study of every method on every task (in that order, one at a time: each trains in this process);
    returns {task: {method: {seed: {"values", "score", "steps_used", "trials", "pruned", "edges"}}}}."""
    from groklab.sweep.tune import tune

    t = prof.tuner
    selection: dict = {}
    for task in tasks:
        for name, m in methods.items():
            for s in t.studies:
                base = overrides(prof, m, task, {}, s)
                got = tune(base, space(m), Path(out) / "tune" / task / name / f"k{s}", budget=t.budget_steps,
                           min_steps=t.min_steps, eta=t.eta, seed=study_seed(proto.draw_seed, name, task, s),
                           sampler=t.sampler, level=proto.threshold, persistence=proto.persistence,
                           enqueue=fixed_trials(m))
                best = got.best
                row = {"values": dict(best.params) if best else None, "score": best.score if best else None,
                       "trial": best.number if best else None, "steps_used": got.used, "trials": len(got.trials),
                       "pruned": sum(x.state == "pruned" for x in got.trials),
                       "edges": edges(m, best.params) if best else [], "curve": curve(got.trials)}
                selection.setdefault(task, {}).setdefault(name, {})[str(s)] = row
                echo(f"grokbench: tuned {name} on {task}, study {s}: {row['trials']} trials ({row['pruned']} "
                     f"pruned), {got.used} steps; best score {row['score']}"
                     + (f"; at a range's edge: {', '.join(row['edges'])}" if row["edges"] else ""))
    return selection
