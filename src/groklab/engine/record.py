"""RunRecord: everything about one run's life except its arithmetic.

Eval and measure schedules, metric rows, grokking events and early stop, divergence, sinks (TensorBoard,
W&B), atomic checkpoints, exact resume, the summary. A record is made without touching the disk (so a
population is validated whole first), then `open()`s its run directory as the one writer.
"""
from __future__ import annotations

import math
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import torch

from groklab.config import Config, make_config
from groklab.engine.budget import check_work
from groklab.engine.evals import eval_schedule
from groklab.engine.setup import RunSetup
from groklab.engine.track import open_sinks
from groklab.errors import ConfigError, RunBusy, StoreError, notice
from groklab.measures import GrokTracker, measure_schedule
from groklab.store import RunStore, is_run
from groklab.store.run import RESUMABLE_CHANGES, RESUME_HINT, RESUME_KEYS, differences

MODES = ("new", "resume", "auto")  # auto: resume an unfinished run, skip a finished one, else new
# the entropy sampler's settings: no difference between two runs that both use another sampler
ENTROPY_KNOBS = ("sampler_gamma", "sampler_tau", "sampler_beta")


@dataclass
class RunResult:
    summary: dict
    history: list[dict] = field(default_factory=list)  # the metric rows of this call
    path: Optional[Path] = None
    model: Optional[torch.nn.Module] = None


class RunRecord:
    def __init__(self, cfg: Config, out=None, mode: str = "new"):
        """Check what `out` holds against `mode`, reading only. Sets `done` for a finished run (auto)."""
        if mode not in MODES:
            raise ConfigError("mode", mode, f"allowed: {', '.join(MODES)}")
        self.cfg, self.out, self.mode = cfg, None if out is None else Path(out), mode
        self.tracker = GrokTracker(cfg.grok.train_acc, cfg.grok.test_acc, cfg.stop.target,
                                   cfg.stop.patience if cfg.stop.early else None, cfg.grok.rise,
                                   plateau=cfg.stop.plateau, plateau_tol=cfg.stop.plateau_tol)
        check_work(cfg)  # before the schedules: a measure every step of 10^8 steps is refused, not tabulated
        # the eval schedule: fixed now, or (eval.every unset) when the data sizes are known (open)
        self.schedule = eval_schedule(cfg)[0] if cfg.eval.every is not None else set()
        self.measure_at = measure_schedule(cfg)
        self.start, self.wall0, self.eval_s, self.measure_s = 0, 0.0, 0.0, 0.0
        self.last_eval, self.last_measured = -1, -1
        self.last, self.measured, self.history, self.n_rows = {}, {}, [], 0
        self.status, self.step, self.done, self.info = "running", 0, None, {}
        self.loss0, self.over = None, 0  # the first train loss; evals in a row above diverge_factor times it
        self.model, self.now = None, 0.0  # set by finish()
        self.store, self.sink, self.ckpt, self.resume = None, None, None, False
        if self.out is None or (mode == "new" and not is_run(self.out)):
            return  # new: RunStore.create refuses a used directory
        if mode == "new":
            raise ConfigError("out", str(self.out), RESUME_HINT)
        if not is_run(self.out):
            if mode == "resume":
                raise ConfigError("run", str(self.out), "not a run directory (no config.yaml)")
            return
        store = RunStore(self.out)
        on_disk = make_config(base=store.config())
        if mode == "auto" and on_disk != cfg:
            # a run stored before the entropy sampler's defaults changed is still the same run
            unused = () if "entropy" in (cfg.sampler, on_disk.sampler) else ENTROPY_KNOBS
            diff = differences(on_disk.to_dict(), cfg.to_dict(), ignore=("bar", *unused))
            if diff:
                raise ConfigError("out", str(self.out), f"holds a run with a different config ({diff[0]}); "
                                  "use a new out directory")
        if mode == "auto" and store.finished:
            self.done = RunResult(store.summary(), store.rows(), self.out)
            return
        self.resume = True
        if store.has_checkpoint():
            self.ckpt = store.load_checkpoint()
            lacks = [k for k in RESUME_KEYS if k not in self.ckpt]
            if lacks:  # e.g. weights only (an archive's), or written by another program
                raise store.error("checkpoint", f"lacks {', '.join(lacks)}: a run cannot resume from it; "
                                  "train a new run")
            self.start = self.ckpt["step"]
            stored = self.ckpt.get("config")  # checkpoints since 0.2 carry the config they were trained with
            diff = differences(stored, store.config(), RESUMABLE_CHANGES) if stored is not None else []
            if diff:
                raise store.error("config", f"differs from the config its checkpoint was trained with ({diff[0]}); "
                                  "restore it, or train a new run")

    # -- opening: the one writer of the run directory --------------------------------------
    def open(self, exp: RunSetup) -> None:
        """Take the run directory (lock), restore `exp` from the checkpoint, drop rows past it, open sinks."""
        self.info = {"n_train": len(exp.y_train), "n_test": len(exp.y_test),
                     "n_params": sum(t.numel() for t in exp.model.parameters()), "device": str(exp.device)}
        if self.cfg.eval.every is None:  # auto: spaced by what an evaluation costs against a step
            n_train = len(exp.y_train)
            self.schedule, every, n_log = eval_schedule(self.cfg, n_train, n_train + len(exp.y_test))
            self.info.update({"eval/every": every, "eval/log_points": n_log})
        if exp.split.note:  # e.g. a SQUARE/STRIP training set capped at what the holdout leaves
            self.info["split/note"] = exp.split.note
            notice(f"{self.out or 'run'}: {exp.split.note}")
        if self.out is None:
            return
        if not self.resume:
            try:
                self.store = RunStore.create(self.out, self.cfg.to_dict())
            except RunBusy:
                raise
            except ConfigError:
                if self.mode == "auto" and is_run(self.out):  # another writer (a second sweep on this --out)
                    raise RunBusy(self.out, None) from None  # created it since we looked: it is left to that one
                raise
        else:
            self.store = RunStore.open(self.out, write=True)
            try:
                self._restore(exp)
            except BaseException:
                self.store.close()
                raise
        try:
            self.sink = open_sinks(self.cfg, self.store.path, self.start)
        except BaseException:
            (self.store.close if self.resume else self.store.abandon)()  # no stub folder blocks the rerun
            raise

    def _restore(self, exp: RunSetup) -> None:
        try:
            self.store.summary()
        except StoreError as err:  # derived data: the checkpoint and rows hold everything it says
            notice(f"{err}; it is written anew")
        if self.ckpt is None:
            notice(f"{self.out}: no checkpoint yet; training again from step 0")
        else:
            c = self.ckpt
            try:
                exp.restore(c)
            except (RuntimeError, KeyError, ValueError) as err:
                raise self.store.error("checkpoint", "does not fit the model and optimizer built from the "
                                       f"config ({str(err).splitlines()[0][:100]})") from None
            self.tracker.load_state_dict(c["tracker"])
            self.wall0, self.eval_s, self.last_eval, self.last = c["wall_s"], c["eval_s"], c["last_eval"], c["last"]
            self.measure_s, self.last_measured = c.get("measure_s", 0.0), c.get("last_measured", -1)
            self.loss0, self.over = c.get("loss0"), c.get("over", 0)  # absent before 0.3: from the next eval
        kept = self.store.truncate_after(self.start if self.ckpt is not None else -1)
        if self.store.torn:
            notice(f"{self.out}: dropped a torn last line of metrics.jsonl (a crash mid-write)")
        expected = self.ckpt.get("n_rows") if self.ckpt is not None else None
        if expected is not None and expected != len(kept):
            raise self.store.error("metrics", f"holds {len(kept)} rows up to step {self.start} where the checkpoint "
                                   f"recorded {expected}: rows are missing or were edited; restore the file or train "
                                   "a new run")
        self.n_rows = len(kept)
        self.store.write_config(self.cfg.to_dict())  # a resume may extend `steps`

    # -- the run's life, step by step --------------------------------------------------------
    def measures_due(self, step: int) -> list:
        return self.measure_at.get(step, []) if step != self.last_measured else []

    def log_measures(self, step: int, scalars: dict, arrays: dict, seconds: float) -> None:
        self.measure_s += seconds
        self.measured, self.last_measured = scalars, step
        if self.store is not None:
            self.store.save_arrays(step, arrays)
        if not self.eval_due(step):  # else its scalars join this step's eval row
            self._append({"step": step, **scalars})

    def eval_due(self, step: int) -> bool:
        return step in self.schedule and step != self.last_eval  # the resumed step was evaluated before

    def log_eval(self, step: int, values, seconds: float, now: float, extras: dict) -> None:
        """One eval row (train loss/acc, test loss/acc) -> metrics, events, divergence, early stop."""
        train_loss, train_acc, test_loss, test_acc = (float(v) for v in values)
        self.eval_s += seconds
        self.last_eval = step
        self.last = {"step": step, "train/loss": train_loss, "train/acc": train_acc, "test/loss": test_loss,
                     "test/acc": test_acc, "time/wall_s": round(now + self.wall0, 4),
                     **(self.measured if self.last_measured == step else {}), **extras}
        self._append(self.last)
        if self.sink is not None:
            self.sink.log(self.last)
        self.tracker.update(step, train_acc, test_acc, extras.get("holdout/acc"))
        if not (math.isfinite(train_loss) and math.isfinite(test_loss)):
            self.status, self.info["diverged"] = "diverged", "a loss is not finite"
        elif self._exploded(train_loss):
            self.status = "diverged"
        elif self.tracker.should_stop(step):
            self.status = "early_stop"
            self.info["stopped_by"] = self.tracker.stopped_by

    def _exploded(self, train_loss: float) -> bool:
        """The train loss stayed above stop.diverge_factor x its first value for stop.diverge_evals evals."""
        stop = self.cfg.stop
        if self.loss0 is None:
            self.loss0 = train_loss
        over = stop.diverge_factor is not None and train_loss > stop.diverge_factor * self.loss0
        self.over = self.over + 1 if over else 0
        if self.over >= stop.diverge_evals:
            self.info["diverged"] = (f"train loss {train_loss:.3g} above {stop.diverge_factor:g} x its first value "
                                     f"{self.loss0:.3g} for {self.over} evals")
        return self.over >= stop.diverge_evals

    def _append(self, row: dict) -> None:
        self.history.append(row)
        self.n_rows += 1
        if self.store is not None:
            self.store.append(row)

    def checkpoint_due(self, step: int) -> bool:
        c = self.cfg
        return self.store is not None and step > self.start and (
            bool(c.checkpoint_every) and step % c.checkpoint_every == 0
            or bool(c.checkpoint_keep) and step % c.checkpoint_keep == 0)

    def checkpoint(self, step: int, state: dict, now: float) -> None:
        """Atomic checkpoint of the member's state and this record's, then a `running` summary."""
        keep = bool(self.cfg.checkpoint_keep) and step % self.cfg.checkpoint_keep == 0
        self.store.save_checkpoint({
            "step": step, **state, "tracker": self.tracker.state_dict(), "wall_s": now + self.wall0,
            "eval_s": self.eval_s, "last_eval": self.last_eval, "last": self.last, "measure_s": self.measure_s,
            "last_measured": self.last_measured, "n_rows": self.n_rows, "config": self.cfg.to_dict(),
            "loss0": self.loss0, "over": self.over}, keep=keep)
        self.store.write_summary(self.summary("running", step, now))

    def finish(self, step: int, state: Optional[dict], now: float, model=None) -> None:
        """End the run: the final checkpoint (completed or early stop), the summary; release the directory."""
        self.step, self.now, self.model = step, now, model
        if self.store is not None:
            if state is not None and self.status in ("completed", "early_stop"):
                self.checkpoint(step, state, now)  # the final state, for measures after the fact
            self.store.write_summary(self.summary(self.status, step, now))
        self.close()

    def abort(self, step: int, now: float, err: BaseException) -> None:
        """The run stops early: `interrupted` (Ctrl-C) or `failed` (an exception), saying so in the summary when
        the disk allows; the directory is released either way and the run resumes from its last checkpoint."""
        self.step, self.now = step, now
        self.status = "interrupted" if isinstance(err, KeyboardInterrupt) else "failed"
        try:
            if self.store is not None:
                summary = self.summary(self.status, step, now)
                if self.status == "failed":
                    summary["error"] = f"{type(err).__name__}: {str(err).strip()[:200]}"
                self.store.write_summary(summary)
        except OSError:
            pass  # e.g. the disk is still full: the last checkpoint and its summary stay as they were
        finally:
            self.close()

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
        if self.sink is not None:
            self.sink.close()
            self.sink = None

    def summary(self, status: str, step: int, now: float) -> dict:
        wall, t = now + self.wall0, self.tracker
        share = lambda s: round(s / wall, 4) if wall > 0 else None  # noqa: E731
        return {
            "status": status, "steps": step, "wall_s": round(wall, 3),
            "steps_per_s": round(step / wall, 2) if wall > 0 else None,
            **t.events(),
            "final/train_loss": self.last.get("train/loss"), "final/train_acc": self.last.get("train/acc"),
            "final/test_loss": self.last.get("test/loss"), "final/test_acc": self.last.get("test/acc"),
            "eval_s": round(self.eval_s, 3), "eval_share": share(self.eval_s),
            "measure_s": round(self.measure_s, 3), "measure_share": share(self.measure_s),
            **self.info, "torch": torch.__version__, "python": platform.python_version()}

    def result(self) -> RunResult:
        if self.done is not None:
            return self.done
        return RunResult(self.summary(self.status, self.step, self.now), self.history,
                         self.store.path if self.store else None, self.model)


__all__ = ["MODES", "RunRecord", "RunResult"]
