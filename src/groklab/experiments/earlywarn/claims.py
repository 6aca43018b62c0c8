"""The papers' claims about a measure tracking or moving with generalization, judged on the early-warning study's
evaluate runs by the rules its frozen protocol fixed before any run (protocol.yaml, `claims`). This population is
ours (boundary settings where some seeds grok and some do not), not the papers' own runs: each note says so."""
from __future__ import annotations

import numpy as np
from scipy.stats import binomtest, mannwhitneyu

from groklab.experiments.beyond.med import correlations
from groklab.experiments.earlywarn.states import median_ci
from groklab.experiments.spec import Claim

WHERE = {"med_tracks_test_loss": "004 §6.2 (Fig. 5)", "hessian_E_falls_as_validation_improves": "000 §5 (Fig. 7)",
         "W_rank_declines_with_grokking": "000 App. (Fig. 10)"}
TEXT = {"med_tracks_test_loss": "MED's changes match the test loss's (median Pearson r of the changes > 0.5)",
        "hessian_E_falls_as_validation_improves": "E's top Hessian eigenvalue falls while validation accuracy rises",
        "W_rank_declines_with_grokking": "W's rank declines as the run groks, more than in runs that do not"}
# the papers' sentences verbatim, markup and all (the frozen protocol's copies drop 000's \mathbf{E})
VERBATIM = {"hessian_E_falls_as_validation_improves":
            "validation accuracy improves as the eigenvalues of \\mathbf{E} decrease"}
POPULATION = ("our population, not the paper's runs: the early-warning study's evaluate seeds (20-39) in five "
              "boundary settings (add, mul, D_16 on the embedding MLP; add, mul on a 1-layer Transformer)")


def _fixed(proto) -> dict:
    return {"date": "2026-12-07", "commit": None, "before_data": True,
            "how": f"in the frozen early-warning protocol version {proto.version}, before any explore or evaluate run"}


def paper_claims(df, evs: dict, series: dict, proto) -> list[dict]:
    """Each claim of the protocol judged by its rule: claims.json entries (quote, where, when the rule was fixed)."""
    boot = proto.scores.bootstrap
    out = []
    for spec in proto.claims:
        c = Claim(spec.id, TEXT.get(spec.id, spec.quote), spec.rule, holds=None, reason="underpowered")
        if spec.id == "med_tracks_test_loss":
            _med(c, df, boot)
        elif spec.id == "hessian_E_falls_as_validation_improves":
            _sign(c, series["hessian_E_top"], evs)
        elif spec.id == "W_rank_declines_with_grokking":
            _rank(c, series["erank_W"], evs)
        c.note = "; ".join(filter(None, [c.note, POPULATION]))
        out.append({**c.to_dict(), "quote": VERBATIM.get(spec.id, spec.quote), "where": WHERE.get(spec.id),
                    "kind": "paper",
                    "fixed": _fixed(proto)})
    return out


def _med(c: Claim, df, boot: dict) -> None:
    r = np.array([p for _, (_, p) in sorted(correlations(df).items()) if p is not None], dtype=float)
    med, lo, hi = median_ci(r, boot["reps"], boot["level"], boot["seed"])
    c.per_seed["pearson r of the changes"] = [round(float(x), 3) for x in r]
    c.aggregate = {"median": med, "ci_low": lo, "ci_high": hi, "n": len(r)}
    if not len(r):
        c.inconclusive("precondition", "no run fit its training set")
    elif lo > 0.5:
        c.holds, c.reason = True, ""
    elif hi < 0.5:
        c.holds, c.reason = False, ""
    else:
        c.inconclusive("underpowered", f"the median's interval [{lo:.2f}, {hi:.2f}] (n = {len(r)}) holds 0.5")


def _two_sided(c: Claim, fell: int, rose: int) -> float:
    p = binomtest(fell, fell + rose).pvalue if fell + rose else 1.0
    c.aggregate.update({"fell": fell, "rose": rose, "sign_test_p": p})
    return p


def _sign(c: Claim, S: dict, evs: dict) -> None:
    d = []
    for r, s in sorted(S.items()):
        ev = evs[r]
        if ev.grokked and ev.t_fit is not None:
            a, b = s.at(ev.t_fit), s.at(ev.T)
            if a is not None and b is not None:
                d.append(b - a)
    c.per_seed["change from the fit to T"] = [round(x, 4) for x in d]
    fell, rose = sum(x < 0 for x in d), sum(x > 0 for x in d)
    p = _two_sided(c, fell, rose)
    if not d:
        c.inconclusive("precondition", "no evaluate run grokked")
    elif p < 0.05:
        c.holds, c.reason = fell > rose, ""
    else:
        c.inconclusive("underpowered", f"fell on {fell}, rose on {rose} of {len(d)} grokking runs (p = {p:.2g})")


def _rank(c: Claim, S: dict, evs: dict) -> None:
    grok, length = {}, []
    for r, s in sorted(S.items()):
        ev = evs[r]
        if ev.grokked and ev.t_fit is not None:
            end = min(ev.T + 500, ev.horizon)
            a, b = s.at(ev.t_fit), s.at(end)
            if a is not None and b is not None:
                grok[r] = b - a
                length.append(end - ev.t_fit)
    L = float(np.median(length)) if length else None
    cens = {}
    for r, s in sorted(S.items()):
        ev = evs[r]
        if L is not None and not ev.grokked and ev.t_fit is not None:
            a, b = s.at(ev.t_fit), s.at(ev.t_fit + L)
            if a is not None and b is not None:
                cens[r] = b - a
    g, n = list(grok.values()), list(cens.values())
    c.per_seed = {"grokking: change fit -> T + 500": [round(x, 4) for x in g],
                  "censored: change over the median window": [round(x, 4) for x in n]}
    fell, rose = sum(x < 0 for x in g), sum(x > 0 for x in g)
    p = _two_sided(c, fell, rose)
    q_less = mannwhitneyu(g, n, alternative="less").pvalue if g and n else 1.0
    q_more = mannwhitneyu(g, n, alternative="greater").pvalue if g and n else 1.0
    c.aggregate.update({"window_steps": L, "mannwhitney_p_less": q_less, "mannwhitney_p_greater": q_more,
                        "n_grok": len(g), "n_censored": len(n)})
    if not g or not n:
        c.inconclusive("precondition", "no grokking or no censored evaluate run to compare")
    elif fell > rose and p < 0.05 and q_less < 0.05:
        c.holds, c.reason = True, ""
    elif (rose > fell and p < 0.05) or q_more < 0.05:
        c.holds, c.reason = False, ""
    else:
        c.inconclusive("underpowered", f"fell on {fell}, rose on {rose} grokking runs (p = {p:.2g}); "
                                       f"grokking vs censored one-sided p = {q_less:.2g}")
