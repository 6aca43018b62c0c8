"""Trees of runs (load_runs into one DataFrame) and experiment directories (manifest, claims, errors)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator, Optional

from groklab.config import flatten
from groklab.errors import ConfigError
from groklab.store.files import atomic_write, read_json, read_text, read_yaml_mapping, write_json
from groklab.store.run import CONFIG, RunStore, is_run
from groklab.store.schema import Claims, Manifest, Partial

MANIFEST, CLAIMS, PARTIAL, ERROR, SWEEP = "experiment.json", "claims.json", "partial.json", "error.txt", "sweep.yaml"


def find_runs(path: str | Path) -> Iterator[Path]:
    """The run directory `path` itself, or every run directory below it, in sorted order."""
    path = Path(path)
    if is_run(path):
        yield path
        return
    for cfg in sorted(path.rglob(CONFIG)):
        yield cfg.parent


def load_runs(path: str | Path):
    """One pandas DataFrame: a row per run per eval step, with the run's config fields as columns."""
    import pandas as pd

    root = Path(path)
    if not root.exists():
        raise ConfigError("path", str(root), "does not exist")
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


# -- experiment directories: DIR/<figure>/{experiment.json, claims.json, <run>/...} ---------------
def experiment_dirs(root: str | Path) -> list[Path]:
    """The figure directories (with a manifest) at or below `root`, in natural order."""
    root = Path(root)
    if (root / MANIFEST).is_file():
        return [root]
    natural = lambda p: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.as_posix())]  # noqa: E731
    return sorted((p.parent for p in root.rglob(MANIFEST)), key=natural)


def write_manifest(folder: Path, doc: dict) -> None:
    write_json(Path(folder) / MANIFEST, doc)


def read_manifest(folder: Path) -> dict:
    return read_json(Path(folder) / MANIFEST, Manifest)


def write_claims(folder: Path, doc: dict) -> None:
    write_json(Path(folder) / CLAIMS, doc)


def read_claims(folder: Path) -> Optional[dict]:
    """claims.json of a figure directory, or None when it has not been analysed yet."""
    f = Path(folder) / CLAIMS
    return read_json(f, Claims) if f.is_file() else None


def write_partial(folder: Path, doc: dict) -> None:
    write_json(Path(folder) / PARTIAL, doc)


def read_partial(folder: Path) -> Optional[dict]:
    """partial.json of a figure directory (statistics of a `--only` subset), or None."""
    f = Path(folder) / PARTIAL
    return read_json(f, Partial) if f.is_file() else None


def write_error(run: Path, text: str) -> None:
    """Why a run crashed, kept beside its files."""
    Path(run).mkdir(parents=True, exist_ok=True)
    atomic_write(Path(run) / ERROR, text.rstrip("\n") + "\n")


def read_error(run: Path) -> Optional[str]:
    f = Path(run) / ERROR
    return read_text(f).strip() if f.is_file() else None


def clear_error(run: Path) -> None:
    (Path(run) / ERROR).unlink(missing_ok=True)


# -- sweep directories: the sweep file is kept beside its runs ------------------------------------
def write_sweep_file(out: str | Path, text: str) -> None:
    Path(out).mkdir(parents=True, exist_ok=True)
    atomic_write(Path(out) / SWEEP, text)


def read_sweep_file(root: str | Path) -> Optional[dict]:
    f = Path(root) / SWEEP
    return read_yaml_mapping(f) if f.is_file() else None
