"""load_runs: a tree of runs, or a results archive, as one pandas DataFrame."""
from __future__ import annotations

from pathlib import Path

from groklab.config import flatten
from groklab.config.arguments import path_arg
from groklab.errors import ConfigError
from groklab.store import archive
from groklab.store.run import RunStore
from groklab.store.tree import find_runs


def load_runs(path: str | Path):
    """One pandas DataFrame: a row per run per eval step, with the run's config fields as columns. `path` is
    a run, a tree of runs, or a results archive (or one study of it), which reads the same way."""
    import pandas as pd

    root = path_arg(path, "path")
    if not root.exists():
        raise ConfigError("path", str(root), "does not exist")
    if archive.holds_runs(root):
        runs = ((name, doc["metrics"], doc.get("summary") or {}, doc["config"])
                for name, doc in archive.runs_at(root) if doc.get("metrics"))
    else:
        runs = (_tree_run(root, run) for run in find_runs(root))
    frames = [_frame(*r, pd) for r in runs if r[1]]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _tree_run(root: Path, run: Path) -> tuple:
    store = RunStore(run)
    rows = store.rows()  # read first: a run without rows is skipped before its other files are read
    name = run.relative_to(root).as_posix() if run != root else run.name
    return (name, rows, store.summary(), store.config()) if rows else (name, [], {}, {})


def _frame(name: str, rows: list[dict], summary: dict, config: dict, pd):
    df = pd.DataFrame(rows)
    for col in [c for c in df.columns if df[c].dtype == "object"]:  # a metric null at every step (NaN policy)
        df[col] = pd.to_numeric(df[col], errors="coerce")
    df.insert(0, "run", name)
    df["status"] = summary.get("status", "unknown")
    for key, value in flatten(config).items():
        df[key] = [value] * len(df)
    return df
