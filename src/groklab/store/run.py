"""One run directory: config.yaml, metrics.jsonl, summary.json, ckpt.pt, arrays/, posthoc/.

Only this module knows the file names. A writer (`create`, `open(write=True)`) holds the directory's
lock until `close()`; readers never lock. Every read is validated: a damaged file is a StoreError
naming the file (and line), and a file that could not be read whole is never rewritten.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Optional

import numpy as np

from groklab.config.parse import differences  # noqa: F401  (re-exported: the run's config diff)
from groklab.config.schema import Config
from groklab.config.yaml12 import dump as dump_yaml
from groklab.errors import ConfigError, StoreError
from groklab.store.files import (
    atomic_write,
    dumps,
    is_tmp,
    open_append,
    parse_json,
    read_json,
    read_text,
    read_yaml_mapping,
    regular,
    remove_stale_tmp,
    validated,
    write_json,
)
from groklab.store.lock import LOCK, RunLock
from groklab.store.names import links_below, make_dirs, tree_root
from groklab.store.schema import FINISHED, MetricRow, Summary

CONFIG, METRICS, SUMMARY, CKPT, ARRAYS, POSTHOC = (
    "config.yaml", "metrics.jsonl", "summary.json", "ckpt.pt", "arrays", "posthoc")
# how to go on from a used directory, for the CLI and for Python alike
RESUME_HINT = "already holds a run; resume it (groklab train --resume DIR, or train(resume=DIR)) or pick a new out"
RESUMABLE_CHANGES = ("steps", "bar")  # settings that may differ between a checkpoint and its resume
RESUME_KEYS = ("model", "optimizer", "tracker", "wall_s", "eval_s", "last_eval", "last")  # what a resume reads
ANALYSIS = "analysis"  # what a study computed from the final model (loss surfaces): re-judging reads it


def is_run(path: str | Path) -> bool:
    return (Path(path) / CONFIG).is_file()


class RunStore:
    """A run directory. Metric rows are appended and flushed as the run goes."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._metrics = None
        self._lock: Optional[RunLock] = None
        self.torn = False  # the last metrics read dropped a torn last line (a crash mid-write)

    # -- opening -------------------------------------------------------------------------
    @classmethod
    def create(cls, path: str | Path, config: dict) -> "RunStore":
        """A new run in `path` (new or empty), locked for writing, with its config written."""
        path = Path(path)
        links_below(tree_root(path), path)  # a link in groklab's tree would take the run's files elsewhere
        _check_new(path)  # before anything is created
        top = path  # the outermost folder this call creates: removed again if the run cannot be started
        while not top.parent.exists() and top.parent != top:
            top = top.parent
        made = not path.exists()
        path.mkdir(parents=True, exist_ok=True)
        before = set(path.iterdir())  # only what this call adds is removed on failure
        store = cls(path)
        store._made = (top if made else None, before)  # what abandon() may remove
        try:
            store._lock = RunLock(path).acquire()
            _check_new(path)  # again under the lock: another writer may have been first
            store.write_config(config)  # no cleaning: a temp-shaped file already here is the user's
        except BaseException as err:
            if isinstance(err, OSError):  # e.g. disk full: nothing half-made stays behind
                store.abandon()
            store.close()
            raise
        return store

    def abandon(self) -> None:
        """Undo `create` for a run that could not start (a disk full, a tracker that refused): the folders it
        made go whole; in a folder that was there, only the lock, the config and temporary files it added."""
        top, before = getattr(self, "_made", (None, None))
        self.close()
        if top is not None:
            shutil.rmtree(top, ignore_errors=True)
        elif before is not None:
            for f in set(self.path.iterdir()) - before:
                if f.name in (LOCK, CONFIG) or is_tmp(f):
                    f.unlink(missing_ok=True)

    @classmethod
    def open(cls, path: str | Path, write: bool = False) -> "RunStore":
        """An existing run; `write` takes the lock (RunBusy when another process holds it)."""
        if not is_run(path):
            raise ConfigError("run", str(path), f"not a run directory (no {CONFIG})")
        store = cls(path)
        if write:
            links_below(tree_root(Path(path)), Path(path))
            store._lock = RunLock(path).acquire()
            store._clean()
        return store

    def _clean(self) -> None:
        """Temp files of gone writers, written since the run began (its config.yaml): none from before it."""
        since = (self.path / CONFIG).stat().st_mtime if (self.path / CONFIG).is_file() else float("inf")
        for folder in (f for f in (self.path, self.path / ARRAYS, self.path / POSTHOC) if f.is_dir()):
            remove_stale_tmp(folder, since)

    def error(self, which: str, reason: str) -> StoreError:
        """A StoreError about one of the run's files: config, metrics, summary or checkpoint."""
        name = {"config": CONFIG, "metrics": METRICS, "summary": SUMMARY, "checkpoint": CKPT}[which]
        return StoreError(self.path / name, reason)

    def close(self) -> None:
        if self._metrics is not None:
            self._metrics.close()
            self._metrics = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    # -- config and summary --------------------------------------------------------------
    def config(self) -> dict:
        return Config.renamed(read_yaml_mapping(self.path / CONFIG))

    def write_config(self, config: dict) -> None:
        atomic_write(self.path / CONFIG, dump_yaml(config))

    def summary(self) -> dict:
        """The summary, or {} when the run has none yet."""
        f = self.path / SUMMARY
        return read_json(f, Summary) if f.is_file() else {}

    def write_summary(self, summary: dict) -> None:
        write_json(self.path / SUMMARY, summary)

    @property
    def finished(self) -> bool:
        return self.summary().get("status") in FINISHED

    # -- metrics -------------------------------------------------------------------------
    def append(self, row: dict) -> None:
        if self._metrics is None:
            self._metrics = open_append(self.path / METRICS)
        self._metrics.write(dumps(row) + "\n")
        self._metrics.flush()

    def rows(self) -> list[dict]:
        """Every metric row, validated; a torn last line (crash mid-write) is dropped and noted in `torn`."""
        f = self.path / METRICS
        self.torn = False
        if not f.is_file():
            return []
        text = read_text(f)
        lines = text.split("\n")
        rows, last = [], -1
        for i, line in enumerate(lines, 1):
            if not line.strip():
                continue
            if i == len(lines) and not text.endswith("\n"):  # the unterminated last line
                try:
                    parse_json(line, f, i)
                except StoreError:
                    self.torn = True
                    break
            doc = parse_json(line, f, i)
            if not isinstance(doc, dict):
                raise StoreError(f, f"a row must be a JSON object, not {type(doc).__name__}", i)
            row = validated(MetricRow, doc, f, i)
            bad = row.check_values()
            if bad:
                raise StoreError(f, bad, i)
            if doc["step"] <= last:
                raise StoreError(f, f"step {doc['step']} after step {last}: rows out of order", i)
            last = doc["step"]
            rows.append(doc)
        return rows

    def truncate_after(self, step: int) -> list[dict]:
        """Keep the rows up to `step` (a resume redoes the work after its checkpoint); returns them."""
        rows = self.rows()  # raises before anything is rewritten
        kept = [r for r in rows if r["step"] <= step]
        if len(kept) < len(rows) or self.torn:
            if self._metrics is not None:
                self._metrics.close()
                self._metrics = None
            atomic_write(self.path / METRICS, "".join(dumps(r) + "\n" for r in kept))
        for s in self.array_steps():
            if s > step:
                self._array_path(s).unlink()
        return kept

    # -- checkpoints ---------------------------------------------------------------------
    def save_checkpoint(self, state: dict, keep: bool = False) -> None:
        """Write ckpt.pt (the latest state); with `keep` also ckpt_<step>.pt, which later saves leave alone."""
        if self._metrics is not None:
            os.fsync(self._metrics.fileno())  # metrics up to the checkpoint survive a crash
        import torch  # here: reading runs never needs torch (3 s to import)
        for name in [CKPT] + ([f"ckpt_{state['step']}.pt"] if keep else []):
            atomic_write(self.path / name, lambda f: torch.save(state, f))

    def has_checkpoint(self) -> bool:
        return (self.path / CKPT).is_file()

    def kept_steps(self) -> list[int]:
        """Steps of the kept checkpoints ckpt_<step>.pt."""
        return sorted(int(f.stem[5:]) for f in self.path.glob("ckpt_*.pt") if f.stem[5:].isdigit())

    def load_checkpoint(self, map_location="cpu", step: Optional[int] = None) -> dict:
        """The latest checkpoint (or the kept one at `step`), loaded with weights_only=True."""
        path = self.path / (CKPT if step is None else f"ckpt_{step}.pt")
        if not path.is_file():
            raise StoreError(path, "no such checkpoint")
        import torch
        try:
            ckpt = torch.load(path, map_location=map_location, weights_only=True)
        except Exception as err:  # torch raises many types for a damaged file
            reason = str(err).splitlines()[0][:120] if str(err) else type(err).__name__
            raise StoreError(path, f"checkpoint is corrupted or unreadable ({reason})") from None
        if not isinstance(ckpt, dict) or not isinstance(ckpt.get("step"), int):
            raise StoreError(path, "not a groklab checkpoint (no step)")
        return ckpt

    # -- arrays: one compressed .npz per measured step -------------------------------------
    def _array_path(self, step: int, folder: str = ARRAYS) -> Path:
        return self.path / folder / f"step_{step:09d}.npz"

    def save_arrays(self, step: int, arrays: dict, folder: str = ARRAYS) -> None:
        if not arrays:
            return
        path = self._array_path(step, folder)
        make_dirs(self.path, folder)  # a link at arrays/ or posthoc/ would take the write elsewhere
        atomic_write(path, lambda f: np.savez_compressed(f, **arrays))

    def array_steps(self, folder: str = ARRAYS) -> list[int]:
        d = self.path / folder
        names = [f.stem.split("_", 1)[1] for f in d.glob("step_*.npz")] if d.is_dir() else []
        return sorted(int(n) for n in names if n.isascii() and n.isdigit())  # only the names save_arrays writes

    def arrays(self, step: Optional[int] = None, folder: str = ARRAYS) -> dict:
        """{step: {key: array}} for every measured step, or {key: array} for one `step`."""
        def one(s):
            f = self._array_path(s, folder)
            regular(f)  # a FIFO named step_*.npz would block the reader forever
            try:
                with np.load(f, allow_pickle=False) as z:
                    return {k: z[k] for k in z.files}
            except FileNotFoundError:
                raise StoreError(f, "missing") from None
            except Exception as err:
                raise StoreError(f, f"not a readable .npz file ({type(err).__name__})") from None

        return one(step) if step is not None else {s: one(s) for s in self.array_steps(folder)}

    def write_posthoc(self, step: int, scalars: dict, arrays: dict) -> None:
        """`groklab measure` results: posthoc/step_<N>.json and .npz."""
        make_dirs(self.path, POSTHOC)
        write_json(self.path / POSTHOC / f"step_{step:09d}.json", {"step": step, **scalars})
        self.save_arrays(step, arrays, POSTHOC)


def _check_new(path: Path) -> None:
    if is_run(path):
        raise ConfigError("out", str(path), RESUME_HINT)
    if path.exists() and (not path.is_dir() or any(f.name != LOCK and not is_tmp(f) for f in path.iterdir())):
        raise ConfigError("out", str(path), "exists and is not an empty directory")


def read_metrics(path: str | Path) -> list[dict]:
    """A run's metric rows (validated; a torn last line dropped)."""
    return RunStore(path).rows()


def read_summary(path: str | Path) -> dict:
    """A run's summary, {} when it has none (or is no run)."""
    return RunStore(path).summary()


def load_arrays(run: str | Path, step: Optional[int] = None, folder: str = ARRAYS) -> dict:
    """{step: {key: array}} of a run (or {key: array} at `step`); folder="posthoc" for `groklab measure`."""
    return RunStore(run).arrays(step, folder)


def array_series(run: str | Path, key: str) -> tuple[np.ndarray, np.ndarray | list]:
    """(steps, values) of one array key over a run; values stacked when their shapes agree."""
    steps, values = [], []
    for s, arrs in load_arrays(run).items():
        if key in arrs:
            steps.append(s)
            values.append(arrs[key])
    same = len({v.shape for v in values}) <= 1
    return np.array(steps), (np.stack(values) if values and same else values)

