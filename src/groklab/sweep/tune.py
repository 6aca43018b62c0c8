"""Successive-halving tuning of one configuration space on one task, through Optuna (ask and tell), counted in training
steps.

A trial is one configuration Optuna's sampler draws from a declared space. It trains on the tuning seed to the first
rung, reports its score there, and goes on by exact resume (engine.train(resume=..., steps=next rung)) while
Optuna's SuccessiveHalvingPruner keeps it (asynchronous successive halving: rung k at min_steps x eta^k, a trial
continues if it is in the top 1 / eta of the trials that reached that rung). Trials are asked until the steps
trained -- every rung of every trial -- reach the budget; a continuation the budget cannot pay ends its trial there,
so no space spends more than the budget. Fixed trials (`enqueue`: a published recipe, the nested baseline point,
which may lie outside a log range) run first, outside the sampler and never pruned: references trained to the
horizon, their steps counted in the budget.

Score (higher is better), from the run's evals up to the rung: 2 - t / horizon where t = measures.curves.held_from
(test accuracy reached `level` and held `persistence` steps, or to the run's end: a rung is no end); otherwise the
best test accuracy so far (in [0, 1]). A run that grokked beats every run that did not, and earlier beats later.

Replaces hand-drawn Latin hypercubes trained each to the horizon: at eta = 3 the same budget tries several times as
many configurations. Training is deterministic, and so are the sampler (seeded) and the pruner given the scores:
calling `tune` again on the same `out` replays the same trials and reads the finished rungs from their run
directories, so a killed tuning resumes where it stopped, training nothing twice. trials.csv is also a ledger: its
`rungs` column keeps every rung's steps reached, score and whether the run ended there, so a replay needs no run
directory for a rung the ledger holds (a tuning carried to another machine as its trials.csv files alone resumes
exactly: a rung the ledger lacks is trained from scratch, which equals resuming it).
"""
from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from groklab.errors import ConfigError
from groklab.measures.curves import held_from
from groklab.store.escape import csv_cell
from groklab.store.files import atomic_write, read_text
from groklab.store.tree import check_out, make_out

SAMPLERS = ("qmc", "tpe")
FINAL = ("early_stop", "diverged")  # a run stopped before its rung: its score is final


@dataclass
class Trial:
    number: int  # Optuna's trial number; the fixed trials -1, -2, ... (run folders fixed-0, fixed-1, ...)
    params: dict
    run: Path
    steps: int = 0  # steps trained (the last rung it reached)
    score: float | None = None
    state: str = "running"  # complete, pruned or budget (its next rung did not fit the budget)
    rungs: dict = field(default_factory=dict)  # rung -> (steps reached, score, the run ended there): the ledger


@dataclass
class Tuned:
    trials: list[Trial] = field(default_factory=list)
    budget: int = 0
    used: int = 0

    @property
    def best(self) -> Trial | None:
        done = [t for t in self.trials if t.state == "complete" and t.score is not None]
        return max(done, key=lambda t: (t.score, -t.number)) if done else None


def rungs(min_steps: int, eta: int, horizon: int) -> list[int]:
    """The steps at which trials are compared: min_steps x eta^k below the horizon, then the horizon."""
    if not (isinstance(min_steps, int) and 0 < min_steps <= horizon):
        raise ConfigError("min_steps", min_steps, f"must be an integer in [1, horizon={horizon}]")
    if not (isinstance(eta, int) and eta >= 2):
        raise ConfigError("eta", eta, "must be an integer >= 2 (the reduction factor)")
    out = [min_steps * eta**k for k in range(int(math.log(horizon / min_steps, eta) + 1e-9) + 1)]
    return [r for r in out if r < horizon] + [horizon]


def score(rows: Sequence[dict], upto: int, horizon: int, level: float, persistence: float) -> float | None:
    """The trial's score from its eval rows at steps <= `upto` (module doc); None without an eval."""
    ev = [(r["step"], r["test/acc"]) for r in rows if r.get("test/acc") is not None and r["step"] <= upto]
    if not ev:
        return None
    t = held_from([s for s, _ in ev], [a for _, a in ev], level, persistence)
    if t is not None and upto < horizon and ev[-1][0] - t < persistence:
        t = None  # a streak the rung cuts short: held_from counts one the run's end cuts, a rung is no end
    return 2.0 - t / horizon if t is not None else max(a for _, a in ev)


def _distribution(name: str, spec):
    import optuna

    kind, *args = spec
    if kind == "log":
        return optuna.distributions.FloatDistribution(args[0], args[1], log=True)
    if kind == "uniform":
        return optuna.distributions.FloatDistribution(args[0], args[1])
    if kind == "choice":
        return optuna.distributions.CategoricalDistribution(list(args[0]))
    raise ConfigError(f"space.{name}", kind, "allowed: ('log', lo, hi), ('uniform', lo, hi), ('choice', [values])")


def tune(base: Sequence[str], space: dict, out: str | Path, *, budget: int, min_steps: int, eta: int = 3,
         seed: int = 0, sampler: str = "qmc", level: float = 0.99, persistence: float = 0.0,
         enqueue: Sequence[dict] = ()) -> Tuned:
    """Tune `space` ({config key: ('log', lo, hi) | ('uniform', lo, hi) | ('choice', [values])}) over the config
    `base` (overrides, its `steps` the horizon), trials in `out`/trial-NNN, `enqueue`d configurations first; writes
    `out`/trials.csv. Returns every trial, the steps used and the best complete trial."""
    import optuna

    from groklab.config import make_config
    from groklab.engine import train
    from groklab.store import RunStore, is_run

    if sampler not in SAMPLERS:
        raise ConfigError("sampler", sampler, f"allowed: {', '.join(SAMPLERS)}")
    if not (isinstance(budget, int) and budget > 0):
        raise ConfigError("budget", budget, "must be a positive integer (training steps)")
    cfg = make_config(list(base))
    horizon, out = cfg.steps, check_out(out)  # a folder groklab marked, or a new one: refused before any write
    steps = rungs(min_steps, eta, horizon)
    dists = {k: _distribution(k, v) for k, v in space.items()}
    make_out(out)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    pick = (optuna.samplers.QMCSampler(seed=seed, scramble=True, warn_independent_sampling=False)
            if sampler == "qmc" else optuna.samplers.TPESampler(seed=seed))
    study = optuna.create_study(direction="maximize", sampler=pick,
                                pruner=optuna.pruners.SuccessiveHalvingPruner(min_resource=min_steps,
                                                                              reduction_factor=eta))
    result = Tuned(budget=budget)
    ledger = _ledger(out)

    def rungs_of(t: Trial, trial=None) -> None:
        """Train `t` rung by rung while the budget pays; an Optuna `trial` is reported to and may be pruned."""
        over = [f"{k}={v}" for k, v in t.params.items()]
        for r in steps:
            if result.used + (r - t.steps) > budget:
                t.state = "budget"
                return
            kept = ledger.get(t.run.name, {}).get(r) if not is_run(t.run) else None
            if kept is not None:  # the ledger's rung: no run directory needed
                reached, t.score, final = kept
            else:
                have = RunStore(t.run).summary() if is_run(t.run) else {}
                if not have:
                    train(make_config(list(base) + over + [f"steps={r}"]), out=t.run)
                elif have.get("status") not in FINAL and have.get("steps", 0) < r:
                    train(resume=t.run, steps=r)
                done = RunStore(t.run).summary()
                # a replayed run may have gone on past this rung and stopped later: it ended here only if its
                # steps do not pass the rung (reading its last status at every rung replayed a different tuning)
                reached = min(r, done.get("steps", r))
                final = done.get("status") in FINAL and done.get("steps", r) <= r
                end = horizon if final else r  # a run stopped early ended there: its streak counts
                t.score = score(RunStore(t.run).rows(), end, horizon, level, persistence)
            result.used += reached - t.steps
            t.steps, t.rungs[r] = reached, (reached, t.score, final)
            if final or r == horizon:
                t.state = "complete"
                return
            if trial is not None:
                trial.report(t.score if t.score is not None else 0.0, r)
                if trial.should_prune():
                    t.state = "pruned"
                    return

    # the fixed trials first, outside the sampler (a nested point may lie outside a log range) and never pruned:
    # references trained to the horizon, their steps counted in the budget like any trial's
    for i, params in enumerate(enqueue):
        if result.used + steps[0] > budget:
            break
        t = Trial(-1 - i, dict(params), out / f"fixed-{i}")
        result.trials.append(t)
        rungs_of(t)
        _write(out, result)
    while result.used + steps[0] <= budget:
        trial = study.ask(dists)
        t = Trial(trial.number, dict(trial.params), out / f"trial-{trial.number:03d}")
        result.trials.append(t)
        rungs_of(t, trial)
        if t.state == "complete":
            study.tell(trial, t.score)
        else:
            study.tell(trial, state=optuna.trial.TrialState.PRUNED)
        _write(out, result)
    return result


def _write(out: Path, result: Tuned) -> None:
    keys = sorted({k for t in result.trials for k in t.params})
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["trial", *keys, "state", "steps", "score", "run", "rungs"])
    for t in result.trials:  # rungs: rung:reached:score:ended, ';'-joined, the score exact (repr) for the pruner
        kept = ";".join(f"{r}:{n}:{'' if x is None else repr(float(x))}:{int(f)}" for r, (n, x, f) in t.rungs.items())
        w.writerow([t.number, *(csv_cell(t.params.get(k, "")) for k in keys), t.state, t.steps,
                    "" if t.score is None else f"{t.score:.6g}", t.run.name, kept])
    atomic_write(out / "trials.csv", buf.getvalue())


def _ledger(out: Path) -> dict[str, dict[int, tuple]]:
    """{run folder name: {rung: (steps reached, score, ended)}} from `out`/trials.csv's rungs column ({} when the
    file is missing or predates the column); a malformed cell is refused, naming it."""
    path = out / "trials.csv"
    if not path.is_file():
        return {}
    got = {}
    for row in csv.DictReader(io.StringIO(read_text(path))):  # the store's reader: a regular file, UTF-8
        cells = {}
        for cell in filter(None, (row.get("rungs") or "").split(";")):
            try:
                r, n, x, f = cell.split(":")
                cells[int(r)] = (int(n), float(x) if x else None, f == "1")
            except ValueError:
                raise ConfigError("trials.csv rungs", cell, "must be rung:reached:score:ended (integers, a float "
                                  "or empty, 0 or 1)") from None
        got[row.get("run") or ""] = cells  # a row without a run folder name matches no trial
    return got
