"""GrokBench II's compact evaluation evidence: exact counts that give back the logged floats, the same bytes for
the same runs, damage refused in one line, and an evaluation that goes on from what it packed."""
import shutil

import numpy as np
import pytest

from groklab.errors import ConfigError
from groklab.experiments.grokbench import evals as E

RUN = ["task=add", "p=7", "model.d_emb=4", "model.d_hidden=16", "batch_size=8", "eval.every=10",
       "eval.log_points=0", "bar=false", "split.frac_train=0.6"]


def _evals(seeds, steps=30):
    return {f"eval/add/adamw/k1/s{s}": {"overrides": [*RUN, f"seed={s}", f"steps={steps}"]} for s in seeds}


def test_records_round_trip_exactly_and_the_same_runs_give_the_same_bytes(tmp_path):
    rec = {"eval/add/m/k1/s0": {"digest": E.digest(["steps=5"]), "n_test": 7, "n_train": 3, "status": "completed",
                                "wall_s": 1.25, "step": [0, 5, 10], "test": [0, 7, 3], "train": [1, 3, 3]},
           "eval/add/m/k1/s1": {"digest": E.digest(["steps=9"]), "n_test": 7, "n_train": 3, "status": "diverged",
                                "wall_s": 0.5, "step": [0], "test": [2], "train": [0]}}
    E.save(tmp_path / "a.npz", rec)
    E.save(tmp_path / "b.npz", dict(reversed(list(rec.items()))))
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    assert E.load(tmp_path / "a.npz") == rec and E.load(tmp_path / "none.npz") == {}
    rows = E.rows(rec)
    assert rows["test/acc"].tolist() == [0 / 7, 7 / 7, 3 / 7, 2 / 7] and rows["run"].nunique() == 2
    assert E.digest(["a=1", "b=2"]) != E.digest(["b=2", "a=1"])


@pytest.mark.parametrize("damage, match", [
    (lambda a: a.update(test=a["test"] + 9), "counts must lie"),
    (lambda a: a.update(step=np.zeros_like(a["step"])), "steps must increase"),
    (lambda a: a.update(length=a["length"] + 1), "sum of the runs' lengths"),
    (lambda a: a.update(names=np.array(["x", "x"])), "appears twice"),
    (lambda a: a.update(n_test=a["n_test"].astype(float)), "kind 'i'"),
    (lambda a: a.pop("digest"), "not a GrokBench evaluation file"),
])
def test_damage_is_one_line_naming_the_file(tmp_path, damage, match):
    rec = {f"eval/add/m/k1/s{s}": {"digest": "0" * 16, "n_test": 5, "n_train": 5, "status": "completed",
                                   "wall_s": 1.0, "step": [0, 10], "test": [1, 5], "train": [2, 5]} for s in (0, 1)}
    E.save(tmp_path / "a.npz", rec)
    with np.load(tmp_path / "a.npz") as z:
        arrays = {k: z[k] for k in z.files}
    damage(arrays)
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ConfigError, match=match):
        E.load(tmp_path / "bad.npz")
    (tmp_path / "pickled.npz").write_bytes(b"PK not a zip")
    with pytest.raises(ConfigError, match="not a GrokBench evaluation file"):
        E.load(tmp_path / "pickled.npz")


def test_an_evaluation_goes_on_from_its_packed_runs_and_refuses_a_stale_one(tmp_path, monkeypatch):
    from groklab.experiments.grokbench import runs
    from groklab.experiments.grokbench.bench_v2 import evaluate
    from groklab.store import read_metrics

    out, said = tmp_path / "gb", []
    evaluate(out, _evals([0, 1, 2]), jobs=1, echo=said.append, chunk=2)
    packed = E.load(out / "evals/add.npz")
    assert sorted(packed) == sorted(_evals([0, 1, 2]))
    logged = [r["test/acc"] for r in read_metrics(out / "eval/add/adamw/k1/s2")]
    assert [c / packed["eval/add/adamw/k1/s2"]["n_test"] for c in packed["eval/add/adamw/k1/s2"]["test"]] == logged
    shutil.rmtree(out / "eval")  # another machine: the packed file alone carries the finished runs
    trained = []
    real = runs.train_runs
    monkeypatch.setattr(runs, "train_runs", lambda o, r, *a: (trained.extend(r), real(o, r, *a)))
    said.clear()
    evaluate(out, _evals([0, 1, 2, 3]), jobs=1, echo=said.append, chunk=2)
    assert trained == ["eval/add/adamw/k1/s3"] and "(3 packed before)" in said[0]
    assert len(E.load(out / "evals/add.npz")) == 4
    with pytest.raises(ConfigError, match="overrides this protocol and selection do not draw"):
        evaluate(out, _evals([0, 1, 2, 3], steps=40), jobs=1, echo=said.append)


def test_runs_carried_in_reuse_are_adopted_only_where_the_draw_repeats_their_overrides(tmp_path, monkeypatch):
    """The budget check (benchmarks/grokbench_budget.py): another benchmark's packed runs lie in reuse/; a run is
    adopted where this draw gives it the same overrides, and one whose choice changed is trained anew."""
    from groklab.experiments.grokbench import runs
    from groklab.experiments.grokbench.bench_v2 import evaluate

    first = tmp_path / "gb"
    evaluate(first, _evals([0, 1]), jobs=1, echo=lambda *_: None)
    second = tmp_path / "gb-x2"
    (second / "reuse").mkdir(parents=True)
    shutil.copyfile(first / "evals/add.npz", second / "reuse/add.npz")
    draw = {**_evals([0]), **{k: {"overrides": [*v["overrides"], "optim.lr=0.002"]}
                             for k, v in _evals([1]).items()}}  # seed 1's choice changed
    trained, said = [], []
    real = runs.train_runs
    monkeypatch.setattr(runs, "train_runs", lambda o, r, *a: (trained.extend(r), real(o, r, *a)))
    evaluate(second, draw, jobs=1, echo=said.append)
    assert trained == ["eval/add/adamw/k1/s1"] and any("1 evaluation runs of add carried" in x for x in said)
    got = E.load(second / "evals/add.npz")
    assert got["eval/add/adamw/k1/s0"] == E.load(first / "evals/add.npz")["eval/add/adamw/k1/s0"]
    assert got["eval/add/adamw/k1/s1"]["digest"] == E.digest(draw["eval/add/adamw/k1/s1"]["overrides"])


def test_the_board_names_studies_that_chose_their_nested_point_and_when_that_is_the_baseline():
    """Adam-LR at c = 1 and Grokfast at lambda = 0 run AdamW: a study choosing that point races AdamW itself at the
    ranges' middles, so the board says its score measures the baseline's tuning (GrokBench II, Transformer add)."""
    from groklab.experiments.grokbench.board_v2 import nested_line
    from groklab.experiments.grokbench.protocol import Method, fixed_trials

    tune = {"optim.lr": {"log": [1e-4, 1e-1]}, "optim.weight_decay": {"log": [1e-2, 10.0]}}
    methods = {"adamw": {"about": "a", "set": ["optim.name=adamw"], "tune": tune, "nested": {"optim.weight_decay": 0}},
               "adam_lr": {"about": "b", "set": ["optim.name=adamw"], "nested": {"optim.c": 1},
                           "tune": {**tune, "optim.c": {"log": [1.0, 100.0]}}},
               "adam": {"about": "c", "set": ["optim.name=adam"], "tune": tune, "nested": {"optim.weight_decay": 0}}}
    point = {n: fixed_trials(Method(**m))[0] for n, m in methods.items()}
    doc = {"protocol": {"baseline": "adamw"}, "methods": methods, "tasks": ["add"]}
    sel = {"add": {"adamw": {100: {"values": point["adamw"]}},  # the baseline's own nested point: not listed
                   "adam_lr": {100: {"values": point["adam_lr"]}, 101: {"values": {**point["adam_lr"], "optim.c": 3}}},
                   "adam": {100: {"values": point["adam"]}}}}
    line = nested_line(doc, sel)
    assert "add/adam_lr in 1 of 2 studies (= adamw)" in line and "add/adam in 1 of 1 studies;" not in line
    assert "add/adam in 1 of 1 studies." in line and "add/adamw" not in line
    sel["add"]["adam_lr"][100]["values"] = {**point["adam_lr"], "optim.lr": 0.001}
    del sel["add"]["adam"]
    assert nested_line(doc, sel).endswith(": none.")
