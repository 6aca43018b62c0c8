"""Command line: `groklab train key=value ...`, `measure`, `demo`, `sweep`, `summarize`, `check`, `numberline`,
`reproduce`, `report`. Options and key=value overrides in any order. Bad input: one line on stderr, exit 2."""
from __future__ import annotations

import os
import signal
import sys
import threading

from groklab.errors import ConfigError

PATH_ARGS = ("out", "csv", "config", "resume", "dir", "run", "file", "model")


def main(argv: list[str] | None = None) -> int:
    from groklab.cli.parser import parser

    argv = sys.argv[1:] if argv is None else list(argv)
    # OpenMP threads that spin while waiting starve other processes on the same cores (two runs on 2 cores:
    # 7x slower each, benchmarks/bench_threads.py); read when torch loads, so set before a command imports it
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    # a stopped process pool leaves its queue's semaphores to multiprocessing's resource tracker, which frees
    # them and warns about "leaked semaphore objects" on the way out: noise under the one-line interrupt message
    os.environ.setdefault("PYTHONWARNINGS", "ignore::UserWarning:multiprocessing.resource_tracker")
    ap, subs = parser()
    if not argv or argv[0] not in subs:  # no command, --help, or an unknown one: argparse says what is allowed
        ap.parse_args(argv)
        return 2
    args = subs[argv[0]].parse_intermixed_args(argv[1:])  # overrides may come before or after options
    if threading.current_thread() is threading.main_thread():  # a `kill` stops like Ctrl-C: workers too
        signal.signal(signal.SIGTERM, _terminate)
    try:
        for name in PATH_ARGS:  # `--out ""` would otherwise write into the working directory
            if getattr(args, name, None) == "":
                raise ConfigError(name, "", "must be a path, not empty")
        threads = getattr(args, "threads", None)
        if threads is not None:
            threads = threads.strip()
            if threads != "torch" and not (threads.isdigit() and int(threads) >= 1):
                raise ConfigError("threads", args.threads, "must be an integer >= 1 or 'torch'")
        formats = getattr(args, "format", None)
        if formats is not None:  # refused before anything trains
            from groklab.plots.style import parse_formats

            formats = parse_formats(formats)
        return _run(args, threads, bool(getattr(args, "allow_large", False)), formats)
    except ConfigError as err:
        print(f"groklab: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `groklab summarize DIR | head`: the reader stopped reading, which is not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's own flush at exit would raise it again
        return 0
    except (OSError, MemoryError) as err:  # the filesystem or the machine said no: one line, never a traceback
        began = getattr(err, "during_training", False)
        print(f"groklab: error: {os_line(err)}" + ("; the run is marked failed and resumes with --resume once "
                                                   "this is fixed" if began else ""), file=sys.stderr)
        return 1 if began else 2
    except KeyboardInterrupt:
        again = ("continue with groklab train --resume DIR" if argv[0] == "train" else
                 "run the same command again to continue (finished runs are skipped, the others resume)")
        print(f"groklab: interrupted; {again}", file=sys.stderr)
        return 130


def _run(args, threads: str | None, large: bool, formats: tuple | None = None) -> int:
    """The command, with --threads, --allow-large and --format in force for it (passed on to its workers as
    arguments; nothing is written to this process's environment)."""
    if threads is None and not large and formats is None:
        return args.func(args)
    from groklab.engine.budget import permit_large
    from groklab.engine.threads import thread_policy
    from groklab.plots.style import figure_formats

    with thread_policy(threads), permit_large(True if large else None), figure_formats(formats):
        return args.func(args)


def _terminate(signum, frame) -> None:
    """SIGTERM as an interrupt: the same clean stop as Ctrl-C (a process pool's workers are stopped with it,
    where the default handler left them training as orphans)."""
    raise KeyboardInterrupt


def os_line(err: BaseException) -> str:
    """`path: reason` for an OSError (both paths of a rename), the message otherwise."""
    if isinstance(err, MemoryError):
        return f"out of memory ({err or 'MemoryError'}); use smaller sizes"
    paths = [str(p) for p in (err.filename, err.filename2) if p is not None]
    reason = err.strerror or str(err)
    return f"{' -> '.join(paths)}: {reason}" if paths else reason


__all__ = ["main"]
