"""The command line: options and key=value overrides in any order, two real examples in every --help,
optimizer names of real algorithms with the old names still accepted for one release."""
import json

import pytest

from conftest import tiny
from groklab.cli import main
from groklab.cli.parser import EXAMPLES, parser
from groklab.config import make_config


def test_overrides_before_and_after_options(tmp_path, capsys):
    args = tiny()
    assert main(["train", *args[:4], "--out", str(tmp_path / "a"), *args[4:]]) == 0
    assert json.loads(capsys.readouterr().out)["steps"] == 30
    assert main(["measure", str(tmp_path / "a"), "measures.spectra.rank_rtol=0.01", "--what", "spectra",
                 "--at", "30"]) == 0
    assert json.loads(capsys.readouterr().out)["step"] == 30


def test_reproduce_takes_overrides_after_options(tmp_path, monkeypatch):
    """The README's own pattern: `reproduce embedding/fig6 --profile paper p=59 --jobs 2`."""
    import groklab.experiments as experiments
    seen = {}
    monkeypatch.setattr(experiments, "reproduce", lambda target, out, **kw: seen.update(target=target, **kw) or [])
    assert main(["reproduce", "embedding/fig6", "--profile", "paper", "p=59", "--jobs", "2", "--out",
                 str(tmp_path)]) == 0
    command = seen.pop("command")
    assert seen == {"target": "embedding/fig6", "profile": "paper", "seeds": None, "jobs": 2, "overrides": ("p=59",),
                    "only": None, "source": None, "train_missing": False, "budget": None}
    assert command.startswith("groklab ")  # recorded in each figure's manifest


@pytest.mark.parametrize("cmd", sorted(EXAMPLES))
def test_every_help_ends_with_two_real_examples(cmd, capsys):
    with pytest.raises(SystemExit) as done:
        main([cmd, "--help"])
    assert done.value.code == 0
    tail = capsys.readouterr().out.rstrip().splitlines()[-3:]
    assert tail[0] == "examples:" and all(line.strip().startswith(f"groklab {cmd}") for line in tail[1:])
    for example in EXAMPLES[cmd]:  # each parses with the command's own parser
        parser()[1][cmd].parse_intermixed_args(example.split()[2:])


def test_old_optimizer_names_still_work_with_a_deprecation_notice(capsys):
    import groklab.errors as errors
    errors._warned.clear()
    cfg = make_config(["optim=adam_lr", "optim.c_adaptive=true"])
    err = capsys.readouterr().err
    assert (cfg.optim.name, cfg.optim.c, cfg.optim.c_mode) == ("adam", 10.0, "adaptive")
    assert "optim=adam_lr is deprecated" in err and "optim.c_mode=adaptive" in err
    old = {"optim": {"name": "adamw_lr", "c": None, "c_adaptive": False}}  # a 0.1 run's config.yaml
    o = make_config(base=old).optim
    assert (o.name, o.c, o.c_mode, o.decoupled) == ("adamw", 10.0, "fixed", True)
    assert make_config(["optim=sgd_lr", "optim.c=3"]).optim.c == 3.0
    assert make_config(["progress=false"]).bar is False  # the bar's old name (now: the progress measures only)
    assert "progress is deprecated" in capsys.readouterr().err


def test_weight_decay_modes():
    assert make_config(["optim=adam"]).optim.decoupled is False
    assert make_config(["optim=adamw"]).optim.decoupled is True
    assert make_config(["optim=adam", "optim.wd_mode=decoupled"]).optim.decoupled is True
    for bad in (["optim=adamw", "optim.wd_mode=coupled"], ["optim=sgd", "optim.wd_mode=decoupled"]):
        with pytest.raises(Exception, match="optim.wd_mode"):
            make_config(bad)


def test_version_and_the_paper_names(capsys):
    import groklab

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"groklab {groklab.__version__}"
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "beyond/ = Beyond Progress Measures (arXiv 2504.03162)" in text and "embedding/ = Mechanistic" in text


def test_a_reader_that_stops_reading_is_not_an_error(tmp_path):
    """`groklab summarize DIR | head -1`: the pipe closes early; no "error: Broken pipe", exit 0."""
    import subprocess
    import sys
    from pathlib import Path

    arch = Path(__file__).parents[2] / "results" / "embedding-quick"
    cmd = f"{sys.executable} -m groklab summarize {arch} | head -1"
    out = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True, timeout=300)
    assert out.stdout.startswith("point") and "Broken pipe" not in out.stderr and out.returncode == 0, out.stderr


def test_print_config_shows_every_resolved_default_and_trains_nothing(tmp_path, capsys):
    import yaml

    assert main(["train", "task=mul", "p=31", "optim.c=10", "--print-config", "--out", str(tmp_path / "r")]) == 0
    cfg = yaml.safe_load(capsys.readouterr().out)
    assert cfg["p"] == 31 and cfg["optim"]["c"] == 10 and cfg["optim"]["lr"] == make_config([]).optim.lr
    assert not (tmp_path / "r").exists()


def test_a_sweep_from_the_command_line(tmp_path, capsys):
    """-m KEY=V1,V2 axes with --set and --seeds: the same sweep a file would give, its file kept in the tree."""
    out = tmp_path / "wd"
    args = ["sweep", "-m", "optim.weight_decay=0,0.5", "-m", "optim.betas=[0.9,0.98],[0.9,0.999]", "--set",
            "p=11", "--set", "task=add", "--set", "model.d_emb=8", "--set", "model.d_hidden=16", "--set", "steps=10",
            "--set", "eval.every=5", "--set", "bar=false", "--seeds", "2", "--out", str(out), "--quiet", "--json"]
    assert main(args) == 0
    tally = json.loads(capsys.readouterr().out)
    assert tally["runs"] == 8 and tally["ran"] == 8
    from groklab import load_summaries

    df = load_summaries(out)
    assert sorted(df["optim.weight_decay"].unique()) == [0.0, 0.5] and df.attrs["shared"]["p"] == 11
    assert len({str(b) for b in df["optim.betas"]}) == 2
    assert main(args) == 0  # again: every run already finished
    assert json.loads(capsys.readouterr().out)["skipped"] == 8
    for bad in (["sweep", "--out", str(tmp_path / "x")], ["sweep", "-m", "optim.lr", "--out", str(tmp_path / "x")],
                ["sweep", "-m", "optim.lr=abc", "--out", str(tmp_path / "x")],
                ["sweep", "-m", "optim.lr=0.1,0.2", "-m", "optim.lr =0.3", "--out", str(tmp_path / "x")]):  # twice
        assert main(bad) == 2
    assert not (tmp_path / "x").exists()
