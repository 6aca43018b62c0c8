"""Class-mean feature geometry: 1 when class means lie on a line in label order, lower when shuffled."""
import torch
from torch import nn

from groklab.measures.features import class_means, feature_measures, rank_corr


class Feats(nn.Module):
    """features(x) = x itself: the test places the features."""

    def features(self, x):
        return x


def test_class_means_average_each_labels_rows():
    X = torch.tensor([[0.0, 2.0], [2.0, 0.0], [5.0, 5.0]])
    labels, means = class_means(Feats(), X, torch.tensor([3, 3, 7]), chunk=2)
    assert labels.tolist() == [3, 7] and torch.allclose(means, torch.tensor([[1.0, 1.0], [5.0, 5.0]]).double())


def test_a_number_line_scores_one_and_a_shuffle_does_not():
    g = torch.Generator().manual_seed(0)
    y = torch.arange(12).repeat(20)
    line = torch.stack([y.double() * 3.0, torch.zeros(len(y), dtype=torch.float64)], 1)
    X = line + 0.1 * torch.randn(len(y), 2, generator=g, dtype=torch.float64)
    s, a = feature_measures(Feats(), X, y)
    assert s["geometry/class_order"] > 0.99 and s["geometry/class_pc1_share"] > 0.99
    assert a["geometry/class_pca"].shape == (12, 2) and a["geometry/class_labels"].tolist() == list(range(12))
    perm = torch.randperm(12, generator=g)
    s2, _ = feature_measures(Feats(), X, perm[y])
    assert s2["geometry/class_order"] < 0.9
    assert abs(rank_corr(torch.arange(5.0).numpy(), -torch.arange(5.0).numpy()) + 1) < 1e-12
