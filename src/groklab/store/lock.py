"""One writer per run directory: an exclusive `flock` on `<run>/.lock`, held for the run's life.

The OS releases the lock when its process dies (kill -9 included), so a crashed run never blocks
its own resume. The holder's pid is written into the file for the refusal message. The lock file is
opened without following links: a `.lock` that is a symbolic link is refused, never written through.
"""
from __future__ import annotations

import os
from pathlib import Path

from groklab.errors import RunBusy
from groklab.store.files import NOFOLLOW
from groklab.store.names import refuse_link

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no locking, as before
    fcntl = None

LOCK = ".lock"


class RunLock:
    """Acquire with `acquire()` (raises RunBusy when held elsewhere), release with `release()`."""

    def __init__(self, folder: str | Path):
        self.path = Path(folder) / LOCK
        self.fd: int | None = None

    def acquire(self) -> "RunLock":
        if fcntl is None or self.fd is not None:
            return self
        refuse_link(self.path)
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | NOFOLLOW, 0o644)
        except OSError:
            refuse_link(self.path)  # made a link between the check and the open
            raise
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _read_pid(fd)
            os.close(fd)
            raise RunBusy(self.path.parent, pid) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self.fd = fd
        return self

    def release(self) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode().strip()
        return int(text) if text.isdigit() else None
    except OSError:
        return None


def holder(folder: str | Path) -> int | None:
    """The pid writing `folder` now (0 if unknown), or None when nobody holds its lock."""
    path = Path(folder) / LOCK
    if fcntl is None or path.is_symlink() or not path.is_file():
        return None
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _read_pid(fd) or 0
    finally:
        os.close(fd)  # closing drops the probe's shared lock
    return None
