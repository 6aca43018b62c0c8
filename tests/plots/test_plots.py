"""Each measure figure writes a PNG from the data a real run stores."""
import numpy as np
import pytest

from conftest import tiny
from groklab import load_runs, make_config, train
from groklab.plots import measures as pm
from groklab.store import array_series, load_arrays

PNG = b"\x89PNG"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("plots") / "run"
    train(make_config(tiny(**{"measures.hessian.every": 10, "measures.spectra.every": 10,
                              "measures.token_grads.every": 5, "measures.geometry.every": 30,
                              "measures.landscape.every": 30, "measures.landscape.n_points": 5})), out=out)
    return out


def test_every_figure_writes_a_png(run, tmp_path):
    df = load_runs(run)
    arrays = load_arrays(run, 30)
    steps, grads = array_series(run, "tokens/grad_norm")
    _, counts = array_series(run, "tokens/count")
    paths = [
        pm.plot_hessian(df, tmp_path / "hessian.png"),
        pm.plot_ranks(df, tmp_path / "ranks.png"),
        pm.plot_ranks(df, tmp_path / "erank.png", kind="erank"),
        pm.plot_fourier({"add": arrays["fourier/spectrum"], "init": load_arrays(run, 0)["fourier/spectrum"]},
                        tmp_path / "fourier.png"),
        pm.plot_grad_heatmap(steps, grads, tmp_path / "heat.png", p=11),
        pm.plot_token_counts({"batch@0": counts[0], "all batches": counts.sum(0)}, tmp_path / "counts.png"),
        pm.plot_embedding_scatter(arrays["geometry/pca"], tmp_path / "pca.png", link=3),
        pm.plot_landscape(arrays["landscape/alphas"], arrays["landscape/loss"], tmp_path / "land2.png"),
        pm.plot_landscape(arrays["landscape/alphas"], arrays["landscape/loss"][:, 2], tmp_path / "land1.png"),
    ]
    for p in paths:
        assert p.read_bytes()[:4] == PNG and p.stat().st_size > 2000, p
    assert grads.shape == (len(steps), 13) and np.isfinite(grads).all()


def test_measure_figures_draw_the_stored_values(run, tmp_path, monkeypatch):
    """Each figure's artists hold the run's numbers: the Hessian and rank lines are the metric columns, the
    heat map is the token gradient norms (tokens x steps), the bars are the spectrum and the normalised counts,
    the landscape line is its loss, the scatter its coordinates."""
    import groklab.plots.measures as mod

    figs = []
    monkeypatch.setattr(mod, "_save", lambda fig, path: figs.append(fig) or path)
    df = load_runs(run)
    arrays = load_arrays(run, 30)
    steps, grads = array_series(run, "tokens/grad_norm")
    _, counts = array_series(run, "tokens/count")

    pm.plot_hessian(df, tmp_path / "h.png")
    h = df[df["hessian/E_top"].notna()].sort_values("step")
    lines = {ln.get_label(): ln for ln in figs[-1].axes[0].get_lines()}
    np.testing.assert_array_equal(lines[f"{h['run'].iloc[0]} E"].get_ydata(), h["hessian/E_top"].to_numpy())
    np.testing.assert_array_equal(lines[f"{h['run'].iloc[0]} W"].get_xdata(), h["step"].to_numpy())

    pm.plot_ranks(df, tmp_path / "r.png")
    r = df[df["rank/EW"].notna()].sort_values("step")
    assert [ax.get_title() for ax in figs[-1].axes] == ["rank(E)", "rank(W)", "rank(EW)"]
    np.testing.assert_array_equal(figs[-1].axes[2].get_lines()[0].get_ydata(), r["rank/EW"].to_numpy())

    pm.plot_grad_heatmap(steps, grads, tmp_path / "g.png", p=11)
    np.testing.assert_array_equal(figs[-1].axes[0].get_images()[0].get_array(), grads[:, :11].T)

    spectrum = arrays["fourier/spectrum"]
    pm.plot_fourier(spectrum, tmp_path / "f.png")
    np.testing.assert_allclose([b.get_height() for b in figs[-1].axes[0].patches], spectrum)

    pm.plot_token_counts(counts.sum(0), tmp_path / "c.png")
    np.testing.assert_allclose([b.get_height() for b in figs[-1].axes[0].patches], counts.sum(0) / counts.sum())

    loss = arrays["landscape/loss"][:, 2]
    pm.plot_landscape(arrays["landscape/alphas"], loss, tmp_path / "l.png")
    np.testing.assert_allclose(figs[-1].axes[0].get_lines()[0].get_ydata(), np.log10(loss))

    pca = arrays["geometry/pca"]
    pm.plot_embedding_scatter(pca, tmp_path / "s.png")
    np.testing.assert_allclose(figs[-1].axes[0].collections[0].get_offsets(), pca[:, :2])


def test_plot_curves_draws_every_seed_apart_and_names_its_panels(tmp_path, monkeypatch):
    """Two seeds of one optimizer are two curves of one colour (one legend entry saying 2 runs), never one
    line zig-zagging between them; a panel's title names its setting."""
    import pandas as pd

    import groklab.plots.curves as pc

    rows = [{"run": f"{o}/s{s}", "optim.name": o, "optim.lr": 0.001, "step": st, "train/acc": 1.0,
             "test/acc": st / 100 + s / 10} for o in ("adam", "sgd") for s in (0, 1) for st in (10, 50, 100)]
    got = {}
    monkeypatch.setattr(pc, "save", lambda fig, path, dpi=120: got.setdefault("fig", fig) and [path])
    pc.plot_curves(pd.DataFrame(rows), tmp_path / "c.png", panel="optim.lr", line="optim.name")
    (ax,) = got["fig"].axes
    solid = [ln for ln in ax.get_lines() if ln.get_linestyle() == "-"]
    assert len(solid) == 4 and all(list(ln.get_xdata()) == [10, 50, 100] for ln in solid)
    assert len({ln.get_color() for ln in solid}) == 2
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Adam (2 runs)", "SGD (2 runs)"]
    assert ax.get_title() == "lr = 0.001"


def test_figure_formats_choose_the_files_and_keep_the_png(tmp_path):
    from groklab.errors import ConfigError
    from groklab.plots.style import figure_formats, parse_formats, plt, save

    assert [p.suffix for p in save(plt.figure(), tmp_path / "a", pdf=True)] == [".png", ".pdf"]  # the default
    with figure_formats("svg, pdf"):
        written = save(plt.figure(), tmp_path / "b")
    assert [p.suffix for p in written] == [".png", ".svg", ".pdf"]  # PNG always: the report embeds it
    assert (tmp_path / "b.svg").read_text().lstrip().startswith("<?xml")
    with figure_formats("svg"):
        first = (tmp_path / "b.svg").read_bytes(), save(plt.figure(), tmp_path / "b")
    assert (tmp_path / "b.svg").read_bytes() == first[0]  # no date in the file: same figure, same bytes
    assert [p.suffix for p in save(plt.figure(), tmp_path / "c")] == [".png"]  # the block ended
    for bad in ("jpg", "", "png,,eps"):
        with pytest.raises(ConfigError, match="format"):
            parse_formats(bad)


def test_acc_grid_legend_names_every_line_of_every_panel(tmp_path, monkeypatch):
    """Panels that show different values of `line` (Table 1: k0 in the random panel, k30..k60 in SQUARE) share
    one legend holding each value once, in the data's order, not only the first panel's lines."""
    import pandas as pd

    import groklab.plots.curves as pc

    rows = [{"run": f"{g}/k{k}/s0", "group": g, "k": f"k{k}", "step": st, "train/acc": 1.0, "test/acc": st / 100}
            for g, ks in (("random", (0,)), ("square", (30, 40)), ("strip", (40, 67))) for k in ks
            for st in (10, 50, 100)]
    got = {}
    monkeypatch.setattr(pc, "save", lambda fig, path, **kw: got.setdefault("fig", fig) and [path])
    pc.acc_grid(pd.DataFrame(rows), tmp_path / "g.png", rows=None, cols="group", line="k", title="t")
    (legend,) = got["fig"].legends
    assert [t.get_text() for t in legend.get_texts()] == ["k = 0", "k = 30", "k = 40", "k = 67"]
    assert [ax.get_title() for ax in got["fig"].axes] == ["random split", "SQUARE holdout", "STRIP holdout"]
