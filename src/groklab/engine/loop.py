"""The one training loop: read it top to bottom.

`train_members` trains M >= 1 runs. A Stepper does the arithmetic (one model, or M stacked members); a
RunRecord per run does everything else (schedules, rows, events, checkpoints, resume, summary). The loop
never knows how many models it trains: a single run is a population of one.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Optional, Sequence

import torch

from groklab.config import Config, make_config, validate
from groklab.config.arguments import path_arg
from groklab.engine.record import RunRecord, RunResult
from groklab.engine.setup import build
from groklab.engine.step import SoloStep, StackedStep, Stepper
from groklab.engine.threads import set_threads, step_flops
from groklab.errors import ConfigError
from groklab.store import RunStore, is_run

EXIST_OK = (False, "resume", "skip")


def train(config: Config | dict | None = None, out: str | Path | None = None,
          resume: str | Path | None = None, steps: Optional[int] = None, exist_ok: bool | str = False) -> RunResult:
    """Train one run. `out`: write a run directory; `resume`: continue the run in that directory
    (optionally to a new `steps`). Everything is validated and built before anything is written.
    `exist_ok` says what a run already in `out` means: False, an error; "resume", continue it if unfinished and
    return it if finished (its config must be this one); "skip", return it if finished, train nothing."""
    out, resume = path_arg(out, "out", optional=True), path_arg(resume, "resume", optional=True)
    if not (exist_ok is False or isinstance(exist_ok, str) and exist_ok in EXIST_OK):
        raise ConfigError("exist_ok", repr(exist_ok)[:40], "allowed: False, 'resume', 'skip'")
    if config is not None and not isinstance(config, (Config, dict)):
        raise ConfigError("config", repr(config)[:60], "must be a Config (make_config([...])) or a dict")
    if resume is not None:
        if not is_run(resume):
            raise ConfigError("resume", str(resume), "not a run directory (no config.yaml)")
        cfg = make_config(base=RunStore(resume).config(), overrides=[f"steps={steps}"] if steps is not None else [])
        return train_members([cfg], [resume], mode="resume")[0]
    cfg = config if isinstance(config, Config) else validate(dict(config or {}))
    if steps is not None:  # validated like any setting (model_copy would take steps=-5 as it is)
        cfg = make_config(base=cfg.model_dump(), overrides=[f"steps={steps}"])
    if exist_ok == "skip" and out is not None and is_run(out) and not RunStore(out).finished:
        raise ConfigError("out", str(out), "holds an unfinished run: exist_ok='resume' continues it")
    return train_members([cfg], [out], mode="auto" if exist_ok and out is not None else "new")[0]


def train_members(cfgs: Sequence[Config], outs: Sequence, mode: str = "auto", stacked: bool = False) -> list[RunResult]:
    """Train runs together: one SoloStep (one run) or one StackedStep (M members). A finished run in
    `outs` is skipped in mode auto; every member is checked and built before any directory is written."""
    records = [RunRecord(c, o, mode) for c, o in zip(cfgs, outs)]
    todo = [r for r in records if r.done is None]
    if todo:
        exps = [build(r.cfg) for r in todo]
        rows = [len(e.y_train) if e.cfg.sampler == "full" else min(e.cfg.batch_size, len(e.y_train)) for e in exps]
        threads = set_threads(sum(step_flops(e.model, n) for e, n in zip(exps, rows)))
        if stacked:
            starts = sorted({r.start for r in todo})
            if len(starts) > 1:
                raise ConfigError("out_dirs", starts, "stacked members must start from the same step (fresh, or "
                                  "checkpoints at one step); use packing=sequential")
        opened = []
        try:
            for r, e in zip(todo, exps):
                r.open(e)
                opened.append(r)
        except BaseException:
            for r in opened:
                r.close()
            raise
        for r in todo:
            r.info["threads"] = threads
            if stacked:
                r.info.update({"population/size": len(todo), "population/packing": "stacked"})
        stepper = StackedStep(exps, todo[0].start) if stacked else SoloStep(exps[0])
        if stacked:  # the numerics the step ran with (tf32 and fused apply on CUDA only)
            for r in todo:
                r.info.update({"numerics/tf32": bool(stepper.stack.tf32),
                               "numerics/fused": bool(stepper.stack.fused)})
        else:  # a solo run: TF32 on CUDA (engine/precision.py), bfloat16 autocast (config amp)
            if stepper.tf32 is not None:
                todo[0].info["numerics/tf32"] = bool(stepper.tf32)
            if stepper.amp:
                todo[0].info["numerics/amp"] = "bf16"
        run(stepper, todo)
    return [r.result() for r in records]


def progress_bar(show: bool, **kw):
    """A tqdm bar (a notebook widget in Jupyter), or, when not shown, a silent one that never imports
    tqdm.auto: in a notebook without ipywidgets that import alone warns "IProgress not found"."""
    if not show:
        from tqdm.std import tqdm

        return tqdm(disable=True, **kw)
    from tqdm.auto import tqdm  # imported late: the CLI starts faster

    return tqdm(**kw)


def drain(device: torch.device) -> float:
    """Wait until the device has run every queued step, then read the clock. CUDA runs asynchronously: a timer
    started without this charges the queued training steps to the evaluation (a 93% eval share on an H100
    where the evals cost ~1%)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return time.perf_counter()


def run(stepper: Stepper, records: list[RunRecord]) -> None:
    """Train every record's member from their common start step until each completes, stops early or diverges."""
    active = list(range(len(records)))  # record of each stepper member
    step, t0 = records[0].start, time.perf_counter()
    cfg0 = records[0].cfg
    desc = f"{cfg0.task.expr or cfg0.task.name} {cfg0.model.name}" + (f" x{len(records)}" if len(records) > 1 else "")
    desc += f" ({records[0].info.get('threads', torch.get_num_threads())} thr)"  # why a run is slow: its threads
    bar = progress_bar(any(r.cfg.bar for r in records), total=max(r.cfg.steps for r in records),
                       initial=step, unit="step", dynamic_ncols=True, desc=desc)
    try:
        while True:
            # -- measures on their own schedules; their scalars join this step's eval row
            for i, k in enumerate(active):
                names = records[k].measures_due(step)
                if names:
                    tm = drain(stepper.device)
                    scalars, arrays = stepper.measure(i, step, names)
                    records[k].log_measures(step, scalars, arrays, time.perf_counter() - tm)
            # -- evaluate on the schedule: every member at once, kept by the members due
            due = [i for i, k in enumerate(active) if records[k].eval_due(step)]
            if due:
                te = drain(stepper.device)
                values = stepper.evaluate()
                seconds, now = time.perf_counter() - te, time.perf_counter() - t0
                for i in due:
                    records[active[i]].log_eval(step, values[i], seconds, now, stepper.extras(i))
                bar.update(step - bar.n)
                bar.set_postfix_str(_postfix([records[active[i]].last for i in due]), refresh=False)
            # -- finish the members that are done, checkpoint the others on their schedule
            keep = []
            for i, k in enumerate(active):
                r = records[k]
                if r.status == "running" and step >= r.cfg.steps:
                    r.status = "completed"
                if r.status != "running":
                    r.finish(step, stepper.state(i) if r.store is not None else None, time.perf_counter() - t0,
                             stepper.model(i))
                    continue
                keep.append(i)
                if r.checkpoint_due(step):
                    r.checkpoint(step, stepper.state(i), time.perf_counter() - t0)
            if len(keep) < len(active):
                active = [active[i] for i in keep]
                if not active:
                    break
                stepper.keep(keep)
            # -- one optimizer step of every active member
            stepper.step(step)
            step += 1
    except BaseException as err:  # Ctrl-C, or a crash (disk full, out of memory): every active run stays resumable
        for k in active:
            records[k].abort(step, time.perf_counter() - t0, err)
        try:
            err.during_training = True  # the CLI exits 1 (work was done and kept), not 2 (refused)
        except AttributeError:
            pass
        raise
    finally:
        bar.close()


def _postfix(rows: list[dict]) -> str:
    if len(rows) == 1:
        return f"train {rows[0]['train/acc']:.3f} test {rows[0]['test/acc']:.3f}"
    best = max(r["test/acc"] for r in rows)
    return f"{len(rows)} members, best test {best:.3f}"
