"""The error types for bad user input and unreadable files, each printed as a single line; notices."""
import reprlib
import sys


class ConfigError(ValueError):
    """Invalid user input. `str(err)` is one line: `field=value: what is allowed`."""

    def __init__(self, field: str, value, allowed: str):
        self.field, self.value, self.allowed = field, value, allowed
        name = str(field) if len(str(field)) <= 200 else f"{str(field)[:200]}..."  # a 100,000-character key
        super().__init__(f"{printable(name)}={_short(value)}: {printable(allowed)}")

    def __reduce__(self):  # picklable, so a process-pool or Ray worker's refusal reaches the parent whole
        plain = isinstance(self.value, (int, float, str, type(None))) and len(_short(self.value)) < 200
        return type(self), (self.field, self.value if plain else _Shown(_short(self.value)), self.allowed)


class StoreError(ConfigError):
    """A run file that cannot be used as it is: `path[ line N]: what is wrong`."""

    def __init__(self, path, reason: str, line: int | None = None):
        self.path, self.line, self.reason = str(path), line, reason
        ValueError.__init__(self, f"{path}{f' line {line}' if line else ''}: {reason}")
        self.field, self.value, self.allowed = "file", self.path, reason

    def __reduce__(self):
        return StoreError, (self.path, self.reason, self.line)


class RunBusy(ConfigError):
    """Another live process holds the run directory's lock."""

    def __init__(self, path, pid: int | None):
        self.path, self.pid = str(path), pid
        who = f"pid {pid}" if pid else "another process"
        ValueError.__init__(self, f"run {path} is being written by {who}; wait for it, or stop it first")
        self.field, self.value, self.allowed = "run", self.path, f"being written by {who}"

    def __reduce__(self):
        return RunBusy, (self.path, self.pid)


_REPR = reprlib.Repr()  # Python 3.11 takes no keyword arguments here
_REPR.maxlevel, _REPR.maxdict, _REPR.maxlist, _REPR.maxtuple, _REPR.maxset = 3, 6, 8, 8, 8
_REPR.maxstring = _REPR.maxother = 160


def _short(value, limit: int = 200) -> str:
    """A bounded repr of value, at most `limit` characters: an error line never echoes a huge input back, and
    never spends time or memory formatting one (reprlib stops at a few items and levels)."""
    try:
        text = _REPR.repr(value)
    except ValueError:  # an int past Python's 4,300-digit limit for str() (nested ints: reprlib stops earlier)
        text = f"<an integer of {value.bit_length():,} bits>" if isinstance(value, int) else "<unprintable>"
    return text if len(text) <= limit else f"{text[:limit]}..."


def printable(text) -> str:
    """text with every non-printable character escaped (a key typed as `a\\nb=1` is named, not broken over two
    lines): the error stays one line whatever the user typed."""
    text = str(text)
    return text if text.isprintable() else "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


class _Shown(str):
    """A value's bounded repr standing in for it (a pickled error): shown as is, without quotes."""

    def __repr__(self) -> str:
        return str(self)


def notice(text: str) -> None:
    """A one-line announcement on stderr (a recovery the user should know about), never an error."""
    print(f"groklab: note: {text}", file=sys.stderr)


_warned: set = set()  # deprecations announced in this process (once each)


def deprecated(old: str, new: str) -> None:
    """Announce once per process that `old` (a config key or value) is deprecated in favour of `new`."""
    if old not in _warned:
        _warned.add(old)
        notice(f"{old} is deprecated and will be removed in the next release; use {new}")
