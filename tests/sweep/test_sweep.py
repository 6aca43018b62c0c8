"""Sweeps: expansion, grouping, interruption and resume, executors agree, statistics over seeds."""
import json
import statistics

import pytest
import yaml

from groklab import ConfigError, make_config
from groklab.cli import main
from groklab.data.sampling import EpochSampler
from groklab.store import read_metrics
from groklab.sweep import expand, format_table, load_sweep, plan, run_units, summarize

BASE = {"p": 11, "task": "add", "model.d_emb": 8, "model.d_hidden": 32, "steps": 30, "batch_size": 16,
        "eval.every": 10, "eval.log_points": 0, "checkpoint_every": 10}


def _sweep(tmp_path, grid=None, seeds=2, **extra):
    f = tmp_path / "sweep.yaml"
    grid = grid or {"optim": ["adam", "adamw"]}
    f.write_text(yaml.safe_dump({"base": BASE, "grid": grid, "seeds": seeds, **extra}))
    return f


def _rows(path):
    return [{k: v for k, v in r.items() if k != "time/wall_s"} for r in read_metrics(path)]


def test_expansion_counts_and_names(tmp_path):
    f = _sweep(tmp_path, {"optim": ["adam", "adamw", "sgd"], "optim.lr": [0.001, 0.01]}, seeds=[3, 4],
               seed_keys=["seed", "split.seed"])
    runs = expand(load_sweep(f), tmp_path / "out")
    assert len(runs) == 3 * 2 * 2 and len({r.out for r in runs}) == 12
    assert runs[0].name == "optim=adam,optim.lr=0.001/seed=3"
    assert runs[0].cfg.seed == 3 and runs[0].cfg.split.seed == 3 and runs[-1].cfg.optim.name == "sgd"
    assert [r.name for r in expand(load_sweep(f), tmp_path / "o2")] == [r.name for r in runs]  # deterministic
    units, done, _ = plan(runs, "sequential")
    assert len(units) == 12 and not done
    units, _, _ = plan(runs, "stacked", members=3)  # grouped by optimizer (not by lr or seed), at most 3 each
    assert sorted(len(u) for u in units) == [1, 1, 1, 3, 3, 3]
    assert all(len({u_r.cfg.optim.name for u_r in u}) == 1 for u in units)


def test_auto_on_a_gpu_stacks_what_stacks_and_leaves_the_rest_alone(tmp_path, monkeypatch):
    """packing=auto on a GPU: the runs that can stack form populations; a run that cannot (the balanced sampler)
    is a unit of its own instead of turning the whole sweep sequential; the MLP's dropout rates stack, each its own
    population (the rate is shared by a stack)."""
    import torch

    from groklab.engine import population

    monkeypatch.setattr(population, "resolve_device", lambda _: torch.device("cuda"))
    f = _sweep(tmp_path, {"sampler": ["epoch", "balanced"], "optim.lr": [0.001, 0.01]}, seeds=[0, 1])
    units, _, _ = plan(expand(load_sweep(f), tmp_path / "out"), "auto")
    assert sorted(len(u) for u in units) == [1, 1, 1, 1, 4]
    assert all(r.cfg.sampler == "epoch" for u in units if len(u) > 1 for r in u)
    (tmp_path / "d").mkdir()
    f = _sweep(tmp_path / "d", {"model.dropout": [0.0, 0.2], "optim.lr": [0.001, 0.01]}, seeds=[0, 1])
    units, _, _ = plan(expand(load_sweep(f), tmp_path / "d" / "out"), "auto")
    assert sorted(len(u) for u in units) == [4, 4]
    assert all(len({r.cfg.model.dropout for r in u}) == 1 for u in units)


def test_stacked_full_batch_runs_of_unequal_training_sizes_share_one_population(tmp_path):
    """STRIP holdouts at frac 0.5 of the table: k = 1 leaves 121 - 22 = 99 rows (60 trained), k = 7 leaves 33 (all
    trained): full batches of unequal sizes are padded (padded rows weigh 0), so the three form one population."""
    f = _sweep(tmp_path, {"split.k": [1, 2, 7]}, seeds=[0], base={"p": 11, "task": "add", "sampler": "full",
               "split": "strip", "split.frac_train": 0.5, "steps": 3, "eval.every": 1, "bar": False,
               "model.d_emb": 8, "model.d_hidden": 16})
    runs = expand(load_sweep(f), tmp_path / "out")
    units, _, _ = plan(runs, "stacked")
    assert sorted(sorted(r.cfg.split.k for r in u) for u in units) == [[1, 2, 7]]
    assert all(status == "completed" for _, status in run_units(units, "stacked"))


def test_bad_sweep_files(tmp_path):
    with pytest.raises(ConfigError, match="grid"):
        load_sweep(_sweep(tmp_path, {"optim": "adam"}))
    with pytest.raises(ConfigError, match="optim.lr"):
        expand(load_sweep(_sweep(tmp_path, {"optim.lr": [-1]})), tmp_path)
    f = tmp_path / "s.yaml"
    f.write_text("grid: {seed: [1]}\nrepeat: 3\n")
    with pytest.raises(ConfigError, match="repeat"):
        load_sweep(f)
    f.write_text("base: [p=11]\nseeds: 1\n")
    with pytest.raises(ConfigError, match="sweep.base"):
        load_sweep(f)


@pytest.mark.parametrize("options", [["--executor", "foo"], ["--workers", "0"], ["--members", "0"]])
def test_bad_sweep_options_exit_2_before_writing(tmp_path, capsys, options):
    assert main(["sweep", str(_sweep(tmp_path)), "--out", str(tmp_path / "out"), "--quiet", *options]) == 2
    assert options[0].strip("-") in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_interrupted_sweep_resumes_without_duplicates(tmp_path, monkeypatch, capsys):
    f = _sweep(tmp_path)
    assert main(["sweep", str(f), "--out", str(tmp_path / "ref"), "--quiet"]) == 0
    original, calls = EpochSampler.batch, {"n": 0}

    def boom(self, step):  # Ctrl-C in the middle of the third run, after its checkpoint at step 10
        calls["n"] += 1
        if calls["n"] == 2 * 30 + 15:
            raise KeyboardInterrupt
        return original(self, step)

    monkeypatch.setattr(EpochSampler, "batch", boom)
    assert main(["sweep", str(f), "--out", str(tmp_path / "cut"), "--quiet"]) == 130
    monkeypatch.setattr(EpochSampler, "batch", original)
    states = [r.state for r in expand(load_sweep(f), tmp_path / "cut")]
    assert states == ["done", "done", "resume", "fresh"]
    capsys.readouterr()
    assert main(["sweep", str(f), "--out", str(tmp_path / "cut"), "--quiet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == 2
    for r in expand(load_sweep(f), tmp_path / "ref"):
        cut = tmp_path / "cut" / r.out.relative_to(tmp_path / "ref")
        assert _rows(cut) == _rows(r.out) and [x["step"] for x in _rows(cut)] == [0, 10, 20, 30]


def test_process_executor_equals_inprocess(tmp_path, capsys):
    f = _sweep(tmp_path, seeds=1)
    assert main(["sweep", str(f), "--out", str(tmp_path / "a"), "--quiet"]) == 0
    assert main(["sweep", str(f), "--out", str(tmp_path / "b"), "--quiet", "--executor", "process",
                 "--workers", "2"]) == 0
    for r in expand(load_sweep(f), tmp_path / "a"):
        assert _rows(r.out) == _rows(tmp_path / "b" / r.out.relative_to(tmp_path / "a"))


def test_ray_executor_equals_inprocess(tmp_path):
    ray = pytest.importorskip("ray")
    f = _sweep(tmp_path, seeds=1)
    assert main(["sweep", str(f), "--out", str(tmp_path / "a"), "--quiet"]) == 0
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        assert main(["sweep", str(f), "--out", str(tmp_path / "r"), "--quiet", "--executor", "ray"]) == 0
    finally:
        ray.shutdown()
    for r in expand(load_sweep(f), tmp_path / "a"):
        assert _rows(r.out) == _rows(tmp_path / "r" / r.out.relative_to(tmp_path / "a"))


def test_summarize_a_synthetic_store(tmp_path, capsys):
    """Hand-written summaries: the statistics must equal the ones computed here from the same numbers. Event
    times are censored data: adam's second seed hovers and never reaches t_test by its last step (1,000); a mean
    over the two seeds that arrived (800) would hide it, the Kaplan-Meier median counts it (900)."""
    data = {"adam": [(100, 900, 0.99), (120, None, 0.5), (80, 700, 1.0)],
            "adamw": [(50, 150, 1.0), (60, 210, 0.995)]}
    for opt, seeds in data.items():
        for seed, (t_train, t_test, acc) in enumerate(seeds):
            run = tmp_path / opt / f"seed={seed}"
            run.mkdir(parents=True)
            cfg = make_config([f"optim={opt}", f"seed={seed}", f"bar={seed % 2 == 0}"]).to_dict()
            (run / "config.yaml").write_text(yaml.safe_dump(cfg))
            gap = None if t_test is None else t_test - t_train
            (run / "summary.json").write_text(json.dumps({
                "status": "completed", "steps": 1000, "t_train": t_train, "t_test": t_test, "gap": gap,
                "final/train_acc": 1.0, "final/test_acc": acc}))
    df = summarize(tmp_path).set_index("point")
    assert list(df.index) == ["adam", "adamw"]  # named as their directories, the setting in its own column
    assert list(df["optim.name"]) == ["adam", "adamw"] and list(df.columns[:2]) == ["optim.name", "n"]
    a = df.loc["adam"]
    assert a["n"] == 3 and a["success"] == pytest.approx(2 / 3)
    # S(t) of t_test: 2/3 after 700, 1/3 after 900 (the censored run still at risk there): median 900
    assert a["t_test_median"] == 900 and (a["t_test_reached"], a["t_test_n"]) == (2, 3)
    assert "t_test_mean" not in df.columns  # no mean of the runs that happened to arrive
    # the gap is censored at 1000 - 120 = 880 for the hover run: events 620, 800; median 800
    assert a["t_train_median"] == 100 and a["gap_median"] == 800 and a["gap_reached"] == 2
    assert a["final/test_acc_std"] == pytest.approx(statistics.stdev([0.99, 0.5, 1.0]))
    b = df.loc["adamw"]
    # Kaplan-Meier's median is the first time S(t) <= 1/2: 150 of (150, 210)
    assert b["success"] == 1 and b["t_test_median"] == 150 and b["final/test_acc_mean"] == pytest.approx(0.9975)
    assert main(["summarize", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "900 [700, -] 2/3" in out and (tmp_path / "summary.csv").is_file()
    assert "adamw" in format_table(summarize(tmp_path))


def test_summary_names_points_as_their_directories_with_one_column_per_setting(tmp_path):
    """A real sweep's summary: the point reads as its directory (the grid's key order), and each varying
    setting is its own typed column in summary.csv."""
    from groklab.cli import main as cli

    f = tmp_path / "g.yaml"
    f.write_text("base: {p: 11, task: add, model: {d_emb: 8, d_hidden: 16}, steps: 10, eval: {every: 5},\n"
                 "       bar: false}\ngrid: {optim.lr: [0.01, 0.003], batch_size: [16]}\nseeds: 1\n")
    assert cli(["sweep", str(f), "--out", str(tmp_path / "s"), "--quiet"]) == 0
    df = summarize(tmp_path / "s")
    dirs = sorted(p.name for p in (tmp_path / "s").iterdir() if p.is_dir())
    assert sorted(df["point"]) == dirs and dirs[0].startswith("optim.lr=")
    assert sorted(df["optim.lr"]) == [0.003, 0.01]


def test_a_sweep_ends_with_a_table_and_json_on_request(tmp_path, capsys):
    f = _sweep(tmp_path, seeds=1)
    assert main(["sweep", str(f), "--out", str(tmp_path / "s"), "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("2 runs: 2 trained here, 0 already finished, 0 failed, 0 left to another process -> "
                        f"{tmp_path / 's'}")
    assert lines[1].split()[:3] == ["point", "n", "failed"] and "t_test" in lines[1]
    assert [x.split()[0] for x in lines[2:4]] == ["optim=adam", "optim=adamw"]  # named as the directories
    assert main(["sweep", str(f), "--out", str(tmp_path / "s"), "--quiet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"out": str(tmp_path / "s"), "runs": 2, "skipped": 2, "ran": 0,
                                                   "failed": {}, "busy": []}
