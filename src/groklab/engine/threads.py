"""How many CPU threads a run uses: chosen from the CPUs this process may use and the jobs sharing them.

Left to torch, every process takes one thread per core, and OpenMP threads spin while they wait. Two such
processes on 2 cores ran 34x slower than one thread each (measured: benchmarks/bench_threads.py). groklab
sets threads = usable CPUs // jobs, where jobs is what a sweep or `reproduce` runs at once (handed to its
workers), and the CLI asks OpenMP to wait passively (OMP_WAIT_POLICY=PASSIVE, unless set). Within that, the
work decides: with passive waiting a run whose training step is too small to split (SMALL_STEP FLOPs) takes one
thread (threads spinning, as OpenMP's default has them, gain from a second idle core at every size), and a run
takes no more threads than the cores other processes leave free *now*: a p = 23 run beside one busy process made
6.7 steps/s on 2 threads and 101 on one. "Now" is the CPU time other processes spent over the last 0.1 s
(psutil), not the 1-minute load average, which remembers a process that has just finished: runs started one
after another (a shell loop, benchmarks/bench.py) took one thread on two idle cores and ran 1.6-1.9x slower at
batch 512 and full batch. `--threads N` (thread_policy; or GROKLAB_THREADS=N) fixes the count; 'torch' keeps
torch's own choice.
"""
from __future__ import annotations

import os
import time
from contextlib import contextmanager
from contextvars import ContextVar

import psutil
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


# FLOPs of one training step (forward and backward) below which a second thread costs more than it gains *when
# OpenMP threads wait passively* (the CLI's OMP_WAIT_POLICY=PASSIVE: a sleeping thread is woken at every parallel
# region). On 2 cores (benchmarks/results/threads_sizes_cpu.json): one thread 3.0x faster at 1.6e7, 1.4x at 1.2e8;
# two threads 1.4x faster at 9e8 (p = 47 and 000's paper MLP). Where they spin (OpenMP's default, e.g. a Python
# caller of groklab.train), a second idle core pays at every size measured (2026-11-28, idle: p = 23 tiny 0.77 ->
# 0.64 ms a step, p = 97 batch 64 2.56 -> 1.53 ms; passive: 0.72 -> 2.08 and 2.09 -> 3.38 ms).
SMALL_STEP = 3e8


def waits_passively() -> bool:
    """Whether this process's OpenMP threads sleep while they wait (OMP_WAIT_POLICY=PASSIVE, as the CLI sets it
    before torch loads OpenMP): then waking them costs more than a small step gains."""
    return os.environ.get("OMP_WAIT_POLICY", "").strip().upper() == "PASSIVE"


SAMPLE_S = 0.1  # long enough to see a busy core (10 clock ticks per CPU), short beside a run that needs threads


def busy_elsewhere(interval: float = SAMPLE_S) -> float:
    """Cores that other processes keep busy now: the CPU time spent on this process's usable CPUs over
    `interval` seconds, less this process's own, per second of wall time."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    me = psutil.Process()

    def busy() -> float:
        per = psutil.cpu_times(percpu=True)
        rows = [per[i] for i in cpus if i < len(per)] if cpus else per
        # Linux counts guest time inside user time too (psutil's own cpu_percent subtracts it the same way)
        idle = ("idle", "iowait", "guest", "guest_nice")
        return sum(sum(t) - sum(getattr(t, f, 0.0) for f in idle) for t in rows)

    def own() -> float:
        t = me.cpu_times()
        return t.user + t.system

    b0, o0, w0 = busy(), own(), time.perf_counter()
    time.sleep(interval)
    b1, o1, w1 = busy(), own(), time.perf_counter()
    return max(0.0, ((b1 - b0) - (o1 - o0)) / (w1 - w0))


def free_cpus() -> int:
    """Cores the other processes leave free now (at least one); all usable CPUs where they cannot be read."""
    try:
        elsewhere = busy_elsewhere()
    except (psutil.Error, OSError, AttributeError):
        return usable_cpus()
    return max(1, min(usable_cpus(), int(usable_cpus() - elsewhere + 0.5)))


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
    if work is not None and work < SMALL_STEP and waits_passively():
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
