"""The results archive: a reproduction's evidence, small enough for git, readable like a run tree.

    ARCHIVE/manifest.json            format, build and machine of each session, commands, wall times
    ARCHIVE/<study>/experiment.json  what the study was asked to train (as in the run tree)
    ARCHIVE/<study>/claims.json      its verdicts (or partial.json), and the figures those name
    ARCHIVE/<study>/runs.jsonl.gz    one line per run: name, resolved config, summary, error, metric rows
    ARCHIVE/<study>/arrays.npz       measured arrays, key "<run>|<folder>|<step>|<key>" (folder arrays or
                                     posthoc; folder "model" holds final weights where a study reads them);
                                     a series as "<run>|<folder>|stacked|<key>" beside its "steps" (both read)

No checkpoints: an optimizer's state is not evidence. gzip is written with mtime 0, so the same runs give
the same bytes. `unpack` lays runs out again as run directories, so every analysis reads an archive
through the code that reads a run tree.
"""
from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path
from typing import Iterator

import numpy as np

from groklab.config import validate
from groklab.config.schema import Config
from groklab.config.yaml12 import dump as dump_yaml
from groklab.errors import ConfigError, StoreError
from groklab.store.files import atomic_write, dumps, is_tmp, parse_json, read_json, regular, validated, write_json
from groklab.store.names import check_name, is_link, make_dirs
from groklab.store.run import ANALYSIS, ARRAYS, CKPT, METRICS, POSTHOC, SUMMARY, RunStore
from groklab.store.schema import RunLine, rows_problem
from groklab.store.tree import (
    files_below,
    write_error,
)

FORMAT = "groklab-archive/1"
INDEX, RUNS, NPZ = "manifest.json", "runs.jsonl.gz", "arrays.npz"
SIGNIFICANT = 7  # the digits an archive keeps of a metric's float: float32's precision, what the runs computed in


def at_precision(v):
    """A metric value as an archive keeps it: a float at SIGNIFICANT digits (applied twice, the same value), the
    rest as it is. Judges read metrics through it too (frames.load_runs(archived=True)): a study judged from its
    run tree and from its archive sees the same numbers and writes the same bytes."""
    return float(f"{v:.{SIGNIFICANT}g}") if isinstance(v, float) else v
MODEL = "model"  # the arrays folder of final model weights
UNPACKED = ".from-archive"  # in each run directory `unpack` lays out (never mixed with trained runs)
UNFINISHED = ("running", "interrupted")  # run statuses of a run stopped part-way: resumable, not ended
# bounds on what an archive may make groklab read: far above what groklab writes (Fig. 10 at the paper profile,
# the largest: 11 MB of arrays, lines of ~0.1 MB), far below what would exhaust a machine
MAX_LINE, MAX_LINES = 64 << 20, 100_000  # characters in one run line; run lines in one study
MAX_MEMBER, MAX_ARRAYS = 256 << 20, 2 << 30  # bytes of one array, and of all arrays of a study, uncompressed


def is_archive(path: str | Path) -> bool:
    f = Path(path) / INDEX
    if not f.is_file():
        return False
    try:
        return json.loads(f.read_text(encoding="utf-8")).get("format") == FORMAT
    except (OSError, ValueError, AttributeError):
        return False


def read_index(path: str | Path) -> dict:
    """An archive's manifest.json, checked."""
    doc = read_json(Path(path) / INDEX)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise StoreError(Path(path) / INDEX, f"not a groklab archive (format must be {FORMAT!r})")
    if not isinstance(doc.get("studies"), dict):
        raise StoreError(Path(path) / INDEX, "studies: must be an object")
    return doc


# -- reading --------------------------------------------------------------------------------------
def study_dirs(path: str | Path) -> list[Path]:
    """The archived studies at `path` (an archive, or one study of it)."""
    path = Path(path)
    if (path / RUNS).is_file():
        return [path]
    return [path / check_name(s, "study", path / INDEX) for s in read_index(path)["studies"]]


def archived_runs(study: str | Path) -> Iterator[dict]:
    """The run lines of one archived study, each checked to be an object with a run name."""
    f, seen = Path(study) / RUNS, set()
    regular(f)
    try:
        with gzip.open(f, "rt", encoding="utf-8") as z:
            for i, line in enumerate(iter(lambda: z.readline(MAX_LINE + 1), ""), 1):
                if len(line) > MAX_LINE or i > MAX_LINES:  # a gzip bomb: one line of GiBs, or millions of lines
                    raise StoreError(f, f"longer than a groklab archive's bound ({MAX_LINES:,} lines of at most "
                                        f"{MAX_LINE >> 20} MiB)", i)
                doc = parse_json(line, f, i)
                if not isinstance(doc, dict) or not isinstance(doc.get("run"), str):
                    raise StoreError(f, "each line must be an object with a 'run' name", i)
                if check_name(doc["run"], "run", f, i) in seen:  # a later copy would silently win
                    raise StoreError(f, f"run {ascii(doc['run'])[:80]} appears twice", i)
                seen.add(doc["run"])
                validated(RunLine, doc, f, i)
                if not doc.get("missing") and not isinstance(doc.get("config"), dict):
                    raise StoreError(f, f"run {ascii(doc['run'])[:80]}: config must be an object", i)
                problem = rows_problem(doc.get("metrics") or [])
                if problem:
                    raise StoreError(f, f"run {ascii(doc['run'])[:80]}: {problem}", i)
                if isinstance(doc.get("config"), dict):
                    doc["config"] = Config.renamed(doc["config"])
                yield doc
    except FileNotFoundError:
        raise StoreError(f, "missing") from None
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as err:
        raise StoreError(f, f"not a readable gzip file ({type(err).__name__}); the archive is damaged") from None


def read_study(study: str | Path) -> int:
    """Read an archived study whole, its run lines and its arrays, as a re-judge would (every check above);
    returns how many runs it holds. `groklab check` calls it: an archive is healthy only when it reads back."""
    n = sum(1 for _ in archived_runs(study))
    if (Path(study) / NPZ).exists():
        _arrays_by_run(Path(study) / NPZ)
    return n


def holds_runs(path: str | Path) -> bool:
    """Whether `path` is an archive or one study of it (readers then read runs from it, not from run folders)."""
    return is_archive(path) or (Path(path) / RUNS).is_file()


def runs_at(path: str | Path) -> Iterator[tuple[str, dict]]:
    """(run name as a tree below `path` would give it, run line) of every archived run at `path`."""
    path = Path(path)
    for study in study_dirs(path):
        prefix = "" if study == path else study.relative_to(path).as_posix() + "/"
        for doc in archived_runs(study):
            if not doc.get("missing"):
                yield prefix + doc["run"], doc


def held(doc: dict) -> bool:
    """An archived run a study can be judged on: there, and ended (a run stopped part-way -- interrupted, or
    still running when its tree was archived -- keeps its rows for load_runs but counts as lacking, so
    --train-missing trains it again instead of judging a curve cut short)."""
    return not doc.get("missing") and (doc.get("summary") or {}).get("status") not in UNFINISHED


def lacking(study: str | Path, names: list[str]) -> list[str]:
    """The names among `names` that the archived study does not hold (reads, and so checks, the whole file)."""
    have = {d["run"] for d in archived_runs(study) if held(d)}
    return [n for n in names if n not in have]


def lacking_error(study: Path, missing: list[str], total: int) -> ConfigError:
    return ConfigError("from", str(study), f"lacks {len(missing)} of the {total} runs this study needs (e.g. "
                                           f"{missing[0]}); archive a reproduction with the same profile, seeds and "
                                           "overrides")


def trained_here(dest: str | Path, names: list[str]) -> list[str]:
    """The runs among `names` below `dest` that were trained there, not unpacked: an archive never overwrites them."""
    dest = Path(dest)
    return [n for n in names if (dest / n / "config.yaml").is_file() and not (dest / n / UNPACKED).is_file()]


def _line(row: dict) -> str:
    """A metrics row read from the archive's JSON as its line: JSON already (string keys, plain values), so
    cleaning it is needed only for a non-finite number, which json.dumps refuses."""
    try:
        return json.dumps(row, allow_nan=False) + "\n"
    except (TypeError, ValueError):
        return dumps(row) + "\n"


def unpack(study: str | Path, names: list[str], dest: str | Path, resolved: dict | None = None) -> dict[str, dict]:
    """Lay the named runs of an archived study out as run directories below `dest` (config, metrics,
    summary, arrays, error note, and a weights-only ckpt.pt where kept). Returns name -> summary; a
    name the archive lacks is a ConfigError listing how many are missing. `resolved`, when given, receives
    name -> the archived config as today's schema reads it (validated here anyway: no second read)."""
    study, dest = Path(study), Path(dest)
    docs = {d["run"]: d for d in archived_runs(study)}
    missing = [n for n in names if n not in docs or not held(docs[n])]
    if missing:
        raise lacking_error(study, missing, len(names))
    trained = trained_here(dest, names)
    if trained:
        raise ConfigError("out", str(dest), f"holds {len(trained)} trained runs (e.g. {trained[0]}); re-judge an "
                                            "archive into a new --out")
    for name in names:  # every archived config valid before anything is laid out; an error names the archive
        try:
            cfg = validate(dict(docs[name]["config"] or {}))
            if resolved is not None:
                resolved[name] = cfg.to_dict()
        except ConfigError as err:
            raise StoreError(study / RUNS, f"run {ascii(name)[:80]}: config {err}") from None
    arrays = _arrays_by_run(study / NPZ) if (study / NPZ).exists() else {}
    out = {}
    for name in names:
        doc, run = docs[name], make_dirs(dest, name)
        atomic_write(run / UNPACKED, f"unpacked from {study}\n", durable=False)
        atomic_write(run / "config.yaml", dump_yaml(doc["config"]), durable=False)
        atomic_write(run / METRICS, "".join(_line(r) for r in doc.get("metrics") or []), durable=False)
        if doc.get("summary"):
            write_json(run / SUMMARY, doc["summary"], durable=False)
        if doc.get("error"):
            write_error(run, doc["error"])
        store = RunStore(run)
        for (folder, step), arrs in arrays.get(name, {}).items():
            if folder == MODEL:
                import torch  # here, not at the top: re-judging an archive never needs torch (3 s to import)

                state = {k: torch.from_numpy(v) for k, v in arrs.items()}
                atomic_write(run / CKPT, lambda f: torch.save({"step": step, "model": state, "archived": True}, f))
            else:
                store.save_arrays(step, arrs, folder)
        out[name] = doc.get("summary") or {"status": "failed" if doc.get("error") else "missing"}
    return out


STACKED, STEPS = "stacked", "steps"  # the step field of a packed series and of its steps


def _arrays_by_run(f: Path) -> dict:
    """{run: {(folder, step): {key: array}}} from arrays.npz (per-step members or packed series)."""
    by = {}
    regular(f)
    try:
        with np.load(f, allow_pickle=False) as z:
            sizes = [i.file_size for i in z.zip.infolist()]  # as declared, checked before anything is allocated
            if max(sizes, default=0) > MAX_MEMBER or sum(sizes) > MAX_ARRAYS:
                raise StoreError(f, f"declares {sum(sizes) >> 20:,} MiB of arrays (largest {max(sizes) >> 20:,} MiB); "
                                    f"an archive holds at most {MAX_ARRAYS >> 20:,} MiB, {MAX_MEMBER >> 20} MiB each")
            for key in z.files:
                run, folder, step, name = _key(key, f)
                if step == STEPS:
                    continue
                if step == STACKED:
                    for s, a in zip(z[f"{run}|{folder}|{STEPS}|{name}"].tolist(), z[key]):
                        by.setdefault(run, {}).setdefault((folder, int(s)), {})[name] = a
                    continue
                by.setdefault(run, {}).setdefault((folder, int(step)), {})[name] = z[key]
    except StoreError:
        raise
    except (OSError, ValueError) as err:
        raise StoreError(f, f"not a readable .npz archive ({type(err).__name__})") from None
    return by


def _key(key: str, f: Path) -> tuple[str, str, str, str]:
    """An arrays.npz member's (run, folder, step, name), checked: the run is a safe name, the folder one that
    groklab writes (array data never chooses a folder), the step a number or a series marker."""
    parts = key.rsplit("|", 3)
    if len(parts) != 4:
        raise StoreError(f, f"member {ascii(key)[:80]} is not 'run|folder|step|key'")
    run, folder, step, name = parts
    check_name(run, "run", f)
    if folder not in (ARRAYS, POSTHOC, ANALYSIS, MODEL):
        raise StoreError(f, f"member {ascii(key)[:80]}: folder must be one of {ARRAYS}, {POSTHOC}, {ANALYSIS}, {MODEL}")
    if step not in (STACKED, STEPS) and not (step.isascii() and step.isdigit() and len(step) <= 12):
        raise StoreError(f, f"member {ascii(key)[:80]}: step must be a number")
    return run, folder, step, name


def archive_size(path: str | Path) -> int:
    return sum(f.lstat().st_size for f in files_below(Path(path)) if f.is_file() and not is_link(f) and not is_tmp(f))


__all__ = ["FORMAT", "archive_size", "archived_runs", "holds_runs", "is_archive", "lacking", "read_index",
           "runs_at", "study_dirs", "trained_here", "unpack"]
