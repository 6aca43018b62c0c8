"""Frequency-aware samplers (000 App. A): balanced token coverage and p_i ∝ exp(L_i^2 / gamma)."""

import numpy as np
import pytest
import torch

from conftest import interrupt_and_resume, metric_rows, tiny
from groklab import make_config
from groklab.data import make_split, make_table
from groklab.data.sampling import BalancedSampler, EntropySampler, even_counts


@pytest.mark.parametrize("p,B,split", [(23, 64, "random"), (23, 10, "random"), (31, 100, "uniform")])
def test_balanced_batches_count_every_token_within_one_of_even(p, B, split):
    t = make_table("add", p)
    s = make_split(t, split, frac_train=0.4, seed=1)
    ops = t.operands[s.train].numpy()
    sampler = BalancedSampler(ops, p, B, seed=3)
    totals = np.zeros((2, p), dtype=int)
    for step in range(40):
        idx = sampler.batch(step).numpy()
        assert len(idx) == B and idx.min() >= 0 and idx.max() < len(ops)
        for k in range(2):
            counts = np.bincount(ops[idx, k], minlength=p)
            assert counts.max() - counts.min() <= 1 and counts.sum() == B, (step, k, counts)
            totals[k] += counts
    # the extras rotate: over 40 steps each token got 40 B / p ± 1 (b: where every batch matched perfectly)
    assert totals[0].max() - totals[0].min() <= 1
    assert totals[1].max() - totals[1].min() <= (1 if B > p else 4)
    assert torch.equal(sampler.batch(7), BalancedSampler(ops, p, B, seed=3).batch(7))  # pure in (seed, step)
    assert not torch.equal(sampler.batch(7), sampler.batch(8))


def test_epoch_sampler_is_not_balanced_but_balanced_is():
    """The contrast the sampler exists for: an ordinary shuffled batch leaves tokens out."""
    t = make_table("add", 47)
    s = make_split(t, "random", frac_train=0.3, seed=0)
    ops = t.operands[s.train].numpy()
    idx = torch.randperm(len(ops), generator=torch.Generator().manual_seed(0))[:94].numpy()
    assert np.bincount(ops[idx, 0], minlength=47).max() > 3
    b = BalancedSampler(ops, 47, 94, seed=0).batch(0).numpy()
    assert set(np.bincount(ops[b, 0], minlength=47)) == {2}


def test_even_counts_rotates_the_remainder():
    tokens = np.arange(5)
    got = np.stack([np.bincount(even_counts(tokens, 7, 0, 0, s), minlength=5) for s in range(5)])
    assert (got.sum(1) == 7).all() and (got.sum(0) == 7).all()  # 5 steps x 2 extras = each token twice extra


def test_entropy_sampler_probabilities_and_draws():
    ops = np.array([[0, 1], [0, 2], [1, 2], [2, 0], [1, 1]])
    occ = np.bincount(ops.ravel(), minlength=3)  # token occurrences: [3, 4, 3]
    es = EntropySampler(ops, 3, 20000, seed=0, gamma=0.5, beta=0.0)
    es.L = torch.tensor([0.1, 0.5, 1.0], dtype=torch.float64)
    w = np.exp(np.array([0.01, 0.25, 1.0]) / 0.5)
    np.testing.assert_allclose(es.probs().numpy(), w / w.sum(), rtol=1e-12)  # eq. 19
    idx = es.batch(0).numpy()
    q = (w / w.sum() / occ)[ops].sum(1)
    freq = np.bincount(idx, minlength=len(ops)) / len(idx)
    np.testing.assert_allclose(freq, q / q.sum(), atol=0.012)  # rows: pick token ~ p, then an occurrence
    assert torch.equal(es.batch(5), es.batch(5))


def test_entropy_sampler_tracks_per_occurrence_gradient_norms():
    es = EntropySampler(np.array([[0, 1], [1, 2]]), 3, 4, seed=0, gamma=1.0, beta=0.5)
    xb = torch.tensor([[0, 3, 1, 4], [0, 3, 0, 4]])  # token 0 occurs 3x, token 1 once, 2 never
    G = torch.zeros(5, 2, dtype=torch.float64)
    G[0], G[1], G[2] = torch.tensor([3.0, 4.0]), torch.tensor([0.0, 1.0]), torch.tensor([9.0, 9.0])
    es.observe(xb, G)
    np.testing.assert_allclose(es.L.numpy(), [0.5 * 5 * 2 / 3, 0.5 * 1 * 2 / 1, 0.0])


@pytest.mark.parametrize("sampler", ["balanced", "entropy"])
def test_runs_with_frequency_samplers_resume_exactly(tmp_path, monkeypatch, sampler):
    from groklab.data import sampling
    cls = sampling.BalancedSampler if sampler == "balanced" else sampling.EntropySampler
    cfg = make_config(tiny(steps=40, sampler=sampler, **{"eval.every": 5, "sampler_gamma": 0.01}))
    full, full_dir, cut_dir = interrupt_and_resume(cfg, tmp_path, monkeypatch, cls, at=27)
    assert full.summary["status"] == "completed"
    assert metric_rows(cut_dir) == metric_rows(full_dir)


def test_relative_gamma_is_scale_free_and_absolute_gamma_goes_one_hot():
    ops = np.array([[a, b] for a in range(5) for b in range(5)])
    L = torch.tensor([0.1, 0.2, 0.3, 0.4, 0.5], dtype=torch.float64)
    rel = EntropySampler(ops, 5, 8, seed=0, gamma=None, beta=0.0, tau=1.0)
    assert rel.entropy() == pytest.approx(1.0)  # nothing observed yet: uniform
    rel.L = L.clone()
    p1 = rel.probs()
    rel.L = 1000 * L  # gradients 1000x larger: the same distribution
    torch.testing.assert_close(rel.probs(), p1)
    want = torch.softmax(L ** 2 / (L ** 2).mean(), 0)
    torch.testing.assert_close(p1, want)
    assert 0.7 < rel.entropy() < 0.9  # L_i^2 from 0.01 to 0.25: largest token 9x as likely as the smallest
    absolute = EntropySampler(ops, 5, 8, seed=0, gamma=1e-4, beta=0.0)
    absolute.L = L.clone()
    assert absolute.entropy() < 1e-6 and absolute.probs().argmax() == 4  # App. A's gamma: one token only
    cold = EntropySampler(ops, 5, 8, seed=0, gamma=None, beta=0.0, tau=0.01)
    cold.L = L.clone()
    assert cold.entropy() < rel.entropy()
