"""Task tables against Python integer arithmetic, row order, and validation."""
import itertools
import time

import pytest
import torch

from groklab.data import KNOWN_TASKS, Table, is_prime, make_table
from groklab.errors import ConfigError

P = 7
REFERENCE = {
    "add": lambda a, b: (a + b) % P,
    "sub": lambda a, b: (a - b) % P,
    "mul": lambda a, b: (a * b) % P,
    "div": lambda a, b: (a * pow(b, -1, P)) % P,
}


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div"])
def test_binary_tasks_match_python(name):
    t = make_table(name, P)
    b_values = range(1, P) if name == "div" else range(P)
    rows = list(itertools.product(range(P), b_values))  # lexicographic
    assert t.operands.tolist() == [list(r) for r in rows]
    assert t.y.tolist() == [REFERENCE[name](a, b) for a, b in rows]
    assert len(t) == len(rows) and t.n_operands == 2 and t.p == P and t.name == name
    assert t.operands.dtype == torch.long and t.y.dtype == torch.long


def test_row_index_is_a_times_p_plus_b():
    t = make_table("mul", 11)
    a, b = t.operands[:, 0], t.operands[:, 1]
    assert torch.equal(a * 11 + b, torch.arange(121))


def test_poly_matches_python():
    t = make_table("poly", P, expr="a^2 + a*b - 3*b^3")
    want = [(a * a + a * b - 3 * b**3) % P for a, b in itertools.product(range(P), range(P))]
    assert t.y.tolist() == want


def test_sum_matches_python():
    t = make_table("sum", 5, K=3)
    rows = list(itertools.product(range(5), repeat=3))
    assert t.operands.tolist() == [list(r) for r in rows]
    assert t.y.tolist() == [sum(r) % 5 for r in rows]
    assert t.n_operands == 3 and len(t) == 125


def test_is_prime():
    def slow(n):
        return n >= 2 and all(n % d for d in range(2, n))
    assert [is_prime(n) for n in range(-3, 300)] == [slow(n) for n in range(-3, 300)]


def test_table_is_frozen():
    t = make_table("add", 3)
    assert isinstance(t, Table)
    with pytest.raises(Exception):
        t.p = 5


def test_fast_for_p97():
    make_table("add", 97)  # warm up
    for name in ("add", "sub", "mul", "div"):
        start = time.perf_counter()
        t = make_table(name, 97)
        assert time.perf_counter() - start < 0.05
        assert int(t.y.min()) >= 0 and int(t.y.max()) < 97


@pytest.mark.parametrize("kwargs, field", [
    (dict(name="pow", p=7), "task.name"),
    (dict(name="add", p=1), "p"),
    (dict(name="add", p=2.5), "p"),
    (dict(name="div", p=9), "p"),
    (dict(name="poly", p=7), "task.expr"),
    (dict(name="poly", p=7, expr="a/b"), "task.expr"),
    (dict(name="add", p=7, expr="a+b"), "task.expr"),
    (dict(name="sum", p=7, K=1), "task.K"),
    (dict(name="sum", p=97, K=4), "task.K"),
    (dict(name="add", p=2000), "p"),
    (dict(name="add", p=11, max_rows=100), "p"),
])
def test_validation(kwargs, field):
    with pytest.raises(ConfigError) as info:
        make_table(**kwargs)
    assert info.value.field == field
    assert "\n" not in str(info.value)


def test_unknown_task_lists_the_choices():
    with pytest.raises(ConfigError) as info:
        make_table("pow", 7)
    assert all(name in str(info.value) for name in KNOWN_TASKS)


def test_sum_limit_message():
    with pytest.raises(ConfigError, match="exceeds the limit of 1000"):
        make_table("sum", 11, K=3, max_rows=1000)
    assert len(make_table("sum", 10, K=3, max_rows=1000)) == 1000  # exactly at the limit is fine
