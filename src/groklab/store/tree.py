"""Trees of runs and experiment directories: output folders we may write, finding runs, manifest, claims, errors."""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterator, Optional

from groklab.errors import ConfigError, StoreError
from groklab.store.files import atomic_write, is_tmp, read_json, read_text, read_yaml_mapping, write_json
from groklab.store.names import MARK, is_link
from groklab.store.run import CONFIG, is_run
from groklab.store.schema import Claims, Manifest, Partial

MANIFEST, CLAIMS, PARTIAL, ERROR, SWEEP = "experiment.json", "claims.json", "partial.json", "error.txt", "sweep.yaml"


# -- output directories: groklab writes only into a directory that is new, empty, or its own ----------------
def check_out(path: str | Path, field: str = "out") -> Path:
    """`path` if groklab may write there: missing, empty, or carrying groklab's mark. A directory holding
    anything else is refused (one line): a folder is groklab's by its mark, never by what it looks like."""
    path = Path(path)
    if is_link(path):
        raise ConfigError(field, str(path), "is a symbolic link; groklab never writes through a link (pick the "
                                            "folder it points to, or another path)")
    if path.exists() and not path.is_dir():
        raise ConfigError(field, str(path), "is a file, not a directory")
    if not path.is_dir() or (path / MARK).is_file() and not (path / MARK).is_symlink():
        return path
    foreign = sorted(f.name for f in path.iterdir() if not is_tmp(f))
    if foreign:
        shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
        raise ConfigError(field, str(path), f"holds files groklab did not write ({shown}); pick a new or "
                                            "empty directory")
    return path


def make_out(path: str | Path, field: str = "out") -> Path:
    """check_out, then create the directory and mark it as groklab's; returns it."""
    path = check_out(path, field)
    path.mkdir(parents=True, exist_ok=True)
    if not (path / MARK).is_file():
        atomic_write(path / MARK, "written by groklab: it may add and replace its own files here\n")
    return path


def inside(folder: Path, name: str) -> Path | None:
    """`folder/name` if that is a plain file inside `folder` (links resolved), else None: a report embeds
    only the tree's own files, whatever a claims.json or a linked sweep.yaml names."""
    path = (folder / name).resolve()
    return path if path.is_file() and path.is_relative_to(folder.resolve()) else None


def find_runs(path: str | Path) -> Iterator[Path]:
    """The run directory `path` itself, or every run directory below it, in sorted order."""
    path = Path(path)
    if is_run(path):
        yield path
        return
    for cfg in files_named(path, CONFIG):
        yield cfg.parent


MAX_TREE_DEPTH = 64  # folders below a tree's root: groklab's own trees are under 10 deep


def files_below(root: Path) -> list[Path]:
    """Every entry at or below `root` that is not a folder (links and special files included, never followed),
    sorted; a tree nested deeper than MAX_TREE_DEPTH is one StoreError (pathlib's recursive glob hits Python's
    recursion limit near 1,000)."""
    found, todo = [], [(Path(root), 0)]
    while todo:
        folder, depth = todo.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as err:
            raise StoreError(folder, f"cannot be listed ({err.strerror or type(err).__name__})") from None
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                if depth >= MAX_TREE_DEPTH:
                    raise StoreError(e.path, f"nested more than {MAX_TREE_DEPTH} folders deep below {root}")
                todo.append((Path(e.path), depth + 1))
            else:
                found.append(Path(e.path))
    return sorted(found)


def files_named(root: Path, name: str) -> list[Path]:
    """Every file called `name` at or below `root` (a FIFO or link of that name too: its reader names what is
    wrong with it)."""
    return [f for f in files_below(root) if f.name == name]


# -- experiment directories: DIR/<figure>/{experiment.json, claims.json, <run>/...} ---------------
def experiment_dirs(root: str | Path) -> list[Path]:
    """The figure directories (with a manifest) at or below `root`, in natural order."""
    root = Path(root)
    if (root / MANIFEST).is_file():
        return [root]
    natural = lambda p: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.as_posix())]  # noqa: E731
    return sorted((p.parent for p in files_named(root, MANIFEST)), key=natural)


def write_manifest(folder: Path, doc: dict) -> None:
    write_json(Path(folder) / MANIFEST, doc)


def read_manifest(folder: Path) -> dict:
    return read_json(Path(folder) / MANIFEST, Manifest)


def write_claims(folder: Path, doc: dict) -> None:
    write_json(Path(folder) / CLAIMS, doc)


def judged(folder: Path) -> bool:
    """Whether a figure directory holds its verdicts (claims.json)."""
    return (Path(folder) / CLAIMS).is_file()


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
    if f.is_symlink():  # groklab writes error.txt itself; a link may point anywhere, and reports show this text
        raise StoreError(f, "a link, not a file groklab wrote; remove it")
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
