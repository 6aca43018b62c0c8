"""load_runs: a tree of runs, or a results archive, as one pandas DataFrame."""
from __future__ import annotations

from pathlib import Path

from groklab.config import flatten
from groklab.errors import ConfigError
from groklab.store import archive
from groklab.store.run import RunStore
from groklab.store.tree import find_runs


def load_runs(path: str | Path):
    """One pandas DataFrame: a row per run per eval step, with the run's config fields as columns. `path` is
    a run, a tree of runs, or a results archive (or one study of it), which reads the same way."""
    import pandas as pd

    root = Path(path)
    if not root.exists():
        raise ConfigError("path", str(root), "does not exist")
    if archive.is_archive(root) or (root / archive.RUNS).is_file():
        return archive.load_archive(root)
    frames = []
    for run in find_runs(root):
        store = RunStore(run)
        rows = store.rows()
        if not rows:
            continue
        df = pd.DataFrame(rows)
        df.insert(0, "run", run.relative_to(root).as_posix() if run != root else run.name)
        df["status"] = store.summary().get("status", "unknown")
        for key, value in flatten(store.config()).items():
            df[key] = [value] * len(df)
        frames.append(df)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
