"""Splits: sizes, partition, determinism, the 000 §5.1 protocol, balance, skew and holdouts."""
import time
from math import floor

import pytest
import torch

from groklab.config import make_config
from groklab.data import SPLITS, Split, make_split, make_table, token_counts, token_rows
from groklab.errors import ConfigError

T13 = make_table("add", 13)
K_FOR = {"square": 4, "strip": 3}


def split_of(table, name, **kw):
    return make_split(table, name, k=K_FOR.get(name), **kw)


def assert_partition(s: Split, N: int):
    parts = [s.train, s.test, s.unused]
    for idx in parts + [s.holdout]:
        assert idx.dtype == torch.long
        assert torch.equal(idx, torch.sort(idx).values)
    joined = torch.cat(parts)
    assert len(joined) == N and torch.equal(torch.sort(joined).values, torch.arange(N))


@pytest.mark.parametrize("name", SPLITS)
def test_partition_size_and_determinism(name):
    N = len(T13)
    s = split_of(T13, name, frac_train=0.3, seed=1)
    assert_partition(s, N)
    assert len(s.train) == floor(0.3 * N) and len(s.unused) == 0
    again = split_of(T13, name, frac_train=0.3, seed=1)
    parts = lambda x: (x.train, x.test, x.unused, x.holdout)  # noqa: E731
    assert all(torch.equal(x, y) for x, y in zip(parts(s), parts(again)))
    other = split_of(T13, name, frac_train=0.3, seed=2)
    assert not torch.equal(s.train, other.train)


@pytest.mark.parametrize("name", ["random", "uniform", "skewed"])
def test_paper_protocol_sizes(name):
    t = make_table("mul", 23)
    N = len(t)
    s = make_split(t, name, frac_train=0.3, seed=0, test_reserve=0.2)
    assert_partition(s, N)
    assert (len(s.test), len(s.train), len(s.unused)) == (floor(0.2 * N), floor(0.3 * N),
                                                          N - floor(0.2 * N) - floor(0.3 * N))
    merged = make_split(t, name, frac_train=0.3, seed=0, test_reserve=0.2, unused_to_test=True)
    assert_partition(merged, N)
    assert torch.equal(merged.train, s.train) and len(merged.unused) == 0
    assert torch.equal(merged.test, torch.sort(torch.cat([s.test, s.unused])).values)


def test_reserve_is_the_same_rows_across_strategies():
    # the reserve is drawn first from the seed, so strategies differ only in the training rows
    tests = [make_split(T13, n, 0.3, seed=4, test_reserve=0.2).test for n in ("random", "uniform", "skewed")]
    assert all(torch.equal(tests[0], x) for x in tests[1:])


def assert_balanced(table, s, n_train):
    counts = token_counts(table, s.train)
    for col in range(2):
        present = torch.unique(table.operands[:, col])
        c = counts[col, present]
        m = len(present)
        assert int(c.sum()) == n_train
        assert int(c.min()) >= n_train // m and int(c.max()) <= -(-n_train // m)


@pytest.mark.parametrize("name, p, reserve", [
    ("add", 7, None), ("mul", 13, 0.2), ("add", 31, 0.2), ("sub", 50, None),
    ("add", 97, None), ("add", 97, 0.2), ("div", 97, 0.2), ("div", 11, None),
])
def test_uniform_balance(name, p, reserve):
    t = make_table(name, p)
    for seed in range(2):
        s = make_split(t, "uniform", frac_train=0.3, seed=seed, test_reserve=reserve)
        assert_partition(s, len(t))
        assert_balanced(t, s, floor(0.3 * len(t)))


def test_uniform_is_fast_for_p97():
    t = make_table("add", 97)
    start = time.perf_counter()
    make_split(t, "uniform", frac_train=0.3, seed=5, test_reserve=0.2)
    assert time.perf_counter() - start < 1.0


def test_uniform_infeasible_raises():
    # p=5 with a 20% reserve and frac 0.8: only a reserve that is a permutation leaves a balanced
    # remainder, which almost no seed draws; every outcome must be balanced or a ConfigError.
    t = make_table("add", 5)
    raised = 0
    for seed in range(10):
        try:
            s = make_split(t, "uniform", frac_train=0.8, seed=seed, test_reserve=0.2)
            assert_balanced(t, s, 20)
        except ConfigError as err:
            assert err.field == "split.frac_train"
            raised += 1
    assert raised > 0


def test_uniform_needs_two_operands():
    with pytest.raises(ConfigError) as info:
        make_split(make_table("sum", 5, K=3), "uniform")
    assert info.value.field == "split.name"


def decile_counts(table, train):
    counts = token_counts(table, train)[0].double()
    d = table.p // 10
    return counts[:d].sum().item(), counts[-d:].sum().item()


def test_skewed_makes_large_a_rare():
    t = make_table("add", 97)
    first, last = decile_counts(t, make_split(t, "skewed", 0.3, seed=0, skew=3.0).train)
    assert last < first / 2
    first6, last6 = decile_counts(t, make_split(t, "skewed", 0.3, seed=0, skew=6.0).train)
    assert last6 / first6 < last / first  # a stronger skew is more lopsided
    counts = token_counts(t, make_split(t, "skewed", 0.3, seed=0, test_reserve=0.2).train)[0]
    assert counts[:10].sum() > 2 * counts[-10:].sum()


def test_skew_by_a_plus_b_makes_tokens_rare_where_a_alone_cannot():
    # 000's "heavily imbalanced" tokens: skewing operand a leaves every token ~n/p rows as b; a + b does not
    t = make_table("add", 97)

    def rows(**kw):
        a, b = token_counts(t, make_split(t, "skewed", 0.3, seed=0, test_reserve=0.2, **kw).train)
        return a + b
    assert all(rows(skew=s).min() >= 20 for s in (3.0, 30.0))
    both = rows(skew=6.0, skew_by="a+b")
    assert both.min() <= 3 and (both <= 5).sum() >= 2 and (both > 0).all(), both.tolist()  # 000 paper sizes
    default = make_split(t, "skewed", 0.3, seed=0, test_reserve=0.2)
    assert torch.equal(default.train, make_split(t, "skewed", 0.3, seed=0, test_reserve=0.2, skew_by="a").train)
    with pytest.raises(ConfigError, match="split.skew_by"):
        make_split(t, "skewed", 0.3, skew_by="b")
    with pytest.raises(ConfigError, match="skew_by"):
        make_config(["split.skew_by=b"])


def test_token_rows_counts_a_row_once_per_token():
    # the full p = 5 table: token t is in 5 rows as a, 5 as b, and (t, t) is one row: 9
    t5 = make_table("add", 5)
    assert token_rows(t5, torch.arange(len(t5))).tolist() == [9] * 5
    rows = torch.tensor([0, 6, 7])  # (0, 0), (1, 1), (1, 2)
    assert token_rows(t5, rows).tolist() == [1, 2, 1, 0, 0]
    t = make_table("add", 97)
    train = make_split(t, "skewed", 0.3, seed=0, test_reserve=0.2, skew=6.0, skew_by="a+b").train
    a, b = token_counts(t, train)
    diagonal = torch.bincount(t.operands[train][t.operands[train, 0] == t.operands[train, 1], 0], minlength=97)
    assert torch.equal(token_rows(t, train), a + b - diagonal)


def test_skew_zero_is_uniform_at_random():
    # every row equally likely: inclusion frequency over many seeds ~ n_train/N for each row
    t = make_table("add", 7)
    N, n_train, seeds = len(t), floor(0.3 * len(t)), 400
    hits = torch.zeros(N)
    for seed in range(seeds):
        hits[make_split(t, "skewed", 0.3, seed=seed, skew=0.0).train] += 1
    q = n_train / N
    sd = (q * (1 - q) / seeds) ** 0.5
    assert ((hits / seeds - q).abs() < 5 * sd).all()
    t97 = make_table("add", 97)
    first, last = decile_counts(t97, make_split(t97, "skewed", 0.3, skew=0.0).train)
    assert abs(first - last) < 0.25 * (first + last) / 2  # ~3.5 standard deviations


@pytest.mark.parametrize("name, p, k", [("square", 13, 4), ("strip", 13, 3), ("square", 97, 20),
                                        ("strip", 97, 0), ("square", 11, 5)])
def test_holdout_membership(name, p, k):
    t = make_table("add", p)
    s = make_split(t, name, frac_train=0.3, seed=0, k=k)
    a, b = t.operands[:, 0], t.operands[:, 1]
    want = (a <= k) & (b <= k) if name == "square" else a <= k
    assert torch.equal(s.holdout, torch.nonzero(want).flatten())
    assert torch.isin(s.holdout, s.test).all() and not torch.isin(s.holdout, s.train).any()
    assert_partition(s, len(t))
    assert len(s.train) == floor(0.3 * len(t))


def test_holdout_too_big_for_frac_trains_on_the_whole_remainder():
    """004's code (and the papers' README): STRIP k=67 at p=97 leaves 2,813 < 2,822 rows; train on all of them."""
    s = make_split(T13, "strip", frac_train=0.9, k=5)
    rest = len(T13) - 6 * 13
    assert len(s.train) == rest and len(s.test) == 6 * 13 and "only 91 remain" in s.note
    s97 = make_split(make_table("add", 97), "strip", frac_train=0.3, k=67)
    assert len(s97.train) == 2813 and "2822 training rows asked" in s97.note
    assert make_split(make_table("add", 97), "strip", frac_train=0.3, k=40).note == ""


def test_frac_of_the_remainder():
    s = make_split(T13, "square", frac_train=0.5, k=3, frac_of="remainder")
    assert len(s.train) == floor(0.5 * (len(T13) - 16)) and s.note == ""
    with pytest.raises(ConfigError, match="split.frac_of"):
        make_config(["split=random", "split.frac_of=remainder"])


@pytest.mark.parametrize("kwargs, field", [
    (dict(name="blocks"), "split.name"),
    (dict(frac_train=0.0), "split.frac_train"),
    (dict(frac_train=1.0), "split.frac_train"),
    (dict(frac_train=-0.1), "split.frac_train"),
    (dict(frac_train=0.001), "split.frac_train"),  # rounds to 0 training rows
    (dict(test_reserve=0.0), "split.test_reserve"),
    (dict(test_reserve=1.0), "split.test_reserve"),
    (dict(frac_train=0.7, test_reserve=0.4), "split.frac_train"),
    (dict(name="skewed", skew=-1.0), "split.skew"),
    (dict(name="square"), "split.k"),
    (dict(name="strip"), "split.k"),
    (dict(name="square", k=12), "split.k"),
    (dict(name="strip", k=-1), "split.k"),
    (dict(name="strip", k=2.5), "split.k"),
    (dict(name="square", k=3, test_reserve=0.2), "split.test_reserve"),
])
def test_validation(kwargs, field):
    with pytest.raises(ConfigError) as info:
        make_split(T13, **kwargs)
    assert info.value.field == field
    assert "\n" not in str(info.value)


def test_k_message_names_the_range():
    with pytest.raises(ConfigError, match=r"\[0, 95\] for p=97"):
        make_split(make_table("add", 97), "square", k=96)
