"""`groklab report` of a sweep (the grid, the statistics per point and the curves, on one self-contained
page), and the inlined figures every report shows.

A sweep (groklab sweep) has no claims to judge; its page shows what `summarize` prints, per point and with n,
and every run's accuracy curves, one colour per point and one curve per seed.
"""
from __future__ import annotations

import base64
import tempfile
from pathlib import Path

from groklab.plots.curves import plot_curves
from groklab.store import load_runs
from groklab.store.files import read_text
from groklab.store.tree import SWEEP, inside
from groklab.sweep.summarize import format_table, summarize


def data_uri(path: Path) -> str:
    """A PNG inlined as a data URI (the one value a report page marks safe: made here, base64 only)."""
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


def sweep_page(root: Path) -> dict:
    """A sweep's part of the report page, as plain values (report.html.j2 escapes each)."""
    df = summarize(root)
    varying = [c for c in df.columns[1:list(df.columns).index("n")]]
    runs = load_runs(root)
    image = None
    if not runs.empty:
        runs = runs.assign(point=runs["run"].map(lambda r: str(Path(r).parent) if "/" in r else r))
        panel = varying[0] if len(varying) > 1 else None
        with tempfile.TemporaryDirectory() as tmp:
            png = plot_curves(runs, Path(tmp) / "curves.png", panel=panel or "_none", line="point",
                              title=f"{len(runs['run'].unique())} runs of {root.name}")
            image = data_uri(png)
    own = inside(root, SWEEP)
    return {"points": len(df), "runs": int(df["n"].sum()), "table": format_table(df),
            "failed": [f"{n} ({s})" for n, s in df.attrs.get("failed", [])],
            "file": read_text(own) if own else None, "image": image}
