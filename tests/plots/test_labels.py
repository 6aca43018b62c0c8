"""plots/labels.py: code names as the papers write them, one mapping for every figure."""
import pytest

from groklab.plots.labels import label


@pytest.mark.parametrize("code, text", [("mlp_emb", "MLP with embeddings"), ("mul", "a × b"),
                                        ("adam_lr", "Adam-LR (c = 10)"), ("k30", "k = 30"),
                                        ("op-a0.3-p97-L2", "operator tokens, α = 0.3, p = 97, 2 layers"),
                                        ("layers1", "1 layer"), ("L11", "11 layers"), ("optim.lr=0.01", "lr = 0.01"),
                                        ("transformer/add", "Transformer, a + b"), ("whatever_x", "whatever_x"),
                                        (0.5, "0.5"), ("adamw-lr0.0001-wd0.1", "AdamW, lr 0.0001, weight decay 0.1"),
                                        ("Adam-LR, c = 10", "Adam-LR, c = 10"), ("Adam-LR", "Adam-LR"),
                                        ("arm-horizon", "arm-horizon")])
def test_code_names_read_as_the_papers_write_them(code, text):
    assert label(code) == text


def test_a_figure_shows_paper_labels_not_code_names(tmp_path):
    import pandas as pd

    from groklab.plots.curves import acc_grid

    rows = [{"run": f"{m}/s{s}", "step": t, "train/acc": min(1, t / 50), "test/acc": min(1, t / 90),
             "model.name": m, "task.name": "mul"} for m in ("mlp", "mlp_emb") for s in (0, 1) for t in (1, 10, 100)]
    import matplotlib

    seen = []
    orig = matplotlib.axes.Axes.set_title
    try:
        matplotlib.axes.Axes.set_title = lambda self, t, *a, **k: seen.append(t) or orig(self, t, *a, **k)
        acc_grid(pd.DataFrame(rows), tmp_path / "f.png", None, "task.name", "model.name", "t")
    finally:
        matplotlib.axes.Axes.set_title = orig
    assert seen == ["a × b"]
