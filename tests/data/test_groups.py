"""Non-abelian group tables (dihedral, symmetric) against the group axioms and brute-force composition; sparse
parity against Python; the config's rules for the three tasks."""
import itertools
import subprocess
import sys

import pytest
import torch

from groklab.config import make_config
from groklab.data import make_table, make_task
from groklab.data.groups import dihedral_table, parity_labels, symmetric_table
from groklab.errors import ConfigError


def _axioms(T: torch.Tensor) -> None:
    """T[a, b] = a . b: closed, associative, 0 the identity, every element invertible, non-abelian."""
    n = T.shape[0]
    assert T.min() >= 0 and T.max() < n
    assert torch.equal(T[T], T[:, T])  # T[T][a, b, c] = (a . b) . c, T[:, T][a, b, c] = a . (b . c)
    assert torch.equal(T[0], torch.arange(n)) and torch.equal(T[:, 0], torch.arange(n))
    assert all((T[a] == 0).sum() == 1 for a in range(n))  # a Latin square row holds e once
    assert not torch.equal(T, T.T)


def test_dihedral_is_the_group_of_the_n_gon():
    for order in (6, 10, 16):
        n = order // 2
        T = dihedral_table(order)
        _axioms(T)
        r, s = 1, n  # a rotation by 2 pi / n, a reflection
        power = 0
        for _ in range(n):
            power = int(T[power, r])
        assert power == 0 and int(T[s, s]) == 0  # r^n = e, s^2 = e
        r_inv = n - 1
        assert int(T[T[s, r], s]) == r_inv  # s r s = r^-1


def test_symmetric_group_matches_composition_by_hand():
    for m in (3, 4):
        perms = list(itertools.permutations(range(m)))
        T = symmetric_table(len(perms))
        _axioms(T)
        index = {p: k for k, p in enumerate(perms)}
        for a, b in itertools.product(range(len(perms)), repeat=2):  # b after a
            assert int(T[a, b]) == index[tuple(perms[b][perms[a][x]] for x in range(m))]
    s5 = make_table("perm", 120)
    assert len(s5) == 14400 and s5.y.bincount(minlength=120).eq(120).all()  # every product 120 times


def test_sparse_parity_reads_the_first_bits_only():
    t = make_table("parity", 2, K=8, support=3)
    assert len(t) == 256 and t.operands.tolist()[5] == [0, 0, 0, 0, 0, 1, 0, 1]
    assert t.y.tolist() == [sum(row[:3]) % 2 for row in t.operands.tolist()]
    assert t.y.float().mean() == 0.5  # balanced classes
    assert torch.equal(parity_labels(torch.tensor([[1, 1, 1, 0], [1, 0, 0, 1]]), 3), torch.tensor([1, 1]))


@pytest.mark.parametrize("overrides,shape,classes", [
    (["task=dihedral", "p=10"], (100, 4), 10), (["task=perm", "p=24"], (576, 4), 24),
    (["task=parity", "p=2", "task.K=6", "task.support=2"], (64, 12), 2)])
def test_the_tasks_train_from_a_config(overrides, shape, classes):
    t = make_task(make_config(overrides))
    assert tuple(t.inputs.shape) == shape and t.n_classes == classes and t.labels.max() < classes
    said = t.show(3)
    assert "(in D_5)" in said if "task=dihedral" in overrides else "(mod 2)" in said or "(in S_4)" in said


@pytest.mark.parametrize("overrides,field", [
    (["task=perm", "p=100"], "p"), (["task=dihedral", "p=7"], "p"), (["task=dihedral", "p=4"], "p"),
    (["task=parity", "p=3"], "p"), (["task=parity", "p=2", "task.K=4", "task.support=5"], "task.support"),
    (["task=add", "task.support=2"], "task.support"), (["task=perm", "p=24", "task.K=3"], "task.K")])
def test_bad_group_and_parity_settings_name_their_field(overrides, field):
    with pytest.raises(ConfigError) as e:
        make_config(overrides)
    assert e.value.field == field


def test_cli_refuses_a_non_factorial_order_with_exit_2(tmp_path):
    out = subprocess.run([sys.executable, "-m", "groklab", "train", "task=perm", "p=100", "steps=1", "--out",
                          str(tmp_path / "o")], capture_output=True, text=True)
    assert out.returncode == 2 and "p=100" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()
