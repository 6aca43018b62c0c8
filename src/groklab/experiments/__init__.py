"""Paper figures as experiments: each module holds a spec of runs per profile, an analysis and claims.

A study is a module with NAME, TITLE, PAPER (what the paper reports), runs(profile, seeds[, p]) -> [RunSpec]
and analyze(metrics DataFrame, out dir, profile) -> (figure paths, [Claim]); optionally ASSUMPTIONS (settings
its paper leaves unstated, with sensitivity arms: experiments/assumptions.py) and CONTROLS (runs its claims
presuppose show the phenomenon: experiments/controls.py); its docstring lists its differences from the paper
(and the released code). tests/experiments/test_controls.py checks every study against this. The library
itself knows no paper. A reproduction plans (plan.py), trains and judges (runner.py, judge.py): reproduction.py;
the registry of papers is papers.py.
"""
from __future__ import annotations

from groklab.experiments.papers import PAPERS, resolve
from groklab.experiments.plan import SEEDS, archived_study
from groklab.experiments.reproduction import MAX_SEEDS, reproduce
from groklab.experiments.runner import default_jobs, run_figure
from groklab.experiments.spec import Claim, RunSpec

__all__ = ["MAX_SEEDS", "PAPERS", "SEEDS", "Claim", "RunSpec", "archived_study", "default_jobs", "reproduce",
           "resolve", "run_figure"]
