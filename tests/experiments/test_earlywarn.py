"""The early-warning study's protocol: it loads, it is the frozen file docs/earlywarn.md names, its settings are the
pilot rule's choice, its seed blocks are disjoint, oracles are named as such, and a leaky or invalid edit is
refused with one line."""
import re
from pathlib import Path

import pytest

from groklab.errors import ConfigError
from groklab.experiments.earlywarn.events import pilot_found
from groklab.experiments.earlywarn.protocol import PROTOCOL, horizon, load, pilot_choice, sha256
from groklab.store import load_runs

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "earlywarn.md"


def test_the_protocol_is_sound_and_frozen():
    p = load()
    assert len([m for m, v in p.measures.items() if not v[1]]) >= 10
    assert p.scores.oracles == ["restricted_loss", "excluded_loss", "test_loss"]
    overrides = {o for _, s in p.population.settings.values() for o in s}
    assert {"task=add", "task=mul", "task=dihedral"} <= overrides  # three tasks, two architectures
    assert {o for o in overrides if o.startswith("model.name=")} == {"model.name=mlp_emb", "model.name=transformer"}
    seeds = [p.population.pilot.seeds, p.seeds.explore, p.seeds.evaluate, p.seeds.held_out]
    assert len({s for b in seeds for s in b}) == sum(map(len, seeds))  # disjoint blocks
    frozen = re.search(r"sha256\s+`([0-9a-f]{64})`", DOCS.read_text())
    assert frozen and frozen.group(1) == sha256(), "protocol.yaml changed after it was frozen: make a version 2"


def test_the_pilot_rule_picks_the_share_closest_to_a_half_and_drops_what_never_straddles():
    chosen, dropped = pilot_choice({"a": {0.3: 1, 0.4: 3, 0.5: 5}, "b": {0.3: 0, 0.5: 8}, "c": {0.2: 6, 0.1: 2}}, 8)
    assert chosen == {"a": 0.4, "c": 0.1} and dropped == ["b"]  # a: 3/8 and 5/8 tie -> the smaller fraction


def test_the_archived_pilot_counts_are_the_protocols():
    p = load()
    df = load_runs(ROOT / "results" / "earlywarn-pilot" / "pilot", columns=["train/acc", "test/acc"])
    assert df["run"].nunique() == 368
    assert pilot_found(df, p.event, horizon(p)) == p.population.pilot.found


@pytest.mark.parametrize("edit, match", [
    (("evaluate: [20, 21,", "evaluate: [19, 21,"), "explore and evaluate must be disjoint|evaluate and explore"),
    (("test_loss: [test/loss, true, 50, relative]", "test_loss: [test/loss, false, 50, relative]"), "oracles"),
    (("    s4_transformer:", "    add_mlp:"), "looked at while designing"),
    (("dihedral_mlp: [0.5, [task=dihedral, p=32,", "dihedral_mlp: [0.5, [task=dihedral, p=33,"),
     r"earlywarn\.population\.dihedral_mlp"),
    (("add_mlp: [0.47,", "add_mlp: [0.49,"), "the pilot rule picks 0.47"),
    (("dropped: {poly_mlp:", "dropped: {poly_mlq:"), "the pilot rule keeps"),
    (("second_round: {add_mlp: [0.46,", "second_round: {add_mlp: [0.44,"), "pilot.found 'add_mlp'"),
    (("{like: add_transformer,", "{like: sub_transformer,"), "held_out like 'sub_transformer'"),
    (("primary: 500", "primary: 400"), "scores.primary"),
])
def test_a_leaky_or_invalid_protocol_is_refused_with_one_line(tmp_path, edit, match):
    text = PROTOCOL.read_text()
    assert edit[0] in text
    f = tmp_path / "p.yaml"
    f.write_text(text.replace(edit[0], edit[1], 1))
    with pytest.raises(ConfigError, match=match):
        load(f)
