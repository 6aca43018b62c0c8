"""How many CPU threads a run uses: chosen from the CPUs this process may use and the jobs sharing them.

Left to torch, every process takes one thread per core, and OpenMP threads spin while they wait. Two such
processes on 2 cores ran 34x slower than one thread each (measured: benchmarks/bench_threads.py). groklab
sets threads = usable CPUs // jobs, where jobs is what a sweep or `reproduce` runs at once (handed to its
workers), and the CLI asks OpenMP to wait passively (OMP_WAIT_POLICY=PASSIVE, unless set). Within that, the
work decides: a run whose training step is too small to split (SMALL_STEP FLOPs) takes one thread, and a run
takes no more threads than the cores other processes leave free (the 1-minute load average): a p = 23 run beside
one busy process made 6.7 steps/s on 2 threads and 101 on one. `--threads N` (thread_policy; or
GROKLAB_THREADS=N) fixes the count; 'torch' keeps torch's own choice.
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


# FLOPs of one training step (forward and backward) below which a second thread costs more than it gains. On 2
# cores (benchmarks/results/threads_sizes_cpu.json): one thread 3.0x faster at 1.6e7, 1.4x at 1.2e8; two threads
# 1.4x faster at 9e8 (p = 47 and 000's paper MLP)
SMALL_STEP = 3e8


def free_cpus() -> int:
    """Cores the other processes leave free: usable CPUs minus the 1-minute load average (at least one)."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return usable_cpus()
    return max(1, min(usable_cpus(), int(usable_cpus() - load + 0.5)))


def choose_threads(work: float | None = None) -> int | None:
    """The thread count for this process's runs; None: leave torch's. `work`: FLOPs of one training step."""
    fixed = (_fixed.get() or os.environ.get(THREADS_ENV, "")).strip()
    if fixed == "torch":
        return None
    if fixed:
        return _positive(THREADS_ENV, fixed)
    if os.environ.get("OMP_NUM_THREADS"):  # the user's own choice, which torch already follows
        return None
    jobs = _jobs.get() or (_positive(JOBS_ENV, os.environ[JOBS_ENV]) if os.environ.get(JOBS_ENV) else 1)
    if work is not None and work < SMALL_STEP:
        return 1
    return max(1, min(usable_cpus() // jobs, free_cpus()))


def set_threads(work: float | None = None) -> int:
    """Apply `choose_threads(work)` to torch; returns the count in use (recorded in each run's summary and shown
    on its progress bar)."""
    n = choose_threads(work)
    if n is not None and n != torch.get_num_threads():
        torch.set_num_threads(n)
    return torch.get_num_threads()


def step_flops(model, rows: int) -> float:
    """About the FLOPs of one training step: 6 per parameter per row (forward 2, backward 4)."""
    return 6.0 * rows * sum(t.numel() for t in model.parameters())
