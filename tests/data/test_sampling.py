import torch

from groklab.data.encoding import encode, seq_len, vocab_size
from groklab.data.sampling import EpochSampler, FullSampler, ReplacementSampler


def test_epoch_sampler_visits_every_index_once_per_epoch():
    n, B = 50, 7
    s = EpochSampler(n, B, seed=1)
    stream = torch.cat([s.batch(t) for t in range(3 * n)])  # 3*B epochs' worth
    for e in range(B * 3):
        assert sorted(stream[e * n:(e + 1) * n].tolist()) == list(range(n))
    assert not torch.equal(stream[:n], stream[n:2 * n])  # a fresh shuffle each epoch


def test_epoch_sampler_is_stateless_in_the_step():
    a, b = EpochSampler(50, 16, seed=3), EpochSampler(50, 16, seed=3)
    later = [a.batch(t) for t in range(20)]
    assert all(torch.equal(b.batch(t), later[t]) for t in (17, 3, 11, 0))  # any order, same batches
    assert not torch.equal(EpochSampler(50, 16, seed=4).batch(0), later[0])


def test_epoch_sampler_batch_larger_than_the_set():
    s = EpochSampler(5, 12, seed=0)
    idx = s.batch(0)
    assert len(idx) == 12 and torch.bincount(idx, minlength=5).min() >= 2


def test_replacement_sampler_is_uniform_and_stateless():
    s = ReplacementSampler(10, 64, seed=0)
    idx = torch.cat([s.batch(t) for t in range(600)])
    counts = torch.bincount(idx, minlength=10).float()
    assert (counts / counts.mean() - 1).abs().max() < 0.05
    assert torch.equal(ReplacementSampler(10, 64, seed=0).batch(300), s.batch(300))


def test_full_sampler_means_no_gather():
    assert FullSampler(10).batch(5) is None


def test_encodings_worked_example():
    ops = torch.tensor([[3, 4]])
    assert encode(ops, 5, "op").tolist() == [[3, 5, 4, 6]]
    assert encode(ops, 5, "no_op").tolist() == [[3, 4]]
    assert encode(ops, 5, "op", raw=True).dtype == torch.float32
    assert encode(torch.tensor([[1, 2, 3]]), 5, "op").tolist() == [[1, 5, 2, 5, 3, 6]]
    assert (vocab_size(5, "op"), vocab_size(5, "no_op"), seq_len(3, "op"), seq_len(3, "no_op")) == (7, 5, 6, 3)
