"""The pilot judged: grokking seeds per setting and fraction recounted from its runs, the fraction the pilot rule
picks, the settings it drops, and whether that is what the frozen protocol says (it must be: the protocol was
written from these counts). No paper claim rests on the pilot; its claims.json holds the counts and no verdict."""
from __future__ import annotations

import time
from pathlib import Path

from groklab.experiments.earlywarn.events import pilot_found
from groklab.experiments.earlywarn.protocol import Protocol, horizon, pilot_choice
from groklab.experiments.earlywarn.runs import PILOT, TITLES
from groklab.store import load_runs
from groklab.store.tree import write_claims


def judge_pilot(runs: Path, root: Path, proto: Protocol, echo=print) -> dict:
    """Recount the pilot's runs (`runs`: its study folder, or an archive's), draw the shares and write claims.json
    into `root`."""
    t0 = time.perf_counter()
    df = load_runs(runs, columns=["train/acc", "test/acc"], archived=True)
    found = pilot_found(df, proto.event, horizon(proto))
    n = len(proto.population.pilot.seeds)
    chosen, dropped = pilot_choice(found, n)
    agrees = found == proto.population.pilot.found
    figures = [_plot(found, n, chosen, root / "pilot")]
    wall = sum(float(s.get("wall_s") or 0) for s in _summaries(runs))
    doc = {"figure": PILOT, "title": TITLES[PILOT], "paper": "", "profile": "quick", "seeds": n,
           "wall_s": round(wall, 1), "figures": figures, "claims": [], "rule": proto.population.pilot.rule,
           "found": {k: {f"{f:g}": v for f, v in sorted(c.items())} for k, c in found.items()},
           "chosen": chosen, "dropped": dropped, "as_frozen": agrees,
           "judge_s": round(time.perf_counter() - t0, 2)}
    write_claims(root, doc)
    for name, cell in found.items():
        shares = ", ".join(f"{f:g}: {k}/{n}" for f, k in sorted(cell.items()))
        echo(f"  {name}: {shares} -> {chosen.get(name, 'dropped')}")
    echo(f"  the protocol's counts {'are' if agrees else 'are NOT'} these")
    return doc


def _summaries(root: Path):
    from groklab.store import load_summaries

    return load_summaries(root).to_dict("records")


def _plot(found: dict, n: int, chosen: dict, path: Path) -> str:
    from groklab.plots.style import plt, save

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for name, cell in sorted(found.items()):
        fr = sorted(cell)
        line, = ax.plot(fr, [cell[f] / n for f in fr], marker="o", label=name)
        if name in chosen:
            ax.plot([chosen[name]], [cell[chosen[name]] / n], marker="*", ms=14, color=line.get_color())
    ax.axhspan(0.25, 0.75, color="0.9", zorder=0)
    ax.set(xlabel="training fraction", ylabel=f"pilot seeds grokking (of {n})", ylim=(-0.03, 1.03),
           title="Pilot: the fraction closest to half grokking (star); grey: the rule's band")
    ax.legend(fontsize=7, ncol=2)
    save(fig, path)
    return path.with_suffix(".png").name
