"""GrokBench II's budget check (issue item 1: doubling the tuning budget must not change the board's tiers).

    python benchmarks/grokbench_budget.py carry runs/gb runs/gb-x2      # the tuning ledgers, evals/ as reuse/
    groklab grokbench --protocol src/groklab/experiments/grokbench/protocol_v2_budget2.yaml \\
        --add-methods src/groklab/experiments/grokbench/methods_v2.yaml --out runs/gb-x2
    python benchmarks/grokbench_budget.py compare runs/gb runs/gb-x2    # tiers and scores side by side

`carry` copies each study's trials.csv (and groklab's folder marks) so every study replays its first budget from
its ledger and goes on from there (sweep.tune asks the same trials in the same order: the doubled study extends
the first one), and the evaluation files into reuse/, from which a run is adopted only where the doubled
protocol's choice draws the very same overrides (bench_v2.evaluate). `compare` prints each method's tier and score
in both boards and says whether any tier moved (exit 0 either way: a changed tier is a finding, not an error).
"""
from __future__ import annotations

import csv
import shutil
import sys
from pathlib import Path


def carry(src: Path, dst: Path) -> int:
    if dst.exists():
        sys.exit(f"grokbench_budget: {dst} exists; carry into a new folder")
    n = 0
    for f in sorted(src.rglob("*")):
        rel = f.relative_to(src)
        if f.is_symlink() or not f.is_file():
            continue
        if rel.parts[0] == "tune" and f.name in ("trials.csv", ".groklab"):
            to = dst / rel
        elif rel.parts[0] == "evals" and f.suffix == ".npz" and len(rel.parts) == 2:
            to = dst / "reuse" / f.name
        elif rel == Path(".groklab"):
            to = dst / rel
        else:
            continue
        to.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, to)
        n += 1
    print(f"grokbench_budget: carried {n} files {src} -> {dst}")
    return 0


def _board(folder: Path) -> dict[str, dict]:
    with open(folder / "aggregate.csv", newline="") as f:
        return {r["method"]: r for r in csv.DictReader(f)}


def compare(a: Path, b: Path) -> int:
    one, two = _board(a), _board(b)
    moved = []
    print(f"{'method':<18} {'tier':>4} {'score':>7} | {'tier':>4} {'score':>7}   ({a.name} | {b.name})")
    for m in one:
        r, s = one[m], two.get(m, {})
        print(f"{m:<18} {r['tier']:>4} {float(r['score']):>7.3f} | {s.get('tier', '-'):>4} "
              f"{float(s['score']) if s.get('score') else float('nan'):>7.3f}")
        if s.get("tier") != r["tier"]:
            moved.append(m)
    print("tiers unchanged" if not moved else f"tiers moved: {', '.join(moved)}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("carry", "compare"):
        sys.exit("usage: grokbench_budget.py carry SRC DST | compare BOARD_A BOARD_B")
    sys.exit((carry if sys.argv[1] == "carry" else compare)(Path(sys.argv[2]), Path(sys.argv[3])))
