"""GrokBench II's anchors judged from their packed evidence (anchors.json, evals/<anchor>.npz): anchors.csv (each
arm's runs: grokked, Kaplan-Meier median steps with its interval, at the anchors' level and at the board's
criterion), anchors_compare.csv (each claimed method against its paper's baseline and against the tuned baseline,
with the declared rule's verdict) and anchors.md.

A comparison is P(a run of the method reaches the level before a run of the other arm): Gehan's pair score, ties and
pairs censoring leaves open 1/2, per study of the tuned arm (a fixed arm's runs stand in every study), its median
over studies and its interval the board's two-level bootstrap (tiers.py). The declared rule: interval above 1/2,
the method is faster ("survives" against the tuned baseline, "reproduced" against the paper's); below 1/2, it is
slower ("fails", "reversed"); else undecided. Where no run of either arm reaches the level the comparison is
inconclusive: the setting never showed the phenomenon the claim is about.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Callable

import numpy as np

from groklab.errors import ConfigError
from groklab.experiments.grokbench import tiers as T
from groklab.experiments.grokbench.board import num
from groklab.experiments.grokbench.board_v2 import horizon_of, nest, times_of
from groklab.store import atomic_write
from groklab.store.escape import csv_cell, md_cell
from groklab.survival import Censored, km_median

ARMS = ["anchor", "arm", "role", "studies", "runs", "grokked", "median_steps", "ci_low", "ci_high", "grokked_also",
        "median_steps_also"]
COMPARE = ["anchor", "method", "against", "kind", "p_before", "lo", "hi", "per_study", "speedup", "verdict"]
WORDS = {"paper": ("reproduced", "reversed"), "tuned": ("survives", "fails")}


def evidence(out: Path) -> tuple[dict, dict]:
    """(anchors.json, every run's packed record), each run checked against the overrides the declaration draws."""
    from groklab.experiments.grokbench import evals as E
    from groklab.experiments.grokbench.anchors import Anchors, draw_runs
    from groklab.experiments.grokbench.protocol import Method
    from groklab.store.files import read_text

    try:
        doc = json.loads(read_text(out / "anchors.json"))
        spec = Anchors.model_validate(doc["anchors"])
        names, profile = list(doc["names"]), str(doc["profile"])
        stray = [n for n in names if not isinstance(n, str) or n not in spec.anchors]
        if stray:  # a name becomes a path (evals/<name>.npz): only the declaration's own
            raise ConfigError(str(out / "anchors.json"), ascii(stray[0])[:80], "not an anchor the record declares")
        methods = {n: {m: Method.model_validate(v) for m, v in doc["methods"][n].items()} for n in names}
        drawn_all = {n: draw_runs(spec, n, profile, methods[n], copy.deepcopy(doc["selection"]))
                     for n in names}
    except ConfigError:
        raise
    except Exception as e:  # JSON, a missing key or choice, a declaration that no longer validates: one line
        raise ConfigError(str(out / "anchors.json"), "document", f"not an anchors record ({str(e)[:120]})") from None
    runs, packed = {}, {}
    for n in names:
        drawn = drawn_all[n]
        got = E.load(out / "evals" / f"{n}.npz")
        for run, r in drawn.items():
            if run not in got:
                raise ConfigError(f"evals/{n}.npz", ascii(run)[:80], "an evaluation run the declaration draws is "
                                                                     "not packed (the evaluation has not finished)")
            if got[run]["digest"] != E.digest(r["overrides"]):
                raise ConfigError(f"evals/{n}.npz", ascii(run)[:80], "trained with other overrides than drawn")
        runs.update(drawn)
        packed.update({k: v for k, v in got.items() if k in drawn})
    return doc, {"runs": runs, "rows": E.rows(packed)}


def compare(a: dict, b: dict, seed: int = 0) -> dict:
    """P(A before B) per study, its median and two-level bootstrap interval; a fixed arm stands in every study."""
    if set(a) == {0} and set(b) != {0}:
        a = {k: a[0] for k in b}
    if set(b) == {0} and set(a) != {0}:
        b = {k: b[0] for k in a}
    draws = T.boot(np.random.default_rng(seed), a, b, T.REPS)
    lo, hi = T.interval(list(draws))
    return {"p_before": T.score(a, b), "lo": lo, "hi": hi,
            "per_study": " ".join(num(T.pair_score(a[k], b[k])) for k in sorted(set(a) & set(b)))}


def verdict(c: dict, kind: str, seen: bool) -> str:
    if not seen:
        return "inconclusive (no run of either arm reached the level)"
    yes, no = WORDS[kind]
    if c["lo"] is not None and c["lo"] > 0.5:
        return yes
    if c["hi"] is not None and c["hi"] < 0.5:
        return no
    return "undecided (the interval holds 1/2)"


def judge_anchors(out: str | Path, echo: Callable = print) -> dict:
    import pandas as pd

    out = Path(out)
    doc, ev = evidence(out)
    spec = doc["anchors"]
    runs, rows = ev["runs"], ev["rows"]
    at = nest(times_of(rows, runs, spec["level"], spec["persistence"]))
    at_also = nest(times_of(rows, runs, spec["also"], spec["also_persistence"]))
    arms, comps = [], []
    for n in doc["names"]:
        a = spec["anchors"][n]
        horizon = float(max(horizon_of(r["overrides"]) for k, r in runs.items() if k.split("/")[1] == n))
        km = {}
        for arm in [*a["arms"], *a["tuned"]]:
            per = at[arm][n]
            pooled = [(x, o) for k in sorted(per) for x, o in zip(*per[k])]
            also = [(x, o) for k in sorted(at_also[arm][n]) for x, o in zip(*at_also[arm][n][k])]
            km[arm] = km_median([x if o else Censored(x) for x, o in pooled], horizon)
            k2 = km_median([x if o else Censored(x) for x, o in also], horizon)
            role = ("paper baseline" if arm == a["paper_baseline"] else "tuned baseline" if arm == spec["baseline"]
                    else "method" if arm in a["methods"] else "arm") + (" (tuned)" if arm in a["tuned"] and
                                                                         arm != spec["baseline"] else "")
            arms.append({"anchor": n, "arm": arm, "role": role, "studies": len(per), "runs": len(pooled),
                         "grokked": km[arm]["events"], "median_steps": km[arm]["median"], "ci_low": km[arm]["lo"],
                         "ci_high": km[arm]["hi"], "grokked_also": k2["events"], "median_steps_also": k2["median"]})
        for m in a["methods"]:
            for other, kind in ((a["paper_baseline"], "paper"), (spec["baseline"], "tuned")):
                if other not in at or n not in at[other] or other == m:
                    continue
                c = compare(at[m][n], at[other][n])
                seen = bool(km[m]["events"] or km[other]["events"])
                speed = (km[other]["median"] / km[m]["median"] if km[m]["median"] and km[other]["median"]
                         else None)
                comps.append({"anchor": n, "method": m, "against": other, "kind": kind, **c, "speedup": speed,
                              "verdict": verdict(c, kind, seen)})
    frames = {"anchors.csv": pd.DataFrame(arms, columns=ARMS),
              "anchors_compare.csv": pd.DataFrame(comps, columns=COMPARE)}
    for name, df in frames.items():
        atomic_write(out / name, df.map(csv_cell).to_csv(index=False))
    atomic_write(out / "anchors.md", markdown(doc, frames))
    for c in comps:
        echo(f"  {c['anchor']}: {c['method']} before {c['against']} ({c['kind']}): P = {num(c['p_before'])} "
             f"[{num(c['lo'])}, {num(c['hi'])}]: {c['verdict']}")
    return {"arms": arms, "compare": comps}


def markdown(doc: dict, frames: dict) -> str:
    spec = doc["anchors"]
    lines = [f"# GrokBench II anchors ({doc['profile']} profile, declaration v{spec['version']}, sha256 "
             f"{doc['digest'][:12]})", "",
             f"Each claim run in its authors' setting. Reached: test accuracy >= {spec['level']:g}"
             + (f" held {spec['persistence']} steps" if spec["persistence"] else " (first evaluation, the papers' "
                "criterion)") + f"; beside it, >= {spec['also']:g} held {spec['also_persistence']} steps (the "
             f"board's). P: a run of the method before a run of the other arm (Gehan; 95% two-level bootstrap). "
             f"The tuned baseline is {spec['baseline']} tuned in each setting by the board's tuner.", ""]
    arms, comps = frames["anchors.csv"], frames["anchors_compare.csv"]
    for n in doc["names"]:
        a = spec["anchors"][n]
        lines += [f"## {md_cell(n)}: {md_cell(a['paper'])}", "", f"> {md_cell(a['claim'])}", "",
                  f"Published: {md_cell(a['published'])}. Assumed: {md_cell(a['assumed'])}.", "",
                  "| arm | role | runs | reached | median steps [95% CI] | board's criterion: reached, median |",
                  "|---|---|---|---|---|---|"]
        for _, r in arms[arms["anchor"] == n].iterrows():
            lines.append(f"| {md_cell(r['arm'])} | {r['role']} | {r['runs']} | {r['grokked']} | "
                         f"{num(r['median_steps'], 4)} [{num(r['ci_low'], 4)}, {num(r['ci_high'], 4)}] | "
                         f"{r['grokked_also']}, {num(r['median_steps_also'], 4)} |")
        lines += ["", "| method | against | P(method first) [95% CI] | per study | speed-up (medians) | verdict |",
                  "|---|---|---|---|---|---|"]
        for _, c in comps[comps["anchor"] == n].iterrows():
            lines.append(f"| {md_cell(c['method'])} | {md_cell(c['against'])} ({c['kind']}) | {num(c['p_before'])} "
                         f"[{num(c['lo'])}, {num(c['hi'])}] | {c['per_study']} | {num(c['speedup'])} | "
                         f"{c['verdict']} |")
        lines.append("")
    return "\n".join(lines)


__all__ = ["compare", "evidence", "judge_anchors", "markdown", "verdict"]
