"""Where GrokBench II's tuning choices sit in their ranges, while the benchmark is still running (issue: no chosen
point at a range's edge, checked and reported). Every study whose ledger is complete in the given folders is
replayed with training refused (its trials.csv alone decides, as `groklab grokbench` would), and each chosen value
placed on its range's own scale (0 = low end, 1 = high end; a log range on the log scale). A study not yet finished
is skipped and counted.

    python benchmarks/grokbench_ranges.py runs/gb-a runs/gb-b runs/gb-c [--protocol P --methods M --profile quick]

Per method and key: studies, the choices in the outer 5% at each end (the board's `edges`), in the outer 20%, and
the median position. A choice among options is at an "edge" on its first or last option, which half of a 4-option
list is: read those counts against that, not against 5%.
"""
from __future__ import annotations

import argparse
import math
import statistics
from pathlib import Path

import groklab.engine
from groklab.experiments.grokbench.protocol import fixed_trials, load_methods, load_protocol, overrides
from groklab.experiments.grokbench.studies import EDGE, space, study_seed
from groklab.sweep.tune import tune

HERE = Path(__file__).resolve().parents[1] / "src/groklab/experiments/grokbench"


class Unfinished(Exception):
    """A replay that would have to train: the study has not ended."""


def position(r, v) -> float | None:
    """v on its range's own scale, None outside the range (a nested point) or for a choice."""
    if r.choice is not None or v is None:
        return None
    lo, hi = r.log if r.log is not None else r.uniform
    f = math.log if r.log is not None else (lambda x: x)
    return (f(v) - f(lo)) / (f(hi) - f(lo)) if lo <= v <= hi and hi > lo else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--protocol", type=Path, default=HERE / "protocol_v2.yaml")
    ap.add_argument("--methods", type=Path, default=HERE / "methods_v2.yaml")
    ap.add_argument("--profile", default="quick")
    a = ap.parse_args()
    proto = load_protocol(a.protocol)
    methods = {**load_methods(), **load_methods(a.methods)}
    prof = proto.profiles[a.profile]
    t = prof.tuner

    def refuse(*_, **__):
        raise Unfinished

    groklab.engine.train = refuse  # sweep.tune trains through the engine: a replay never does
    pos: dict = {}
    edge_list, unfinished = [], 0
    for folder in a.folders:
        for ledger in sorted(folder.glob("tune/*/*/k*/trials.csv")):
            task, name, k = ledger.parts[-4], ledger.parts[-3], int(ledger.parts[-2][1:])
            m = methods[name]
            try:
                got = tune(overrides(prof, m, task, {}, k), space(m), ledger.parent, budget=t.budget_steps,
                           min_steps=t.min_steps, eta=t.eta, seed=study_seed(proto.draw_seed, name, task, k),
                           sampler=t.sampler, level=proto.threshold, persistence=proto.persistence,
                           enqueue=fixed_trials(m))
            except Unfinished:
                unfinished += 1
                continue
            best = got.best.params if got.best else {}
            for key, r in m.tune.items():
                v = best.get(key)
                if r.choice is not None:
                    pos.setdefault((name, key), []).append(("choice", v in (r.choice[0], r.choice[-1])))
                    continue
                p = position(r, v)
                pos.setdefault((name, key), []).append(("range", p))
                if p is not None and (p < EDGE or p > 1 - EDGE):
                    edge_list.append(f"{task} {name} k{k}: {key} = {v:.4g} (position {p:.3f})")
    print(f"{sum(len(v) for (n, k), v in pos.items() if k == 'optim.lr')} studies replayed, {unfinished} unfinished")
    print("| method | key | studies | low 5% | high 5% | low 20% | high 20% | median position |")
    print("|---|---|---|---|---|---|---|---|")
    for (name, key), got in sorted(pos.items()):
        if got[0][0] == "choice":
            print(f"| {name} | {key} | {len(got)} | first or last option: {sum(e for _, e in got)} | | | | |")
            continue
        ps = [p for _, p in got if p is not None]
        outside = len(got) - len(ps)
        med = f"{statistics.median(ps):.2f}" if ps else "–"
        print(f"| {name} | {key} | {len(got)}" + (f" ({outside} at the nested point)" if outside else "")
              + f" | {sum(p < EDGE for p in ps)} | {sum(p > 1 - EDGE for p in ps)} | {sum(p < 0.2 for p in ps)} | "
              f"{sum(p > 0.8 for p in ps)} | {med} |")
    print("\nAt a range's outer 5%:\n" + "\n".join(f"- {e}" for e in edge_list))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
