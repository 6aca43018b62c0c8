"""`groklab check DIR`: read every file of every run as a resume would, and say what is wrong, run by run."""
from __future__ import annotations

from pathlib import Path

from groklab.config import make_config
from groklab.errors import ConfigError, printable
from groklab.store.archive import holds_runs, read_study, study_dirs
from groklab.store.lock import holder
from groklab.store.run import RESUMABLE_CHANGES, RESUME_KEYS, RunStore, differences
from groklab.store.tree import experiment_dirs, find_runs, read_claims, read_manifest, read_partial


def check_run(path: Path) -> dict:
    """{"path", "ok", "status", "steps", "rows", "problem"} for one run directory."""
    out = {"path": str(path), "ok": False, "status": "?", "steps": None, "rows": None, "problem": ""}
    store = RunStore(path)
    try:
        cfg = store.config()
        try:
            make_config(base=cfg)
        except ConfigError as err:
            raise store.error("config", f"not a valid config ({err})") from None
        rows = store.rows()
        summary = store.summary()
        out.update(rows=len(rows), status=summary.get("status", "no summary"), steps=summary.get("steps"))
        if store.has_checkpoint():
            ckpt = store.load_checkpoint()
            lacks = [k for k in RESUME_KEYS if k not in ckpt]
            if lacks and not ckpt.get("archived"):  # an archive lays out weights only, and says so
                raise store.error("checkpoint", f"lacks {', '.join(lacks)}: a run cannot resume from it")
            stored = ckpt.get("config")  # what resume compares (engine/record.py): a mismatch refuses it
            diff = differences(stored, cfg, RESUMABLE_CHANGES) if isinstance(stored, dict) else []
            if diff:
                raise store.error("config", f"differs from the config its checkpoint was trained with ({diff[0]}); "
                                  "a run cannot resume from it")
            kept = [r for r in rows if r["step"] <= ckpt["step"]]
            expected = ckpt.get("n_rows")
            if expected is not None and expected != len(kept):
                raise store.error("metrics", f"holds {len(kept)} rows up to step {ckpt['step']} where the checkpoint "
                                  f"recorded {expected}")
        for step in store.array_steps():
            store.arrays(step)
        pid = holder(path)
        if pid is not None:
            out["status"] = f"being written (pid {pid or '?'})"
        out["ok"] = True
    except ConfigError as err:
        out["problem"] = str(err)
    return out


def check_tree(root: str | Path) -> list[dict]:
    """check_run for every run below `root`, then every experiment directory's manifest and claims."""
    root = Path(root)
    if not root.is_dir():
        raise ConfigError("dir", str(root), "is not a directory")
    rows = [check_run(p) for p in find_runs(root)]
    for d in experiment_dirs(root):
        entry = {"path": str(d), "ok": False, "status": "experiment", "steps": None, "rows": None, "problem": ""}
        try:
            read_manifest(d)
            if read_claims(d) is not None:
                entry["status"] = "experiment, analysed"
            elif read_partial(d) is not None:
                entry["status"] = "experiment, partial (--only)"
            else:
                entry["status"] = "experiment, not analysed"
            entry["ok"] = True
        except ConfigError as err:
            entry["problem"] = str(err)
        rows.append(entry)
    for study in study_dirs(root) if holds_runs(root) else []:  # an archive: read back whole, as a re-judge does
        entry = {"path": str(study), "ok": False, "status": "archived", "steps": None, "rows": None, "problem": ""}
        try:
            entry.update(status=f"archived, {read_study(study)} runs", ok=True)
        except ConfigError as err:
            entry["problem"] = str(err)
        rows.append(entry)
    if not rows:
        raise ConfigError("dir", str(root), "holds no run (no config.yaml below it)")
    return rows


def format_health(rows: list[dict]) -> str:
    lines = []
    for r in rows:
        if r["ok"]:
            extra = "" if r["rows"] is None else f", {r['rows']} metric rows, step {r['steps']}"
            lines.append(f"ok    {printable(r['path'])}  ({printable(r['status'])}{extra})")
        else:  # a folder's name is data: escaped, so it can neither move the cursor nor clear the screen
            lines.append(f"BAD   {printable(r['path'])}  {printable(r['problem'])}")
    bad = sum(not r["ok"] for r in rows)
    lines.append(f"{len(rows) - bad} of {len(rows)} healthy" + (f"; {bad} damaged" if bad else ""))
    return "\n".join(lines)
