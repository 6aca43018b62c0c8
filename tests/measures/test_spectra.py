"""SVD ranks and the Fourier spectrum against closed forms."""
import math

import numpy as np
import pytest
import torch

from groklab.measures.fourier import dlog_order, fourier_measures, fourier_spectrum, key_frequencies, primitive_root
from groklab.measures.spectra import effective_rank, embedding_product, numerical_rank, stable_rank, sv_measures
from groklab.models import MLP


def test_effective_and_stable_rank_of_known_spectra():
    assert effective_rank(torch.ones(4)) == pytest.approx(4.0)
    assert effective_rank(torch.tensor([1.0, 0.0, 0.0])) == pytest.approx(1.0)
    q = torch.tensor([2 / 3, 1 / 3], dtype=torch.float64)
    assert effective_rank(torch.tensor([2.0, 1.0])) == pytest.approx(math.exp(-(q * q.log()).sum().item()))
    assert stable_rank(torch.tensor([4.0, 3.0])) == pytest.approx(25 / 16)
    s = torch.tensor([1.0, 0.5, 1e-3, 1e-9])
    assert numerical_rank(s, (4, 4), rtol=1e-2) == 2 and numerical_rank(s, (4, 4), rtol=1e-4) == 3
    assert numerical_rank(s, (4, 4)) == 3  # default 4 * eps(float32) ~ 5e-7


def test_sv_measures_of_a_planted_low_rank_model():
    torch.manual_seed(0)
    m = MLP(p=7, n_ctx=2, vocab=7, d_emb=6, d_hidden=10)
    with torch.no_grad():
        m.E.weight.copy_(torch.randn(7, 2) @ torch.randn(2, 6))  # rank 2
    sc, arr = sv_measures(m, rtol=1e-5)
    assert sc["rank/E"] == 2 and sc["rank/W"] == 10 and sc["rank/EW"] == 2
    assert sc["sv/E_max"] == pytest.approx(torch.linalg.matrix_norm(m.E.weight, 2).item(), rel=1e-5)
    np.testing.assert_allclose(arr["sv/W"], torch.linalg.svdvals(m.W.weight.detach()).numpy(), rtol=1e-5)
    W = m.W.weight.detach().double()
    assert sc["srank/W"] == pytest.approx((W.square().sum() / torch.linalg.matrix_norm(W, 2) ** 2).item())


def test_embedding_product_is_the_first_layer_map():
    torch.manual_seed(1)
    m = MLP(p=5, n_ctx=3, vocab=7, d_emb=4, d_hidden=6)
    x = torch.tensor([[0, 5, 3], [2, 6, 4]])
    EW = embedding_product(m.E.weight, m.W.weight)  # [vocab, n_ctx * d_hidden]
    pre = m.W(m.E(x).flatten(1)) - m.W.bias
    via = sum(EW[x[:, j], j * 6:(j + 1) * 6] for j in range(3))
    torch.testing.assert_close(pre, via)


def test_fourier_of_a_pure_cosine_peaks_at_its_frequency():
    p, k, d = 23, 4, 8
    t = torch.arange(p + 2, dtype=torch.float64)[:, None]
    g = torch.Generator().manual_seed(0)
    u, v = torch.randn(1, d, generator=g, dtype=torch.float64), torch.randn(1, d, generator=g, dtype=torch.float64)
    E = torch.cos(2 * math.pi * k * t / p) * u + torch.sin(2 * math.pi * k * t / p) * v + 0.7
    E[p:] = 100.0  # the operator / `=` rows are not operands and must not count
    s = fourier_spectrum(E, p)
    assert s.shape == (p // 2 + 1,) and int(s[1:].argmax()) + 1 == k
    assert s[0].item() == pytest.approx(0.7 * p * math.sqrt(d))  # the mean row at k = 0
    assert (s[1:k].max() < 1e-9) and (s[k + 1:].max() < 1e-9)
    keys, share = key_frequencies(s, p, n_key=1)
    assert keys == [k] and share == pytest.approx(1.0)
    m = MLP(p=p, n_ctx=2, vocab=p + 2, d_emb=d, d_hidden=4)
    with torch.no_grad():
        m.E.weight.copy_(E)
    sc, arr = fourier_measures(m, p, n_key=3)
    assert sc["fourier/top_freq"] == k and sc["fourier/key_share"] == pytest.approx(1.0)
    assert arr["fourier/key_freqs"][0] == k


def test_key_share_counts_mirrored_energy():
    p = 8  # even: frequency 4 is Nyquist, its own mirror
    E = torch.zeros(p, 1, dtype=torch.float64)
    t = torch.arange(p, dtype=torch.float64)
    E[:, 0] = torch.cos(2 * math.pi * t / p) + torch.cos(math.pi * t)  # k = 1 and Nyquist, equal amplitude
    keys, share = key_frequencies(fourier_spectrum(E, p), p, n_key=1)
    # |F_1| = |F_7| = p/2, |F_4| = p: energies 2*(p/2)^2 = p^2/2 vs p^2, so Nyquist holds 2/3
    assert keys == [4] and share == pytest.approx(2 / 3)


def test_no_embedding_no_embedding_measures():
    m = MLP(p=5, n_ctx=2, vocab=None, d_hidden=4)
    sc, _ = sv_measures(m)
    assert set(sc) == {"sv/W_max", "rank/W", "erank/W", "srank/W"}
    assert fourier_measures(m, 5) == ({}, {})


@pytest.mark.parametrize("p,g", [(5, 2), (7, 3), (23, 5), (47, 5), (97, 5), (113, 3)])
def test_primitive_root_is_the_smallest_generator(p, g):
    assert primitive_root(p) == g
    assert sorted(dlog_order(p)) == list(range(1, p))  # every nonzero residue exactly once


def test_primitive_root_refuses_a_composite():
    with pytest.raises(ValueError, match="p=21"):
        primitive_root(21)


def test_an_exact_multiplicative_code_is_peaked_only_in_discrete_log_order():
    """Row x = cos / sin of 2 pi k dlog(x) / (p-1): the code a network for x*y mod p can add in. Its token-order
    spectrum is spread over many frequencies, its discrete-log spectrum is one frequency."""
    p, k, d = 47, 3, 6
    order = dlog_order(p)
    log = {x: i for i, x in enumerate(order)}
    g = torch.Generator().manual_seed(1)
    u, v = torch.randn(1, d, generator=g, dtype=torch.float64), torch.randn(1, d, generator=g, dtype=torch.float64)
    E = torch.zeros(p + 1, d, dtype=torch.float64)
    for x in range(1, p):
        a = torch.tensor(2 * math.pi * k * log[x] / (p - 1), dtype=torch.float64)
        E[x] = torch.cos(a) * u + torch.sin(a) * v
    m = MLP(p=p, n_ctx=2, vocab=p + 1, d_emb=d, d_hidden=4)
    with torch.no_grad():
        m.E.weight.copy_(E)
    sc, arr = fourier_measures(m, p, n_key=5)
    assert sc["fourier/dlog_key_share"] == pytest.approx(1.0)
    assert int(arr["fourier/dlog_spectrum"][1:].argmax()) + 1 == k and arr["fourier/dlog_spectrum"].shape == (24,)
    assert sc["fourier/key_share"] < 0.5  # the same rows in token order: no few frequencies hold it
