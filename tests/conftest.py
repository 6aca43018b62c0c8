import os

import pytest
import torch
from hypothesis import settings

# one thread per run, also in the groklab processes tests start (2 cores; small models; stable results)
os.environ.setdefault("GROKLAB_THREADS", "1")

# Property tests draw the same examples on every run, so a suite that passed passes again (CI cannot fail on a
# search's new luck); GROKLAB_HYPOTHESIS_EXAMPLES=N searches afresh with N examples per property instead.
settings.register_profile("fixed", derandomize=True, database=None)
settings.register_profile("search", derandomize=False)
settings.load_profile("search" if os.environ.get("GROKLAB_HYPOTHESIS_EXAMPLES") else "fixed")


@pytest.fixture(autouse=True)
def _threads():
    """Tests run on 2 cores; one intra-op thread keeps small models fast and results stable."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def tiny(**kw) -> list[str]:
    """Overrides for a run that takes well under a second."""
    base = {"p": 11, "task": "add", "model.d_emb": 8, "model.d_hidden": 32, "steps": 30, "batch_size": 16,
            "eval.every": 10, "eval.log_points": 0, "bar": "false", "checkpoint_every": 10}
    base.update(kw)
    return [f"{k}={v}" for k, v in base.items()]


def reproduce_tree(tmp_path_factory, target: str, overrides: tuple, jobs: int = 1):
    """Every study of `target` ("<paper>/all") at a tiny size, 1 seed, quick profile, trained once:
    (output dir, {figure: claims.json document})."""
    from groklab.experiments import reproduce

    out = tmp_path_factory.mktemp(target.split("/")[0])
    docs = reproduce(target, out, profile="quick", seeds=1, jobs=jobs, echo=lambda *_: None, overrides=overrides)
    return out, {d["figure"]: d for d in docs}


def analyze_one_run(out, paper: str, fig: str, tmp_path) -> list:
    """A figure's analysis on the first of its runs alone (what `reproduce --only` hands it): its claims."""
    import shutil

    from groklab.experiments import PAPERS
    from groklab.store import load_runs

    root = shutil.copytree(out / fig, tmp_path / fig)  # a copy: the analysis draws into the figure's folder
    df = load_runs(root)
    df = df[df["run"] == sorted(r for r in df["run"].unique() if not r.startswith("arm-"))[0]]  # a study run
    _, claims = PAPERS[paper][fig].analyze(df, root)
    return claims


def metric_rows(run_dir) -> list[dict]:
    """A run's metric rows without the wall-clock column, for exact comparisons."""
    from groklab.store import read_metrics

    return [{k: v for k, v in r.items() if k != "time/wall_s"} for r in read_metrics(run_dir)]


def interrupt_and_resume(cfg, tmp_path, monkeypatch, sampler_cls, at: int):
    """Train cfg into full/; train it into cut/ with Ctrl-C before step `at`, then resume cut/."""
    from groklab import train

    full = train(cfg, out=tmp_path / "full")
    original = sampler_cls.batch

    def boom(self, step):
        if step == at:
            raise KeyboardInterrupt
        return original(self, step)

    monkeypatch.setattr(sampler_cls, "batch", boom)
    with pytest.raises(KeyboardInterrupt):
        train(cfg, out=tmp_path / "cut")
    monkeypatch.setattr(sampler_cls, "batch", original)
    train(resume=tmp_path / "cut")
    return full, tmp_path / "full", tmp_path / "cut"


def tiny_sweep(root, grid: str = "grid: {optim.lr: [0.01, 0.003]}\nseeds: 2\n"):
    """A finished sweep of tiny runs below `root`/s (the grid and seeds given as YAML lines); returns its folder."""
    from groklab.cli import main

    f = root / "g.yaml"
    f.write_text("base: {p: 11, task: add, model: {d_emb: 8, d_hidden: 16}, steps: 20, eval: {every: 5},\n"
                 "       bar: false}\n" + grid)
    assert main(["sweep", str(f), "--out", str(root / "s"), "--quiet"]) == 0
    return root / "s"


def answers_in_one_line(argv: list[str], capsys) -> int:
    """Run the CLI on `argv`: an exit code of 0, 1 or 2, no traceback, at most one bounded error line."""
    from groklab.cli import main

    capsys.readouterr()
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc in (0, 1, 2), (argv, rc, err)
    assert "Traceback" not in err, (argv, err)
    errors = [ln for ln in err.splitlines() if ln.startswith("groklab: error:")]
    assert len(errors) <= 1 and all(len(ln) < 2000 for ln in errors), (argv, err)
    return rc
