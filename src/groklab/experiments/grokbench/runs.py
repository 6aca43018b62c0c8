"""GrokBench's runs: train a set of named runs (the sweep machinery), read their evaluation rows, pack them."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from groklab.config import make_config
from groklab.errors import ConfigError
from groklab.store import atomic_write

ROWS = "runs.csv.gz"
COLUMNS = ["run", "step", "test/acc", "train/acc", "time/wall_s"]


def train_runs(out: Path, runs: dict, jobs: int, echo: Callable) -> None:
    from groklab.experiments.runner import execute
    from groklab.store.names import check_name

    for k in runs:  # the one gate for names that become folders (their parts passed protocol.NAME already)
        check_name(k, "run")
    results = execute(out, {k: make_config(v["overrides"]).to_dict() for k, v in runs.items()}, jobs=jobs,
                      echo=echo)
    failed = [k for k, r in results.items() if r.get("status") == "failed"]
    if failed:  # a crash is not a slow run: judging it as censored would blame the method
        raise ConfigError("runs", failed[0], f"{len(failed)} run(s) crashed (error.txt beside each); rerun the "
                          "same command to retry them")


def read_rows(out: Path, names: list[str]):
    """Every evaluation row of the named runs (run, step, accuracies, wall seconds)."""
    import pandas as pd

    from groklab.store import read_metrics

    frames = []
    for name in names:
        rows = read_metrics(out / name)
        frames.append(pd.DataFrame([{k: r.get(k) for k in COLUMNS[1:]} for r in rows]).assign(run=name))
    return pd.concat(frames, ignore_index=True)[COLUMNS] if frames else pd.DataFrame(columns=COLUMNS)


def pack(out: Path, rows, runs: dict) -> None:
    import io

    buf = io.BytesIO()
    rows.to_csv(buf, index=False, compression={"method": "gzip", "mtime": 0})
    atomic_write(out / ROWS, buf.getvalue())
    atomic_write(out / "runs.json", json.dumps(runs, indent=0))


__all__ = ["COLUMNS", "ROWS", "pack", "read_rows", "train_runs"]
