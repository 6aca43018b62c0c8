"""reproduce --budget: whole runs start only while their estimate fits what is left; the same call again finishes
the study with the verdicts of an unbudgeted run. groklab plan: the units left, with estimated seconds."""
import json
from types import SimpleNamespace

import pytest

from groklab.cli import main
from groklab.errors import ConfigError
from groklab.experiments import plan as plan_mod
from groklab.experiments import reproduce, runner

TINY = ("p=11", "model.d_emb=8", "model.d_hidden=32", "steps=20", "eval.every=10", "eval.log_points=0",
        "checkpoint_every=10", "stop.patience=10")


def _verdicts(doc):
    return {c["id"]: (c["holds"], c.get("reason")) for c in doc["claims"]}


def test_a_budget_trains_what_fits_and_the_same_call_finishes(tmp_path, monkeypatch):
    """A fake clock: each run estimated at 30 s (margin 1), each round of training advancing the clock 30 s.
    A 70 s budget starts two runs (70 -> 40 -> 10 s left) and leaves six; the same call without a budget trains
    those and judges, to the verdicts of a run that never had one."""
    now = [0.0]
    monkeypatch.setattr(plan_mod, "time", SimpleNamespace(perf_counter=lambda: now[0]))
    monkeypatch.setattr(runner, "run_seconds", lambda cfg, device, members=1: 30.0)
    monkeypatch.setattr(runner, "margin", lambda device: 1.0)
    real = runner.execute

    def timed(*a, **k):
        now[0] += 30.0
        return real(*a, **k)
    monkeypatch.setattr(runner, "execute", timed)
    lines = []
    out = tmp_path / "b"
    doc, = reproduce("embedding/fig2", out, seeds=2, overrides=TINY, budget=70, echo=lines.append)
    assert doc["of"] == 8 and len(doc["trained"]) == 2 and all(c["reason"] == "partial" for c in doc["claims"])
    assert (out / "fig2" / "partial.json").is_file() and not (out / "fig2" / "claims.json").exists()
    assert any("6 runs left for a later call" in x for x in lines) and "budget: 6 runs left" in lines[-1]
    from groklab.experiments.archive import archive  # a budget's partial study archives (no --only glob in it)
    from groklab.store.archive import read_index
    assert read_index(archive(out, tmp_path / "a")["path"])["studies"]["fig2"]["analysed"] == "partial"
    monkeypatch.setattr(runner, "execute", real)
    done, = reproduce("embedding/fig2", out, seeds=2, overrides=TINY, echo=lines.append)
    assert "of" not in done and (out / "fig2" / "claims.json").is_file()
    once, = reproduce("embedding/fig2", tmp_path / "u", seeds=2, overrides=TINY, echo=lambda *_: None)
    assert _verdicts(done) == _verdicts(once)
    assert sorted(done["health"]) == sorted(once["health"])


def test_a_budget_no_run_fits_trains_nothing_and_exits_0(tmp_path, capsys):
    out = tmp_path / "t"
    assert main(["reproduce", "embedding/fig2", *TINY, "--seeds", "1", "--budget", "0.001", "--out", str(out),
                 "--jobs", "1"]) == 0
    said = capsys.readouterr().out
    assert "4 runs left for a later call" in said and "run the same command again" in said
    partial = json.loads((out / "fig2" / "partial.json").read_text())
    assert partial["trained"] == [] and partial["of"] == 4
    assert not [p for p in (out / "fig2").iterdir() if p.is_dir() and (p / "summary.json").exists()]


@pytest.mark.parametrize("bad", [0, -5, float("inf"), float("nan"), True])
def test_a_budget_must_be_seconds(tmp_path, bad):
    with pytest.raises(ConfigError, match="budget"):
        reproduce("embedding/fig2", tmp_path / "x", seeds=1, overrides=TINY, budget=bad)
    assert not (tmp_path / "x").exists()


def test_plan_lists_what_is_left_with_estimates(tmp_path, capsys):
    assert main(["plan", "embedding/fig2", "--profile", "quick", "--seeds", "2"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    rows = [x.split() for x in lines[1:-1]]
    assert [r[1] for r in rows] == ["add/mlp/*", "add/mlp_emb/*", "mul/mlp/*", "mul/mlp_emb/*"]
    assert all(r[2] == "2" and float(r[3]) > 0 for r in rows)
    # each term of the estimate beside it, adding up to it (the columns are rounded to whole seconds)
    assert lines[0].split()[-5:] == ["start", "steps", "compute", "evaluation", "measures"]
    assert all(abs(sum(map(float, r[6:11])) - float(r[3])) <= 3 for r in rows)
    # fig2's runs stop early once they grok: each estimate (to the horizon) is an upper bound, and says so
    assert all(r[4] == "upper" for r in rows) and lines[0].split()[5] == "bound"  # "est. s": two words
    assert lines[-1].startswith("4 units, about ") and " min on cpu; 4 of them upper bounds (a stopping rule can " \
        "end their runs before the horizon the estimate assumes)" in lines[-1]
    # runs a tree already holds are not listed
    reproduce("embedding/fig2", tmp_path / "t", seeds=2, overrides=TINY, only="add/*", echo=lambda *_: None)
    from groklab.experiments.estimate import units

    left = units("embedding/fig2", "quick", seeds=2, out=tmp_path / "t")
    assert [u["unit"] for u in left] == ["mul/mlp/*", "mul/mlp_emb/*"]
    # on a GPU a unit is one stack: its seeds share the per-step cost, so 4 seeds cost less than twice 2
    two, four = (units("embedding/fig2", "quick", seeds=n, device="cuda") for n in (2, 4))
    assert all(0 < a["seconds"] <= b["seconds"] < 2 * a["seconds"] for a, b in zip(two, four))


def test_plan_expects_the_share_of_the_horizon_the_quick_archive_trained(capsys, monkeypatch):
    """An upper-bound estimate beside what the same study's quick runs used of their horizon: fig6's quick runs
    stop once they grok (a median of about a fifth of the horizon), so its paper estimate expects far less."""
    from pathlib import Path

    from groklab.experiments.estimate import stop_share

    root = Path(__file__).resolve().parents[2]
    share = stop_share(root / "results" / "embedding-quick" / "fig6")
    assert share is not None and 0.05 < share < 0.5
    assert stop_share(root / "results" / "embedding-quick" / "no-such-study") is None
    monkeypatch.chdir(root)
    assert main(["plan", "embedding/fig6", "--profile", "paper", "--device", "cuda"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    rows = [x.split() for x in lines[1:-1]]
    assert all(r[4] == "upper" and float(r[5]) < float(r[3]) for r in rows), rows
    assert "expected at the share of the horizon the quick archive's runs trained" in lines[-1]


def test_plan_slices_fit_one_command_and_name_real_runs():
    """--slices: every slice's units fit the limit (a unit longer than it stands alone and says so), and every
    unit the command names is a study and a glob matching its runs."""
    import fnmatch
    import re

    from groklab.experiments.estimate import START_S, markdown, slices, units
    from groklab.experiments.papers import resolve
    from groklab.experiments.plan import specs_of

    rows = units("beyond/all", "quick", seeds=1, device="cuda")
    for sl in slices(rows, 300):
        assert len(sl) == 1 or sum(r["seconds"] + START_S for r in sl) <= 300
    lines = markdown("beyond/all", rows, 300, "quick", None)
    assert len(lines) == 2 + len(slices(rows, 300)) and "ARCHIVE=" not in "".join(lines)
    named = re.findall(r"'(beyond/[a-z0-9]+):([^']+)'", "".join(lines))
    assert len(named) == len(rows)
    for target, globs in named:
        m, = resolve(target)
        assert all(fnmatch.filter([s.name for s in specs_of(m, "quick", 1)], g) for g in globs.split(","))
    # an archive's folder name is pasted into a shell with the command: quoted, it runs nothing (Reliability V)
    import shlex

    cmd = markdown("beyond/all", rows, 300, "quick", "a;touch pwned")[2].split("`")[-2]
    assert shlex.split(cmd)[0] == "ARCHIVE=a;touch pwned" and "pwned" not in shlex.split(cmd)[1:]


def test_on_a_gpu_configurations_that_share_a_stack_are_one_unit(tmp_path):
    """004's threshold study (six fractions of one Transformer) is one GPU unit, its globs comma-separated, and
    reproduce --only with that list trains exactly those runs; a unit's estimate stays within cap_s() unless it
    is a single run; on a CPU each configuration stays a unit of its own."""
    from groklab.experiments.estimate import cap_s, units
    from groklab.experiments.plan import select

    gpu, cpu = (units("beyond/threshold", "quick", seeds=2, device=d) for d in ("cuda", "cpu"))
    assert len(gpu) == 1 and len(cpu) == 12  # six fractions and the horizon arm's six
    assert gpu[0]["unit"] == ",".join(r["unit"] for r in cpu) and gpu[0]["runs"] == 24
    assert all(r["seconds"] <= cap_s() or r["runs"] == 1 for r in units("beyond/all", "paper", seeds=3,
                                                                          device="cuda"))
    names = ["f0.1/s0", "f0.1/s1", "f0.2/s0", "f0.3/s0", "x/f0.1"]
    from groklab.experiments.spec import RunSpec
    assert [s.name for s in select([RunSpec(n, ()) for n in names], "f0.1/*,f0.3/*")] == ["f0.1/s0", "f0.1/s1",
                                                                                        "f0.3/s0"]


def test_a_configuration_longer_than_one_gpu_command_is_cut_into_seeds(monkeypatch):
    """A GPU window returns no checkpoint, so a unit that cannot finish in one command never finishes: a
    configuration whose stack is estimated past the cap is cut into consecutive seeds that fit (each glob a run
    name reproduce --only selects); runs that cannot stack (ResNet-18) are estimated one after another, not as a
    stack; a single run past the cap stays one unit and its slice says so."""
    import fnmatch

    from groklab.experiments import estimate
    from groklab.experiments.papers import resolve
    from groklab.experiments.plan import specs_of

    monkeypatch.setattr(estimate, "margin", lambda device: 1.0)
    def terms(seconds):  # an estimate as the cost model's terms: all of it compute
        return lambda cfg, device, members=1: {**dict.fromkeys(estimate.TERMS, 0.0), "compute": seconds(members)}

    monkeypatch.setattr(estimate, "run_terms", terms(lambda members: 100.0 * members))  # no sharing
    rows = estimate.units("beyond/threshold", "quick", seeds=5, device="cuda", cap=250)
    names = [s.name for s in specs_of(resolve("beyond/threshold")[0], "quick", 5)]
    assert all(r["seconds"] <= 250 and r["runs"] <= 2 for r in rows)
    assert sum(r["runs"] for r in rows) == len(names)
    picked = [n for r in rows for n in names if any(fnmatch.fnmatchcase(n, g) for g in r["unit"].split(","))]
    assert sorted(picked) == sorted(names)  # every run in exactly one unit
    assert rows[0]["unit"] == "f0.1/s0,f0.1/s1" and rows[2]["unit"] == "f0.1/s4"
    # ResNet-18 does not stack: its seeds' estimates add up on a GPU, three runs at 100 s each
    monkeypatch.setattr(estimate, "run_terms", terms(lambda members: 100.0))
    res = estimate.units("beyond/resnet", "quick", seeds=3, device="cuda", cap=1000)
    assert [(r["unit"], r["seconds"]) for r in res] == [("grok/*", 300.0), ("wd0/*", 300.0), ("random/*", 300.0)]
    one = estimate.units("beyond/resnet", "quick", seeds=2, device="cuda", cap=50)
    assert [r["unit"] for r in one][:2] == ["grok/s0", "grok/s1"]
    line = estimate.markdown("beyond/resnet", one, 100, "quick", None)[2]
    assert "one run longer than one command" in line


def test_the_cost_model_counts_each_familys_flops():
    """Work per training row comes from torch's FLOP counter on the meta device, not from parameters alone: a
    Transformer reads its parameters at several positions, a ResNet-18 slides its kernels over every pixel."""
    from groklab.config import make_config
    from groklab.sweep.cost import shape_of

    mlp = shape_of(make_config(["p=23", "model.d_emb=16", "model.d_hidden=64"]).to_dict())
    tf = shape_of(make_config(["p=23", "model=transformer", "model.d_emb=32", "encoding=eq"]).to_dict())
    res = shape_of(make_config(["task=shapes", "model=resnet18", "task.entries=4", "task.image=32", "task.cells=2",
                                "model.width=8"]).to_dict())
    per = {name: flops / n for name, (n, _, _, flops) in {"mlp": mlp, "transformer": tf, "resnet": res}.items()}
    assert 2 <= per["mlp"] <= 6.5 and per["transformer"] > per["mlp"] and per["resnet"] > 20 * per["mlp"]
