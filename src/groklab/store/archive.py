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
import os
import shutil
from pathlib import Path
from typing import Iterator

import numpy as np
import torch
import yaml

from groklab.config.schema import Config
from groklab.errors import ConfigError, StoreError
from groklab.store.files import atomic_write, dumps, is_tmp, parse_json, read_json, tmp_name, write_json
from groklab.store.run import ANALYSIS, ARRAYS, CKPT, METRICS, POSTHOC, SUMMARY, RunStore
from groklab.store.tree import (
    CLAIMS,
    MANIFEST,
    PARTIAL,
    experiment_dirs,
    read_claims,
    read_error,
    read_manifest,
    read_partial,
    write_error,
)

FORMAT = "groklab-archive/1"
INDEX, RUNS, NPZ = "manifest.json", "runs.jsonl.gz", "arrays.npz"
MODEL = "model"  # the arrays folder of final model weights
UNPACKED = ".from-archive"  # in each run directory `unpack` lays out (never mixed with trained runs)
UNFINISHED = ("running", "interrupted")  # run statuses of a run stopped part-way: resumable, not ended


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


# -- writing --------------------------------------------------------------------------------------
def write_archive(tree: str | Path, dest: str | Path, index: dict, weights: set[str] = frozenset(),
                  replace: bool = False) -> Path:
    """Archive every study below the run tree `tree` into `dest` (built aside, then renamed in: a
    failure leaves `dest` as it was). `index` joins the manifest; studies named in `weights` keep each
    run's final model weights. An existing `dest` is replaced only with `replace`, and only if it is an archive."""
    tree, dest = Path(tree), Path(dest)
    studies = experiment_dirs(tree)
    if not studies:
        raise ConfigError("tree", str(tree), "holds no experiment (no experiment.json); run groklab reproduce first")
    if dest.exists() and not replace:
        raise ConfigError("dest", str(dest), "exists; pass --replace to overwrite this archive")
    if dest.exists() and not is_archive(dest):
        raise ConfigError("dest", str(dest), "exists and is not a groklab archive; it is never overwritten")
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = tmp_name(dest)
    work.mkdir()
    try:
        entries = {}
        for study in studies:
            name = study.relative_to(tree).as_posix() if study != tree else study.name
            entries[name] = _write_study(study, work / name, name in weights)
        write_json(work / INDEX, {"format": FORMAT, **index, "studies": entries})
        if dest.exists():
            old = tmp_name(dest)
            os.replace(dest, old)
            try:
                os.replace(work, dest)
            except BaseException:
                os.replace(old, dest)  # the old archive goes back where it was
                raise
            shutil.rmtree(old)  # the archive we replaced: ours, checked above
        else:
            os.replace(work, dest)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return dest


def _write_study(study: Path, out: Path, weights: bool) -> dict:
    out.mkdir(parents=True)
    man = read_manifest(study)
    shutil.copyfile(study / MANIFEST, out / MANIFEST)
    doc = read_claims(study) or read_partial(study)
    for f in (CLAIMS, PARTIAL):
        if (study / f).is_file():
            shutil.copyfile(study / f, out / f)
    for f in (doc or {}).get("figures", []):
        src = (study / f).resolve()
        if src.is_file() and src.is_relative_to(study.resolve()):
            for g in (src, src.with_suffix(".pdf")):
                if g.is_file():
                    (out / f).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(g, (out / f).with_suffix(g.suffix))
    lines, arrays = [], {}
    for name in man["runs"]:
        run = study / name
        store = RunStore(run)
        if not (run / "config.yaml").is_file():
            lines.append({"run": name, "missing": True, "error": read_error(run)})
            continue
        lines.append({"run": name, "config": store.config(), "summary": store.summary(), "error": read_error(run),
                      "metrics": store.rows()})
        for folder in (ARRAYS, POSTHOC, ANALYSIS):
            for step, arrs in store.arrays(folder=folder).items():
                arrays.update({f"{name}|{folder}|{step}|{k}": v for k, v in arrs.items()})
        if weights and store.has_checkpoint():
            ckpt = store.load_checkpoint()
            arrays.update({f"{name}|{MODEL}|{ckpt['step']}|{k}": v.detach().cpu().numpy()
                           for k, v in ckpt["model"].items()})
    with open(out / RUNS, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as z:
        for line in lines:
            z.write((dumps(line) + "\n").encode())
    if arrays:
        np.savez_compressed(out / NPZ, **_packed(arrays))
    return {"profile": man["profile"], "seeds": man["seeds"], "runs": len(lines),
            "analysed": "claims" if (out / CLAIMS).is_file() else "partial" if (out / PARTIAL).is_file() else None,
            "wall_s": (doc or {}).get("wall_s")}


# -- reading --------------------------------------------------------------------------------------
def study_dirs(path: str | Path) -> list[Path]:
    """The archived studies at `path` (an archive, or one study of it)."""
    path = Path(path)
    if (path / RUNS).is_file():
        return [path]
    return [path / s for s in read_index(path)["studies"]]


def archived_runs(study: str | Path) -> Iterator[dict]:
    """The run lines of one archived study, each checked to be an object with a run name."""
    f = Path(study) / RUNS
    try:
        with gzip.open(f, "rt", encoding="utf-8") as z:
            for i, line in enumerate(z, 1):
                doc = parse_json(line, f, i)
                if not isinstance(doc, dict) or not isinstance(doc.get("run"), str):
                    raise StoreError(f, "each line must be an object with a 'run' name", i)
                if isinstance(doc.get("config"), dict):
                    doc["config"] = Config.renamed(doc["config"])
                yield doc
    except FileNotFoundError:
        raise StoreError(f, "missing") from None
    except (OSError, EOFError, UnicodeDecodeError) as err:
        raise StoreError(f, f"not a readable gzip file ({type(err).__name__}); the archive is damaged") from None


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


def unpack(study: str | Path, names: list[str], dest: str | Path) -> dict[str, dict]:
    """Lay the named runs of an archived study out as run directories below `dest` (config, metrics,
    summary, arrays, error note, and a weights-only ckpt.pt where kept). Returns name -> summary; a
    name the archive lacks is a ConfigError listing how many are missing."""
    study, dest = Path(study), Path(dest)
    docs = {d["run"]: d for d in archived_runs(study)}
    missing = [n for n in names if n not in docs or not held(docs[n])]
    if missing:
        raise lacking_error(study, missing, len(names))
    trained = trained_here(dest, names)
    if trained:
        raise ConfigError("out", str(dest), f"holds {len(trained)} trained runs (e.g. {trained[0]}); re-judge an "
                                            "archive into a new --out")
    arrays = _arrays_by_run(study / NPZ) if (study / NPZ).is_file() else {}
    out = {}
    for name in names:
        doc, run = docs[name], dest / name
        run.mkdir(parents=True, exist_ok=True)
        atomic_write(run / UNPACKED, f"unpacked from {study}\n")
        atomic_write(run / "config.yaml", yaml.safe_dump(doc["config"], sort_keys=False))
        atomic_write(run / METRICS, "".join(dumps(r) + "\n" for r in doc.get("metrics") or []))
        if doc.get("summary"):
            write_json(run / SUMMARY, doc["summary"])
        if doc.get("error"):
            write_error(run, doc["error"])
        store = RunStore(run)
        for (folder, step), arrs in arrays.get(name, {}).items():
            if folder == MODEL:
                state = {k: torch.from_numpy(v) for k, v in arrs.items()}
                atomic_write(run / CKPT, lambda f: torch.save({"step": step, "model": state, "archived": True}, f))
            else:
                store.save_arrays(step, arrs, folder)
        out[name] = doc.get("summary") or {"status": "failed" if doc.get("error") else "missing"}
    return out


STACKED, STEPS = "stacked", "steps"  # the step field of a packed series and of its steps


def _packed(arrays: dict) -> dict:
    """Each (run, folder, key) series of one shape and dtype stacked into one member beside its steps (Fig. 10's
    40 runs measured 81 times were 19,440 members, a third of the file their headers)."""
    series = {}
    for k, v in arrays.items():
        run, folder, step, name = k.rsplit("|", 3)
        series.setdefault((run, folder, name), []).append((int(step), np.asarray(v)))
    out = {}
    for (run, folder, name), items in series.items():
        items.sort(key=lambda x: x[0])
        if len(items) > 1 and len({(a.shape, a.dtype) for _, a in items}) == 1:
            out[f"{run}|{folder}|{STACKED}|{name}"] = np.stack([a for _, a in items])
            out[f"{run}|{folder}|{STEPS}|{name}"] = np.array([s for s, _ in items], dtype=np.int64)
        else:
            out.update({f"{run}|{folder}|{s}|{name}": a for s, a in items})
    return out


def _arrays_by_run(f: Path) -> dict:
    """{run: {(folder, step): {key: array}}} from arrays.npz (per-step members or packed series)."""
    by = {}
    try:
        with np.load(f, allow_pickle=False) as z:
            for key in z.files:
                run, folder, step, name = key.rsplit("|", 3)
                if step == STEPS:
                    continue
                if step == STACKED:
                    for s, a in zip(z[f"{run}|{folder}|{STEPS}|{name}"].tolist(), z[key]):
                        by.setdefault(run, {}).setdefault((folder, int(s)), {})[name] = a
                    continue
                by.setdefault(run, {}).setdefault((folder, int(step)), {})[name] = z[key]
    except (OSError, ValueError) as err:
        raise StoreError(f, f"not a readable .npz archive ({type(err).__name__})") from None
    return by


def archive_size(path: str | Path) -> int:
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file() and not is_tmp(f))


__all__ = ["FORMAT", "archive_size", "archived_runs", "holds_runs", "is_archive", "lacking", "read_index",
           "runs_at", "study_dirs", "trained_here", "unpack", "write_archive"]
