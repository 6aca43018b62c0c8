"""Run a sweep's units of work in-process, in a local process pool, or on a Ray cluster, with a live bar."""
from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, as_completed, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context

from groklab.engine.budget import allow_large, permit_large
from groklab.engine.threads import current_policy, thread_policy, usable_cpus
from groklab.errors import ConfigError, RunBusy

EXECUTORS = ("inprocess", "process", "ray")


def run_unit(unit: list[tuple[str, dict, str]], packing: str, given: tuple | None = None) -> list[tuple[str, str]]:
    """Train one population (plain data in, plain data out, so it travels to processes and Ray workers);
    `given` (threads, jobs, allow_large) are the caller's settings, handed over as an argument (`handed`)."""
    from groklab.config import validate
    from groklab.engine.population import train_population

    cfgs = [validate(dict(c)) for _, c, _ in unit]
    threads, jobs, large = given if given is not None else handed()
    try:
        with thread_policy(threads, jobs), permit_large(large):
            results = train_population(cfgs, [o for _, _, o in unit], packing=packing)
    except RunBusy as err:  # another process took a run after the plan: it is left to that writer
        return [(name, f"busy: {err}") for name, _, _ in unit]
    return [(name, r.summary["status"]) for (name, _, _), r in zip(unit, results)]


def handed(jobs: int | None = None) -> tuple:
    """(threads, jobs, allow_large) in force here, `jobs` replacing the runs-at-once count: for a worker."""
    threads, own = current_policy()
    return threads, jobs or own, True if allow_large() else None


def pool_unit(unit: list, packing: str, given: tuple) -> list[tuple[str, str]]:
    """run_unit in a pool worker: stopped (SIGTERM from its sweep, or Ctrl-C), the worker ends once its run
    is marked interrupted, instead of taking the next unit from the pool's queue."""
    try:
        return run_unit(unit, packing, given)
    except KeyboardInterrupt:
        os._exit(130)


def ray_unit(unit: list, packing: str, given: tuple) -> list[tuple[str, str]]:
    """run_unit in a Ray worker, with Python's Ctrl-C handler: Ray cancels a running task by interrupting its
    main thread as SIGINT would, which does nothing where SIGINT is ignored -- as it is for every process started
    from a background shell job (`nohup groklab sweep ... &`); the stopped sweep would leave its runs `running`."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)
    return run_unit(unit, packing, given)


def _init_worker() -> None:
    signal.signal(signal.SIGTERM, _interrupt)  # stopped by its sweep: the run ends `interrupted`, like Ctrl-C


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


# how long a stopped sweep waits for its workers to mark their runs interrupted (it returns as soon as they
# have: milliseconds when idle); headroom for a loaded machine (was 10 s; the stops that ran it out were
# Ray workers with SIGINT ignored, mended in ray_unit)
STOP_WAIT_S = 30.0


def _stop(procs: list, grace: float = STOP_WAIT_S) -> None:
    """Stop pool workers: SIGTERM (each marks its run interrupted and releases it), then SIGKILL for any that
    has not ended within `grace` seconds (its run still resumes exactly from its last checkpoint)."""
    for proc in procs:
        proc.terminate()
    deadline = time.monotonic() + grace
    for proc in procs:
        proc.join(max(0.0, deadline - time.monotonic()))
    for proc in procs:
        if proc.is_alive():
            proc.kill()
            proc.join(1.0)


class SweepBar:
    """Runs done / running / failed and an ETA from the pace so far; one bar for the whole sweep."""

    def __init__(self, total: int, done: int, show: bool = True):
        from groklab.engine.loop import progress_bar

        self.total, self.done, self.failed, self.running, self.t0 = total, done, 0, 0, time.perf_counter()
        self.start_done = done
        self.bar = progress_bar(show, total=total, initial=done, unit="run", dynamic_ncols=True, desc="sweep")
        self._post()

    def _post(self) -> None:
        self.bar.set_postfix_str(f"done {self.done - self.failed} running {self.running} failed {self.failed}")

    def started(self, n: int) -> None:
        self.running += n
        self._post()

    def finished(self, n: int, failed: int = 0) -> None:
        self.running -= n
        self.done += n
        self.failed += failed
        self.bar.update(n)
        self._post()

    def close(self) -> None:
        self.bar.close()


def run_units(units: list, packing: str, executor: str = "inprocess", workers: int | None = None,
              address: str | None = None, bar: SweepBar | None = None, echo=print, work=None) -> list:
    """Run every unit; returns [(run name, status or 'failed: reason')]. Ctrl-C stops and re-raises.
    `work`: what a pool worker runs per unit (default pool_unit; a module-level function, for tests)."""
    work = work or pool_unit
    if executor not in EXECUTORS:
        raise ConfigError("executor", executor, f"allowed: {', '.join(EXECUTORS)}")
    payload = [[(r.name, r.cfg.to_dict(), str(r.out)) for r in unit] for unit in units]
    out = []

    def record(unit, result=None, error=None):
        if error is None:
            out.extend(result)
            failed = sum(status == "diverged" for _, status in result)
        else:
            out.extend((name, f"failed: {error}") for name, _, _ in unit)
            failed = len(unit)
            echo(f"groklab sweep: {len(unit)} run(s) failed ({unit[0][0]} ...): {error}")
        if bar is not None:
            bar.finished(len(unit), failed)

    if executor == "inprocess":
        for unit in payload:
            bar and bar.started(len(unit))
            try:
                record(unit, run_unit(unit, packing))
            except (ConfigError, KeyboardInterrupt):
                raise
            except Exception as err:  # a broken run must not stop the sweep
                record(unit, error=_reason(err))
        return out
    if executor == "process":
        workers = workers or usable_cpus()
        given = handed(workers)  # each run then takes usable CPUs // workers threads (engine/threads.py)
        queue = list(payload)
        while queue:  # a worker that died breaks its pool: its units run again alone, the rest in a new pool
            _isolate(_in_pool(queue, packing, workers, given, record, bar, work), packing, given, record, work)
        return out
    _run_ray(payload, packing, address, record, bar)
    return out


DIED = "its worker process died (killed by a signal or out of memory) twice, the second time running alone"


def _pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=_init_worker)


def _in_pool(queue: list, packing: str, workers: int, given: tuple, record, bar, work) -> list:
    """Run units from `queue` (consumed) with at most `workers` in flight, recording each; returns the units in
    flight when a worker died and broke the pool (any of them may be the cause), [] once the queue is done."""
    with _pool(workers) as pool:
        pending = {}
        try:
            while queue or pending:
                while queue and len(pending) < workers:
                    unit = queue.pop(0)
                    pending[pool.submit(work, unit, packing, given)] = unit
                    bar and bar.started(len(unit))
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                broken = []
                for f in finished:
                    unit, err = pending.pop(f), f.exception()
                    if isinstance(err, BrokenProcessPool):
                        broken.append(unit)
                    else:
                        record(unit, None if err else f.result(), _reason(err) if err else None)
                if broken:
                    return broken + list(pending.values())
        except KeyboardInterrupt:
            _halt(pool)
            raise
    return []


def _isolate(suspects: list, packing: str, given: tuple, record, work) -> None:
    """Each unit that was in flight when a worker died, again, in a pool of its own (all at once: no more of
    them than workers): a unit whose worker dies again is recorded failed with that reason, the others finish
    (their runs resume exactly from their last checkpoints)."""
    pools = [_pool(1) for _ in suspects]
    try:
        futures = {pool.submit(work, unit, packing, given): unit for pool, unit in zip(pools, suspects)}
        for f in as_completed(futures):
            err = f.exception()
            record(futures[f], None if err else f.result(),
                   None if err is None else DIED if isinstance(err, BrokenProcessPool) else _reason(err))
    except KeyboardInterrupt:
        for pool in pools:
            _halt(pool)
        raise
    finally:
        for pool in pools:
            pool.shutdown(wait=True)


def _halt(pool: ProcessPoolExecutor) -> None:
    """Stop a pool's workers (each marks its run interrupted), then free its queues (no leaked semaphores)."""
    _stop(list((getattr(pool, "_processes", None) or {}).values()))
    pool.shutdown(wait=True, cancel_futures=True)


def _run_ray(payload, packing, address, record, bar) -> None:
    try:
        import ray
    except ImportError:
        raise ConfigError("executor", "ray", "needs the ray package: pip install 'groklab[ray]'") from None
    if not ray.is_initialized():
        ours = signal.getsignal(signal.SIGTERM)
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
        if callable(ours) and threading.current_thread() is threading.main_thread():
            # Ray's failure handler aborts the driver on SIGTERM (exit -6, runs left `running`); the sweep's own
            # handler turns it into the stop below, which marks them interrupted
            signal.signal(signal.SIGTERM, ours)
    uses_gpu = any(c.get("device") == "cuda" for unit in payload for _, c, _ in unit)
    task = ray.remote(num_cpus=1, num_gpus=1 if uses_gpu else 0)(ray_unit)
    given = handed(1)  # one CPU per task
    pending = {task.remote(unit, packing, given): unit for unit in payload}
    bar and bar.started(sum(map(len, payload)))
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            unit = pending.pop(ready[0])
            try:
                record(unit, ray.get(ready[0]))
            except Exception as err:
                record(unit, error=_reason(getattr(err, "cause", None) or err))
    except KeyboardInterrupt:
        for ref in pending:
            ray.cancel(ref)  # a KeyboardInterrupt in each task: its run is marked interrupted and released
        ray.wait(list(pending), num_returns=len(pending), timeout=STOP_WAIT_S)  # before Ray's workers go
        raise


def _reason(err: BaseException) -> str:
    line = str(err).strip().splitlines()
    return f"{type(err).__name__}: {line[-1] if line else ''}"[:200]
