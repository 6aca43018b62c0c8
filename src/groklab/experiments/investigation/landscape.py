"""002 §5 (Fig 13): embeddings, loss landscape and gradient norms of the p = 59 MLP that groks.

Model (002's t5_MLP/test_datasets.ipynb): embedding 128, `linear1` (256 -> 128), one tied 128 x 128 `linear2`
applied 4 times, AdamW lr 5e-4 wd 1, batch 256, half of the table. After training, per seed:
- t-SNE of the 59 learned embeddings, lines joining n and n + s with s = k^-1 mod p for E's strongest
  frequency k, and the embedding before/after with the share of near-zero dimensions (column norm < 10% of the largest);
- curvature of the training loss along the top singular direction sigma_1 u_1 v_1^T of `linear1` and of
  `linear2` (our reading of 002's "largest eigenvalues of two linear layers' weights"), against the curvature
  along 8 Gaussian directions in the same layers: d^T H d / d^T d through Hessian-vector products;
- 2-D slices of the training loss along the two singular directions (a in [-1, 1]: a = 1 doubles sigma_1) and
  along two filter-normalised random directions (Li et al. 2018, the library's landscape measure: every row of
  the direction has the norm of the same row of the weight, so a = 1 moves each row by its own length);
- gradient norms over training (total, `linear1` = block W, the rest), measured every eval;
- the cyclic structure the t-SNE panel shows, measured on E itself (t-SNE is a picture, not a statistic): the
  share of E's energy over token order (non-DC DFT along the numbers 0..p-1) held by its 5 strongest of the
  29 frequencies, after training against the same seed's initial E. A circle n -> n + s in t-SNE is one
  frequency k = s^-1 mod p dominating; a random E spreads its energy over all 29 (share ~0.2).

Differences from the paper and its released code:
- Model: §5's "128 dimension embedding layer, 4 linear-and-ReLU hidden layers" is, in t5_MLP/t2_MLP.py, linear1
  and one linear2 applied 4 times (5 ReLU layers, 4 tied), as ours; p = 59, K = 2, alpha 0.5: §5's, as ours.
- Panel g's notebook (t5_MLP/test_hessian.ipynb) trains embedding 64; ours 128 (the text's) for every panel.
- Training: AdamW lr 5e-4, wd 1 (hard-coded in t2_MLP.py), batch 256, 1e4 epochs = 70,000 steps, Kaiming / Xavier
  init; ours: the same at the paper profile (eval every 500) with torch's default init, and an arm with the
  code's init (model.init=kaiming: the N(0, 1) embedding is 99% of the initial norm under torch's default and
  ~10x smaller under the code's, which can decide whether the norm rises while over-fitting).
- Quick: 12,000 steps at lr 2e-3 (profile.py GROKS_QUICK), eval and gradient norms every 50 (CPU budget); until
  2026-11-28 3,000 steps at lr 5e-3, where test accuracy reached 0.99 only 1.6-3.0x after the fit (no grokking,
  no over-fitting stage for a norm to rise in). Control: every run must grok (t_test >= 3 t_train).
- Panels e-f: test_datasets.ipynb adds one constant per layer (rng.normal(*w.shape) draws one number, mean 128)
  times scales in [0, 0.01) to linear1 and linear2, plotting log10 loss vs sigma_1, over the whole p^2 table with
  the operand y as target (unperturbed: 72.7); ours: the training loss with its labels. The curvature ratio is a
  measurement ([anisotropy]); "sharp conic area ... with ridges" has no scale in 002: not measured (2026-12-07).
- Panel g: the release sums per-tensor Frobenius norms of minibatch gradients over tensors and over each epoch's
  7 batches, with a linear2 curve; ours: the full training-set gradient's 2-norm at each eval (linear1 = block W).
- The text calls g "the 2-norm of overall parameters" (a weight norm): judged as weight_norm_peaks_then_falls.
  "Peaks at or before t_test, ends below half its peak": ours; the plateau and the fall's timing weighed beside
  (norm_readings.py).
- Panel b: the release joins n and n + 11 (hard-coded, the step of its run); ours n and n + k^-1 mod p for E's
  strongest frequency k. "Cyclic" as the 5-frequency energy share > 0.5 (and above init): ours.
- Not reproduced: panel d (output-weight columns of norm > 0.7); the "sparse structures" are measured, not judged.
  Seeds: the release seeds 42, one run; ours 5 (quick) / 3 (paper), split seed = init seed.
"""
from __future__ import annotations

import math
from copy import deepcopy
from pathlib import Path

import numpy as np
import torch

from groklab.config import make_config
from groklab.engine.setup import build
from groklab.experiments.assumptions import Assumption
from groklab.experiments.choices import weigh
from groklab.experiments.controls import DELAY, Control
from groklab.experiments.investigation.norm_readings import (
    PLATEAU,
    peaks,
    plateau,
    smoothed_primary,
    stages,
    timed,
    timed_primary,
)
from groklab.experiments.investigation.profile import CODE_STEPS, GROKS_QUICK, GROKS_QUICK_STEPS, budget, code_mlp
from groklab.experiments.levels import above, all_of, contrast, every_seed
from groklab.experiments.posthoc import Revision, revised
from groklab.experiments.spec import Claim, RunSpec, grid_runs, seed_of, verdict_of
from groklab.experiments.variants import per_variant
from groklab.measures.fourier import fourier_spectrum, key_frequencies
from groklab.measures.geometry import tsne_2d
from groklab.measures.landscape import curvature, loss_slice, random_direction, singular_direction
from groklab.plots.style import STYLE, plt, save
from groklab.store import RunStore
from groklab.store.run import ANALYSIS

NAME = "landscape"
CONTROLS = [Control("mlp/*", "the p = 59 MLP", 0.99, delay=DELAY)]  # every claim is about the MLP that groks
READS_MODEL = True  # analyze() loads each run's final model: an archive keeps its weights (only these)
TITLE = "p = 59 MLP: t-SNE of embeddings, loss landscape along singular directions, gradient norms"
PAPER = ("The optimal parameter area of this dataset lies in a sharp conic area, with ridges around it; the "
         "gradient norm increases at the over-fitting stage and decreases as grokking takes place.")
ASSUMPTIONS = [Assumption("init", "model.init", "torch", "002's text states no initialisation; its released MLP "
                          "(t5_MLP/t2_MLP.py) draws Kaiming-normal linears with zero biases and a Xavier-normal "
                          "embedding", other="kaiming", release=True)]
N_RANDOM = 8
N_KEY = 5  # frequencies counted in the cyclic-structure share
CYCLIC = 0.5  # the key share that calls E cyclic: most of its energy in 5 of the 29 frequencies


def runs(profile: str, seeds: int) -> list[RunSpec]:
    every = 50 if profile == "quick" else 500
    extra = ["model.d_emb=128", f"measures.progress.every={every}"]
    quick = GROKS_QUICK if profile == "quick" else []
    return grid_runs({"mlp": extra}, code_mlp(profile) + quick + budget(profile, GROKS_QUICK_STEPS, every,
                                                                        CODE_STEPS, every), seeds)


def inspect(run_dir: Path, seed: int) -> dict:
    """`measure` of the run's final model, computed once: kept in the run's analysis folder at the checkpoint's
    step (and so in a results archive), read back on every later analysis of that checkpoint."""
    store = RunStore.open(run_dir)
    ckpt = store.load_checkpoint()
    kept = store.arrays(folder=ANALYSIS).get(int(ckpt["step"]))
    if kept and "tsne" in kept:
        return _unpack(kept)
    found = measure(store, ckpt, seed)
    store.save_arrays(int(ckpt["step"]), _pack(found), ANALYSIS)
    return found


def _pack(found: dict) -> dict:
    return {**{k: np.asarray(v) for k, v in found.items() if k != "slices"},
            **{f"slices/{k}": v for k, v in found["slices"].items()}}


def _unpack(arrays: dict) -> dict:
    out = {k: (v.item() if v.ndim == 0 else v) for k, v in arrays.items() if not k.startswith("slices/")}
    out["slices"] = {k.split("/", 1)[1]: v for k, v in arrays.items() if k.startswith("slices/")}
    return out


def measure(store: RunStore, ckpt: dict, seed: int) -> dict:
    """The run's final model: curvatures, loss slices, t-SNE and embeddings (init rebuilt from the seed)."""
    exp = build(make_config([], base=store.config()))
    E0 = exp.model.E.weight.detach().clone()
    exp.model.load_state_dict(ckpt["model"])
    m, X, y = exp.model, exp.X_train, exp.y_train
    layers = [m.W.weight, m.hidden[0].weight]
    g = torch.Generator().manual_seed(seed)
    sv = [singular_direction(W) for W in layers]
    rand = [[torch.randn(W.shape, generator=g, dtype=W.dtype) for W in layers] for _ in range(N_RANDOM)]
    k_sv = [curvature(m, X, y, [W], [d]) for W, d in zip(layers, sv)]
    k_rand = [curvature(m, X, y, [W], [r[i]]) for r in rand for i, W in enumerate(layers)]
    filt = random_direction(layers, g)  # filter-normalised
    zero = [torch.zeros_like(W) for W in layers]
    a = np.linspace(-1, 1, 21)
    grid = np.stack([x.ravel() for x in np.meshgrid(a, a, indexing="ij")], 1)
    slices = {kind: loss_slice(m, X, y, layers, [[d1, zero[1]], [zero[0], d2]], grid).reshape(21, 21)
              for kind, (d1, d2) in (("singular", sv), ("random", filt))}
    p = exp.cfg.p
    E = m.E.weight.detach()[:p]
    (_, share0), (keys, share) = (key_frequencies(fourier_spectrum(e, p), p, N_KEY) for e in (E0, E))
    # n and n + step are neighbours on the circle of E's strongest frequency k (step = k^-1 mod p; 1 where k
    # has no inverse, p composite)
    step = pow(keys[0], -1, p) if math.gcd(keys[0], p) == 1 else 1
    return {"key_share_init": share0, "key_share": share, "step": step, "k_sv": float(np.mean(k_sv)),
            "k_rand": float(np.mean(k_rand)), "slices": slices, "alphas": a, "tsne": tsne_2d(E, seed),
            "E0": E0[:p].numpy(), "E": E.numpy()}


def sparse_share(E: np.ndarray) -> float:
    """Share of embedding dimensions whose column norm is below 10% of the largest."""
    n = np.linalg.norm(E, axis=0)
    return float((n < 0.1 * n.max()).mean())


def analyze(df, out: Path, profile: str = "quick") -> tuple[list[Path], list[Claim]]:
    if df.empty:
        return [], claims({}, {}, {})
    seeds = {seed_of(r): r for r in sorted(df["run"].unique())}
    found = {s: inspect(out / r, s) for s, r in seeds.items()}
    ratio = [found[s]["k_sv"] / found[s]["k_rand"] if found[s]["k_rand"] > 0 else None for s in sorted(found)]
    peak, weights = peaks(df, "grad/total"), peaks(df, "norm/total")
    steps = np.unique(df["step"].dropna()) if "step" in df else np.array([])
    grid = float(np.median(np.diff(steps))) if len(steps) > 1 else 0.0  # the eval interval
    t_test = per_variant(df, "t_test").get("mlp", [])
    t_train = per_variant(df, "t_train").get("mlp", [])
    onset = per_variant(df, "onset").get("mlp", [])
    flat = {col: [plateau(df[df["run"] == r], col, a, b) for r, a, b in zip(sorted(peak), t_train, t_test)]
               for col in ("grad/total", "norm/total")}
    medians = [stages(df[df["run"] == r], "grad/total", a, o, b)
               for r, a, o, b in zip(sorted(peak), t_train, onset, t_test)]
    figs = draw(found[min(found)], df, out / "landscape")
    extra = {"sparse_init": [sparse_share(f["E0"]) for f in found.values()],
             "sparse_final": [sparse_share(f["E"]) for f in found.values()],
             "key_share_init": [found[s]["key_share_init"] for s in sorted(found)],
             "key_share": [found[s]["key_share"] for s in sorted(found)],
             "circle_step": [found[s]["step"] for s in sorted(found)]}
    return figs, claims({"ratio": ratio, "k_sv": [found[s]["k_sv"] for s in sorted(found)],
                         "k_rand": [found[s]["k_rand"] for s in sorted(found)], **extra},
                        {r: v for r, v in sorted(peak.items())}, t_test, grid,
                        {r: v for r, v in sorted(weights.items())}, flat, onset, t_train, medians)


def claims(v: dict, peak: dict, t_test: list, grid: float = 0.0, weights: dict | None = None,
           flat: dict | None = None, onset: list | None = None, t_train: list | None = None,
           medians: list | None = None) -> list[Claim]:
    """`grid`: the eval interval -- t_test is rounded up to it, so a peak one evaluation after t_test cannot be
    told from one before it and counts as at t_test."""
    sharp = above("sharp_basin_along_singular_directions",
                  "The generalizing solution sits in a sharp, narrow basin along the weights' top directions.",
                  "curvature d^T H d / d^T d of the train loss along sigma_1 u_1 v_1^T of linear1 and linear2 (mean "
                  "of the two) / the mean over 8 Gaussian directions in the same layers", {"ratio": v.get("ratio", [])},
                  ["ratio"], 1.0)
    sharp.per_seed = {k: v.get(k, []) for k in ("ratio", "k_sv", "k_rand", "sparse_init", "sparse_final")}
    sharp = _anisotropy(sharp)
    rows = list(peak.values())
    seeds = [(s, f, t) for (s, f, *_), t in zip(rows, t_test)]  # (peak step, final / peak, t_test)
    grads = every_seed("grad_norm_peaks_then_falls", "The gradient norm grows while over-fitting and falls as "
                       "grokking takes place.", "step of the largest grad/total (train set, every eval), the final "
                       "grad/total over that peak, and t_test", {"seeds": seeds},
                       lambda x: x[2] is not None and x[0] <= x[2] + grid and x[1] < 0.5,
                       f"the peak comes at or before t_test (+ one eval, {grid:g} steps: t_test is rounded up to "
                       "the eval grid) and the final grad/total < 0.5 x its peak",
                       {"seeds": len(rows), "eval interval": grid},
                       shown={"peak_step": [s for s, *_ in rows], "final_over_peak": [f for _, f, *_ in rows],
                              "t_test": t_test})
    grads.note = ("002's text says panel g records 'the 2-norm of overall parameters' (a weight norm: "
                  "weight_norm_peaks_then_falls); only its caption writes gradient norms, which this claim reads")
    # 002's text (not its caption) records "the 2-norm of overall parameters": the weight norm, read as written
    w = list((weights or {}).values())
    norm = every_seed("weight_norm_peaks_then_falls", "The norm of all parameters increases while over-fitting and "
                      "decreases as grokking takes place.", "step of the largest norm/total (all parameters, every "
                      "eval), the final norm/total over that peak, the first eval's step, and t_test",
                      {"seeds": [(s, f, first, t) for (s, f, first, *_), t in zip(w, t_test)]},
                      lambda x: x[3] is not None and x[2] < x[0] <= x[3] + grid and x[1] < 1.0,
                      f"the norm rises (its peak comes after the first eval), peaks at or before t_test (+ one eval, "
                      f"{grid:g} steps) and ends below its peak", {"seeds": len(w), "eval interval": grid},
                      shown={"peak_step": [s for s, *_ in w], "final_over_peak": [f for _, f, *_ in w],
                             "t_test": t_test})
    final, init = v.get("key_share", []), v.get("key_share_init", [])
    share = (f"share of E's non-DC energy over token order held by its {N_KEY} strongest frequencies")
    cyclic = all_of("cyclic_embedding", "The learned embeddings are cyclic: numbers a fixed step apart lie next to "
                    "each other (002 Fig 13b's t-SNE circles).",
                    {"final": above("final", "", f"{share}, final", {"key_share": final}, ["key_share"], CYCLIC),
                     "learned": contrast("learned", "", f"{share}, final against at init",
                                         {"key_share": final, "key_share_init": init}, "key_share", "key_share_init",
                                         +1)})
    cyclic.per_seed |= {"circle_step": v.get("circle_step", []), "sparse_final (not judged)": v.get("sparse_final", [])}
    alts = {}
    for col, name in (("grad/total", "grads"), ("norm/total", "norm")):
        got = (flat or {}).get(col)
        if got:
            c = grads if name == "grads" else norm
            alts[name] = every_seed(c.id, c.text, f"{col}: median over the plateau's second half against its first "
                                    "half and against as long a stretch after t_test", {"seeds": got}, lambda x: x,
                                    "the second half above the first and the stretch after t_test below it")
            weighed = weigh(c, "'over-fitting stage'", "the whole run up to t_test", {PLATEAU: alts[name]})
            grads, norm = (weighed, norm) if name == "grads" else (grads, weighed)
    if onset and rows:
        grads = timed(grads, rows, onset, t_test, grid)
        if t_train:  # since 2026-12-07 both halves timed, primary (norm_readings.BOTH_TIMED)
            grads = timed_primary(grads, rows, t_train, onset, t_test, grid, alts.get("grads"))
        if medians:  # since 2026-12-07 (second change): stage medians, primary (norm_readings.SMOOTHED)
            grads = smoothed_primary(grads, medians, alts.get("grads"))
    return [sharp[0], grads, norm, cyclic, sharp[1]]  # the paper claims first, in their order


ANISOTROPY = Revision("2026-12-07", "the curvature ratio a measurement ([anisotropy]); the paper claim inconclusive "
                      "(not measured: no scale for 'sharp', Fig. 13 e-f's cone and ridges not judged)", "the ratio > 1 "
                      "judged as 002's 'sharp conic area'", "a fresh read: the ratio tests anisotropy against 002's "
                      "own Gaussian probe, not sharpness (quotes.yaml had called it a misread)")


def _anisotropy(sharp: Claim) -> list[Claim]:
    """(the paper claim, not judged; the ratio as the [anisotropy] measurement)."""
    ratio = deepcopy(sharp)
    ratio.id, ratio.text = f"{sharp.id}[anisotropy]", ("Measurement: the train loss curves more along the weights' "
                                                       "top singular directions than along random Gaussian ones.")
    k, r = ([x for x in sharp.per_seed.get(n, []) if x is not None] for n in ("k_sv", "ratio"))
    why = ("not measured: 002 gives no scale for 'sharp', and the cone with ridges it reads off Fig. 13 e-f's 2-D "
           "loss slice is not judged here (the slice is drawn, landscape.png); the curvature along the top singular "
           "direction over random Gaussian directions (002's own probe) measures anisotropy, not a sharp cone: the "
           f"[anisotropy] measurement ({verdict_of(ratio.holds, ratio.reason)})" + (
               f"; measured: the train loss's curvature along the top singular direction is {min(k):.2g} to "
               f"{max(k):.2g} (d^T H d / d^T d), {min(r):.0f}-{max(r):.0f}x that along Gaussian ones" if k else ""))
    paper = Claim(sharp.id, sharp.text, sharp.statistic, sharp.per_seed, sharp.aggregate)
    return [revised(paper.inconclusive("not measured", why), sharp, ANISOTROPY), ratio]


def draw(f: dict, df, path: Path) -> list[Path]:
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(2, 3, figsize=(10, 6.2))
        xy = f["tsne"]
        p = len(xy)
        for i in range(p):
            j = (i + f["step"]) % p
            ax[0, 0].plot(xy[[i, j], 0], xy[[i, j], 1], color="0.7", lw=0.5)
        ax[0, 0].scatter(xy[:, 0], xy[:, 1], c=np.arange(p), cmap="twilight", s=12)
        ax[0, 0].set_title(f"t-SNE of E, lines join n and n + {f['step']}")
        for k, (E, title) in enumerate(((f["E0"], "E at init"), (f["E"], "E after training"))):
            ax[0, 1 + k].imshow(E, aspect="auto", cmap="RdBu_r")
            ax[0, 1 + k].set_title(title)
            ax[0, 1 + k].grid(False)
        a = f["alphas"]
        for k, kind in enumerate(("singular", "random")):
            c = ax[1, k].contourf(a, a, np.log10(f["slices"][kind].T), levels=20)
            ax[1, k].set_title(f"log10 train loss, {'filter-normalised ' if kind == 'random' else ''}{kind} dirs")
            ax[1, k].set_xlabel("linear1")
            ax[1, k].set_ylabel("linear2")
            fig.colorbar(c, ax=ax[1, k])
        for run, g in df.dropna(subset=["grad/total"]).groupby("run"):
            ax[1, 2].plot(g["step"], g["grad/total"], lw=0.8, label=run)
        ax[1, 2].set_yscale("log")
        ax[1, 2].set_title("gradient norm (train set)")
        ax[1, 2].legend()
        return save(fig, path)
