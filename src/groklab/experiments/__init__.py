"""Paper figures as experiments: each module holds a spec of runs per profile, an analysis and claims.

A study is a module with NAME, TITLE, PAPER (what the paper reports), runs(profile, seeds[, p]) -> [RunSpec]
and analyze(metrics DataFrame, out dir, profile) -> (figure paths, [Claim]); optionally ASSUMPTIONS (settings
its paper leaves unstated, with sensitivity arms: experiments/assumptions.py) and CONTROLS (runs its claims
presuppose show the phenomenon: experiments/controls.py); its docstring lists its differences from the paper
(and the released code). tests/experiments/test_controls.py checks every study against this. The library
itself knows no paper.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from groklab.config import make_config
from groklab.engine.budget import allow_large
from groklab.engine.machine import describe
from groklab.engine.setup import preflight
from groklab.errors import ConfigError
from groklab.experiments.assumptions import arm_of
from groklab.experiments.beyond import circulant, depth, dnn, embdim, med, resnet, table1, threshold, uniformity
from groklab.experiments.beyond import fig4 as beyond_fig4
from groklab.experiments.embedding import (
    adaptive,
    fig2,
    fig3,
    fig4,
    fig5,
    fig6,
    fig7,
    fig8,
    fig10,
    fig11,
    fig12,
    init43,
    sampler,
)
from groklab.experiments.investigation import batch, birnn, decay, ksum, landscape, lstm, mlp, optimizers, task1
from groklab.experiments.runner import default_jobs, run_figure, select, specs_of
from groklab.experiments.spec import PROFILES, Claim, RunSpec
from groklab.store import check_out, read_manifest
from groklab.store.archive import FORMAT, is_archive, lacking, lacking_error, read_index, trained_here
from groklab.store.names import nested
from groklab.sweep.plan import MAX_RUNS

PAPERS = {"embedding": {m.NAME: m for m in (fig2, fig3, fig4, fig5, fig6, fig7, fig8, fig10, fig11, fig12,
                                             init43, sampler, adaptive)},  # paper 000
          "beyond": {m.NAME: m for m in (table1, beyond_fig4, dnn, med, depth, embdim, circulant,
                                                  uniformity, resnet, threshold)},  # paper 004
          "investigation": {m.NAME: m for m in (task1, lstm, mlp, birnn, optimizers, decay, batch, ksum,
                                                   landscape)}}  # 002


def resolve(target: str) -> list:
    """'embedding/fig6' -> [fig6 module]; 'embedding/all' -> every figure of the paper."""
    paper, _, fig = target.partition("/")
    if paper not in PAPERS:
        raise ConfigError("experiment", target, f"unknown paper '{paper}'; known: {', '.join(PAPERS)}")
    figs = PAPERS[paper]
    if fig == "all":
        return list(figs.values())
    if fig not in figs:
        raise ConfigError("experiment", target, f"allowed: {', '.join(f'{paper}/{f}' for f in [*figs, 'all'])}")
    return [figs[fig]]


MAX_SEEDS = 1000  # seeds per configuration of a reproduction (every figure has several configurations)
# Default seeds per configuration: with 3 a one-sided rank test reaches p = 0.05 only when every run of one
# arm precedes every run of the other (1 / C(6, 3)); 5 leave room for one overlap (p = 2/252). The quick
# profile costs minutes, so it runs 5; the paper profile keeps 3 where hours force it (claims say
# "underpowered" where 3 cannot decide).
SEEDS = {"quick": 5, "paper": 3}

def reproduce(target: str, out: str | Path, profile: str = "quick", seeds: int | None = None, jobs: int = 1,
              echo: Callable = print, overrides: tuple[str, ...] | None = None, only: str | None = None,
              source: str | Path | None = None, command: str | None = None, train_missing: bool = False) -> list[dict]:
    """Run, draw and check every figure of `target`; returns each figure's claims.json content. `only`, a
    glob over run names ('mul/b512/*'), trains a subset of each figure and judges nothing (partial.json).
    `source`, a results archive, re-judges its runs without training (seeds and overrides default to the
    archive's). With `train_missing`, the runs `source` lacks are trained (those matching `only`, when given)
    beside the archived ones: a reproduction archived part-way is continued in another session. Seeds default
    to SEEDS[profile] (quick 5, paper 3). `command` is recorded in each figure's manifest beside the machine."""
    if profile not in PROFILES:
        raise ConfigError("profile", profile, f"allowed: {', '.join(PROFILES)}")
    if seeds is not None and (not isinstance(seeds, int) or isinstance(seeds, bool) or seeds < 1):
        raise ConfigError("seeds", seeds, "must be an integer >= 1")
    if seeds is not None and seeds > MAX_SEEDS and not allow_large():  # before any run list is built
        raise ConfigError("seeds", seeds, f"at most {MAX_SEEDS} seeds per configuration; pass --allow-large for more")
    if not isinstance(jobs, int) or jobs < 1:
        raise ConfigError("jobs", jobs, "must be an integer >= 1")
    if only is not None and (not isinstance(only, str) or not only.strip() or len(only) > 200):
        raise ConfigError("only", str(only)[:60], "must be a glob over run names, 1-200 characters: 'mul/b512/*'")
    if train_missing and source is None:
        raise ConfigError("train-missing", True, "needs --from ARCHIVE: it trains the runs that archive lacks")
    if source is not None and only is not None and not train_missing:
        raise ConfigError("only", only, "cannot be combined with --from: an archive is re-judged whole "
                                        "(with --train-missing it picks which missing runs to train)")
    if source is not None and nested(out, source):
        raise ConfigError("out", str(out), f"is the archive it re-judges ({source}), inside it or holds it; "
                                           "re-judge into a folder of its own")
    check_out(out)  # a folder holding a user's files is refused before anything is trained
    plans, names, cfgs, matched = [], [], [], 0
    modules = resolve(target)
    if seeds is not None and not allow_large():  # counted at one seed, before 100,000 run specs take minutes
        runs = seeds * sum(len(specs_of(m, profile, 1, tuple(overrides or ()))) for m in modules)
        if runs > MAX_RUNS:
            raise ConfigError("seeds", seeds, f"{target} at {seeds} seeds is {runs:,} runs, more than {MAX_RUNS:,}; "
                                              "use fewer seeds or --only, or pass --allow-large")
    held = read_index(source)["studies"] if source is not None and is_archive(source) else {}
    if source is not None and target.endswith("/all") and not train_missing:  # an archive may hold some studies
        modules = [m for m in modules if m.NAME in held] or modules
    for m in modules:  # every config of every figure validated before anything is trained
        absent = train_missing and is_archive(source) and m.NAME not in held  # trained whole, as without --from
        study = archived_study(source, m.NAME, profile) if source is not None and not absent else None
        man = read_manifest(study) if study is not None else {}
        n_seeds = seeds if seeds is not None else man.get("seeds", SEEDS[profile])
        extra = tuple(overrides) if overrides is not None else tuple(man.get("overrides", ()))
        specs = specs_of(m, profile, n_seeds, extra)
        chosen = select(specs, only)
        matched += len(chosen)
        lack = set(lacking(study, [s.name for s in specs])) if study is not None and train_missing else set()
        if study is not None and train_missing:  # the archived runs are laid out, the others trained
            chosen = [s for s in chosen if s.name in lack]
        for spec in chosen:
            cfgs.append(make_config(list(spec.overrides)))
        if study is not None and train_missing:
            archived = [s.name for s in specs if s.name not in lack]
            trained = trained_here(Path(out) / m.NAME, archived)
            if trained:
                raise ConfigError("out", str(out), f"holds {len(trained)} trained runs of {m.NAME} the archive also "
                                                   f"holds (e.g. {trained[0]}); continue into a new --out")
            names += [s.name for s in specs]
            plans.append((m, n_seeds, extra, study))
            continue
        missing = lacking(study, [s.name for s in chosen]) if study is not None else []
        missing = [n for n in missing if arm_of(n) is None]  # a missing arm is left out (runner.run_figure)
        if missing and target.endswith("/all") and only is None:
            echo(f"{m.NAME}: archived part-way ({len(chosen) - len(missing)} of {len(chosen)} runs): left out; "
                 f"continue it with --train-missing")
            continue
        if missing:
            raise lacking_error(study, missing, len(chosen))
        trained = trained_here(Path(out) / m.NAME, [s.name for s in chosen]) if study is not None else []
        if trained:
            raise ConfigError("out", str(out), f"holds {len(trained)} trained runs of {m.NAME} (e.g. {trained[0]}); "
                                               "re-judge an archive into a new --out")
        names += [s.name for s in specs]
        if chosen or only is None:  # --only skips a figure none of whose runs match
            plans.append((m, n_seeds, extra, study))
    if source is None or train_missing:
        preflight(cfgs)  # every point built as far as it can be without training: one bad point refuses all
    if only is not None and not matched:  # with --train-missing too: a glob that matches nothing is a typo
        raise ConfigError("only", only, f"matches none of the {len(names)} runs of {target}; run names look "
                          f"like {names[0]!r}")
    session = {"command": command or f"groklab.reproduce({target!r}, profile={profile!r}, seeds={seeds})",
               "only": only, "machine": describe()}
    return [run_figure(m, Path(out), profile, n, jobs, echo, extra, only, study, session, train_missing)
            for m, n, extra, study in plans]


def archived_study(source: str | Path, name: str, profile: str) -> Path:
    """The study `name` of the results archive `source`, checked to hold the requested profile."""
    source = Path(source)
    if not is_archive(source):
        raise ConfigError("from", str(source), "is not a groklab results archive (no manifest.json of format "
                                               f"{FORMAT}); make one with groklab archive")
    index = read_index(source)
    if name not in index["studies"]:
        raise ConfigError("from", str(source), f"holds no study {name!r}; it holds {', '.join(index['studies'])}")
    got = index["studies"][name].get("profile")
    if got != profile:
        raise ConfigError("from", str(source), f"holds {name} at profile {got!r}, not {profile!r}")
    return source / name


__all__ = ["PAPERS", "Claim", "RunSpec", "default_jobs", "reproduce", "resolve", "run_figure"]
