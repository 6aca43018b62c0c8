"""Token counts, exact Manhattan coverage of a split, and the 004 Thm 3.12 estimate."""
import itertools
import math

import pytest
import torch

from groklab.data import coverage, coverage_bound, make_split, make_table, token_counts
from groklab.errors import ConfigError


def rows(p, cells):
    """Row indices of (a, b) cells in a full p x p table."""
    return torch.tensor([a * p + b for a, b in cells], dtype=torch.long)


def brute_coverage(p, train_cells, test_cells, n, wrap):
    def dist(u, v):
        da, db = abs(u[0] - v[0]), abs(u[1] - v[1])
        if wrap:
            da, db = min(da, p - da), min(db, p - db)
        return da + db
    covered = [any(dist(c, t) < n for t in train_cells) for c in test_cells]
    return sum(covered) / len(covered)


def test_token_counts_sum_and_match_bincount():
    t = make_table("sum", 5, K=3)
    idx = torch.arange(0, len(t), 3)
    counts = token_counts(t, idx)
    assert counts.shape == (3, 5)
    assert (counts.sum(1) == len(idx)).all()
    for j in range(3):
        assert counts[j].tolist() == [int((t.operands[idx, j] == v).sum()) for v in range(5)]


def test_token_counts_of_whole_table():
    t = make_table("div", 7)
    counts = token_counts(t, torch.arange(len(t)))
    assert counts[0].tolist() == [6] * 7
    assert counts[1].tolist() == [0] + [7] * 6  # b = 0 never occurs in div


def test_coverage_hand_made():
    # p=5, one training cell in the corner (0,0); test cells at distances 1, 2, 4 and 8
    p = 5
    t = make_table("add", p)
    train = rows(p, [(0, 0)])
    test = rows(p, [(0, 1), (1, 1), (2, 2), (4, 4)])
    assert coverage(t, train, test, 1) == 0.0  # distance < 1: only the training cell itself
    assert coverage(t, train, test, 2) == 0.25
    assert coverage(t, train, test, 3) == 0.5
    assert coverage(t, train, test, 5) == 0.75
    assert coverage(t, train, test, 9) == 1.0
    # on the torus (4,4) is at distance 2 from (0,0)
    assert coverage(t, train, test, 3, wrap=True) == 0.75


@pytest.mark.parametrize("wrap", [False, True])
def test_coverage_matches_brute_force(wrap):
    p = 9
    t = make_table("add", p)
    s = make_split(t, "random", frac_train=0.1, seed=3)
    cells = t.operands.tolist()
    train_cells = [cells[i] for i in s.train.tolist()]
    test_cells = [cells[i] for i in s.test.tolist()]
    for n in (1, 2, 3, 5):
        got = coverage(t, s.train, s.test, n, wrap=wrap)
        assert got == pytest.approx(brute_coverage(p, train_cells, test_cells, n, wrap))


def test_coverage_div_table_uses_operand_values():
    t = make_table("div", 7)  # row i is (a, b) with b in 1..6, not i = a*p + b
    train = torch.tensor([0])  # the row (0, 1)
    test = torch.nonzero((t.operands[:, 0] == 0) & (t.operands[:, 1] == 2)).flatten()
    assert coverage(t, train, test, 2) == 1.0 and coverage(t, train, test, 1) == 0.0


@pytest.mark.parametrize("n", [1, 2, 3])
def test_bound_C_matches_a_count(n):
    C = sum(1 for dx, dy in itertools.product(range(-n, n + 1), repeat=2) if abs(dx) + abs(dy) < n)
    bound = coverage_bound(97, 0.3, n)
    assert bound["C"] == C
    assert bound["p_uncovered"] == pytest.approx(math.exp(-0.3 * C))
    assert bound["expected_uncovered"] == pytest.approx(97**2 * math.exp(-0.3 * C))
    assert bound["alpha_needed"] == pytest.approx(math.log(97**2) / C)


def test_bound_alpha_needed_makes_expected_uncovered_one():
    b = coverage_bound(50, 0.0, 4)
    at = coverage_bound(50, b["alpha_needed"], 4)
    assert at["expected_uncovered"] == pytest.approx(1.0)


def test_bound_tracks_a_random_split():
    # the estimate of uncovered points should be the right size for a large random split
    p, frac, n = 97, 0.05, 2
    t = make_table("add", p)
    s = make_split(t, "random", frac_train=frac, seed=0)
    uncovered = (1 - coverage(t, s.train, s.test, n, wrap=True)) * len(s.test)
    expected = coverage_bound(p, frac, n)["expected_uncovered"]
    assert 0.8 * expected < uncovered < 1.25 * expected


def test_validation():
    t = make_table("sum", 5, K=3)
    with pytest.raises(ConfigError) as info:
        coverage(t, torch.tensor([0]), torch.tensor([1]), 2)
    assert info.value.field == "task.name"
    with pytest.raises(ConfigError):
        coverage(make_table("add", 5), torch.tensor([0]), torch.tensor([1]), 0)
    with pytest.raises(ConfigError):
        coverage_bound(97, 0.3, 0)


@pytest.mark.parametrize("task", ["add", "a^2+a*b+b^2"])
@pytest.mark.parametrize("wrap", [False, True])
def test_symmetric_and_same_class_coverage_match_brute_force(task, wrap):
    """A training row also covers from its mirror (b, a); with same_class only rows with the test row's
    answer count. Checked against the definition on a small grid, every n."""

    p = 11
    t = make_table("add", p) if task == "add" else make_table("poly", p, expr=task)
    s = make_split(t, "square", frac_train=0.3, seed=2, k=4)
    ops, y = t.operands.tolist(), t.y.tolist()
    tr, te = s.train.tolist(), s.test.tolist()

    def dist(u, v):
        da, db = abs(u[0] - v[0]), abs(u[1] - v[1])
        return (min(da, p - da) + min(db, p - db)) if wrap else da + db

    for n in (1, 2, 3, 5):
        for sym in (False, True):
            for cls in (False, True):
                want = 0
                for i in te:
                    src = [(ops[j], y[j]) for j in tr] + ([((ops[j][1], ops[j][0]), y[j]) for j in tr] if sym else [])
                    want += any(dist(ops[i], c) < n and (not cls or yc == y[i]) for c, yc in src)
                got = coverage(t, s.train, s.test, n, wrap=wrap, symmetric=sym, same_class=cls)
                assert got == pytest.approx(want / len(te)), (n, sym, cls)


def test_expected_coverage_is_the_mean_over_every_training_set():
    """Enumerate every training set of 4 rows of the pool (a 5 x 5 grid minus a SQUARE holdout): the mean
    coverage of the remaining rows equals the closed form, for every n, grid or torus, mirror or not."""
    import itertools

    from groklab.data.coverage import expected_coverage

    t = make_table("add", 5)
    s = make_split(t, "square", frac_train=0.2, k=1, seed=0)
    pool = [i for i in range(25) if i not in set(s.holdout.tolist())]
    for n in (1, 2, 3):
        for wrap in (False, True):
            for sym in (False, True):
                got = [coverage(t, torch.tensor(tr), torch.tensor([i for i in range(25) if i not in tr]), n,
                                wrap=wrap, symmetric=sym) for tr in itertools.combinations(pool, 4)]
                want = expected_coverage(t, torch.tensor(pool), 4, n, wrap, sym)
                assert sum(got) / len(got) == pytest.approx(want, abs=1e-6), (n, wrap, sym)
