"""The Python API refuses a wrong argument type with one ConfigError naming it, before anything is written
(Reliability IV: a string where a list is meant was read character by character; None and ints gave tracebacks)."""
import pytest

import groklab
from groklab.errors import ConfigError


def _population(out_dirs):
    from conftest import tiny
    from groklab.engine.population import train_population
    return train_population([groklab.make_config(tiny()), groklab.make_config(tiny(seed=1))], out_dirs)


@pytest.mark.parametrize("call, field", [
    (lambda: groklab.load_runs(7), "path"),
    (lambda: groklab.load_runs(None), "path"),
    (lambda: groklab.make_config("p=7"), "overrides"),
    (lambda: groklab.make_config(base=[("p", 7)]), "base"),
    (lambda: groklab.train("p=7", out="o"), "config"),
    (lambda: groklab.train(groklab.make_config(["p=7"]), out=5), "out"),
    (lambda: groklab.reproduce(None, out="o"), "target"),
    (lambda: groklab.reproduce("embedding/fig2", out="o", overrides="p=7"), "overrides"),
    (lambda: groklab.reproduce("embedding/fig2", out="o", formats=5), "formats"),
    (lambda: groklab.reproduce("embedding/fig2", out="o", source=3.5), "source"),
    (lambda: groklab.earlywarn(out=None), "out"),
    (lambda: groklab.earlywarn(out="o", stage="judge"), "stage"),
    (lambda: groklab.earlywarn(out="o", jobs=0), "jobs"),
    (lambda: groklab.earlywarn(out="o", protocol=5), "protocol"),
    (lambda: _population(["x", "x"]), "out_dirs"),
    (lambda: _population("ab"), "out_dirs"),
    (lambda: _population(["x"]), "out_dirs"),
])
def test_a_wrong_argument_is_one_config_error_naming_it(call, field, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as err:
        call()
    assert err.value.field == field and "\n" not in str(err.value)
    assert not list(tmp_path.iterdir())  # nothing written
