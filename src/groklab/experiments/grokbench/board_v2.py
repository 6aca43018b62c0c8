"""GrokBench II's judgement from its packed evidence (protocol v2): leaderboard.csv, aggregate.csv (with tiers),
pairwise.csv, loto.csv, heldout.csv, leaderboard.md and report.html.

Time to grok is the first step after which test accuracy stays >= the threshold for the protocol's persistence
(measures.curves.held_from); a run that never does -- a diverged one included -- is right-censored at its task's
horizon, a failure within the budget, never censored early. Statistics: tiers.py.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import numpy as np

from groklab.experiments.grokbench import tiers as T
from groklab.experiments.grokbench.board import html_page, num, values_text
from groklab.experiments.grokbench.evidence import parse, read_evidence
from groklab.measures.curves import held_from
from groklab.store import atomic_write
from groklab.store.escape import csv_cell, md_cell
from groklab.survival import Censored, km_median

LEADER = ["method", "task", "studies", "eval_seeds", "grokked", "median_steps", "ci_low", "ci_high", "score",
          "score_lo", "score_hi", "per_study", "p_value", "p_holm", "median_steps_at_also", "chosen"]


def times_of(rows, runs: dict, level: float, persistence: int) -> dict[str, tuple[float, bool]]:
    """{run: (step, observed)}: held_from's step, else (the run's horizon, False)."""
    out = {}
    for run, g in rows.sort_values(["run", "step"]).groupby("run", sort=False):
        acc = g["test/acc"].to_numpy(dtype=float)
        at = held_from(g["step"].tolist(), np.nan_to_num(acc, nan=0.0).tolist(), level, persistence)
        out[run] = (float(at), True) if at is not None else (float(horizon_of(runs[run]["overrides"])), False)
    for run in runs:  # a declared run with no rows at all never held anything: a failure at its horizon
        out.setdefault(run, (float(horizon_of(runs[run]["overrides"])), False))
    return out


def horizon_of(ov: list[str]) -> int:
    return int(next(o.split("=", 1)[1] for o in reversed(ov) if o.startswith("steps=")))


def nest(at: dict, prefix: str = "eval/") -> dict:
    """{method: {task: {study: arrays}}} from {eval/<task>/<method>/k<study>/s<seed>: (step, observed)}."""
    out: dict = {}
    for name in sorted(at, key=lambda n: (n.rsplit("/s", 1)[0], int(n.rsplit("/s", 1)[1]))):
        task, method, k, _ = name.removeprefix(prefix).split("/")
        out.setdefault(method, {}).setdefault(task, {}).setdefault(int(k[1:]), []).append(at[name])
    return {m: {t: {k: T.as_arrays(v) for k, v in per.items()} for t, per in tasks.items()}
            for m, tasks in out.items()}


def judge_v2(out: Path, echo: Callable = print, wall: float = 0.0, parsed: tuple | None = None) -> dict:
    import pandas as pd

    t0 = time.perf_counter()
    doc, runs, selection, rows = parsed or parse(read_evidence(out))
    proto, methods, tasks, held = doc["protocol"], list(doc["methods"]), doc["tasks"], doc.get("heldout", [])
    base, thr, also, keep = proto["baseline"], proto["threshold"], proto["also"], proto["persistence"]
    times = nest(times_of(rows, runs, thr, keep))
    times_also = nest(times_of(rows, runs, also, keep))
    horizon = {t: float(max(horizon_of(r["overrides"]) for n, r in runs.items() if n.split("/")[1] == t))
               for t in tasks + held}
    # two families for Holm: the tuned tasks' tests, and the held-out tasks' (a check of transfer, not a ranking)
    cells = {**T.per_task({m: {t: times[m][t] for t in tasks} for m in methods}, base),
             **T.per_task({m: {t: times[m][t] for t in held} for m in methods}, base)}
    board = []
    for task in tasks + held:
        for m in methods:
            pooled = [(x, o) for k in sorted(times[m][task]) for x, o in zip(*times[m][task][k])]
            km = km_median([x if o else Censored(x) for x, o in pooled], horizon[task])
            km_also = km_median([x if o else Censored(x) for k in sorted(times_also[m][task])
                                 for x, o in zip(*times_also[m][task][k])], horizon[task])
            c = cells[(m, task)]
            board.append({"method": m, "task": task, "studies": len(times[m][task]), "eval_seeds": len(pooled),
                          "grokked": km["events"], "median_steps": km["median"], "ci_low": km["lo"],
                          "ci_high": km["hi"], "score": c["score"], "score_lo": c["lo"], "score_hi": c["hi"],
                          "per_study": " ".join(num(p) for p in c["per_study"]), "p_value": c["p_value"],
                          "p_holm": c["p_holm"], "median_steps_at_also": km_also["median"],
                          "chosen": "; ".join(f"k{k}: {values_text(v['values'])}"
                                              for k, v in sorted(selection[task][m].items()))})
    # a task no run of any method grokked cannot rank methods (every pair open): left out of every aggregate
    solved = [t for t in tasks if any(times[m][t][k][1].any() for m in methods for k in times[m][t])]
    held_solved = [t for t in held if any(times[m][t][k][1].any() for m in methods for k in times[m][t])]
    agg = T.across(times, base, solved)
    order = sorted(methods, key=lambda m: (-(agg[m]["score"] if agg[m]["score"] is not None else -1), m))
    pairs = T.pairwise(times, solved) if solved else {}
    tier = T.tiers(order, pairs) if solved else {m: 1 for m in methods}
    loto = T.leave_one_out(times, base, solved) if len(solved) > 1 else []
    held_agg = T.across(times, base, held_solved) if held_solved else {}
    transfer = T.transfer(agg, held_agg) if held_solved else {"tau": None, "p_value": None, "n": 0}
    first = {r["leader"] for r in loto}
    agg_rows = [{"method": m, "tier": tier[m], "score": agg[m]["score"], "score_lo": agg[m]["lo"],
                 "score_hi": agg[m]["hi"], "tasks": len(solved),
                 "loto_leader": sum(r["leader"] == m for r in loto), "loto_runs": len(loto),
                 "heldout_score": held_agg.get(m, {}).get("score"), "heldout_lo": held_agg.get(m, {}).get("lo"),
                 "heldout_hi": held_agg.get(m, {}).get("hi")} for m in order]
    frames = {"leaderboard.csv": pd.DataFrame(board, columns=LEADER), "aggregate.csv": pd.DataFrame(agg_rows),
              "pairwise.csv": pd.DataFrame([{"method": i, "against": j, **v} for (i, j), v in sorted(pairs.items())],
                                           columns=["method", "against", "score", "p_value"]),
              "loto.csv": pd.DataFrame([{"left_out": r["left_out"], "leader": r["leader"],
                                         "order": " > ".join(r["order"])} for r in loto],
                                       columns=["left_out", "leader", "order"])}
    for name, df in frames.items():
        atomic_write(out / name, df.map(csv_cell).to_csv(index=False))
    md = markdown_v2(doc, frames, solved, transfer, thr, keep, sorted(first), selection)
    atomic_write(out / "leaderboard.md", md)
    from groklab.experiments.grokbench.figures import survival_figure, tuning_figure

    as_km = {m: {t: [x if o else Censored(x) for k in sorted(times[m][t]) for x, o in zip(*times[m][t][k])]
                 for t in tasks + held} for m in methods}
    figs = survival_figure(as_km, horizon, out / "survival", thr, solved) + tuning_figure(
        selection, tasks, methods, float(proto["profiles"][doc["profile"]]["tuner"]["budget_steps"]), out / "tuning")
    html_page(out, doc, md.split("\n")[2], frames["leaderboard.csv"], frames["aggregate.csv"], figs)
    for r in agg_rows:
        echo(f"  tier {r['tier']} {r['method']}: P(before {base}) = {num(r['score'])} [{num(r['score_lo'])}, "
             f"{num(r['score_hi'])}] over {len(solved)} tasks; held out {num(r['heldout_score'])}")
    echo(f"grokbench v2: judged in {time.perf_counter() - t0:.1f} s ({wall:.0f} s in all); {out / 'leaderboard.md'}")
    return {"leaderboard": board, "aggregate": agg_rows, "transfer": transfer, "loto": loto,
            "figures": [str(f) for f in figs]}


def markdown_v2(doc: dict, frames: dict, solved: list, transfer: dict, thr: float, keep: int, leaders: list,
                selection: dict) -> str:
    proto = doc["protocol"]
    tuner = proto["profiles"][doc["profile"]]["tuner"]
    agg, lead = frames["aggregate.csv"], frames["leaderboard.csv"]
    lines = [f"# GrokBench II ({doc['profile']} profile, protocol v{proto['version']})", "",
             f"{len(doc['methods'])} methods x {len(doc['tasks'])} tasks, {len(tuner['studies'])} tuning studies each "
             f"({tuner['budget_steps']:,} training steps by successive halving); each study's choice run on the "
             f"evaluation seeds. Grokked: test accuracy held >= {thr:g} for {keep} steps; a run that never does is "
             f"censored at the horizon. Score: P(a run before one of {proto['baseline']}), per task the median over "
             "studies, its interval a two-level bootstrap (studies, then runs); tiers: methods no Holm-adjusted "
             "pairwise test tells apart.", "", "## Across tasks", "",
             f"| tier | method | score [95% CI] over {len(solved)} tasks | led when a task is left out | held out |",
             "|---|---|---|---|---|"]
    for _, r in agg.iterrows():
        lines.append(f"| {r['tier']} | {md_cell(r['method'])} | {num(r['score'])} [{num(r['score_lo'])}, "
                     f"{num(r['score_hi'])}] | {r['loto_leader']} of {r['loto_runs']} | {num(r['heldout_score'])} "
                     f"[{num(r['heldout_lo'])}, {num(r['heldout_hi'])}] |")
    edges = [f"{t}/{m}/k{k} ({', '.join(v['edges'])})" for t in doc["tasks"] for m, studies in selection[t].items()
             for k, v in studies.items() if v.get("edges")]
    lines += ["", f"Leaders when one task is left out: {', '.join(map(md_cell, leaders)) or '-'}. Held-out transfer: "
              f"Kendall's tau {num(transfer['tau'])} (p {num(transfer['p_value'], 2)}, n = {transfer['n']} "
              "methods) between the order across tuned tasks and across held-out ones.", "",
              "Chosen at a range's outer 5% (widen the range, then tune again): "
              f"{md_cell('; '.join(edges)) or 'none'}.", "", nested_line(doc, selection), ""]
    for task, g in lead.groupby("task", sort=False):
        lines += [f"## {md_cell(task)}", "", "| method | grokked | median steps [95% CI] | score [95% CI] | per study "
                  "| p (Holm) | chosen |", "|---|---|---|---|---|---|---|"]
        for _, r in g.iterrows():
            lines.append(f"| {md_cell(r['method'])} | {r['grokked']}/{r['eval_seeds']} | {num(r['median_steps'], 4)} "
                         f"[{num(r['ci_low'], 4)}, {num(r['ci_high'], 4)}] | {num(r['score'])} "
                         f"[{num(r['score_lo'])}, {num(r['score_hi'])}] | {r['per_study']} | "
                         f"{num(r['p_value'], 2)} ({num(r['p_holm'], 2)}) | {md_cell(r['chosen'])} |")
        lines.append("")
    return "\n".join(lines)


def nested_line(doc: dict, selection: dict) -> str:
    """The studies whose choice is their method's nested point (the plain optimizer inside its space, completed
    from the ranges' middles). A method that runs on the baseline's optimizer (Adam-LR at c = 1, Grokfast at
    lambda = 0 on AdamW) then races the baseline itself at other settings: its score measures where the baseline's
    own tuning landed, not the method (found on GrokBench II's Transformer add, 2026-12-07)."""
    from groklab.experiments.grokbench.protocol import Method, fixed_trials

    base = doc["protocol"]["baseline"]
    found = []
    for t in doc["tasks"]:
        for name, studies in selection[t].items():
            m = Method(**doc["methods"][name])
            point = fixed_trials(m)[0] if m.nested else None
            same = [k for k, v in sorted(studies.items()) if point is not None and v.get("values") == point]
            if same and name != base:
                itself = f"optim.name={base}" in [o.replace(" ", "") for o in m.set]
                found.append(f"{t}/{name} in {len(same)} of {len(studies)} studies"
                             + (f" (= {base})" if itself else ""))
    return ("Chosen at the nested point (the plain optimizer inside the method's space; '= " + base + "': the "
            f"baseline itself at the ranges' middles, so its score measures {base}'s tuning, not the method): "
            f"{md_cell('; '.join(found)) or 'none'}.")


__all__ = ["LEADER", "judge_v2", "markdown_v2", "nest", "nested_line", "times_of"]
