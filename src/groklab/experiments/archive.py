"""`groklab archive TREE results/<name>`: a reproduction's evidence into the repository's results archive.

The archive format belongs to the store (store/archive.py); this module adds what only the experiments
know: which studies read a run's final model (their weights are kept), and the sessions that built the
tree (command, build, machine and its matmul speed, recorded by `reproduce` in each figure's manifest).
"""
from __future__ import annotations

import time
from pathlib import Path

from groklab.engine.machine import describe
from groklab.errors import ConfigError
from groklab.store import experiment_dirs, read_claims, read_manifest, read_partial
from groklab.store.archive import archive_size
from groklab.store.archive_write import write_archive


def trained(session: dict) -> bool:
    """Whether a reproduce session trained runs: every one does but a pure re-judging (`--from` without
    `--train-missing`), which only lays archived runs out and judges them."""
    return "from" not in session or bool(session.get("train_missing"))


def archive(tree: str | Path, dest: str | Path, replace: bool = False, command: str | None = None) -> dict:
    """Write the archive of run tree `tree` to `dest`; returns its manifest (with its size in bytes)."""
    from groklab.experiments import PAPERS

    tree = Path(tree)
    if not tree.is_dir():
        raise ConfigError("tree", str(tree), "is not a directory")
    weights = {name for figs in PAPERS.values() for name, m in figs.items() if getattr(m, "READS_MODEL", False)}
    sessions, wall, papers = [], 0.0, set()
    for study in experiment_dirs(tree):
        man = read_manifest(study)
        doc = read_claims(study) or read_partial(study) or {}
        ran = [s for s in man.get("sessions", []) if trained(s)]
        wall += sum(s.get("wall_s") or 0.0 for s in ran) if ran else doc.get("wall_s") or 0.0
        papers.add(_paper_of(man["figure"], PAPERS))
        sessions += [{**s, "study": man["figure"]} for s in man.get("sessions", [])]
    index = {"created": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "archived_by": command or "groklab.archive",
             "papers": sorted(p for p in papers if p), "wall_s": round(wall, 1),
             "archiving_machine": describe(),
             "sessions": sessions,
             "note": "wall_s sums the wall time of every session that trained (training and analysis); "
                     "sessions lists every reproduce call with its command and the machine it ran on (a "
                     "session with 'from' re-judged archived runs, and trained nothing unless it has "
                     "'train_missing'); a tree trained before "
                     "groklab recorded sessions has none, and archiving_machine is then the closest record"}
    path = write_archive(tree, dest, index, weights, replace)
    return {**index, "path": str(path), "bytes": archive_size(path)}


def _paper_of(figure: str, papers: dict) -> str | None:
    hits = [paper for paper, figs in papers.items() if figure in figs]
    return hits[0] if len(hits) == 1 else None
