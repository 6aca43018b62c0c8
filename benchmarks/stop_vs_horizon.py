"""What an early-stop rule changes: the same runs stopped (tree A) and trained on (tree B), compared per run.

    python benchmarks/stop_vs_horizon.py runs/t1p/table1 runs/t1f/table1                 # table on stdout
    python benchmarks/stop_vs_horizon.py A B --json benchmarks/results/table1_stop_h100.json

A and B hold runs of the same names (`<row>/k<k>/s<seed>`), B's without the stop (or cut later). For each run
both present: the step A stopped at, the step B reached, the first eval where the two curves differ (stacked
GPU members drift apart once the stack changes shape), and the events of each curve (groklab.measures.curves:
GO step, U-Acc = highest test accuracy from GO on, else the highest after the fit). A stop rule is safe when
U-Acc and GO do not move. Used for Table 1 at p = 97 (2026-11-26, one H100): `stop.plateau=4000` against the
paper's 30,000 epochs.
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path


def curve(run: Path) -> list[dict]:
    from groklab.store import read_metrics  # the store reads run files (validated, a torn last line dropped)

    return [r for r in read_metrics(run) if "test/acc" in r]


def events(ev: list[dict]) -> dict:
    from groklab.measures.curves import grok_events

    e = grok_events([r["step"] for r in ev], [r["train/acc"] for r in ev], [r["test/acc"] for r in ev])
    fit = [r["test/acc"] for r in ev if r["train/acc"] >= 0.99]
    u = e["u_acc"] if e["u_acc"] is not None else (max(fit) if fit else None)
    return {"go": e["go_step"], "u": u}


def compare(a_root: Path, b_root: Path) -> list[dict]:
    out = []
    from groklab.store.run import METRICS  # a run with rows, config.yaml or not (a tree copied without it)

    for m in sorted(a_root.rglob(METRICS)):
        name = m.parent.relative_to(a_root).as_posix()
        if not (b_root / name / METRICS).is_file():
            continue
        a, b = curve(m.parent), curve(b_root / name)
        diff = next((x["step"] for x, y in zip(a, b) if x["train/loss"] != y["train/loss"]), None)
        ea, eb = events(a), events(b)
        out.append({"run": name, "stop": a[-1]["step"], "on_to": b[-1]["step"], "first_difference": diff,
                    "u_stop": ea["u"], "u_on": eb["u"], "go_stop": ea["go"], "go_on": eb["go"]})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="study folder of the stopped runs")
    ap.add_argument("b", help="study folder of the same runs trained on")
    ap.add_argument("--json", help="also write the rows and a summary here")
    args = ap.parse_args()
    rows = compare(Path(args.a), Path(args.b))
    if not rows:
        print("no run is in both trees")
        return 1
    u = lambda v: "–" if v is None else f"{v:.4f}"  # noqa: E731  (no U-Acc: the run never fit)
    for r in rows:
        du = None if None in (r["u_stop"], r["u_on"]) else 100 * (r["u_on"] - r["u_stop"])
        print(f"{r['run']:22s} stop {r['stop']:6d} on to {r['on_to']:6d} (differ from {r['first_difference']})  "
              f"U-Acc {u(r['u_stop'])} -> {u(r['u_on'])} ({'–' if du is None else f'{du:+.1f}'} pt)  "
              f"GO {r['go_stop']} -> {r['go_on']}")
    d = [100 * (r["u_on"] - r["u_stop"]) for r in rows if None not in (r["u_stop"], r["u_on"])]
    summary = {"runs": len(rows), "median_change_pt": statistics.median(d), "max_change_pt": max(d),
               "rose_over_1pt": sum(x > 1 for x in d), "fell_over_1pt": sum(x < -1 for x in d),
               "go_found_only_later": sum(r["go_stop"] is None and r["go_on"] is not None for r in rows)}
    print(json.dumps(summary))
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
