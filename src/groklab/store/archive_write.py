"""Writing the results archive (layout: store/archive.py): built aside and renamed in, all or nothing; an
archive is replaced only when it holds nothing but groklab's files, and never from itself or into its own tree."""
from __future__ import annotations

import gzip
import os
import re
import shutil
from pathlib import Path

import numpy as np

from groklab.errors import ConfigError
from groklab.store.archive import (
    FORMAT,
    INDEX,
    MODEL,
    NPZ,
    RUNS,
    STACKED,
    STEPS,
    at_precision,
    is_archive,
    read_index,
)
from groklab.store.files import dumps, read_json, tmp_name, write_json
from groklab.store.names import check_name, is_link, nested, refuse_link
from groklab.store.run import ANALYSIS, ARRAYS, POSTHOC, RunStore
from groklab.store.tree import (
    CLAIMS,
    MANIFEST,
    PARTIAL,
    experiment_dirs,
    files_below,
    read_claims,
    read_error,
    read_manifest,
    read_partial,
)


# -- writing --------------------------------------------------------------------------------------
def write_archive(tree: str | Path, dest: str | Path, index: dict, weights: set[str] = frozenset(),
                  replace: bool = False) -> Path:
    """Archive every study below the run tree `tree` into `dest` (built aside, then renamed in: a
    failure leaves `dest` as it was). `index` joins the manifest; studies named in `weights` keep each
    run's final model weights. An existing `dest` is replaced only with `replace`, and only if it is an archive."""
    tree, dest = Path(tree), Path(dest)
    refuse_link(dest)
    if nested(tree, dest):
        raise ConfigError("dest", str(dest), f"is the tree it archives ({tree}), inside it or holds it; write the "
                                             "archive to a folder of its own")
    studies = experiment_dirs(tree)
    if not studies:
        raise ConfigError("tree", str(tree), "holds no experiment (no experiment.json); run groklab reproduce first")
    if dest.exists() and not replace:
        raise ConfigError("dest", str(dest), "exists; pass --replace to overwrite this archive")
    if dest.exists() and not is_archive(dest):
        raise ConfigError("dest", str(dest), "exists and is not a groklab archive; it is never overwritten")
    foreign = _foreign(dest) if dest.exists() else []
    if foreign:
        raise ConfigError("dest", str(dest), f"holds files groklab did not write ({', '.join(foreign[:3])}"
                                             f"{', ...' if len(foreign) > 3 else ''}); move them out, then replace")
    dest.parent.mkdir(parents=True, exist_ok=True)
    _remove_killed_writers(dest)
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


def _remove_killed_writers(dest: Path) -> None:
    """The half-built archives (`.<dest>.groklab-<pid>-<hex>.tmp/`) of writers that were killed: groklab's by
    their exact name shape, left by a process that no longer runs."""
    for f in dest.parent.iterdir():
        m = re.fullmatch(rf"\.{re.escape(dest.name)}\.groklab-(\d+)-[0-9a-f]{{8}}\.tmp", f.name)
        if m and f.is_dir() and not is_link(f) and not _alive(int(m.group(1))):
            shutil.rmtree(f)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process, or a pid we cannot ask about: leave its folder
    return True


BESIDE_ARCHIVE = ("report.html", "summary.csv")  # what `groklab report` / `summarize` write into an archive


def _foreign(archive: Path) -> list[str]:
    """The files of an archive that groklab did not write (its manifest, each listed study's files and the
    figures its claims name, and the report and summary beside them): replacing it would delete them."""
    ours = {INDEX, *BESIDE_ARCHIVE}
    for study in read_index(archive)["studies"]:
        s = check_name(study, "study", archive / INDEX)
        ours |= {f"{s}/{f}" for f in (MANIFEST, CLAIMS, PARTIAL, RUNS, NPZ)}
        doc = read_json(archive / s / CLAIMS) if (archive / s / CLAIMS).is_file() else (
            read_json(archive / s / PARTIAL) if (archive / s / PARTIAL).is_file() else {})
        for fig in (doc.get("figures") or []) if isinstance(doc, dict) else []:
            if isinstance(fig, str) and Path(fig).name:  # a forged '' or '.' names no file
                ours |= {f"{s}/{Path(fig).with_suffix(x).as_posix()}" for x in (".png", ".pdf", Path(fig).suffix)}
    found = [f.relative_to(archive).as_posix() for f in files_below(archive)]
    return [f for f in found if f not in ours]


KEEP = "keep_metrics"  # a manifest's list of the metric keys its study's judge reads (many runs, few series)


def slim(rows: list[dict], keep: set[str] | None = None) -> list[dict]:
    """Metric rows with floats at the archive's digits (archive.at_precision: a third of the bytes of the 17 a
    float64 prints); with `keep`, only those keys (and step), rows left empty dropped."""
    if keep is None:
        return [{k: at_precision(v) for k, v in r.items()} for r in rows]
    out = []
    for r in rows:
        kept = {k: at_precision(v) for k, v in r.items() if k in keep}
        if kept:
            out.append({"step": r.get("step"), **kept})
    return out


def _write_study(study: Path, out: Path, weights: bool) -> dict:
    """One study's files and runs, metric floats at the archive's digits; a manifest naming KEEP archives only those
    metric keys, without arrays (a study of hundreds of runs whose judge reads a few scalar series: early warning)."""
    out.mkdir(parents=True)
    man = read_manifest(study)
    keep = set(man[KEEP]) if man.get(KEEP) else None
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
        rows = slim(store.rows(), keep)
        lines.append({"run": name, "config": store.config(), "summary": store.summary(), "error": read_error(run),
                      "metrics": rows})
        for folder in (ARRAYS, POSTHOC, ANALYSIS) if keep is None else ():
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
