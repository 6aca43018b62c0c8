"""The early-warning study judged under the frozen protocol: each measure's sign and alarm threshold fixed on the
explore runs (rules.json, written before any evaluate run is scored), then on the evaluate runs (per setting and
pooled) and the held-out setting's: AUROC at fixed points after the fit with stratified bootstrap intervals, the
lead time of true alarms, the share of grokking runs warned and the false-positive rate (board.csv at the primary
point, board_all.csv at every point), figures, and the papers' claims (claims.py)."""
from __future__ import annotations

import csv
import io
import time
from pathlib import Path

import numpy as np

from groklab.experiments.earlywarn.claims import paper_claims
from groklab.experiments.earlywarn.events import all_events
from groklab.experiments.earlywarn.figures import draw
from groklab.experiments.earlywarn.protocol import Protocol, horizon
from groklab.experiments.earlywarn.runs import STUDY, TITLES, block_of, setting_of
from groklab.experiments.earlywarn.states import (
    FIT_STEP,
    alarm,
    auroc,
    auroc_ci,
    labelled,
    median_ci,
    series_of,
    sign_on,
    threshold_on,
)
from groklab.store import load_runs
from groklab.store.files import atomic_write, write_json
from groklab.store.tree import write_claims

POOLED = "all"
COLUMNS = ["measure", "setting", "block", "needs_test_data", "after_fit", "auroc", "auroc_ci_low", "auroc_ci_high",
           "lead_steps_median", "lead_ci_low", "lead_ci_high", "warned_share", "fpr", "n_grok", "n_censored",
           "n_unfit", "auroc_n_grok", "auroc_n_censored", "sign", "threshold"]


def measures_of(proto: Protocol) -> dict[str, tuple[str, bool, str]]:
    """name -> (metrics key, reads test inputs, normalisation), the baseline fit_step last."""
    out = {m: (key, reads, norm) for m, (key, reads, _, norm) in proto.measures.items()}
    return {**out, FIT_STEP: (FIT_STEP, False, "level")}


def fix_rules(series: dict, proto: Protocol) -> dict:
    """measure -> setting (and POOLED's sign) -> {sign, threshold, explore_auroc, n}: from explore runs only."""
    p, fpr = proto.scores.primary, proto.alarms.false_positive_rate
    rules = {}
    for m, S in series.items():
        explore = {r: s for r, s in S.items() if block_of(r) == "explore"}
        rules[m] = {}
        for setting in proto.population.settings:
            ex = {r: s for r, s in explore.items() if setting_of(r) == setting}
            x, y = labelled(ex, p)
            sign = sign_on(x, y)
            rules[m][setting] = {"sign": sign, "threshold": threshold_on(ex, sign, fpr),
                                 "explore_auroc": auroc(sign * x, y), "n": len(ex)}
        x, y = labelled(explore, p)
        rules[m][POOLED] = {"sign": sign_on(x, y), "threshold": None, "explore_auroc": None, "n": len(explore)}
    return rules


def score(S: dict, rules: dict, like: str | None, sign: int, after: int, boot: dict) -> dict:
    """One board cell: AUROC at t_fit + `after`, and the alarms of each run under its own setting's rule (a
    held-out run: under its `like` setting's)."""
    x, y = labelled(S, after)
    lo, hi = auroc_ci(sign * x, y, boot["reps"], boot["level"], boot["seed"])
    leads, warned, false, n_grok, n_cens = [], 0, 0, 0, 0
    for r, s in S.items():
        if s.ev.t_fit is None:
            continue
        rule = rules[like or setting_of(r)]
        t = alarm(s, rule["sign"], rule["threshold"])
        if s.ev.grokked:
            n_grok += 1
            if t is not None and t < s.ev.T:
                warned += 1
                leads.append(s.ev.T - t)
        else:
            n_cens += 1
            false += t is not None
    med, llo, lhi = median_ci(np.array(leads, dtype=float), boot["reps"], boot["level"], boot["seed"])
    return {"auroc": auroc(sign * x, y), "auroc_ci_low": lo, "auroc_ci_high": hi, "lead_steps_median": med,
            "lead_ci_low": llo, "lead_ci_high": lhi, "warned_share": warned / n_grok if n_grok else float("nan"),
            "fpr": false / n_cens if n_cens else float("nan"), "n_grok": n_grok, "n_censored": n_cens,
            "n_unfit": sum(s.ev.t_fit is None for s in S.values()), "auroc_n_grok": int(y.sum()),
            "auroc_n_censored": int((~y).sum())}


def cells(proto: Protocol) -> list[tuple[str, str, object]]:
    """(block, setting, the rule each run takes) for every board row: the evaluate settings, their pool, and the
    held-out settings (with their `like` setting's rules)."""
    out = [("evaluate", s, None) for s in proto.population.settings] + [("evaluate", POOLED, None)]
    return out + [("held_out", h, spec.like) for h, spec in proto.population.held_out.items()]


def judge_study(runs: Path, root: Path, proto: Protocol, digest: str, echo=print,
                protocol: Path | None = None) -> dict:
    """Judge the study's runs (`runs`: a study folder, or an archive's) into `root`, beside a copy of the protocol
    file; returns claims.json's doc (report.html is the caller's: groklab.earlywarn)."""
    t0 = time.perf_counter()
    if protocol is not None:
        atomic_write(root / "protocol.yaml", Path(protocol).read_bytes())
    meas = measures_of(proto)
    keys = sorted({k for k, _, _ in meas.values() if k != FIT_STEP})
    df = load_runs(runs, columns=["train/acc", "test/acc", *keys], archived=True)
    evs = all_events(df, proto.event, horizon(proto))
    series = {m: series_of(df, key, evs, norm) for m, (key, _, norm) in meas.items()}
    rules = fix_rules(series, proto)
    write_json(root / "rules.json", {"protocol_sha256": digest, "fixed_on": "explore", "rules": _finite(rules)})
    boot = proto.scores.bootstrap
    rows = []
    for m, S in series.items():
        for block, setting, like in cells(proto):
            sub = {r: s for r, s in S.items()
                   if block_of(r) == block and (setting == POOLED or setting_of(r) == setting)}
            rule_setting = like or setting
            sign = rules[m][rule_setting]["sign"]
            for after in proto.scores.auroc_at:
                row = {"measure": m, "setting": setting, "block": block, "needs_test_data": meas[m][1],
                       "after_fit": after, **score(sub, rules[m], like, sign, after, boot), "sign": sign,
                       "threshold": rules[m].get(rule_setting, {}).get("threshold")}
                rows.append(row)
    primary = [r for r in rows if r["after_fit"] == proto.scores.primary]
    order = lambda r: (r["block"] != "evaluate", r["setting"] != POOLED, r["setting"], r["needs_test_data"],  # noqa: E731
                       -(r["auroc"] if r["auroc"] == r["auroc"] else -1))
    _write_csv(root / "board.csv", sorted(primary, key=order))
    _write_csv(root / "board_all.csv", sorted(rows, key=lambda r: (*order(r), r["after_fit"])))
    atomic_write(root / "board.md", board_markdown(rows, proto))
    eval_df = df[df["run"].map(block_of) == "evaluate"]
    claims = paper_claims(eval_df, evs, {m: {r: s for r, s in S.items() if block_of(r) == "evaluate"}
                                         for m, S in series.items()}, proto)
    figures = draw(series, evs, rows, proto, root)
    n_runs = df["run"].nunique()
    doc = {"figure": STUDY, "title": TITLES[STUDY], "paper": "", "profile": "quick",
           "seeds": len(proto.seeds.explore),
           "figures": [*figures, "board.csv", "board_all.csv", "board.md", "rules.json", "protocol.yaml"],
           "claims": claims, "protocol": {"version": proto.version, "sha256": digest},
           "runs": n_runs, "judge_s": round(time.perf_counter() - t0, 1)}
    write_claims(root, doc)
    for r in sorted((r for r in primary if r["setting"] == POOLED), key=order):
        echo(f"  {r['measure']:<16} AUROC {r['auroc']:.2f} [{r['auroc_ci_low']:.2f}, {r['auroc_ci_high']:.2f}] "
             f"n {r['auroc_n_grok']}+{r['auroc_n_censored']}; warned {r['warned_share']:.2f}, "
             f"lead {r['lead_steps_median']:.0f}, fpr {r['fpr']:.2f}" + ("  (oracle)" if r["needs_test_data"] else ""))
    for c in doc["claims"]:
        echo(f"  {c['id']}: {c['verdict']}")
    return doc


def _num(v, fmt: str) -> str:
    return "-" if v is None or v != v else format(v, fmt)


def board_markdown(rows: list[dict], proto: Protocol) -> str:
    """The board as Markdown (docs/results.md includes it): the evaluate runs pooled at the primary point, one row
    per measure, oracles last; then AUROC per setting, and the held-out settings' false-positive rates."""
    p = proto.scores.primary
    at = [r for r in rows if r["after_fit"] == p]
    pooled = sorted((r for r in at if r["setting"] == POOLED),
                    key=lambda r: (r["needs_test_data"], -(r["auroc"] if r["auroc"] == r["auroc"] else -1)))
    out = [f"# Early-warning board (protocol v{proto.version})", "",
           f"Evaluate runs of all settings pooled, state at t_fit + {p}; AUROC of 'groks within the horizon' with "
           "its 95% stratified bootstrap interval and n (grokking + censored runs still ungrokked there); alarms "
           "at each setting's explore-fixed threshold: the share of grokking runs warned before T, the median lead "
           "T - alarm [interval], the false-positive rate.", "",
           "| measure | reads test data | AUROC [95% CI] | n | warned | lead (steps) | FPR |",
           "|---|---|---|---|---|---|---|"]
    for r in pooled:
        out.append(f"| {r['measure']} | {'yes (oracle)' if r['needs_test_data'] else 'no'} | "
                   f"{_num(r['auroc'], '.2f')} [{_num(r['auroc_ci_low'], '.2f')}, {_num(r['auroc_ci_high'], '.2f')}] | "
                   f"{r['auroc_n_grok']} + {r['auroc_n_censored']} | {_num(r['warned_share'], '.0%')} | "
                   f"{_num(r['lead_steps_median'], ',.0f')} [{_num(r['lead_ci_low'], ',.0f')}, "
                   f"{_num(r['lead_ci_high'], ',.0f')}] | {_num(r['fpr'], '.0%')} |")
    settings = list(proto.population.settings)
    cell = {(r["measure"], r["setting"]): r for r in at if r["block"] == "evaluate"}
    out += ["", f"AUROC per setting at t_fit + {p} (grokking + censored runs):", "",
            "| measure | " + " | ".join(settings) + " |", "|---" * (len(settings) + 1) + "|"]
    for r in pooled:
        out.append(f"| {r['measure']} | " + " | ".join(
            f"{_num(cell[(r['measure'], s)]['auroc'], '.2f')}" for s in settings) + " |")
    out.append("| n | " + " | ".join(f"{cell[(pooled[0]['measure'], s)]['n_grok']} + "
                                      f"{cell[(pooled[0]['measure'], s)]['n_censored']}" for s in settings) + " |")
    for h in proto.population.held_out:
        held = [r for r in at if r["setting"] == h]
        if held:
            out += ["", f"Held-out setting {h}: {held[0]['n_grok']} of {held[0]['n_grok'] + held[0]['n_censored']} "
                        "runs grokked" + (" (AUROC undefined: no grokking run)" if not held[0]["n_grok"] else "")
                    + "; false-positive rate at the thresholds carried over: "
                    + ", ".join(f"{r['measure']} {_num(r['fpr'], '.0%')}" for r in held) + "."]
    return "\n".join(out) + "\n"


def _write_csv(path: Path, rows: list[dict]) -> None:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items()})
    atomic_write(path, buf.getvalue())


def _finite(x):
    """nan -> None, all the way down (JSON has no nan)."""
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    return None if isinstance(x, float) and x != x else x
