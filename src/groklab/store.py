"""Run directories: config.yaml, metrics.jsonl (append-only), summary.json, ckpt.pt; load_runs()."""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Iterator

import torch
import yaml

from groklab.config import flatten
from groklab.errors import ConfigError

CONFIG, METRICS, SUMMARY, CKPT = "config.yaml", "metrics.jsonl", "summary.json", "ckpt.pt"


def _atomic_write(path: Path, write) -> None:
    """Write to a temp file beside `path`, fsync, then rename: readers see old or new, never half."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _json_safe(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def is_run(path: str | Path) -> bool:
    return (Path(path) / CONFIG).is_file()


class RunStore:
    """One run's directory. Metrics rows are appended and flushed as the run goes."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._metrics = None

    @classmethod
    def create(cls, path: str | Path, config: dict) -> "RunStore":
        path = Path(path)
        if is_run(path):
            raise ConfigError("out", str(path), "already holds a run; resume it with --resume or pick a new --out")
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            raise ConfigError("out", str(path), "exists and is not an empty directory")
        path.mkdir(parents=True, exist_ok=True)
        store = cls(path)
        store.write_config(config)
        return store

    @classmethod
    def open(cls, path: str | Path) -> "RunStore":
        if not is_run(path):
            raise ConfigError("resume", str(path), f"not a run directory (no {CONFIG})")
        return cls(path)

    def write_config(self, config: dict) -> None:
        _atomic_write(self.path / CONFIG, lambda f: f.write(yaml.safe_dump(config, sort_keys=False).encode()))

    def config(self) -> dict:
        return yaml.safe_load((self.path / CONFIG).read_text())

    # metrics ---------------------------------------------------------------------------
    def append(self, row: dict) -> None:
        if self._metrics is None:
            self._metrics = open(self.path / METRICS, "a", encoding="utf-8")
        self._metrics.write(json.dumps({k: _json_safe(v) for k, v in row.items()}) + "\n")
        self._metrics.flush()

    def truncate_after(self, step: int) -> None:
        """Drop metric rows past `step` (work after the last checkpoint is redone on resume)."""
        self.close()
        kept = [r for r in read_metrics(self.path) if r["step"] <= step]
        _atomic_write(self.path / METRICS, lambda f: f.write("".join(json.dumps(r) + "\n" for r in kept).encode()))

    def close(self) -> None:
        if self._metrics is not None:
            self._metrics.close()
            self._metrics = None

    # summary and checkpoints -----------------------------------------------------------
    def write_summary(self, summary: dict) -> None:
        text = json.dumps({k: _json_safe(v) for k, v in summary.items()}, indent=2)
        _atomic_write(self.path / SUMMARY, lambda f: f.write(text.encode()))

    def save_checkpoint(self, state: dict, keep: bool = False) -> None:
        """Write ckpt.pt (the latest state); with `keep` also ckpt_<step>.pt, which later saves leave alone."""
        if self._metrics is not None:
            os.fsync(self._metrics.fileno())  # metrics up to the checkpoint survive a crash
        _atomic_write(self.path / CKPT, lambda f: torch.save(state, f))
        if keep:
            _atomic_write(self.path / f"ckpt_{state['step']}.pt", lambda f: torch.save(state, f))

    def kept_steps(self) -> list[int]:
        """Steps of the kept checkpoints ckpt_<step>.pt."""
        return sorted(int(f.stem.split("_")[1]) for f in self.path.glob("ckpt_*.pt") if f.stem[5:].isdigit())

    def load_checkpoint(self, map_location="cpu", step: int | None = None) -> dict:
        path = self.path / (CKPT if step is None else f"ckpt_{step}.pt")
        if not path.is_file():
            raise ConfigError("resume", str(self.path), f"has no checkpoint ({CKPT}) to resume from")
        try:
            return torch.load(path, map_location=map_location, weights_only=True)
        except Exception as err:  # torch raises many types for a damaged file
            reason = str(err).splitlines()[0][:120] if str(err) else type(err).__name__
            raise ConfigError("resume", str(path), f"checkpoint is corrupted or unreadable ({reason})") from None


def read_summary(path: str | Path) -> dict:
    f = Path(path) / SUMMARY
    return json.loads(f.read_text()) if f.is_file() else {}


def read_metrics(path: str | Path) -> list[dict]:
    """Metric rows of one run; a torn last line (crash mid-write) is skipped."""
    f = Path(path) / METRICS
    rows = []
    if f.is_file():
        for line in f.read_text(encoding="utf-8").splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return rows


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
        rows = read_metrics(run)
        if not rows:
            continue
        df = pd.DataFrame(rows)
        rel = run.relative_to(root).as_posix() if run != root else run.name
        df.insert(0, "run", rel)
        df["status"] = read_summary(run).get("status", "unknown")
        for key, value in flatten(yaml.safe_load((run / CONFIG).read_text())).items():
            df[key] = [value] * len(df)
        frames.append(df)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
