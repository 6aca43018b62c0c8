"""GrokBench's judgement from its packed runs: leaderboard.csv / .md, aggregate.csv, figures, report.html.

Everything here reads runs.csv.gz, runs.json, protocol.json and selection.json only, so a fresh benchmark and a
re-judge (`--from`) take the same path and give the same files.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from groklab.experiments.grokbench.evidence import FILES, parse, read_bytes
from groklab.experiments.grokbench.scores import aggregate, cell, grok_times
from groklab.store import atomic_write
from groklab.store.escape import csv_cell, md_cell
from groklab.survival import Censored

LEADER = ["method", "task", "tuning_runs", "eval_seeds", "grokked", "median_steps", "ci_low", "ci_high",
          "median_wall_s", "p_improvement_vs_adamw", "p_value", "median_steps_at_also", "best_config"]


def judge(out: Path, echo: Callable = print, wall: float = 0.0, parsed: tuple | None = None) -> dict:
    import pandas as pd

    t0 = time.perf_counter()
    # read as data: every name gated, every row declared and once (evidence.py), before anything is written
    doc, runs, selection, rows = parsed or parse({n: read_bytes(out / n) for n in FILES})
    proto, methods, tasks = doc["protocol"], list(doc["methods"]), doc["tasks"]
    prof = proto["profiles"][doc["profile"]]
    rows = rows[rows["run"].astype(str).str.startswith("eval/")]
    thr, also, base = proto["threshold"], proto["also"], proto["baseline"]
    at, at_also = grok_times(rows, thr), grok_times(rows, also)
    horizons = {t: float(max(_steps(runs[n]["overrides"]) for n in runs if n.split("/")[1] == t)) for t in tasks}
    times: dict = {m: {} for m in methods}
    board = []
    for task in tasks:
        per = {m: sorted((n for n in at if n.split("/")[1:3] == [task, m]), key=_seed) for m in methods}
        base_t = [at[n][0] for n in per[base]]
        for m in methods:
            steps, walls = [at[n][0] for n in per[m]], [at[n][1] for n in per[m]]
            times[m][task] = steps
            c = cell(steps, walls, None if m == base else base_t, horizons[task])
            board.append({"method": m, "task": task, "tuning_runs": prof["tuning_configs"] * len(prof["tuning_seeds"]),
                          **{k: c[k] for k in ("eval_seeds", "grokked", "median_steps", "ci_low", "ci_high",
                                               "median_wall_s", "p_value")},
                          "p_improvement_vs_adamw": 0.5 if m == base else c["p_improvement_vs_baseline"],
                          "median_steps_at_also": cell([at_also[n][0] for n in per[m]], walls, None,
                                                       horizons[task])["median_steps"],
                          "best_config": values_text(selection[task][m]["values"])})
    # a task no run of any method grokked says nothing about speed: every pair is open (P = 1/2) and every run
    # censored; the aggregates leave it out (protocol.yaml, `aggregate`), the leaderboard keeps its rows
    solved = [t for t in tasks if any(not isinstance(x, Censored) for m in methods for x in times[m][t])]
    agg = aggregate({m: {t: times[m][t] for t in solved} for m in methods}, horizons, base)
    lead = pd.DataFrame(board, columns=LEADER)
    agg_df = pd.DataFrame([{"method": m, **a} for m, a in agg.items()]).sort_values(
        "p_improvement", ascending=False, kind="stable")
    atomic_write(out / "leaderboard.csv", lead.map(csv_cell).to_csv(index=False))
    atomic_write(out / "aggregate.csv", agg_df.map(csv_cell).to_csv(index=False))
    from groklab.experiments.grokbench.figures import aggregate_figure, survival_figure

    figs = survival_figure(times, horizons, out / "survival", thr, solved) + aggregate_figure(agg_df,
                                                                                             out / "aggregate")
    md = markdown(doc, lead, agg_df, thr, also, [t for t in tasks if t not in solved])
    atomic_write(out / "leaderboard.md", md)
    html_page(out, doc, md.split("\n")[2], lead, agg_df, figs)
    for _, r in agg_df.iterrows():
        echo(f"  {r['method']}: P(improvement vs {base}) = {num(r['p_improvement'])} [{num(r['p_lo'])}, "
             f"{num(r['p_hi'])}], IQM time/horizon = {num(r['iqm'])}, n = {len(solved)} tasks x "
             f"{len(prof['eval_seeds'])} seeds")
    echo(f"grokbench: judged in {time.perf_counter() - t0:.1f} s ({wall:.0f} s in all); {out / 'leaderboard.md'}")
    return {"leaderboard": board, "aggregate": agg, "figures": [str(f) for f in figs]}


def _steps(ov: list[str]) -> int:
    return int(next(o.split("=", 1)[1] for o in reversed(ov) if o.startswith("steps=")))


def _seed(name: str) -> int:
    return int(name.rsplit("/s", 1)[1])


def values_text(values: dict) -> str:
    return " ".join(f"{k.removeprefix('optim.')}={v:.3g}" if isinstance(v, float) else
                    f"{k.removeprefix('optim.')}={v}" for k, v in sorted(values.items()))


def num(v, digits: int = 3) -> str:
    return "–" if v is None or v != v else f"{v:.{digits}g}"


def _cell(v: float) -> str:
    """A table cell: whole step counts as integers (4,550, not 4.55e+03), other values to 3 digits."""
    return f"{v:,.0f}" if v == v and v == int(v) and abs(v) >= 10 else num(v)


def markdown(doc: dict, lead, agg, thr: float, also: float, unsolved: list = ()) -> str:
    proto, prof = doc["protocol"], doc["protocol"]["profiles"][doc["profile"]]
    lines = [f"# GrokBench ({doc['profile']} profile)", "",
             f"{len(doc['methods'])} methods x {len(doc['tasks'])} tasks; each method tuned by "
             f"{prof['tuning_configs'] * len(prof['tuning_seeds'])} runs per task (seeds {prof['tuning_seeds']}), "
             f"its best configuration then run on {len(prof['eval_seeds'])} held-out seeds. Grokked: test accuracy "
             f">= {thr:g}; times censored at the horizon. Selection: "
             f"{proto['criterion'].replace('`threshold`', f'{thr:g}')}", "",
             "## Across tasks", "",
             f"| method | P(improvement vs {proto['baseline']}) [95% CI] | IQM steps / horizon [95% CI] |",
             "|---|---|---|"]
    for _, r in agg.iterrows():
        lines.append(f"| {md_cell(r['method'])} | {num(r['p_improvement'])} [{num(r['p_lo'])}, {num(r['p_hi'])}] | "
                     f"{num(r['iqm'])} [{num(r['iqm_lo'])}, {num(r['iqm_hi'])}] |")
    lines += ["", "IQM: undefined (–) where more than a quarter of a method's runs never grokked."
              + (f" Left out of both aggregates: {', '.join(unsolved)} (no run of any method grokked: every pair "
                 "is open and every run censored, so the task cannot rank methods)." if unsolved else ""), ""]
    for task, g in lead.groupby("task", sort=False):
        lines += [f"## {md_cell(task)}", "", f"| method | grokked | median steps [95% CI] | steps to {also:g} | "
                  "median wall s | P(improvement) | p | chosen |", "|---|---|---|---|---|---|---|---|"]
        for _, r in g.sort_values("median_steps", na_position="last", kind="stable").iterrows():
            lines.append(f"| {md_cell(r['method'])} | {r['grokked']}/{r['eval_seeds']} | {num(r['median_steps'], 4)} "
                         f"[{num(r['ci_low'], 4)}, {num(r['ci_high'], 4)}] | {num(r['median_steps_at_also'], 4)} | "
                         f"{num(r['median_wall_s'])} | {num(r['p_improvement_vs_adamw'])} | {num(r['p_value'], 2)} |"
                         f" {md_cell(r['best_config'])} |")
        lines.append("")
    return "\n".join(lines)


def html_page(out: Path, doc: dict, summary: str, lead, agg, figs: list) -> None:
    """report.html: one self-contained page (figures inlined), tables escaped by pandas, text by Jinja2."""
    import yaml
    from jinja2 import Environment, PackageLoader, select_autoescape

    from groklab.report_sweep import data_uri

    env = Environment(loader=PackageLoader("groklab", "templates"), autoescape=select_autoescape(["j2", "html"]))
    page = env.get_template("grokbench.html.j2").render(
        profile=doc["profile"], summary=summary, aggregate=agg.to_html(index=False, na_rep="–", float_format=_cell),
        leaderboard=lead.to_html(index=False, na_rep="–", float_format=_cell),
        figures=[{"name": f.stem, "uri": data_uri(f)} for f in figs if f.suffix == ".png"],
        protocol=yaml.safe_dump({k: doc[k] for k in ("protocol", "methods", "tasks")}, sort_keys=False))
    atomic_write(out / "report.html", page)


__all__ = ["LEADER", "html_page", "judge", "markdown", "num", "values_text"]
