"""The same runs trained twice (another torch build, another machine, another commit), compared run by run.

    python benchmarks/same_runs.py results/embedding-paper/fig5 runs/f5-213/fig5          # table on stdout
    python benchmarks/same_runs.py A B --json benchmarks/results/fig5_builds.json

A and B are study folders: an archived study (`runs.jsonl.gz`) or a run tree (`<run>/metrics.jsonl`). For every
run finished in both: the evaluation rows compared, the largest absolute difference of train/test accuracy and
loss over them, the first step where they differ, and each side's t_train / t_test. A run whose outcome
differs (t_test reached on one side only, or at another step) is listed by name, and where both folders hold a
claims.json every claim's verdict is set side by side. Used for issue 29's build
check (2026-11-26: fig5 and fig6 at the paper profile, torch 2.14.1+cu130 against 2.13.0+cpu).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

KEYS = ("train/acc", "test/acc", "train/loss", "test/loss")


def runs(study: Path) -> dict[str, dict]:
    """{run name: {"rows": eval rows, "summary": summary}} of the finished runs of one study folder."""
    from groklab.store import read_metrics, read_summary
    from groklab.store.archive import held, holds_runs, runs_at
    from groklab.store.run import METRICS

    if holds_runs(study):
        return {name: {"rows": [r for r in d.get("metrics") or [] if "test/acc" in r], "summary": d["summary"]}
                for name, d in runs_at(study) if held(d)}
    out = {}
    for m in sorted(study.rglob(METRICS)):
        s = read_summary(m.parent)
        if s and s.get("status") in ("completed", "early_stop"):
            out[m.parent.relative_to(study).as_posix()] = {"rows": [r for r in read_metrics(m.parent)
                                                                    if "test/acc" in r], "summary": s}
    return out


def compare(a: dict, b: dict) -> list[dict]:
    out = []
    for name in sorted(a.keys() & b.keys()):
        ra, rb = a[name]["rows"], b[name]["rows"]
        diff = [max(abs((x.get(k) or 0.0) - (y.get(k) or 0.0)) for k in KEYS) for x, y in zip(ra, rb)]
        sa, sb = a[name]["summary"], b[name]["summary"]
        out.append({"run": name, "rows": [len(ra), len(rb)], "max_abs_diff": max(diff, default=0.0),
                    "first_difference": next((x["step"] for x, d in zip(ra, diff) if d > 0), None),
                    "t_train": [sa.get("t_train"), sb.get("t_train")], "t_test": [sa.get("t_test"), sb.get("t_test")]})
    return out


def verdicts(a: Path, b: Path) -> list[dict]:
    """Each claim of the two studies' claims.json side by side ({"id", "a", "b"}; None where a side lacks it)."""
    def read(study: Path) -> dict:
        from groklab.store.files import read_json

        f = study / "claims.json"
        return {c["id"]: c["verdict"] for c in read_json(f)["claims"]} if f.is_file() else {}
    va, vb = read(a), read(b)
    if not (va and vb):  # a side not judged yet (a partial tree): nothing to set side by side
        return []
    return [{"id": k, "a": va.get(k), "b": vb.get(k)} for k in sorted(va.keys() | vb.keys())]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", type=Path, help="study folder (archived or a run tree)")
    ap.add_argument("b", type=Path, help="the same study trained again")
    ap.add_argument("--json", help="also write the rows and a summary here")
    args = ap.parse_args()
    rows = compare(runs(args.a), runs(args.b))
    if not rows:
        print("no finished run is in both folders")
        return 1
    same = [r for r in rows if r["max_abs_diff"] == 0.0 and r["rows"][0] == r["rows"][1]]
    moved = [r for r in rows if r["t_test"][0] != r["t_test"][1]]
    for r in rows:
        if r not in same:
            print(f"{r['run']}: max |diff| {r['max_abs_diff']:.3g} from step {r['first_difference']}, "
                  f"rows {r['rows']}, t_test {r['t_test'][0]} vs {r['t_test'][1]}")
    summary = {"runs": len(rows), "identical": len(same), "eval_rows": sum(r["rows"][0] for r in rows),
               "outcome_differs": [r["run"] for r in moved]}
    moved_names = summary["outcome_differs"]
    print(f"{summary['runs']} runs in both: {summary['identical']} bit-identical over {summary['eval_rows']} "
          f"evaluation rows; t_test differs in {len(moved)}" + (f": {', '.join(moved_names)}" if moved else ""))
    claims = verdicts(args.a, args.b)
    differ = [c for c in claims if c["a"] != c["b"]]
    if claims:
        print(f"{len(claims)} claims judged: {len(claims) - len(differ)} with the same verdict"
              + "".join(f"; {c['id']}: {c['a']} vs {c['b']}" for c in differ))
    summary["verdicts_differ"] = [c["id"] for c in differ]
    if args.json:
        Path(args.json).write_text(json.dumps({"a": str(args.a), "b": str(args.b), "summary": summary, "rows": rows,
                                               "verdicts": claims}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
