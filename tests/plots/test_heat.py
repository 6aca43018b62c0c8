"""plots/heat.py: grid heat maps whose censored cells read as censored, and the studies that draw them."""
import numpy as np

from groklab.plots.style import plt


def test_blank_cells_are_hatched_and_say_not_reached():
    from groklab.plots.heat import BLANK, heat

    fig, ax = plt.subplots()
    heat(fig, ax, np.array([[100.0, np.nan], [300.0, 200.0]]), [1e-3, 5e-3], [512, 1024], "lr", "batch", "t")
    texts = [t.get_text() for t in ax.texts]
    assert texts == [BLANK.replace(" ", "\n")]  # only the NaN cell, once
    assert ax.texts[0].get_position() == (1, 0) and len(ax.patches) == 1  # column 1, row 0; hatched
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.001", "0.005"]
    assert ax.images[0].get_array().mask.tolist() == [[False, True], [False, False]]  # not coloured as a time
    plt.close(fig)


def test_decay_map_of_times_is_a_km_median_not_a_mean_at_the_horizon(tmp_path, monkeypatch):
    from groklab.experiments.investigation import decay
    from groklab.survival import Censored

    lrs, wds = (1e-3,), (0.1, 1.0)
    cells = {decay.name(k, lr, wd) for k in decay.KINDS for lr in lrs for wd in wds}
    # wd 0.1: two of three seeds censored at 2,500 -> median not reached; wd 1: 100, 200, 300 -> 200
    t_test = {c: ([100.0, Censored(2500.0), Censored(2500.0)] if "0.1" in c else [100.0, 200.0, 300.0])
              for c in cells}
    t = {"t_test": t_test, "final_test": {c: [0.5, 0.6, 0.7] for c in cells}}
    got = {}
    monkeypatch.setattr(decay, "save", lambda fig, path: got.setdefault("fig", fig) and [path])
    decay.heat_maps(t, lrs, wds, tmp_path / "d")
    times = got["fig"].axes[3]  # row 2 (times), first map; colour bars follow the six panels
    m = times.images[0].get_array()
    assert m.mask[0, 0] and float(m[1, 0]) == 200.0  # a mean with the horizon filled in would be 1,700
    assert [t.get_text() for t in times.texts] == ["not\nreached"]
    plt.close(got["fig"])
