"""How many CPU threads a run uses: chosen from the CPUs this process may use and the jobs sharing them.

Left to torch, every process takes one thread per core, and OpenMP threads spin while they wait. Two such
processes on 2 cores ran 34x slower than one thread each (measured: benchmarks/bench_threads.py). groklab
sets threads = usable CPUs // jobs, where jobs is what a sweep or `reproduce` runs at once (handed to its
workers), and the CLI asks OpenMP to wait passively (OMP_WAIT_POLICY=PASSIVE, unless set). `--threads N`
(thread_policy; or GROKLAB_THREADS=N) fixes the count; 'torch' keeps torch's own choice.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from contextvars import ContextVar

import torch

from groklab.errors import ConfigError

THREADS_ENV, JOBS_ENV = "GROKLAB_THREADS", "GROKLAB_JOBS"


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask: a container's or taskset's limit), not the machine's."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _positive(name: str, text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise ConfigError(name, text, "must be an integer >= 1" + (" or 'torch'" if name == THREADS_ENV else ""))
    return n


_fixed: ContextVar[str | None] = ContextVar("threads", default=None)  # set by thread_policy
_jobs: ContextVar[int | None] = ContextVar("jobs", default=None)


@contextmanager
def thread_policy(threads: str | None = None, jobs: int | None = None):
    """For the calls inside: `threads` per run ('N' or 'torch'; None: as GROKLAB_THREADS says) and `jobs` runs
    sharing the CPUs (None: as GROKLAB_JOBS says). The CLI's --threads and a pool's size arrive here as
    arguments, never through the environment of the process that called."""
    if threads is not None and threads != "torch":
        _positive(THREADS_ENV, threads)
    tokens = _fixed.set(threads), _jobs.set(jobs)
    try:
        yield
    finally:
        _fixed.reset(tokens[0])
        _jobs.reset(tokens[1])


def current_policy() -> tuple[str | None, int | None]:
    """(threads, jobs) as set by thread_policy: what a worker process is handed."""
    return _fixed.get(), _jobs.get()


def choose_threads() -> int | None:
    """The thread count for this process's runs; None: leave torch's."""
    fixed = (_fixed.get() or os.environ.get(THREADS_ENV, "")).strip()
    if fixed == "torch":
        return None
    if fixed:
        return _positive(THREADS_ENV, fixed)
    if os.environ.get("OMP_NUM_THREADS"):  # the user's own choice, which torch already follows
        return None
    jobs = _jobs.get() or (_positive(JOBS_ENV, os.environ[JOBS_ENV]) if os.environ.get(JOBS_ENV) else 1)
    return max(1, usable_cpus() // jobs)


def set_threads() -> int:
    """Apply `choose_threads()` to torch; returns the count in use (recorded in each run's summary)."""
    n = choose_threads()
    if n is not None and n != torch.get_num_threads():
        torch.set_num_threads(n)
    if n is not None and n > 1 and not (_fixed.get() or os.environ.get(THREADS_ENV, "").strip()):
        _busy_note(n)
    return torch.get_num_threads()


_noted: list = []  # the busy-CPU note, once per process


def _busy_note(n: int) -> None:
    """Say so when other processes already keep the CPUs busy: a run of n threads then waits on them at every
    step (a p = 23 run beside one busy process: 6.7 steps/s with 2 threads, 101 with one)."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return
    cpus = usable_cpus()
    if load >= cpus - 0.5 and not _noted:
        from groklab.errors import notice

        _noted.append(load)
        notice(f"the CPUs are busy (load {load:.1f} on {cpus} cores): a run on {n} threads waits on the other "
               f"processes; --threads 1 (GROKLAB_THREADS=1) is often many times faster")
