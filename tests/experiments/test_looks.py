"""Looks: seeds raised on sight of a verdict hold every later decision to 0.05 / looks (experiments/looks.py)."""
from groklab.experiments import claims, levels
from groklab.experiments.looks import looks_of, session_seeds
from groklab.experiments.stats import alpha, boot_mean, looking, pct


def test_the_looks_are_the_seed_counts_a_study_grew_through():
    sessions = [{"command": "groklab reproduce embedding/fig6 --profile paper --seeds 3 --jobs 2"},
                {"command": "groklab reproduce embedding/fig6 --from a --train-missing", "from": "a",
                 "train_missing": True},  # an arm trained at the archive's seeds: the default, no new look
                {"command": "groklab reproduce embedding/fig6 --from a --seeds 10 --train-missing", "from": "a"},
                {"command": "groklab reproduce embedding/all --from a", "from": "a"},  # a re-judging looks again
                {"seeds": 15, "command": "python"}]
    assert [session_seeds(s, 3) for s in sessions] == [3, 3, 10, None, 15]
    assert looks_of(sessions, 30, 3) == [3, 10, 15, 30]
    assert looks_of(sessions[:1], 3, 3) == [3]  # trained once at the seeds it was declared with: one look


def test_every_rule_tightens_with_the_looks():
    a, b = [100, 110, 120, 130, 140], [200, 210, 220, 230, 240]  # p = 1/252 one-sided: clears 0.05 / 5
    c, d = [100, 110, 120, 130, 215], [200, 210, 220, 230, 240]  # p = 3/252 ~ 0.012: clears 0.05, not 0.01
    with looking(1):
        assert alpha() == 0.05 and pct() == "95%"
        assert claims.sooner(c, d)["verdict"][0] is True
        narrow = boot_mean([1.0, 1.2, 0.9, 1.1])
    with looking(5):
        assert alpha() == 0.01 and pct() == "99%"
        assert claims.sooner(a, b)["verdict"][0] is True
        loose = claims.sooner(c, d)
        assert loose["verdict"][0] is None and loose["verdict"][1] == "underpowered"
        wide = boot_mean([1.0, 1.2, 0.9, 1.1])
        claim = claims.time_claim("x", "A first", {"all": (c, d)}, ("A", "B"), "t")
        assert "p <= 0.01" in claim.statistic and "look 5" in claim.statistic
        assert "99% percentile-bootstrap CI" in levels.contrast("y", "", "t", {"a": a, "b": b}, "a", "b", -1).statistic
    assert wide["lo"] <= narrow["lo"] and wide["hi"] >= narrow["hi"]
    assert alpha() == 0.05  # the look ends with its block
