"""A mistyped config key: one line naming it, and the key it most likely meant where one is close."""
import re

import pytest

from groklab import make_config
from groklab.errors import ConfigError


@pytest.mark.parametrize("typo, meant", [("stesp=10", "steps"), ("optim.weigth_decay=1", "optim.weight_decay"),
                                         ("lr=0.1", "optim.lr"), ("hessian.every=5", "measures.hessian.every"),
                                         ("model.d_hiden=3", "model.d_hidden")])
def test_a_mistyped_key_names_the_key_it_likely_meant(typo, meant):
    with pytest.raises(ConfigError, match=f"did you mean {re.escape(meant)}\\?"):
        make_config([typo])


@pytest.mark.parametrize("far", ["foo=1", "optim.lernrate=1", "every=3",
                                 "optim.weigth_decay.x=1"])  # a close section, no such key below: no guess
def test_no_guess_where_nothing_is_close_or_the_name_is_ambiguous(far):
    with pytest.raises(ConfigError, match="unknown key") as e:
        make_config([far])
    assert "did you mean" not in str(e.value)


def test_a_mistyped_key_in_a_nested_mapping_gets_the_guess_too():
    with pytest.raises(ConfigError, match="did you mean optim.weight_decay"):
        make_config(base={"optim": {"weigth_decay": 1}})
