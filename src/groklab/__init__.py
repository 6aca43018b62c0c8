"""groklab: a fast, reproducible laboratory for grokking and embedding-layer dynamics.

The public names are imported on first use (PEP 562), so `import groklab.cli` does not load torch: the CLI
sets OMP_WAIT_POLICY before torch starts OpenMP, which reads it once, when torch is imported (set after that,
two processes sharing 2 cores ran 20-40x slower: threads spinning at every barrier).
"""
from __future__ import annotations

import importlib

__version__ = "0.2.0"
__all__ = ["Config", "ConfigError", "RunResult", "earlywarn", "load_model", "load_runs", "load_summaries",
           "make_config", "reproduce", "train", "__version__"]
_HOME = {"Config": "groklab.config", "make_config": "groklab.config", "RunResult": "groklab.engine",
         "train": "groklab.engine", "ConfigError": "groklab.errors", "load_runs": "groklab.store",
         "load_summaries": "groklab.store", "load_model": "groklab.engine.posthoc"}


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module 'groklab' has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME[name]), name)
    globals()[name] = value  # once: later lookups find it without coming here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def reproduce(target: str, out="runs/reproduce", profile: str = "quick", seeds: int | None = None, jobs: int = 1,
              source=None, only: str | None = None, overrides=None, echo=print, train_missing: bool = False,
              formats=None):
    """`groklab reproduce` from Python: train a paper's figure (`"embedding/fig6"`, `"beyond/all"`, ...) into
    `out`, or re-judge it from `source`, a results archive; returns a pandas DataFrame with one row per claim
    (figure, id, kind, verdict, reason, text, quote, where, statistic, aggregate, per_seed, note). Figures,
    claims.json and the report are written below `out` as by the CLI; re-running skips finished runs. `formats`:
    figure files as `--format` ('png,pdf,svg' or a tuple; PNG always)."""
    import pandas as pd

    from groklab.config.arguments import path_arg, str_arg, str_list_arg
    from groklab.errors import ConfigError
    from groklab.experiments import reproduce as run
    from groklab.plots.style import figure_formats

    target = str_arg(target, "target", "'embedding/fig6'")
    out, source = path_arg(out, "out"), path_arg(source, "source", optional=True)
    overrides = str_list_arg(overrides, "overrides", "['p=11']") if overrides is not None else None
    if formats is not None and not isinstance(formats, (str, list, tuple)):
        raise ConfigError("formats", repr(formats)[:60], "must be 'png,pdf,svg' or a tuple of those names")
    with figure_formats(formats):
        docs = run(target, out, profile=profile, seeds=seeds, jobs=jobs, echo=echo, only=only, source=source,
                   overrides=tuple(overrides) if overrides is not None else None, train_missing=train_missing)
    first = ["figure", "id", "kind", "verdict", "reason", "text"]
    df = pd.DataFrame([{"figure": d["figure"], **c} for d in docs for c in d["claims"]])
    return df[[c for c in first if c in df] + [c for c in df if c not in first]] if len(df) else df


def earlywarn(out="runs/earlywarn", stage: str = "study", source=None, jobs: int = 1, echo=print,
              command: str | None = None, protocol=None) -> dict:
    """`groklab earlywarn` from Python: train (or continue) the early-warning study's `stage` ('study' or 'pilot')
    under its frozen protocol into `out` and judge it, or re-judge an archive (`source`) without training; writes
    report.html beside the board and returns claims.json's content (board.csv, rules.json and the figures lie in
    `out`/earlywarn). `protocol`: the frozen file by default (another: a version 2, or a test's)."""
    from pathlib import Path

    from groklab.config.arguments import path_arg
    from groklab.experiments.earlywarn.protocol import PROTOCOL
    from groklab.experiments.earlywarn.study import STAGES
    from groklab.experiments.earlywarn.study import earlywarn as run
    from groklab.report import write_report

    out, source = path_arg(out, "out"), path_arg(source, "source", optional=True)
    protocol = path_arg(protocol, "protocol", optional=True) or PROTOCOL
    doc = run(out, stage, source, jobs, echo, command, protocol)
    root = Path(out) / STAGES[stage]
    write_report(root, root / "report.html")
    return doc
