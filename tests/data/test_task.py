"""The Task interface: token tasks expose operands, inputs, labels, n_classes and a readable example."""
from groklab.config import make_config
from groklab.data import make_task


def test_token_task_rows_agree_with_the_table():
    t = make_task(make_config(["task=mul", "p=11"]))
    assert t.inputs.shape == (121, 4) and t.labels.shape == (121,) and t.n_classes == 11 and t.vocab == 13
    a, b = t.operands[40].tolist()
    assert t.inputs[40].tolist() == [a, 11, b, 12] and int(t.labels[40]) == a * b % 11
    assert t.show(40) == f"{a} * {b} = {a * b % 11} (mod 11)   tokens [{a}, 11, {b}, 12]"


def test_raw_values_sums_and_polynomials():
    raw = make_task(make_config(["task=sum", "task.K=3", "p=5", "model=mlp", "encoding=no_op"]))
    assert raw.inputs.dtype.is_floating_point and raw.n_ctx == 3
    assert raw.show(7) == "0 + 1 + 2 = 3 (mod 5)   values [0.0, 1.0, 2.0]"
    poly = make_task(make_config(["task=a^2+b", "p=5"]))
    assert poly.show(7) == "a^2+b at a=1, b=2 = 3 (mod 5)   tokens [1, 5, 2, 6]"
