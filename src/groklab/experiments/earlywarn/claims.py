"""The papers' claims about a measure tracking or moving with generalization, judged on the early-warning study's
evaluate runs by the rules its frozen protocol fixed before any run (protocol.yaml, `claims`). This population is
ours (boundary settings where some seeds grok and some do not), not the papers' own runs: each note says so."""
from __future__ import annotations

import numpy as np
from scipy.stats import binomtest, mannwhitneyu

from groklab.experiments.beyond.med import correlations
from groklab.experiments.earlywarn.runs import setting_of
from groklab.experiments.earlywarn.states import median_ci
from groklab.experiments.posthoc import Revision, fixed, revised
from groklab.experiments.spec import Claim
from groklab.measures.curves import grok_events
from groklab.store.citation import POST_HOC, after_data

WHERE = {"med_tracks_test_loss": "004 §6.2 (Fig. 5)", "hessian_E_falls_as_validation_improves": "000 §5 (Fig. 7)",
         "W_rank_declines_with_grokking": "000 App. C.2 (Fig. 10)"}
TEXT = {"med_tracks_test_loss": "MED's changes match the test loss's (median Pearson r of the changes > 0.5)",
        "hessian_E_falls_as_validation_improves": "E's top Hessian eigenvalue falls while validation accuracy rises",
        "W_rank_declines_with_grokking": "W's rank declines as the run groks, more than in runs that do not"}
# the papers' sentences verbatim, markup and all (the frozen protocol's copies drop 000's \mathbf{E})
VERBATIM = {"hessian_E_falls_as_validation_improves":
            "validation accuracy improves as the eigenvalues of \\mathbf{E} decrease"}
POPULATION = ("our population, not the paper's runs: the early-warning study's evaluate seeds (20-39) in five "
              "boundary settings (add, mul, D_16 on the embedding MLP; add, mul on a 1-layer Transformer)")


FROZEN = "4be729b6"  # the commit that froze protocol version 1 (its sha256 in docs/earlywarn.md), before any run


def _fixed(proto, c: dict) -> dict:
    """When the claim's rule was fixed: in the frozen protocol, or (post hoc) by its latest revision."""
    if c.get("post_hoc"):
        return fixed("earlywarn", "earlywarn", c, None)
    return {"date": "2026-12-07", "commit": FROZEN if proto.version == 1 else None, "before_data": True,
            "how": f"in the frozen early-warning protocol version {proto.version}, before any explore or evaluate run"}


def paper_claims(df, evs: dict, series: dict, proto) -> list[dict]:
    """Each claim of the protocol judged by its rule: claims.json entries (quote, where, when the rule was fixed)."""
    boot = proto.scores.bootstrap
    out = []
    for spec in proto.claims:
        c = Claim(spec.id, TEXT.get(spec.id, spec.quote), spec.rule, holds=None, reason="underpowered")
        if spec.id == "med_tracks_test_loss":
            c = _med_on_004s_model(c, df, boot)
        elif spec.id == "hessian_E_falls_as_validation_improves":
            c = _rising(c, series["hessian_E_top"], evs, df)
        elif spec.id == "W_rank_declines_with_grokking":
            _rank(c, series["erank_W"], evs)
        c.note = "; ".join(filter(None, [c.note, POPULATION]))
        entry = {**c.to_dict(), "quote": VERBATIM.get(spec.id, spec.quote), "where": WHERE.get(spec.id),
                 "kind": "paper"}
        entry["fixed"] = _fixed(proto, entry)
        if after_data(entry):  # a rule changed after the data says so in the verdict too (quotes.cite)
            entry["verdict"] += POST_HOC
        out.append(entry)
    return out


# 004 states MED on its own model, "a single-layer transformer decoder" (§3; §6.2 keeps §6.1's configuration): the
# embedding-MLP settings of our population are not its model (as 000's sentence is not about the Transformer)
MODEL = Revision("2026-12-07", "judged on the 1-layer Transformer settings (004's model, §3); the embedding-MLP "
                 "settings a measurement beside", "every setting pooled (the frozen protocol's rule)",
                 "an audit of the verdicts (2026-12-07): the pooled population mixed in an MLP that 004 does not study")


def _med_on_004s_model(frozen: Claim, df, boot: dict) -> Claim:
    """The frozen rule on every setting pooled (_med), then the same rule on 004's model alone (MODEL), post hoc;
    the MLP settings' median is shown beside."""
    _med(frozen, df, boot)
    arch = df["run"].map(lambda r: setting_of(r).rsplit("_", 1)[-1])  # the protocol names settings <task>_<model>
    c = Claim(frozen.id, frozen.text, frozen.statistic + "; on the 1-layer Transformer settings (004's model)",
              holds=None, reason="underpowered")
    _med(c, df[arch == "transformer"], boot)
    mlp = Claim(frozen.id, frozen.text, frozen.statistic, holds=None, reason="underpowered")
    _med(mlp, df[arch == "mlp"], boot)
    c.per_seed["embedding-MLP settings (measurement): pearson r of the changes"] = mlp.per_seed.get(
        "pearson r of the changes", [])
    c.aggregate["embedding-MLP settings (measurement)"] = mlp.aggregate
    c.aggregate["every setting pooled (the frozen rule)"] = frozen.aggregate
    fmt = lambda a: (f"median {a['median']:.3g} [{a['ci_low']:.3g}, {a['ci_high']:.3g}], n = {a['n']}"  # noqa: E731
                     if a.get("n") else "no runs")
    c.note = "; ".join(filter(None, [c.note, f"on the Transformer settings (004's model) {fmt(c.aggregate)}; on the "
                                     f"embedding-MLP settings (a measurement) {fmt(mlp.aggregate)}; pooled (the "
                                     f"frozen rule) {fmt(frozen.aggregate)}"]))
    return revised(c, frozen, MODEL)


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


# "as validation accuracy improves" is the rise of test accuracy, not the stretch from the fit: right after the fit
# E's top eigenvalue climbs (about 30x its value at the fit on the MLP runs, median) before test accuracy moves,
# then falls through the rise. And 000's sentence is about its embedding MLP, not the Transformer settings that
# share our population.
RISE = Revision("2026-12-07", "the change from the onset of test accuracy's rise (004's GO: the first eval from the "
                "fit on with test accuracy 0.1 above its value at the fit) to T, on the embedding-MLP settings (000's "
                "model); the Transformer settings and the pooled runs a measurement beside",
                "the change from the fit to T, every setting pooled (the frozen protocol's rule)",
                "a fresh read (2026-12-07): from the fit the window measured the post-fit climb, before test "
                "accuracy moves, and pooled a Transformer the sentence is not about")


def _rising(frozen: Claim, S: dict, evs: dict, df) -> Claim:
    """The frozen rule's verdict (_sign), then the sentence's window on 000's model (RISE), post hoc."""
    _sign(frozen, S, evs)
    go = {r: grok_events(g["step"].tolist(), g["train/acc"].tolist(), g["test/acc"].tolist())["go_step"]
          for r, g in df.dropna(subset=["test/acc", "train/acc"]).sort_values("step").groupby("run")}
    d: dict[str, list] = {"mlp": [], "transformer": []}
    for r, s in sorted(S.items()):
        ev, arch = evs[r], setting_of(r).rsplit("_", 1)[-1]  # the protocol names settings <task>_<model>
        if ev.grokked and go.get(r) is not None and arch in d:
            a, b = s.at(go[r]), s.at(ev.T)
            if a is not None and b is not None:
                d[arch].append(b - a)
    c = Claim(frozen.id, frozen.text, "per grokking embedding-MLP run, hessian/E_top at the last measure at or "
              "before T against the last at or before GO (the onset of the test-accuracy rise); holds if it fell "
              "on more runs than it rose (two-sided sign test p < 0.05), does not hold if it rose on more, else "
              "inconclusive", {"mlp: change from GO to T": [round(x, 4) for x in d["mlp"]],
                               "transformer: change from GO to T (measurement)": [round(x, 4) for x in
                                                                                   d["transformer"]],
                               **frozen.per_seed}, holds=None, reason="underpowered")
    fell, rose = sum(x < 0 for x in d["mlp"]), sum(x > 0 for x in d["mlp"])
    p = _two_sided(c, fell, rose)
    if not d["mlp"]:
        c.inconclusive("precondition", "no embedding-MLP evaluate run grokked")
    elif p < 0.05:
        c.holds, c.reason = fell > rose, ""
    else:
        c.inconclusive("underpowered", f"fell on {fell}, rose on {rose} of {len(d['mlp'])} grokking MLP runs "
                                       f"(p = {p:.2g})")
    tf, tr = sum(x < 0 for x in d["transformer"]), sum(x > 0 for x in d["transformer"])
    c.aggregate["transformer (measurement)"] = {"fell": tf, "rose": tr, "n": len(d["transformer"])}
    c.aggregate["frozen rule (fit to T, pooled)"] = {k: frozen.aggregate.get(k) for k in ("fell", "rose",
                                                                                          "sign_test_p")}
    c.note = (f"from GO to T E's top eigenvalue fell on {fell} and rose on {rose} of {len(d['mlp'])} grokking "
              f"embedding-MLP runs; on the 1-layer Transformer settings (not 000's model; a measurement) it fell "
              f"on {tf} and rose on {tr} of {len(d['transformer'])}; from the fit to T, pooled (the frozen rule), "
              f"it fell on {frozen.aggregate.get('fell')} and rose on {frozen.aggregate.get('rose')}: right after "
              "the fit it climbs, before test accuracy moves")
    return revised(c, frozen, RISE)


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
    if g and n:  # what the rule reads: a difference beside the fall both share (a fresh read, 2026-12-07)
        c.note = (f"W's effective rank fell on {sum(x < 0 for x in g)} of {len(g)} grokking runs (median change "
                  f"{np.median(g):.3g}) and on {sum(x < 0 for x in n)} of {len(n)} runs that never grok over as long a "
                  f"stretch (median {np.median(n):.3g}): most of the fall is shared, and the rule reads the rest, "
                  "not a decline timed with the rise")
    if not g or not n:
        c.inconclusive("precondition", "no grokking or no censored evaluate run to compare")
    elif fell > rose and p < 0.05 and q_less < 0.05:
        c.holds, c.reason = True, ""
    elif (rose > fell and p < 0.05) or q_more < 0.05:
        c.holds, c.reason = False, ""
    else:
        c.inconclusive("underpowered", f"fell on {fell}, rose on {rose} grokking runs (p = {p:.2g}); "
                                       f"grokking vs censored one-sided p = {q_less:.2g}")
