"""§3 of paper 004: weight decay makes the embedding uniform, and test accuracy follows.

With weight decay 1 vs 0 (everything else as 004's model): MED (mean distance between consecutive operand
embeddings) and MED_cv (their std / mean, the non-uniformity) at the fit of the training set and at the end.

Differences from the paper and its released code:
- Weight decay 0: the paper runs none (§6.1 and the release use 1); wd 0 is our control (AdamW with weight decay
  0: Adam with betas (0.9, 0.98)).
- Uniformity: §3 states it as theory (Thm 3.8, Remark 3.9; formulas lost) with no experiment of its own; ours MED
  (Def. 4.2; the release's variants are listed in med.py) and MED_cv, which is ours.
- Window: "after the training accuracy reaches 100%" (§3) read as from the first eval with train acc >= 0.99 to
  the last eval (a run that never fits: from the first eval).
- Task, p, split: not stated for §3; ours a + b, random 30% (§6.1's setting); sizes, lr, optimizer: the shared
  settings (profile.py). Horizon: not stated; ours 30,000 steps (paper), up to 15,000 (quick:
  profile.QUICK_HORIZON).
- Statistic: both ratios (end / fit) < 1 on every wd 1 seed and not both on any wd 0 seed; "test accuracy
  follows" is judged within runs (since 2026-12-07, post hoc; a reading weighed beside from 2026-12-06): on
  every wd 1 seed MED_cv half way down no later than test accuracy half way up, the onsets (10% of the way)
  weighed beside; the weight-decay contrast (U-Acc >= 0.9 on every wd 1 seed and < 0.9 on every wd 0 seed, the
  rule before) is a measurement in the note: it cannot tell uniformity from decay's other effects. MED is
  measured every 100 steps (quick 50); the release's every epoch.
- Seeds: the release one run (split random.seed(11) in base.py, init unseeded); ours seeds 0..n-1 (quick 5,
  paper 3) for init and split.
"""
from __future__ import annotations

from copy import deepcopy
from pathlib import Path

import numpy as np

from groklab.experiments.beyond.profile import QUICK_HORIZON, base_overrides
from groklab.experiments.choices import weigh
from groklab.experiments.controls import DELAY, Control
from groklab.experiments.levels import every_seed
from groklab.experiments.posthoc import Revision, revised
from groklab.experiments.spec import Claim, RunSpec, grid_runs
from groklab.experiments.variants import curves, per_variant, variant_of
from groklab.store.schema import verdict_words

NAME = "uniformity"
CONTROLS = [Control("wd1/*", "weight decay 1", 0.99, rests=("test_accuracy_follows",), delay=DELAY)]
TITLE = "Weight decay makes the embedding uniform (MED falls, spacing evens out) and test accuracy follows"
PAPER = ("The weight decay term encourages uniformity across all tokens in the embedding space when it is "
         "minimized; this uniformity drives grokking.")
VARIANTS = {"wd1": ["optim.weight_decay=1"], "wd0": ["optim.weight_decay=0"]}
GROK = 0.9  # "test accuracy follows": U-Acc at least this with weight decay


def runs(profile: str, seeds: int) -> list[RunSpec]:
    every = "50" if profile == "quick" else "100"
    base = base_overrides(profile, QUICK_HORIZON) + [f"measures.progress.every={every}"]
    return grid_runs(VARIANTS, base, seeds)


def changes(df, cols=("progress/MED", "progress/MED_cv")) -> dict:
    """run -> (each of `cols` at the end / at the fit of the training set)."""
    out = {}
    for run, g in df.dropna(subset=[cols[0]]).groupby("run"):
        g = g.sort_values("step")
        fit = g[g["train/acc"] >= 0.99]
        at = fit.iloc[0] if len(fit) else g.iloc[0]
        end = g.iloc[-1]
        out[run] = tuple(end[c] / at[c] for c in cols)
    return out


def _scale(c: Claim, df) -> Claim:
    """MED is a distance: weight decay shrinking the whole embedding lowers it without evening the spacing. Say how
    far MED's fall follows ||E|| (a fresh read, 2026-12-07): the uniformity itself is MED_cv's, which is scale-free."""
    if "norm/E" not in df:
        return c
    r = changes(df, ("progress/MED", "norm/E"))
    wd1 = [v for k, v in sorted(r.items()) if variant_of(k) == "wd1"]
    if wd1:
        med, norm = [a for a, _ in wd1], [b for _, b in wd1]
        c.note = "; ".join(filter(None, [c.note, f"with wd 1 MED falls to {min(med):.2f}-{max(med):.2f} of its value "
                                         f"at the fit while ||E|| falls to {min(norm):.2f}-{max(norm):.2f}: MED's fall "
                                         "is mostly the embedding's scale, so the spacing's evening out rests on "
                                         "MED_cv (scale-free)"]))
    return c


def halves(df, share: float = 0.5, col: str = "progress/MED_cv") -> dict:
    """run -> (t_even, t_rise): from the fit on, the first step where `col` (MED_cv; MED beside) has fallen
    `share` of the way from its value at the fit to its lowest, and the first eval where test accuracy has covered
    `share` of its rise to its highest (0.5: half way; 0.1: the onsets)."""
    out = {}
    for run, g in df.groupby("run"):
        g = g.sort_values("step")
        ev = g.dropna(subset=["test/acc"])
        fit = ev[ev["train/acc"] >= 0.99]
        if not len(fit):
            continue
        t0 = fit["step"].iloc[0]
        m, a = g.dropna(subset=[col]), ev[ev["step"] >= t0]
        m = m[m["step"] >= t0]
        if not len(m):
            continue
        cv, acc = m[col].to_numpy(), a["test/acc"].to_numpy()
        even = m["step"].to_numpy()[np.argmax(cv <= cv[0] - (cv[0] - cv.min()) * share)]
        rise = a["step"].to_numpy()[np.argmax(acc >= acc[0] + (acc.max() - acc[0]) * share)]
        out[run] = (int(even), int(rise))
    return out


def analyze(df, out: Path, profile: str = "quick") -> tuple[list[Path], list[Claim]]:
    figs = curves(df, out / "uniformity", "§3: weight decay 1 vs 0", list(VARIANTS))
    have = not df.empty and "progress/MED" in df
    ch, hv, hv10, hv_med = (changes(df), halves(df), halves(df, 0.1), halves(df, col="progress/MED")) if have \
        else ({}, {}, {}, {})
    order = list(VARIANTS)
    judged = claims(ch, per_variant(df, "u_or_max", order), hv, per_variant(df, "last_step", order), hv10, hv_med)
    return figs, [_scale(judged[0], df) if have else judged[0], *judged[1:]]


def claims(ch: dict, u: dict, hv: dict | None = None, last: dict | None = None,
           hv10: dict | None = None, hv_med: dict | None = None) -> list[Claim]:
    """`hv`, `hv10`, `hv_med`: run -> halves() half way, at the onsets, and on MED itself; `last`: per variant each
    seed's last step."""
    by = {v: [ch[r] for r in sorted(ch) if variant_of(r) == v] for v in VARIANTS}
    med = {v: [round(a, 4) for a, _ in x] for v, x in by.items()}
    cv = {v: [round(b, 4) for _, b in x] for v, x in by.items()}
    both = lambda m: m[0] < 1 and m[1] < 1  # noqa: E731
    follows = every_seed("test_accuracy_follows", "Test accuracy follows: it groks with weight decay, not without.",
                         "U-Acc (highest after the fit without grokking)", {v: u.get(v, []) for v in ("wd1", "wd0")},
                         {"wd1": lambda x: None if x is None else x >= GROK,
                          "wd0": lambda x: None if x is None else x < GROK},
                         f"U-Acc >= {GROK} with wd 1 and below it with wd 0")
    uniform = every_seed("wd_makes_embedding_uniform", "With weight decay MED falls and the spacing evens out; "
                         "without, not both.", "MED and MED_cv at the end / at the fit of the training set",
                         {v: by.get(v, []) for v in ("wd1", "wd0")}, {"wd1": both, "wd0": lambda m: not both(m)},
                         "both ratios are < 1 with wd 1, and not both with wd 0", shown={"MED ratio": med,
                                                                                         "MED_cv ratio": cv})
    if hv is not None:
        follows = _key_factor(follows, hv, last or {}, uniform, hv10 or {}, hv_med or {})
    return [uniform, follows]


# Since 2026-12-07 (a fresh read): the weight-decay contrast tests weight decay -> grokking, not the sentence's
# variable; the reading that measures uniformity within runs is the test, the contrast a measurement beside it
WITHIN = Revision("2026-12-07", "judged within runs: on every wd 1 seed the spacing evens out (MED_cv half way "
                  "down) no later than test accuracy rises (half way up), the onsets (10% of the way) weighed "
                  "beside; the weight-decay contrast a measurement (it cannot tell uniformity from decay's other "
                  "effects)", "the weight-decay contrast, the within-run order weighed beside it as a reading",
                  "a fresh read: the primary reading tested weight decay -> grokking, not uniformity")


ORDER = "The embedding's spacing evens out no later than test accuracy rises (with weight decay)."


def _order(follows: Claim, hv: dict, how: str, what: str = "MED_cv") -> Claim:
    pairs = [hv[r] for r in sorted(hv) if variant_of(r) == "wd1"]
    return every_seed(follows.id, ORDER, f"from the fit: the step {what} has fallen {how} to its lowest "
                      f"(t_even) and the step test accuracy has risen {how} to its highest (t_rise)",
                      {"wd1": pairs}, lambda x: x[0] <= x[1], "t_even <= t_rise",
                      shown={"wd1 t_even": [a for a, _ in pairs], "wd1 t_rise": [b for _, b in pairs]})


def _key_factor(follows: Claim, hv: dict, last: dict, uniform: Claim, hv10: dict, hv_med: dict) -> Claim:
    """"Uniformity is the key factor in improving test accuracy", judged within runs (WITHIN): the spacing evens
    out no later than test accuracy rises, half way (ours) and at the onsets (weighed); the weight-decay contrast
    and the rule it replaced said beside."""
    half_way = _order(follows, hv, "half way")
    old = weigh(deepcopy(follows), "reading of 'key factor'", "weight decay's manipulation (groks with wd 1, not "
                "with wd 0)", {"within runs: the embedding evens out before test accuracy rises": deepcopy(half_way)})
    c = weigh(half_way, "'evens out' and 'rises' timed", "half way",
              {"at the onsets (10% of the way)": _order(follows, hv10, "10% of the way")})
    if hv_med:  # 004's own measure, MED, beside our scale-free MED_cv (a fresh read, 2026-12-07)
        c = weigh(c, "uniformity measure", "MED_cv (scale-free)",
                  {"MED (004's Def. 4.2; it also falls as weight decay shrinks E)": _order(follows, hv_med, "half way",
                                                                                         "MED")})
    c.note = "; ".join(filter(None, [c.note, (
        f"the sentence states a proof ('we further prove'); runs test its consequences: weight decay -> a uniform "
        f"embedding (wd_makes_embedding_uniform: {verdict_words(uniform.holds, uniform.reason)}); the weight-decay "
        f"contrast (U-Acc >= {GROK} with wd 1, below it with wd 0, a measurement: it cannot tell uniformity from "
        f"decay's other effects) {verdict_words(follows.holds, follows.reason)}")]))
    ends = [int(x) for x in last.get("wd0", []) if x is not None]
    if ends:
        c.note = "; ".join(filter(None, [c.note, f"wd 0 runs ended at steps {min(ends)}-{max(ends)} (the plateau "
                                         "stop: neither accuracy rising)"]))
    c.post_hoc = old.post_hoc
    return revised(c, old, WITHIN)
