"""`reproduce`: plan every study of a target (plan.py), train what the plans train, judge each (runner.run_plan)."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from groklab.config import make_config
from groklab.engine.budget import allow_large
from groklab.engine.machine import describe
from groklab.errors import ConfigError
from groklab.experiments.papers import resolve
from groklab.experiments.plan import SEEDS, TimeBudget, plan_study, select, specs_of
from groklab.experiments.runner import run_plan
from groklab.experiments.spec import PROFILES
from groklab.store import check_out
from groklab.store.archive import is_archive, read_index
from groklab.store.names import nested
from groklab.sweep.plan import MAX_RUNS

MAX_SEEDS = 1000  # seeds per configuration of a reproduction (every figure has several configurations)


def reproduce(target: str, out: str | Path, profile: str = "quick", seeds: int | None = None, jobs: int = 1,
              echo: Callable = print, overrides: tuple[str, ...] | None = None, only: str | None = None,
              source: str | Path | None = None, command: str | None = None, train_missing: bool = False,
              budget: float | None = None) -> list[dict]:
    """Run, draw and check every figure of `target`; returns each figure's claims.json content. `only`, a
    glob over run names ('mul/b512/*'), trains a subset of each figure and judges nothing (partial.json).
    `source`, a results archive, re-judges its runs without training (seeds and overrides default to the
    archive's). With `train_missing`, the runs `source` lacks are trained (those matching `only`, when given)
    beside the archived ones: a reproduction archived part-way is continued in another session. `budget`
    (seconds): whole runs are started only while their estimate fits; the rest are left for the same call
    again (a study then writes partial.json). Seeds default to SEEDS[profile] (quick 5, paper 3). `command`
    is recorded in each figure's manifest beside the machine."""
    _check(profile, seeds, jobs, only, source, train_missing, out, budget)
    check_out(out)  # a folder holding a user's files is refused before anything is trained
    plans = plan_target(target, out, profile, seeds, overrides, only, source, train_missing, echo)
    if source is None or train_missing:  # every point built as far as it can be without training: one bad refuses all
        from groklab.engine.setup import preflight  # torch: not imported by a re-judge

        preflight([make_config(list(s.overrides)) for p in plans for s in p.train])
    session = {"command": command or f"groklab.reproduce({target!r}, profile={profile!r}, seeds={seeds})",
               "only": only, "machine": describe()}
    clock = TimeBudget(budget)
    docs = [run_plan(p, Path(out), jobs, echo, session, clock) for p in plans]
    if clock.skipped:
        echo(f"budget: {clock.skipped} runs left for a later call; the same command continues where this one "
             "stopped")
    return docs


def plan_target(target: str, out, profile: str, seeds, overrides, only, source, train_missing, echo) -> list:
    """The plan of every study of `target` (a study archived part-way is left out of a whole paper's re-judge,
    with a line saying so); raises before anything is trained on a request that cannot be met."""
    modules = resolve(target)
    if seeds is not None and not allow_large():  # counted at one seed, before 100,000 run specs take minutes
        runs = seeds * sum(len(specs_of(m, profile, 1, tuple(overrides or ()))) for m in modules)
        if runs > MAX_RUNS:
            raise ConfigError("seeds", seeds, f"{target} at {seeds} seeds is {runs:,} runs, more than {MAX_RUNS:,}; "
                                              "use fewer seeds or --only, or pass --allow-large")
    held = read_index(source)["studies"] if source is not None and is_archive(source) else {}
    if source is not None and target.endswith("/all") and not train_missing:  # an archive may hold some studies
        modules = [m for m in modules if m.NAME in held] or modules
    plans, names, matched = [], [], 0
    for m in modules:  # every config of every figure validated before anything is trained
        plan = plan_study(m, out, profile, seeds, overrides, only, source, train_missing, target.endswith("/all"))
        if isinstance(plan, str):
            echo(plan)
            continue
        for s in plan.train:
            make_config(list(s.overrides))
        chosen = len(select(plan.every, only))
        matched += chosen
        names += [s.name for s in plan.every]
        if chosen or only is None or plan.train_missing:  # --only skips a figure none of whose runs match
            plans.append(plan)
    if only is not None and not matched:  # with --train-missing too: a glob that matches nothing is a typo
        raise ConfigError("only", only, f"matches none of the {len(names)} runs of {target}; run names look "
                                        f"like {names[0]!r}")
    return plans


def _check(profile, seeds, jobs, only, source, train_missing, out, budget) -> None:
    """Refuse a request's arguments before anything is read or trained: one line naming the field."""
    if profile not in PROFILES:
        raise ConfigError("profile", profile, f"allowed: {', '.join(PROFILES)}")
    if seeds is not None and (not isinstance(seeds, int) or isinstance(seeds, bool) or seeds < 1):
        raise ConfigError("seeds", seeds, "must be an integer >= 1")
    if seeds is not None and seeds > MAX_SEEDS and not allow_large():  # before any run list is built
        raise ConfigError("seeds", seeds, f"at most {MAX_SEEDS} seeds per configuration; pass --allow-large for more")
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ConfigError("jobs", jobs, "must be an integer >= 1")
    if only is not None and (not isinstance(only, str) or not only.strip() or len(only) > 200):
        raise ConfigError("only", str(only)[:60], "must be a glob over run names, 1-200 characters: 'mul/b512/*'")
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget > 0
                               or budget == float("inf")):
        raise ConfigError("budget", budget, "must be a number of seconds > 0")
    if train_missing and source is None:
        raise ConfigError("train-missing", True, "needs --from ARCHIVE: it trains the runs that archive lacks")
    if source is not None and only is not None and not train_missing:
        raise ConfigError("only", only, "cannot be combined with --from: an archive is re-judged whole "
                                        "(with --train-missing it picks which missing runs to train)")
    if source is not None and budget is not None and not train_missing:
        raise ConfigError("budget", budget, "a re-judge (--from without --train-missing) trains nothing")
    if source is not None and nested(out, source):
        raise ConfigError("out", str(out), f"is the archive it re-judges ({source}), inside it or holds it; "
                                           "re-judge into a folder of its own")


__all__ = ["MAX_SEEDS", "SEEDS", "reproduce", "plan_target"]
