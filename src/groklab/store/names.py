"""The one gate for names that become paths, and folders made below a tree without following links.

Run names, study names, sweep point names and the run and folder parts of an archive's array keys come from
files a user may have been handed; every reader and writer that turns one into a folder goes through
`check_name`, so data never chooses where groklab writes. `make_dirs` then creates the folders one component at
a time and refuses a link found on the way: a tree groklab writes is never written through a link it did not make.
"""
from __future__ import annotations

from pathlib import Path

from groklab.errors import ConfigError, StoreError

MAX_NAME, MAX_PART, MAX_DEPTH = 512, 128, 16  # characters in a name, in one of its folders; folders deep
MARK = ".groklab"  # in every output directory groklab made (or found empty): the directory is ours to write


def name_problem(name) -> str | None:
    """Why `name` cannot be a relative path below a tree (None when it can)."""
    if not isinstance(name, str):
        return f"must be a string, not {type(name).__name__}"
    if not name or len(name) > MAX_NAME:
        return f"must be 1 to {MAX_NAME} characters"
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "holds a control character"
    if name.startswith("/") or "\\" in name or ":" in name.split("/")[0]:
        return "must be a relative path ('/'-separated, no drive or backslash)"
    parts = name.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return "must stay below its tree (no '..', '.' or empty folder)"
    if len(parts) > MAX_DEPTH or any(len(p) > MAX_PART for p in parts):
        return f"must be at most {MAX_DEPTH} folders deep, each at most {MAX_PART} characters"
    return None


def check_name(name, field: str, source: str | Path | None = None, line: int | None = None) -> str:
    """`name` when it is a safe relative path; else a StoreError naming `source` (a file that was read) or a
    ConfigError naming `field` (an argument)."""
    problem = name_problem(name)
    if problem is None:
        return name
    shown = ascii(name)[:80] if isinstance(name, str) else repr(name)[:80]
    if source is not None:
        raise StoreError(source, f"{field} {shown} {problem}", line)
    raise ConfigError(field, shown, problem)


def nested(a: str | Path, b: str | Path) -> bool:
    """Whether two folders are the same or one holds the other (links resolved): a writer of one must not
    write into the other it reads."""
    a, b = Path(a).resolve(), Path(b).resolve()
    return a == b or a.is_relative_to(b) or b.is_relative_to(a)


def is_link(path: str | Path) -> bool:
    return Path(path).is_symlink()


def refuse_link(path: Path) -> None:
    """A StoreError when `path` is a symbolic link: groklab never writes through a link it did not make."""
    if is_link(Path(path)):
        raise StoreError(path, "is a symbolic link; groklab never writes through a link (remove it or pick "
                               "another path)")


def make_dirs(root: str | Path, name: str = "") -> Path:
    """`root/name` as a folder, each component below `root` created if missing and refused if it is a link or
    not a folder (root itself too: it is groklab's output). `name` must pass check_name."""
    path = Path(root)
    for part in [""] + (check_name(name, "name").split("/") if name else []):
        path = path / part if part else path
        refuse_link(path)
        if path.exists() and not path.is_dir():
            raise StoreError(path, "is a file where groklab needs a folder")
        path.mkdir(parents=not part, exist_ok=True)
    return path


def tree_root(path: str | Path, depth: int = 32) -> Path:
    """The nearest folder at or above `path` that carries groklab's mark (the tree being written), else `path`:
    links inside groklab's own trees are refused, the user's folders above them are theirs."""
    path = Path(path)
    for p in [path, *path.parents][:depth]:
        if (p / MARK).is_file() and not is_link(p / MARK):
            return p
    return path


def links_below(root: str | Path, path: str | Path) -> None:
    """Refuse a link at `path` or at any folder between it and `root`: what groklab writes there would land
    elsewhere. The tree's root itself is the user's choice (a `--out` given as a link is refused when the tree
    is made, `check_out`), so a tree moved behind a link later still resumes."""
    root, path = Path(root), Path(path)
    for p in [path, *path.parents]:
        if not p.is_relative_to(root) or p == root != path:
            return
        refuse_link(p)
