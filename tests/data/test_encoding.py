"""Token encodings, and 004's STRIP-code offset encoding: the second operand's ids start at d, overlapping."""
import pytest
import torch

from conftest import tiny
from groklab import ConfigError, make_config, train
from groklab.data.encoding import default_offset, encode, operand_rows, vocab_size
from groklab.data.task import make_task


def test_every_encoding_of_one_row():
    ops = torch.tensor([[3, 4]])
    want = {"op": [3, 5, 4, 6], "no_op": [3, 4], "eq": [3, 4, 5], "sep": [3, 9, 10], "offset": [3, 7, 8]}
    for kind, tokens in want.items():
        assert encode(ops, 5, kind, offset=3).tolist() == [tokens], kind
        assert encode(ops, 5, kind, offset=3).max() < vocab_size(5, kind, 2, 3), kind


def test_offset_is_the_released_strip_code_at_p_97():
    # 004's str.py: (a, b + 60, "="); its vocab 170 holds 12 ids no input uses, ours ends at "=" (= 157)
    assert default_offset(97) == 60 and default_offset(41) == 25
    x = encode(torch.tensor([[0, 0], [96, 96], [60, 0]]), 97, "offset")
    assert x.tolist() == [[0, 60, 157], [96, 156, 157], [60, 60, 157]]  # a = 60 and b = 0 share id 60
    assert vocab_size(97, "offset") == 158 and operand_rows(97, "offset") == [range(0, 97), range(60, 157)]


def test_offset_encoding_trains_and_is_validated():
    cfg = make_config(tiny(encoding="offset", model="transformer", **{"model.depth": 1, "encoding_offset": 4}))
    task = make_task(cfg)
    assert task.vocab == 4 + 11 + 1 and task.inputs[:, 1].min() == 4
    assert train(cfg).summary["status"] in ("completed", "early_stop")
    with pytest.raises(ConfigError, match="encoding_offset=4: only with encoding=offset"):
        make_config(["encoding_offset=4"])
    with pytest.raises(ConfigError, match="encoding_offset"):
        make_config(["encoding=offset", "encoding_offset=0"])
