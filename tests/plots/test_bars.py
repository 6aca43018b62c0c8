"""plots/bars.py: 002's Fig 9 style bars, one per cell at the seeds' mean, each seed a dot."""
import pytest


def test_panel_bars_draw_each_cells_mean_and_seeds(tmp_path, monkeypatch):
    import groklab.plots.bars as pb

    got = {}
    monkeypatch.setattr(pb, "save", lambda fig, path, pdf=False: got.setdefault("fig", fig) and [path])
    values = {"a": [1.0, 0.9], "b": [0.5, None], "gone": [None], "c": [0.85, 0.95]}
    pb.panel_bars(values, tmp_path / "b", {"one": ["a", "b", "gone"], "sizes": ["c"], "empty": ["gone"]}, "t",
                  "best test acc", ylims={"sizes": (0.8, 1.0)}, labels={"one": {"a": "base"}})
    one, sizes = [ax for ax in got["fig"].axes if ax.get_visible()]
    assert [p.get_height() for p in one.patches] == pytest.approx([0.95, 0.5])  # 'gone' has no value: no bar
    assert [t.get_text() for t in one.get_xticklabels()] == ["base", "b"]
    assert list(one.get_lines()[0].get_ydata()) == [1.0, 0.9] and list(one.get_lines()[1].get_ydata()) == [0.5]
    assert sizes.get_ylim() == (0.8, 1.0) and one.get_ylim() == (0.0, 1.0)
    assert sizes.get_title() == "sizes\n(axis from 0.8)" and one.get_title() == "one"  # a cut axis says so
    assert pb.panel_bars({"x": [None]}, tmp_path / "n", {"p": ["x"]}, "t", "y") == []
    got.clear()
    pb.panel_bars({"c": [0.62, 0.95]}, tmp_path / "w", {"sizes": ["c"]}, "t", "y", ylims={"sizes": (0.8, 1.0)})
    assert got["fig"].axes[0].get_ylim() == pytest.approx((0.6, 1.0))  # widened: no seed hidden below the axis
    assert got["fig"].axes[0].get_title().endswith("(axis from 0.6)")  # a cut axis says where it starts
