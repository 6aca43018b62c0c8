"""Number-line statistics on synthetic geometry with known answers (no transformers needed)."""
import numpy as np
import pytest

from groklab.errors import ConfigError
from groklab.numberline import fourier_geometry, line_stats, parse_numbers, project
from groklab.numberline.probe import direction, layer_rows
from groklab.numberline.spec import parse_layers

pytest.importorskip("sklearn")


def embed(f: np.ndarray, d: int = 64, noise: float = 0.02, seed: int = 0) -> np.ndarray:
    """Points f(n) * u along a random unit direction in R^d plus isotropic noise."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    f = (f - f.mean()) / f.std()
    return np.outer(f, u) + noise * rng.normal(size=(len(f), d))


# --- number sets -----------------------------------------------------------------------
def test_number_specs(tmp_path):
    assert parse_numbers("1:5").tolist() == [1, 2, 3, 4, 5]
    assert parse_numbers("0:20:5").tolist() == [0, 5, 10, 15, 20]
    assert parse_numbers("42, 7,7, 1000,3").tolist() == [3, 7, 42, 1000]
    log = parse_numbers("log:1:1e6:200")
    assert log[0] == 1 and log[-1] == 1e6 and np.all(log == np.round(log)) and 100 < len(log) <= 200
    f = tmp_path / "years.txt"
    f.write_text("# years\n1969 1989\n2001,2024  # recent\n\n1492\n")
    assert parse_numbers(f"@{f}").tolist() == [1492, 1969, 1989, 2001, 2024]


@pytest.mark.parametrize("spec", ["", ",", "1:3", "5:1", "log:5:1:10", "log:1:10", "a,b,c,d", "1:10:0",
                                  "@/nonexistent/file", "1:2:3:4", "1e400,2,3,4"])
def test_bad_number_specs(spec):
    with pytest.raises(ConfigError) as e:
        parse_numbers(spec)
    assert "numbers=" in str(e.value) and "\n" not in str(e.value)


def test_layer_specs():
    assert parse_layers("all", 3) == [0, 1, 2, 3]
    assert parse_layers("0,2,-1", 3) == [0, 2, 3]
    for bad in ("4", "-5", "x", "1;2"):
        with pytest.raises(ConfigError, match="layers="):
            parse_layers(bad, 3)


# --- beta, rho, fit preference --------------------------------------------------------
def test_beta_is_exact_on_noiseless_curves():
    n = np.arange(1.0, 301.0)
    assert line_stats(3 + 2 * n ** 0.3, n).beta == pytest.approx(0.3, abs=1e-4)
    assert line_stats(-1 + 0.5 * n, n).beta == pytest.approx(1.0, abs=1e-4)
    assert abs(line_stats(np.log(n), n).beta) < 1e-3
    assert line_stats(-np.sqrt(n), n).beta == pytest.approx(0.5, abs=1e-4)  # oriented first
    assert line_stats(-np.sqrt(n), n).rho == pytest.approx(1.0)


@pytest.mark.parametrize("method", ["pca", "pls"])
@pytest.mark.parametrize("spec", ["1:400", "log:1:1e5:300"])
def test_log_and_linear_geometry_are_recovered_from_hidden_states(method, spec):
    n = parse_numbers(spec)
    log = line_stats(project(embed(np.log(n)), n, method)[:, 0], n)
    lin = line_stats(project(embed(n, seed=1), n, method)[:, 0], n)
    assert log.rho > 0.95
    assert lin.rho > (0.95 if spec == "1:400" else 0.8)  # log-spaced n: a linear line crowds small n into noise
    assert abs(log.beta) < 0.05 and log.beta_hi < 0.3  # log line: beta ~ 0, well below 1
    assert log.prefer == "log" and log.r2_log > 0.95
    assert lin.beta_lo < 1 < lin.beta_hi and abs(lin.beta - 1) < 0.1
    assert lin.prefer == "linear" and lin.r2_lin > 0.95
    sqrt = line_stats(project(embed(np.sqrt(n), seed=2), n, method)[:, 0], n)
    assert 0.4 < sqrt.beta < 0.6


def test_wald_interval_covers_the_true_beta_at_about_95_percent():
    rng = np.random.default_rng(0)
    n = np.arange(1.0, 101.0)
    hits = [(s.beta_lo <= 0.5 <= s.beta_hi) for s in
            (line_stats(n ** 0.5 + rng.normal(0, 0.5, len(n)), n) for _ in range(150))]
    assert 0.88 <= np.mean(hits) <= 0.995


def test_bootstrap_interval_is_close_to_wald():
    rng = np.random.default_rng(1)
    n = np.arange(1.0, 201.0)
    z = n ** 0.5 + rng.normal(0, 0.5, len(n))
    w, b = line_stats(z, n), line_stats(z, n, bootstrap=200)
    assert b.ci == "bootstrap" and w.ci == "wald" and b.beta == w.beta
    assert b.beta_lo < 0.5 < b.beta_hi
    assert 0.6 < (b.beta_hi - b.beta_lo) / (w.beta_hi - w.beta_lo) < 1.6


def test_out_of_fold_pls_does_not_find_a_line_in_noise():
    """With D > N, in-sample PLS fits n from pure noise; the out-of-fold scores do not."""
    rng = np.random.default_rng(0)
    n = np.arange(1.0, 61.0)
    H = rng.normal(size=(60, 300))
    assert line_stats(project(H, n, "pls", folds=0)[:, 0], n).rho > 0.85
    assert abs(line_stats(project(H, n, "pls", folds=5)[:, 0], n).rho) < 0.35


def test_direction_finds_the_planted_axis_and_points_up():
    n = np.arange(1.0, 201.0)
    rng = np.random.default_rng(0)
    u0 = rng.normal(size=32)
    u0 /= np.linalg.norm(u0)
    H = np.outer(-np.log(n), u0) + 0.05 * rng.normal(size=(200, 32))
    for method in ("pca", "pls"):
        u = direction(H, n, method)
        assert np.linalg.norm(u) == pytest.approx(1.0)
        assert u @ u0 < -0.95  # the planted axis, oriented so that z increases with n


# --- circular vs line geometry ----------------------------------------------------------
def circles(p: int, ks, d: int = 16, seed: int = 0, orthonormal: bool = True):
    th = 2 * np.pi * np.arange(p) / p
    C = np.column_stack([f(k * th) for k in ks for f in (np.cos, np.sin)])
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.normal(size=(d, d)))[0][:C.shape[1]] if orthonormal else rng.normal(size=(C.shape[1], d))
    return C @ Q


def test_circularity_closed_forms():
    p = 97
    g = fourier_geometry(circles(p, [5, 11]))
    assert sorted(g["top_freqs"]) == [5, 11]
    assert g["circularity"] == pytest.approx(1.0) and g["fourier_top"] == pytest.approx(1.0)
    ramp = fourier_geometry(embed(np.arange(p, dtype=float), noise=0))
    # |sum_n n w^{-kn}|^2 = p^2 / (4 sin^2(pi k / p)): the ramp's power shares in closed form
    w = 1 / np.sin(np.pi * np.arange(1, p // 2 + 1) / p) ** 2
    assert np.allclose(ramp["power"], w / w.sum())
    assert ramp["fourier_top"] == pytest.approx((w[0] + w[1]) / w.sum())
    assert ramp["circularity"] < 1e-12  # a line has no round part, whatever its spacing
    assert fourier_geometry(embed(np.log(np.arange(1.0, p + 1)), noise=0))["circularity"] < 1e-12


def test_fourier_circle_is_not_a_number_line():
    p = 97
    n = np.arange(p, dtype=float)
    rows, _ = layer_rows(circles(p, [7, 23]) + 0.01 * np.random.default_rng(0).normal(size=(p, 16)), n, "E")
    assert all(abs(r["rho"]) < 0.3 for r in rows)
    line_rows, _ = layer_rows(embed(n), n, "E")
    assert all(r["rho"] > 0.95 for r in line_rows)
    g = fourier_geometry(circles(p, [7, 23], orthonormal=False))  # a linear image: ellipses, still round
    assert g["circularity"] > 0.5 > fourier_geometry(np.random.default_rng(0).normal(size=(p, 16)))["circularity"]


def test_out_of_fold_pls_is_smooth_across_layers_with_one_log_code():
    """Seven 'layers' hold the same log code with fresh noise: their out-of-fold PLS rho must agree. The code
    axis e_0 - e_1 has two largest weights of opposite sign, so sklearn's convention (largest weight positive)
    picks a different sign per fold; scores put side by side without a fixed sign zig-zag between layers."""
    n = np.unique(np.round(np.logspace(0, 6, 120)))
    f = np.log(n)
    f = (f - f.mean()) / f.std()
    u = np.zeros(384)
    u[0], u[1] = 1 / np.sqrt(2), -1 / np.sqrt(2)
    rhos, r2 = [], []
    for layer in range(7):
        rng = np.random.default_rng(layer)
        H = np.outer(f, u) + 0.05 * rng.normal(size=(len(n), 384))
        s = line_stats(project(H, n, "pls", folds=5, seed=layer)[:, 0], n)
        rhos.append(s.rho)
        r2.append(s.r2_log - s.r2_lin)
    assert min(rhos) > 0.95 and max(rhos) - min(rhos) < 0.05, rhos
    assert min(r2) > 0, r2  # every layer reads as logarithmic, as planted
