"""Successive-halving tuning (sweep.tune): rungs, the score, the step budget, enqueued trials and replay."""
import pytest

from groklab.errors import ConfigError
from groklab.sweep.tune import rungs, score, tune

# p = 13 at 90% of the table: lr 0.03 reaches test accuracy ~0.8 in 400 steps, lr 0.003 stays at chance
BASE = ["task=add", "p=13", "split.frac_train=0.9", "model.name=mlp_emb", "model.d_emb=16", "model.d_hidden=64",
        "batch_size=32", "steps=400", "eval.every=20", "eval.log_points=0", "stop.patience=40", "bar=false",
        "optim.name=adamw", "optim.weight_decay=1.0"]
SPACE = {"optim.lr": ("log", 1e-3, 1e-1)}


def test_rungs_and_score():
    assert rungs(40, 2, 160) == [40, 80, 160] and rungs(60, 3, 200) == [60, 180, 200] and rungs(5, 2, 5) == [5]
    with pytest.raises(ConfigError, match="eta"):
        rungs(10, 1, 100)
    rows = [{"step": s, "test/acc": a} for s, a in ((0, 0.1), (10, 0.99), (20, 0.5), (30, 0.99), (40, 0.995))]
    assert score(rows, 40, 100, 0.99, 0) == pytest.approx(2 - 10 / 100)  # persistence 0: the first touch
    # touched at 10 but fell back: held from 30 (10 steps), earlier beats later, any grok beats none
    assert score(rows, 40, 40, 0.99, 10) == pytest.approx(2 - 30 / 40)
    # at a rung before the horizon a streak the rung cuts short is not yet a grok: the best accuracy so far
    assert score(rows, 40, 100, 0.99, 20) == pytest.approx(0.995)
    assert score(rows, 40, 40, 0.99, 20) == pytest.approx(2 - 30 / 40)  # at the run's end it counts (held_from)
    assert score([], 40, 100, 0.99, 0) is None


def test_tune_spends_at_most_its_budget_prunes_and_replays(tmp_path):
    out = tmp_path / "t"
    got = tune(BASE, SPACE, out, budget=3000, min_steps=50, eta=2, seed=0, enqueue=[{"optim.lr": 0.01}])
    assert got.used <= 3000 and len(got.trials) >= 8
    assert got.trials[0].params == {"optim.lr": 0.01} and got.trials[0].number == -1  # the fixed trial first
    assert got.trials[0].state == "complete" and (out / "fixed-0").is_dir()  # a reference: never pruned
    states = {t.state for t in got.trials}
    assert "pruned" in states and "complete" in states  # halving ended some trials at a rung
    assert sum(t.steps for t in got.trials) == got.used
    assert got.best is not None and got.best.score == max(t.score for t in got.trials if t.state == "complete")
    lines = (out / "trials.csv").read_text().splitlines()
    assert lines[0] == "trial,optim.lr,state,steps,score,run,rungs" and len(lines) == len(got.trials) + 1
    before = {p: p.stat().st_mtime_ns for p in out.glob("trial-*/metrics.jsonl")}
    again = tune(BASE, SPACE, out, budget=3000, min_steps=50, eta=2, seed=0, enqueue=[{"optim.lr": 0.01}])
    assert [(t.params, t.state, t.steps, t.score) for t in again.trials] == \
        [(t.params, t.state, t.steps, t.score) for t in got.trials]
    assert {p: p.stat().st_mtime_ns for p in out.glob("trial-*/metrics.jsonl")} == before  # nothing retrained


def test_a_trial_that_stops_after_a_rung_replays_the_same_tuning(tmp_path):
    """A run that went on past a rung and stopped early later (stop.patience) ended at its last step, not at the
    rung: replaying the tuning from its folders reads the rung as the first pass saw it (until 2026-12-07 the last
    status made the replay end such a trial at the rung, and ask different trials after it)."""
    base = BASE + ["task=mul", "split.frac_train=0.95", "stop.patience=20"]
    kw = dict(budget=3000, min_steps=50, eta=2, seed=0, enqueue=[{"optim.lr": 0.01}])
    got = tune(base, SPACE, tmp_path / "t", **kw)
    late = [t for t in got.trials if t.state == "complete" and t.steps < 400 and len(t.rungs) > 1]
    assert late  # a trial continued past a rung and stopped early: the case at stake
    again = tune(base, SPACE, tmp_path / "t", **kw)
    assert [(t.number, t.state, t.steps, t.score) for t in again.trials] == \
        [(t.number, t.state, t.steps, t.score) for t in got.trials] and again.used == got.used


def test_the_ledger_alone_replays_a_tuning_and_a_missing_rung_is_retrained(tmp_path, monkeypatch):
    """trials.csv carried without its run folders (another machine): the same trials, states, steps and scores,
    nothing trained; a trial whose ledger lost its last rung is trained again, to the same score."""
    import shutil

    import groklab.engine

    kw = dict(budget=2000, min_steps=50, eta=2, seed=1, enqueue=[{"optim.lr": 0.01}])
    got = tune(BASE, SPACE, tmp_path / "t", **kw)
    seen = [(t.number, t.params, t.state, t.steps, t.score) for t in got.trials]
    carried = tmp_path / "c"
    carried.mkdir()
    for f in (".groklab", "trials.csv"):
        shutil.copy(tmp_path / "t" / f, carried / f)

    def refuse(*a, **k):
        raise AssertionError("trained a rung the ledger holds")

    with monkeypatch.context() as m:
        m.setattr(groklab.engine, "train", refuse)
        again = tune(BASE, SPACE, carried, **kw)
    assert [(t.number, t.params, t.state, t.steps, t.score) for t in again.trials] == seen and again.used == got.used
    assert not list(carried.glob("trial-*"))
    # the longest-trained sampled trial loses its last rung from the ledger: only that rung's run is trained
    last = max((t for t in got.trials if t.number >= 0), key=lambda t: (len(t.rungs), t.number))
    text = (carried / "trials.csv").read_text().splitlines()
    i = next(k for k, line in enumerate(text) if line.startswith(f"{last.number},"))
    text[i] = text[i].rsplit(";", 1)[0]
    (carried / "trials.csv").write_text("\n".join(text) + "\n")
    third = tune(BASE, SPACE, carried, **kw)
    assert [(t.number, t.params, t.state, t.steps, t.score) for t in third.trials] == seen
    assert [p.name for p in carried.glob("trial-*")] == [last.run.name]
    (carried / "trials.csv").write_text("trial,optim.lr,state,steps,score,run,rungs\n0,0.01,complete,50,1,"
                                        "trial-000,50:x:1:0\n")
    with pytest.raises(ConfigError, match="rungs"):
        tune(BASE, SPACE, carried, **kw)


def test_a_resumed_rung_equals_a_run_trained_straight(tmp_path):
    from groklab.config import make_config
    from groklab.engine import train
    from groklab.store import RunStore

    cfg = BASE + ["optim.lr=0.003", "stop.early=false"]
    train(make_config(cfg + ["steps=60"]), out=tmp_path / "r")
    train(resume=tmp_path / "r", steps=120)
    train(make_config(cfg + ["steps=120"]), out=tmp_path / "s")
    a, b = RunStore(tmp_path / "r").rows(), RunStore(tmp_path / "s").rows()
    assert [(r["step"], r["test/acc"], r["train/loss"]) for r in a] == \
        [(r["step"], r["test/acc"], r["train/loss"]) for r in b]


def test_bad_arguments_name_the_field(tmp_path):
    with pytest.raises(ConfigError, match="sampler"):
        tune(BASE, SPACE, tmp_path, budget=100, min_steps=40, sampler="grid")
    with pytest.raises(ConfigError, match="budget"):
        tune(BASE, SPACE, tmp_path, budget=0, min_steps=40)
    with pytest.raises(ConfigError, match="space.optim.lr"):
        tune(BASE, {"optim.lr": ("normal", 0, 1)}, tmp_path, budget=100, min_steps=40)
    assert not any(tmp_path.iterdir())  # nothing written
