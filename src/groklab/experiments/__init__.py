"""Paper figures as experiments: each module holds a spec of runs per profile, an analysis and claims.

A module has NAME, TITLE, PAPER (what the paper reports), runs(profile, seeds) -> [RunSpec] and
analyze(metrics DataFrame, out dir) -> (figure paths, [Claim]). The library itself knows no paper.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from groklab.config import make_config
from groklab.engine.budget import allow_large
from groklab.errors import ConfigError
from groklab.experiments.beyond import circulant, depth, dnn, embdim, med, resnet, table1, uniformity
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
from groklab.experiments.investigation import birnn, decay, ksum, landscape, lstm, mlp, optimizers, task1
from groklab.experiments.runner import default_jobs, run_figure, select, specs_of
from groklab.experiments.spec import PROFILES, Claim, RunSpec

PAPERS = {"embedding": {m.NAME: m for m in (fig2, fig3, fig4, fig5, fig6, fig7, fig8, fig10, fig11, fig12,
                                             init43, sampler, adaptive)},  # paper 000
          "beyond": {m.NAME: m for m in (table1, beyond_fig4, dnn, med, depth, embdim, circulant,
                                                  uniformity, resnet)},  # paper 004
          "investigation": {m.NAME: m for m in (task1, lstm, mlp, birnn, optimizers, decay, ksum, landscape)}}  # 002


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

def reproduce(target: str, out: str | Path, profile: str = "quick", seeds: int = 3, jobs: int = 1,
              echo: Callable = print, overrides: tuple[str, ...] = (), only: str | None = None) -> list[dict]:
    """Run, draw and check every figure of `target`; returns each figure's claims.json content. `only`, a
    glob over run names ('mul/b512/*'), trains a subset of each figure and judges nothing (partial.json)."""
    if profile not in PROFILES:
        raise ConfigError("profile", profile, f"allowed: {', '.join(PROFILES)}")
    if not isinstance(seeds, int) or seeds < 1:
        raise ConfigError("seeds", seeds, "must be an integer >= 1")
    if seeds > MAX_SEEDS and not allow_large():  # before any run list is built
        raise ConfigError("seeds", seeds, f"at most {MAX_SEEDS} seeds per configuration; pass --allow-large for more")
    if not isinstance(jobs, int) or jobs < 1:
        raise ConfigError("jobs", jobs, "must be an integer >= 1")
    if only is not None and (not isinstance(only, str) or not only.strip() or len(only) > 200):
        raise ConfigError("only", str(only)[:60], "must be a glob over run names, 1-200 characters: 'mul/b512/*'")
    modules, names = [], []
    for m in resolve(target):  # every config of every figure validated before anything is trained
        specs = specs_of(m, profile, seeds, overrides)
        chosen = select(specs, only)
        for spec in chosen:
            make_config(list(spec.overrides))
        names += [s.name for s in specs]
        modules += [m] if chosen or only is None else []  # --only skips a figure none of whose runs match
    if only is not None and not modules:
        raise ConfigError("only", only, f"matches none of the {len(names)} runs of {target}; run names look "
                          f"like {names[0]!r}")
    return [run_figure(m, Path(out), profile, seeds, jobs, echo, overrides, only) for m in modules]


__all__ = ["PAPERS", "Claim", "RunSpec", "default_jobs", "reproduce", "resolve", "run_figure"]
