"""The one training loop: read it top to bottom. Eval on a schedule, checkpoints, exact resume."""
from __future__ import annotations

import math
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np
import torch
import torch.nn.functional as F

from groklab.config import Config, make_config, validate
from groklab.engine.rng import GlobalRNG
from groklab.engine.setup import Experiment, build
from groklab.measures.curves import GrokTracker
from groklab.measures.progress import med_test_loss_corr
from groklab.measures.schedule import measure_schedule, run_measures, save_arrays, truncate_arrays
from groklab.optim import lr_factor, ortho_grad_, set_lr
from groklab.store import RunStore, read_metrics
from groklab.track import open_sinks


@dataclass
class RunResult:
    summary: dict
    history: list[dict] = field(default_factory=list)  # the metric rows of this call
    path: Optional[Path] = None
    model: Optional[torch.nn.Module] = None


def eval_schedule(cfg: Config) -> set[int]:
    """Every `eval.every` steps, `eval.log_points` log-spaced steps, step 0 and the last step."""
    steps = set(range(0, cfg.steps + 1, cfg.eval.every)) | {0, cfg.steps}
    if cfg.eval.log_points and cfg.steps > 1:
        steps |= {int(s) for s in np.unique(np.geomspace(1, cfg.steps, cfg.eval.log_points).round())}
    return steps


@torch.no_grad()
def evaluate(model, X: torch.Tensor, y: torch.Tensor, chunk: int, loss_fn=F.cross_entropy) -> tuple[float, float]:
    """Mean training loss (cross-entropy by default, in the model's dtype or float64) and accuracy."""
    was_training = model.training
    model.eval()
    loss_sum = torch.zeros((), dtype=torch.float64, device=X.device)
    correct = torch.zeros((), dtype=torch.long, device=X.device)
    for i in range(0, len(X), chunk):
        logits = model(X[i:i + chunk])
        loss_sum += loss_fn(logits, y[i:i + chunk], reduction="sum").double()
        correct += (logits.argmax(-1) == y[i:i + chunk]).sum()
    model.train(was_training)
    n = max(len(X), 1)
    return loss_sum.item() / n, correct.item() / n


def _tracker(cfg: Config) -> GrokTracker:
    return GrokTracker(cfg.grok.train_acc, cfg.grok.test_acc, cfg.stop.target,
                       cfg.stop.patience if cfg.stop.early else None)


def _summary(status: str, step: int, wall: float, eval_s: float, tracker: GrokTracker,
             last: dict, exp: Experiment, measure_s: float = 0.0) -> dict:
    return {
        "status": status, "steps": step, "wall_s": round(wall, 3),
        "steps_per_s": round(step / wall, 2) if wall > 0 else None,
        "t_train": tracker.t_train, "t_test": tracker.t_test, "gap": tracker.gap,
        "final/train_loss": last.get("train/loss"), "final/train_acc": last.get("train/acc"),
        "final/test_loss": last.get("test/loss"), "final/test_acc": last.get("test/acc"),
        "eval_s": round(eval_s, 3), "eval_share": round(eval_s / wall, 4) if wall > 0 else None,
        "measure_s": round(measure_s, 3), "measure_share": round(measure_s / wall, 4) if wall > 0 else None,
        "n_train": len(exp.y_train), "n_test": len(exp.y_test),
        "n_params": sum(t.numel() for t in exp.model.parameters()),
        "device": str(exp.device), "torch": torch.__version__, "python": platform.python_version(),
    }


def train(config: Config | dict | None = None, out: str | Path | None = None,
          resume: str | Path | None = None, steps: Optional[int] = None) -> RunResult:
    """Train one run. `out`: write a run directory; `resume`: continue the run in that directory
    (optionally to a new `steps`). Everything is validated and built before anything is written."""
    if resume is not None:
        store = RunStore.open(resume)
        cfg = make_config(base=store.config(), overrides=[f"steps={steps}"] if steps is not None else [])
    else:
        cfg = config if isinstance(config, Config) else validate(dict(config or {}))
        if steps is not None:
            cfg = cfg.model_copy(update={"steps": steps})
    exp = build(cfg)
    model, opt, sampler = exp.model, exp.optimizer, exp.sampler
    loss_fn, adapt, grad_filter, o = exp.loss_fn, exp.adapt, exp.grad_filter, cfg.optim
    lr_on = o.schedule != "constant" or o.warmup > 0 or adapt is not None  # else lrs never change
    decay_end = o.decay_steps or cfg.steps
    params = [t for t in model.parameters() if t.requires_grad]
    E_w = model.blocks()["E"][0] if cfg.sampler == "entropy" else None  # its gradient feeds the sampler
    rng = GlobalRNG(cfg.seed, exp.device) if cfg.model.dropout > 0 else None  # dropout masks
    stateful = {k: v for k, v in (("adapt", adapt), ("grad_filter", grad_filter), ("sampler", sampler),
                                  ("rng", rng)) if hasattr(v, "state_dict")}  # saved in checkpoints for exact resume
    tracker = _tracker(cfg)
    start, wall0, eval_s, last_eval, last = 0, 0.0, 0.0, -1, {}
    measure_s, last_measured = 0.0, -1
    if resume is not None:
        ckpt = store.load_checkpoint(map_location=exp.device)
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optimizer"])
        tracker.load_state_dict(ckpt["tracker"])
        for k, v in stateful.items():
            v.load_state_dict(ckpt[k])
        start, wall0, eval_s, last_eval, last = (ckpt["step"], ckpt["wall_s"], ckpt["eval_s"],
                                                 ckpt["last_eval"], ckpt["last"])
        measure_s, last_measured = ckpt.get("measure_s", 0.0), ckpt.get("last_measured", -1)
        store.truncate_after(start)
        truncate_arrays(store.path, start)
        if steps is not None:
            store.write_config(cfg.to_dict())
    elif out is not None:
        store = RunStore.create(out, cfg.to_dict())
    else:
        store = None

    sink = open_sinks(cfg, store.path, start) if store is not None else None  # None when tracking is off
    schedule = eval_schedule(cfg)
    measure_at = measure_schedule(cfg)  # {} when all measures are off: one dict lookup per step
    history: list[dict] = []
    Xtr, ytr, chunk = exp.X_train, exp.y_train, cfg.eval.chunk
    status, step = "running", start
    measured: dict = {}  # scalars of the latest measured step
    t0 = time.perf_counter() - wall0

    def checkpoint(step: int) -> None:
        store.save_checkpoint({
            "step": step, "model": model.state_dict(), "optimizer": opt.state_dict(),
            "tracker": tracker.state_dict(), "wall_s": time.perf_counter() - t0, "eval_s": eval_s,
            "last_eval": last_eval, "last": last, "measure_s": measure_s, "last_measured": last_measured,
            **{k: v.state_dict() for k, v in stateful.items()}},
            keep=bool(cfg.checkpoint_keep) and step % cfg.checkpoint_keep == 0)
        store.write_summary(_summary("running", step, time.perf_counter() - t0, eval_s, tracker, last, exp,
                                     measure_s))

    from tqdm.auto import tqdm  # imported late: the CLI starts faster

    bar = tqdm(total=cfg.steps, initial=start, disable=not cfg.progress, unit="step", dynamic_ncols=True,
               desc=f"{cfg.task.name if cfg.task.name != 'poly' else cfg.task.expr} {cfg.model.name}")
    try:
        while True:
            # -- measures on their own schedules; their scalars join this step's metrics row
            if step in measure_at and step != last_measured:
                tm = time.perf_counter()
                measured, arrays = run_measures(exp, step, measure_at[step])
                if store is not None:
                    save_arrays(store.path, step, arrays)
                measure_s += time.perf_counter() - tm
                last_measured = step
                if not (step in schedule and step != last_eval):
                    row = {"step": step, **measured}
                    history.append(row)
                    if store is not None:
                        store.append(row)
            # -- evaluate on the schedule (the resumed step was evaluated before its checkpoint)
            if step in schedule and step != last_eval:
                te = time.perf_counter()
                train_loss, train_acc = evaluate(model, Xtr, ytr, chunk, loss_fn)
                test_loss, test_acc = evaluate(model, exp.X_test, exp.y_test, chunk, loss_fn)
                eval_s += time.perf_counter() - te
                last_eval = step
                last = {"step": step, "train/loss": train_loss, "train/acc": train_acc,
                        "test/loss": test_loss, "test/acc": test_acc,
                        "time/wall_s": round(time.perf_counter() - t0, 4),
                        **(measured if last_measured == step else {})}
                if adapt is not None:  # the ratio in effect for the steps up to this one
                    last.update({"optim/c": adapt.c, "optim/f_E": adapt.f_E})
                history.append(last)
                if store is not None:
                    store.append(last)
                if sink is not None:
                    sink.log(last)
                tracker.update(step, train_acc, test_acc)
                bar.update(step - bar.n)
                bar.set_postfix_str(f"train {train_acc:.3f} test {test_acc:.3f}", refresh=False)
                if not (math.isfinite(train_loss) and math.isfinite(test_loss)):
                    status = "diverged"
                    break
                if tracker.should_stop(step):
                    status = "early_stop"
                    break
            if step >= cfg.steps:
                status = "completed"
                break
            if store is not None and step > start and (cfg.checkpoint_every and step % cfg.checkpoint_every == 0
                                                       or cfg.checkpoint_keep and step % cfg.checkpoint_keep == 0):
                checkpoint(step)

            # -- one optimizer step
            idx = sampler.batch(step)
            xb, yb = (Xtr, ytr) if idx is None else (Xtr[idx], ytr[idx])
            if lr_on:
                c = adapt.observe(step, xb) if adapt is not None else o.ratio
                set_lr(opt, o.lr * lr_factor(step, o.schedule, o.warmup, decay_end, o.final_frac), c)
            loss = loss_fn(model(xb), yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if grad_filter is not None:
                grad_filter()  # Grokfast: amplify the slow gradient component
            if o.ortho_grad:
                ortho_grad_(params)
            if E_w is not None:
                sampler.observe(xb, E_w.grad)
            opt.step()
            step += 1
    except KeyboardInterrupt:
        status = "interrupted"
    finally:
        bar.close()
    wall = time.perf_counter() - t0
    summary = _summary(status, step, wall, eval_s, tracker, last, exp, measure_s)
    if measure_at:
        summary["corr/MED_test_loss"] = med_test_loss_corr(read_metrics(store.path) if store else history)
    if store is not None:
        if status in ("completed", "early_stop"):
            checkpoint(step)  # the final state, for measures after the fact
        store.write_summary(summary)
        store.close()
    if sink is not None:
        sink.close()
    if status == "interrupted":
        raise KeyboardInterrupt
    return RunResult(summary, history, store.path if store else None, model)
