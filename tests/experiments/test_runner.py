"""Every paper-000 experiment runs end to end at a tiny size: runs, figures, a well-formed claims.json."""
import json

import pytest

from conftest import analyze_one_run, reproduce_tree
from groklab.cli import main
from groklab.config import make_config
from groklab.errors import ConfigError
from groklab.experiments import PAPERS, reproduce, resolve
from groklab.experiments.runner import execute
from groklab.experiments.spec import REASONS
from groklab.sweep import Run

TINY = ("p=11", "model.d_emb=8", "model.d_hidden=32", "steps=20", "eval.every=10", "eval.log_points=0",
        "checkpoint_every=10", "stop.patience=10")
FIGS = sorted(PAPERS["embedding"])


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """All figures at the tiny size, 1 seed, trained once for the tests of this module."""
    return reproduce_tree(tmp_path_factory, "embedding/all", TINY)


@pytest.mark.parametrize("fig", FIGS)
def test_figure_writes_figures_and_well_formed_claims(tree, fig):
    out, docs = tree
    doc = json.loads((out / fig / "claims.json").read_text())
    assert doc == json.loads(json.dumps(docs[fig]))
    assert doc["figure"] == fig and doc["profile"] == "quick" and doc["seeds"] == 1
    assert {p.rsplit(".", 1)[1] for p in doc["figures"]} == {"png", "pdf"}
    for f in doc["figures"]:
        assert (out / fig / f).stat().st_size > 5_000
    assert doc["claims"] and set(doc["health"].values()) <= {"completed", "early_stop"}
    n_runs = len(PAPERS["embedding"][fig].runs("quick", 1))
    assert len(doc["health"]) == n_runs
    for c in doc["claims"]:
        assert set(c) - {"post_hoc", "sensitivity", "depends_on"} == {  # the last three only where they apply
            "id", "text", "statistic", "per_seed", "aggregate", "holds", "note", "reason", "verdict", "kind", "quote",
            "where", "thresholds", "fixed"}
        assert set(c.get("post_hoc", {})) in (set(), {"since", "rule", "replaced", "verdict", "why"})
        # trained now, by rules committed before: each fixed before its data (none yet named: cannot tell), but
        # a rule revised after the profile's data were seen stays post hoc on a rerun of the same profile
        want = False if c.get("post_hoc") else True if c["fixed"]["date"] else None
        assert c["fixed"]["before_data"] is want, (c["id"], c["fixed"])
        plain = {True: "holds", False: "does not hold"}.get(c["holds"], f"inconclusive ({c['reason']})")
        assert c["verdict"] == plain + (" (post hoc)" if want is False else "")  # the verdict says it, too
        assert c["holds"] in (True, False, None) and c["text"] and c["statistic"]
        assert c["kind"] in ("paper", "measurement")
        assert (c["holds"] is None) == (c["reason"] in REASONS), c["id"]
        assert c["quote"] and c["where"], (fig, c["id"])  # every claim cites its sentence (quotes.yaml)
        for values in c["per_seed"].values():
            assert isinstance(values, list)


def test_rerun_skips_finished_runs_and_resumes_unfinished(tree, tmp_path):
    out, _ = tree
    runs = sorted((out / "fig6").rglob("summary.json"))
    before = {p.parent: (p.parent / "metrics.jsonl").read_text() for p in runs}
    # one run marked as interrupted after its checkpoint, one killed before its first checkpoint
    a, b = runs[0].parent, runs[1].parent
    summary = json.loads(runs[0].read_text())
    runs[0].write_text(json.dumps({**summary, "status": "running"}))
    (b / "ckpt.pt").unlink()
    (b / "summary.json").unlink()
    state = lambda path: Run("r", "r", make_config(), path).state  # noqa: E731
    assert state(a) == "resume" and state(b) == "fresh"
    lines = []
    reproduce("embedding/fig6", out, seeds=1, jobs=1, echo=lines.append, overrides=TINY)
    assert f"{len(runs) - 2} of {len(runs)} runs already finished; training 2" in lines[1]
    assert json.loads(runs[0].read_text())["status"] in ("completed", "early_stop")
    strip = lambda text: [{k: v for k, v in json.loads(x).items() if k != "time/wall_s"} for x in text.splitlines()]  # noqa
    for path, text in before.items():
        assert strip((path / "metrics.jsonl").read_text()) == strip(text), path


def test_process_pool_gives_the_same_metrics_as_in_process(tmp_path):
    cfgs = {f"r{s}": make_config(list(TINY) + [f"seed={s}", "task=mul"]).to_dict() for s in range(2)}
    execute(tmp_path / "pool", cfgs, jobs=2, echo=lambda *_: None)
    execute(tmp_path / "seq", cfgs, jobs=1, echo=lambda *_: None)
    for name in cfgs:
        rows = [(tmp_path / d / name / "metrics.jsonl").read_text().splitlines() for d in ("pool", "seq")]
        drop = lambda r: {k: v for k, v in json.loads(r).items() if k != "time/wall_s"}  # noqa: E731
        assert [drop(r) for r in rows[0]] == [drop(r) for r in rows[1]]


def test_bad_targets_and_options_are_refused_before_writing(tmp_path, capsys):
    with pytest.raises(ConfigError):
        resolve("embedding/fig99")
    assert main(["reproduce", "nopaper/fig2", "--out", str(tmp_path / "x")]) == 2
    assert main(["reproduce", "embedding/fig2", "--profile", "huge", "--out", str(tmp_path / "x")]) == 2
    assert main(["reproduce", "embedding/fig2", "p=1", "--out", str(tmp_path / "x")]) == 2
    assert "p" in capsys.readouterr().err and not (tmp_path / "x").exists()
    assert main(["reproduce", "embedding/fig2", "--jobs", "-1", "--out", str(tmp_path / "x")]) == 2
    assert "jobs" in capsys.readouterr().err and not (tmp_path / "x").exists()


@pytest.mark.parametrize("fig", FIGS)
def test_analysis_of_a_partial_tree_measures_without_crashing(tree, fig, tmp_path):
    claims = analyze_one_run(tree[0], "embedding", fig, tmp_path)  # reproduce --only: one run of the figure
    assert claims and all(c.statistic for c in claims)


def test_only_trains_a_subset_without_verdicts_and_a_full_run_completes_it(tmp_path, capsys):
    from groklab.store import read_claims, read_partial

    out = tmp_path / "r"
    args = ["reproduce", "embedding/fig6", "--seeds", "1", "--jobs", "1", "--out", str(out), *TINY]
    assert main([*args, "--only", "add/*"]) == 0
    assert "claims measured on a subset, not judged" in capsys.readouterr().out
    trained = sorted(p.parent.relative_to(out / "fig6").as_posix() for p in (out / "fig6").rglob("config.yaml"))
    assert trained == ["add/adam/s0", "add/adam_lr/s0", "add/adam_lr_adaptive/s0"]
    part = read_partial(out / "fig6")
    assert part["trained"] == trained and part["of"] == 12 and part["only"] == "add/*"
    assert all(c["holds"] is None and "partial: 3 of 12" in c["note"] for c in part["claims"])
    assert read_claims(out / "fig6") is None  # nothing judged on a subset
    from groklab.report import markdown, write_report
    rows = markdown(out).splitlines()[2:]
    assert rows and all(r.endswith("| inconclusive (partial) |") for r in rows)
    assert "inconclusive (partial)" in write_report(out).read_text()
    assert main(["check", str(out)]) == 0 and "experiment, partial (--only)" in capsys.readouterr().out
    assert main(args) == 0  # the rest, then verdicts over all twelve
    assert "3 of 12 runs already finished; training 9" in capsys.readouterr().out
    judged = read_claims(out / "fig6")["claims"]  # one tiny seed per arm decides nothing
    assert all(c["reason"] != "partial" for c in judged)
    assert {c["reason"] for c in judged} <= {"", "underpowered", "no effect seen", "censored"}


def test_only_matching_nothing_is_refused_before_writing(tmp_path, capsys):
    assert main(["reproduce", "embedding/fig6", "--only", "nope/*", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("groklab: error: only='nope/*': matches none of the 60 runs of embedding/fig6; run "
                          "names look like 'add/adam/s0'")  # 12 configurations x 5 quick seeds
    assert err.count("\n") == 1 and not (tmp_path / "x").exists()
    assert main(["reproduce", "embedding/all", "--only", "", "--out", str(tmp_path / "x")]) == 2
    assert "only" in capsys.readouterr().err and not (tmp_path / "x").exists()
