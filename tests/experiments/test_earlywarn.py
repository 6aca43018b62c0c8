"""The early-warning study's draft protocol: it loads, its seed blocks are disjoint, oracles are named as such, and
every setting is a valid config at every pilot fraction."""
import pytest

from groklab.errors import ConfigError
from groklab.experiments.earlywarn.protocol import HERE, load


def test_the_draft_protocol_is_sound():
    p = load()
    assert len(p.measures) >= 10 and p.scores.oracles == ["test_loss"]
    assert {"task=add", "task=mul"} <= {o for s in p.population.settings.values() for o in s}
    assert {o for s in p.population.settings.values() for o in s if o.startswith("model.name=")} == \
        {"model.name=mlp_emb", "model.name=transformer"}  # two architectures
    seeds = [p.population.pilot.seeds, p.seeds.explore, p.seeds.evaluate, p.seeds.held_out]
    assert len({s for b in seeds for s in b}) == sum(map(len, seeds))  # disjoint blocks


@pytest.mark.parametrize("edit, match", [
    (("evaluate: [20, 21,", "evaluate: [19, 21,"), "explore and evaluate must be disjoint|evaluate and explore"),
    (("test_loss: [test/loss, true, 50]", "test_loss: [test/loss, false, 50]"), "oracles"),
    (("    s4_transformer:", "    add_mlp:"), "looked at while designing"),
    (("p=32, model.name=mlp_emb", "p=33, model.name=mlp_emb"), r"earlywarn\.population\.dihedral_mlp"),
])
def test_a_leaky_or_invalid_protocol_is_refused_with_one_line(tmp_path, edit, match):
    text = (HERE / "protocol.yaml").read_text()
    assert edit[0] in text
    f = tmp_path / "p.yaml"
    f.write_text(text.replace(edit[0], edit[1], 1))
    with pytest.raises(ConfigError, match=match):
        load(f)
