"""How many CPU threads a run uses: chosen from the CPUs this process may use and the jobs sharing them.

Left to torch, every process takes one thread per core, and OpenMP threads spin while they wait. Two such
processes on 2 cores ran 34x slower than one thread each (measured: benchmarks/bench_threads.py). groklab
sets threads = usable CPUs // jobs, where jobs is what a sweep or `reproduce` runs at once (GROKLAB_JOBS,
set for its workers), and the CLI asks OpenMP to wait passively (OMP_WAIT_POLICY=PASSIVE, unless set).
GROKLAB_THREADS=N (or `--threads N`) fixes the count; GROKLAB_THREADS=torch keeps torch's own choice.
"""
from __future__ import annotations

import os

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


def choose_threads() -> int | None:
    """The thread count for this process's runs; None: leave torch's."""
    fixed = os.environ.get(THREADS_ENV, "").strip()
    if fixed == "torch":
        return None
    if fixed:
        return _positive(THREADS_ENV, fixed)
    if os.environ.get("OMP_NUM_THREADS"):  # the user's own choice, which torch already follows
        return None
    jobs = _positive(JOBS_ENV, os.environ[JOBS_ENV]) if os.environ.get(JOBS_ENV) else 1
    return max(1, usable_cpus() // jobs)


def set_threads() -> int:
    """Apply `choose_threads()` to torch; returns the count in use (recorded in each run's summary)."""
    n = choose_threads()
    if n is not None and n != torch.get_num_threads():
        torch.set_num_threads(n)
    return torch.get_num_threads()
