"""GrokBench II's anchors: the declaration validates at every profile, a bad one is one line, the rule's verdicts
follow the interval, and a tiny anchor trains, packs, judges and re-judges to the same bytes; damage is refused."""
import shutil

import numpy as np
import pytest

from groklab.cli import main
from groklab.errors import ConfigError
from groklab.experiments.grokbench.anchors import check_spec, load_anchors, profile_of
from groklab.experiments.grokbench.anchors_board import compare, verdict
from groklab.experiments.grokbench.anchors_run import anchors
from groklab.experiments.grokbench.protocol import HERE, load_methods

TINY = """version: 1
baseline: adamw
draw_seed: 7
level: 0.95
persistence: 0
also: 0.99
also_persistence: 20
eval_seeds: {tiny: [0, 1]}
tuner: {tiny: {budget: 1, min_steps: 20, eta: 3, studies: [100]}}
base: [eval.every=10, eval.log_points=0, bar=false]
anchors:
  toy:
    paper: "A toy paper"
    claim: "Faster."
    published: "none"
    setting: [task=add, p=5, split.frac_train=0.6, model.name=mlp_emb, model.d_emb=8, model.d_hidden=16,
              sampler=full]
    assumed: "everything"
    profiles: {tiny: [steps=40]}
    arms:
      slow: [optim.name=adamw, optim.lr=0.001]
      fast: [optim.name=adamw, optim.lr=0.03]
    methods: [fast]
    paper_baseline: slow
    tuned: [adamw]
"""


def arrays(steps, observed):
    return np.asarray(steps, dtype=float), np.asarray(observed, dtype=bool)


def test_the_declaration_makes_valid_configs_at_every_profile():
    spec, board = load_anchors(), load_methods(HERE / "methods_v2.yaml")
    assert set(spec.anchors) == {"grokfast", "muon", "perp_grad"}
    for profile in ("tiny", "quick", "paper"):
        check_spec(spec, board, profile, list(spec.anchors))
        for name, a in spec.anchors.items():
            prof = profile_of(spec, name, profile)
            assert a.paper_baseline in a.arms and set(a.methods) <= {*a.arms, *a.tuned}
            assert not set(prof.eval_seeds) & set(prof.tuner.studies)  # tuning and evaluation seeds disjoint
    # the Grokfast anchor is its paper's harness: torch Adam (coupled decay) at lr 1e-3, betas (0.9, 0.98)
    g = spec.anchors["grokfast"]
    assert "optim.betas=[0.9, 0.98]" in g.setting and g.profiles["paper"][0] == "p=97"
    assert "optim.grokfast_lamb=5" in g.arms["grokfast_ma"] and "optim.weight_decay=0" in g.arms["adam_paper"]


@pytest.mark.parametrize("edit, field", [
    (("paper_baseline: slow", "paper_baseline: nothing"), "anchors.anchors.toy"),
    (("methods: [fast]", "methods: [faster]"), "anchors.anchors.toy"),
    (("  toy:", "  'a b':"), "anchors"),
    (("eval_seeds: {tiny: [0, 1]}", "eval_seeds: {tiny: [0]}"), "anchors"),
])
def test_a_bad_declaration_is_one_line(tmp_path, edit, field):
    f = tmp_path / "anchors.yaml"
    f.write_text(TINY.replace(*edit))
    with pytest.raises(ConfigError) as err:
        load_anchors(f)
    assert str(err.value).startswith(field) and "\n" not in str(err.value)


def test_the_rule_follows_the_interval():
    fast, slow = arrays([100] * 8, [True] * 8), arrays([1000] * 8, [False] * 8)
    c = compare({0: fast}, {100: slow, 101: slow})  # a fixed arm stands in every study of the tuned one
    assert c["p_before"] == 1.0 and c["lo"] > 0.5 and c["per_study"] == "1 1"
    assert verdict(c, "tuned", True) == "survives" and verdict(c, "paper", True) == "reproduced"
    back = compare({100: slow}, {0: fast})
    assert back["p_before"] == 0.0 and verdict(back, "tuned", True) == "fails"
    mixed = arrays([100, 1000, 200, 1000], [True, False, True, False])
    same = compare({0: mixed}, {0: mixed})
    assert same["p_before"] == 0.5 and verdict(same, "tuned", True).startswith("undecided")
    assert verdict(same, "tuned", False).startswith("inconclusive")


def test_a_tiny_anchor_trains_judges_and_rejudges_to_the_same_bytes(tmp_path):
    spec = tmp_path / "anchors.yaml"
    spec.write_text(TINY)
    out = tmp_path / "run"
    doc = anchors("tiny", out, jobs=1, echo=lambda *_: None, path=spec)
    arms = {r["arm"]: r for r in doc["arms"]}
    assert set(arms) == {"slow", "fast", "adamw"} and all(r["runs"] == 2 for r in arms.values())
    assert arms["adamw"]["studies"] == 1 and arms["adamw"]["role"] == "tuned baseline"
    kinds = {(c["against"], c["kind"]) for c in doc["compare"]}
    assert kinds == {("slow", "paper"), ("adamw", "tuned")}
    again = tmp_path / "again"
    assert main(["grokbench", "--anchors", "--from", str(out), "--out", str(again)]) == 0
    for f in ("anchors.csv", "anchors_compare.csv", "anchors.md"):
        assert (again / f).read_bytes() == (out / f).read_bytes(), f
    # a packed run trained with other overrides than the declaration draws is refused, nothing written
    broken = tmp_path / "broken"
    shutil.copytree(out, broken)
    text = (broken / "anchors.json").read_text().replace('"optim.lr=0.03"', '"optim.lr=0.02"')
    (broken / "anchors.json").write_text(text)
    assert main(["grokbench", "--anchors", "--from", str(broken), "--out", str(tmp_path / "no")]) == 2
    assert not (tmp_path / "no").exists()
    # a name that would leave the folder, and a record without its choices: one line each, nothing written
    edits = (('"names": [\n  "toy"', '"names": [\n  "../toy"'),
             ('"selection": {', '"selection": {"toy": {}}, "was": {'))
    for old, new in edits:
        text = (out / "anchors.json").read_text()
        assert old in text
        (broken / "anchors.json").write_text(text.replace(old, new, 1))
        assert main(["grokbench", "--anchors", "--from", str(broken), "--out", str(tmp_path / "no")]) == 2
        assert not (tmp_path / "no").exists()
