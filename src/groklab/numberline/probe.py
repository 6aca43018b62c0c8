"""Number-line statistics of points z(n): projection (PCA / PLS), Spearman rho, the exponent beta, log vs linear R^2.

Conventions (documented choices, see README "Number line"):
- Fits use x = n when all n > 0, else the shifted x = n - min(n) + 1 (log and powers need x > 0).
- beta comes from z = a + b * (x^beta - 1) / beta (the Box-Cox form of a + b*x^beta: the same curves,
  but continuous at beta = 0, where it is a + b*log x). So beta = 1 is a linear line, beta = 0 a
  logarithmic one, 0 < beta < 1 sublinear. z is oriented to increase with n before the fit.
- beta's confidence interval is Wald's, from curve_fit's covariance (t quantile, N-3 dof), or a
  pairs bootstrap (percentile interval) when `bootstrap` > 0.
- PLS runs unscaled (scale=False), like PCA: its first direction is then the cross-covariance H^T n,
  a direction in raw hidden space, which is the one the intervention adds.
- PLS projections are out-of-fold (K-fold): with hidden size D >~ N, an in-sample PLS direction fits
  any n, even from random vectors (tested), so in-sample scores would overstate rho.
- Each fold's PLS components get a fixed sign: sklearn flips a component so its largest weight is positive,
  which can point it against n in one fold and along n in the next; the out-of-fold scores, put side by side,
  then zig-zag (rho 0.5 next to 0.87 in adjacent layers). A component is flipped, if needed, so that its
  training-fold scores correlate positively with the target.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy import optimize, stats

BETA_BOUNDS = (-3.0, 5.0)


def fit_x(n: np.ndarray) -> np.ndarray:
    """The positive abscissa the fits use: n itself, or n shifted to start at 1."""
    n = np.asarray(n, dtype=np.float64)
    return n if n.min() > 0 else n - n.min() + 1.0


def boxcox(x: np.ndarray, beta: float) -> np.ndarray:
    """(x^beta - 1) / beta, and log x at beta = 0 (expm1 keeps it accurate near 0)."""
    lx = np.log(x)
    if abs(beta) < 1e-8:
        return lx
    return np.expm1(beta * lx) / beta


def _r2(y: np.ndarray, yhat: np.ndarray) -> float:
    sst = float(np.sum((y - y.mean()) ** 2))
    return 1.0 - float(np.sum((y - yhat) ** 2)) / sst if sst > 0 else float("nan")


def r2_affine(z: np.ndarray, f: np.ndarray) -> float:
    """R^2 of the least-squares fit z ~ a + b*f."""
    A = np.column_stack([np.ones_like(f), f])
    coef, *_ = np.linalg.lstsq(A, z, rcond=None)
    return _r2(z, A @ coef)


def _fit_beta_once(x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a, b, beta) and their covariance; started from the best beta on a grid (profile least squares)."""
    grid = np.linspace(-2.0, 3.0, 51)
    best = min(grid, key=lambda b: -r2_affine(z, boxcox(x, b)))
    A = np.column_stack([np.ones_like(x), boxcox(x, best)])
    (a0, b0), *_ = np.linalg.lstsq(A, z, rcond=None)
    f = lambda x, a, b, beta: a + b * boxcox(x, beta)  # noqa: E731
    p, cov = optimize.curve_fit(f, x, z, p0=[a0, b0, best], bounds=([-np.inf, -np.inf, BETA_BOUNDS[0]],
                                                                     [np.inf, np.inf, BETA_BOUNDS[1]]))
    return p, cov


@dataclass
class LineStats:
    rho: float  # Spearman rho(z, n) after orientation (so >= 0 up to ties)
    beta: float  # exponent of z = a + b*x^beta
    beta_lo: float  # 95% confidence interval
    beta_hi: float
    beta_se: float  # standard error (Wald) or bootstrap standard deviation
    r2_power: float  # R^2 of the beta fit
    r2_log: float  # R^2 of z ~ a + b*log x
    r2_lin: float  # R^2 of z ~ a + b*x
    prefer: str  # "log" or "linear": the better of the two two-parameter fits
    ci: str  # "wald" or "bootstrap"
    at_bound: bool = False  # beta stopped at BETA_BOUNDS: no curve fits (a flat or noisy z); ignore beta

    def as_dict(self) -> dict:
        return asdict(self)


def orient(z: np.ndarray, n: np.ndarray) -> np.ndarray:
    """z flipped, if needed, so that it increases with n (Spearman rho >= 0)."""
    rho = stats.spearmanr(z, n).statistic
    return -z if np.isfinite(rho) and rho < 0 else z


def line_stats(z: np.ndarray, n: np.ndarray, bootstrap: int = 0, seed: int = 0) -> LineStats:
    """All number-line statistics of a 1-D coordinate z over numbers n."""
    n = np.asarray(n, dtype=np.float64)
    z = orient(np.asarray(z, dtype=np.float64), n)
    sd = z.std()
    z = (z - z.mean()) / (sd if sd > 0 else 1.0)  # affine change: beta and R^2 are invariant to it
    x = fit_x(n)
    xs = x / x.max()  # scale of x is absorbed by b: keeps the fit well conditioned
    rho = float(stats.spearmanr(z, n).statistic)
    r2_log, r2_lin = r2_affine(z, np.log(x)), r2_affine(z, x)
    nan = float("nan")
    if sd == 0:
        return LineStats(rho, nan, nan, nan, nan, nan, r2_log, r2_lin, "none", "wald")
    try:
        p, cov = _fit_beta_once(xs, z)
    except (RuntimeError, ValueError, np.linalg.LinAlgError):
        return LineStats(rho, nan, nan, nan, nan, nan, r2_log, r2_lin, _prefer(r2_log, r2_lin), "wald")
    beta = float(p[2])
    r2_pow = _r2(z, p[0] + p[1] * boxcox(xs, beta))
    if bootstrap > 0:
        rng = np.random.default_rng(seed)
        draws = []
        for _ in range(bootstrap):
            idx = rng.integers(0, len(z), len(z))
            if len(np.unique(xs[idx])) < 4:
                continue
            try:
                draws.append(_fit_beta_once(xs[idx], z[idx])[0][2])
            except (RuntimeError, ValueError, np.linalg.LinAlgError):
                continue
        draws = np.asarray(draws)
        lo, hi = np.percentile(draws, [2.5, 97.5]) if len(draws) else (nan, nan)
        se, ci = float(draws.std(ddof=1)) if len(draws) > 1 else nan, "bootstrap"
    else:
        se = float(np.sqrt(cov[2, 2])) if np.isfinite(cov[2, 2]) else nan
        t = stats.t.ppf(0.975, max(len(z) - 3, 1))
        lo, hi, ci = beta - t * se, beta + t * se, "wald"
    at_bound = min(abs(beta - BETA_BOUNDS[0]), abs(beta - BETA_BOUNDS[1])) < 1e-6
    return LineStats(rho, beta, float(lo), float(hi), se, r2_pow, r2_log, r2_lin, _prefer(r2_log, r2_lin), ci,
                     at_bound)


def _prefer(r2_log: float, r2_lin: float) -> str:
    return "log" if r2_log > r2_lin else "linear"


def _target(n: np.ndarray, target: str) -> np.ndarray:
    return np.log(fit_x(n)) if target == "log" else np.asarray(n, dtype=np.float64)


def project(H: np.ndarray, n: np.ndarray, method: str = "pca", dims: int = 1, folds: int = 5,
            target: str = "n", seed: int = 0) -> np.ndarray:
    """Coordinates Z [N, dims] of hidden states H [N, D]: PCA scores, or out-of-fold PLS scores
    (`folds` >= 2; `folds` = 0 fits PLS in-sample). PLS regresses on n (`target`="n") or log x ("log")."""
    from sklearn.decomposition import PCA

    H = np.asarray(H, dtype=np.float64)
    dims = min(dims, H.shape[1], H.shape[0] - 1)
    if method == "pca":
        return PCA(n_components=dims, random_state=seed).fit_transform(H)
    if method != "pls":
        raise ValueError(f"unknown method {method!r}")
    y = _target(n, target)
    if folds == 0:
        return _pls(H, y, dims)(H)
    from sklearn.model_selection import KFold

    Z = np.zeros((len(H), dims))
    for train, test in KFold(folds, shuffle=True, random_state=seed).split(H):
        Z[test] = _pls(H[train], y[train], dims)(H[test])
    return Z


def _pls(H: np.ndarray, y: np.ndarray, dims: int):
    """PLS fitted on (H, y): a map to its scores, each component signed to correlate positively with y."""
    from sklearn.cross_decomposition import PLSRegression

    m = PLSRegression(n_components=dims, scale=False).fit(H, y)
    T = m.transform(H).reshape(len(H), -1)
    sign = np.array([-1.0 if np.dot(T[:, j] - T[:, j].mean(), y - y.mean()) < 0 else 1.0 for j in range(dims)])
    return lambda X: m.transform(X).reshape(len(X), -1) * sign


def direction(H: np.ndarray, n: np.ndarray, method: str = "pls", target: str = "n") -> np.ndarray:
    """Unit vector u in hidden space along which the 1-D number-line coordinate increases with n."""
    from sklearn.cross_decomposition import PLSRegression
    from sklearn.decomposition import PCA

    H = np.asarray(H, dtype=np.float64)
    if method == "pca":
        u = PCA(n_components=1).fit(H).components_[0]
    else:
        u = PLSRegression(n_components=1, scale=False).fit(H, _target(n, target)).x_rotations_[:, 0]
    u = u / np.linalg.norm(u)
    z = (H - H.mean(0)) @ u
    return -u if stats.spearmanr(z, n).statistic < 0 else u


def layer_rows(H: np.ndarray, n: np.ndarray, layer, methods=("pca", "pls"), dims: int = 1, folds: int = 5,
               target: str = "n", bootstrap: int = 0, seed: int = 0) -> tuple[list[dict], dict]:
    """One row of statistics per (method, component) of one layer, and the oriented projections."""
    rows, Z = [], {}
    for method in methods:
        Zm = project(H, n, method, dims, folds, target, seed)
        for j in range(Zm.shape[1]):
            Zm[:, j] = orient(Zm[:, j], n)
            s = line_stats(Zm[:, j], n, bootstrap=bootstrap, seed=seed)
            rows.append({"layer": layer, "method": method, "component": j + 1, **s.as_dict()})
        Z[method] = Zm
    return rows, Z
