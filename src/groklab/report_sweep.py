"""`groklab report` of a sweep: the grid, the statistics per point and the curves, on one self-contained page.

A sweep (groklab sweep) has no claims to judge; its page shows what `summarize` prints, per point and with n,
and every run's accuracy curves, one colour per point and one curve per seed.
"""
from __future__ import annotations

import html
import tempfile
import time
from pathlib import Path

from groklab.plots.curves import plot_curves
from groklab.store import load_runs
from groklab.store.files import read_text
from groklab.store.tree import SWEEP, inside
from groklab.sweep.summarize import format_table, summarize


def sweep_page(root: Path, head: str, css: str, img) -> str:
    """The HTML of a sweep's report (`head`, `css` and `img` are the report's own)."""
    e = html.escape
    df = summarize(root)
    varying = [c for c in df.columns[1:list(df.columns).index("n")]]
    runs = load_runs(root)
    figure = ""
    if not runs.empty:
        runs = runs.assign(point=runs["run"].map(lambda r: str(Path(r).parent) if "/" in r else r))
        panel = varying[0] if len(varying) > 1 else None
        with tempfile.TemporaryDirectory() as tmp:
            png = plot_curves(runs, Path(tmp) / "curves.png", panel=panel or "_none", line="point",
                              title=f"{len(runs['run'].unique())} runs of {root.name}")
            figure = img(png)
    failed = df.attrs.get("failed", [])
    return (f"{head}{e(root.name)}</title><style>{css}</style></head><body>"
            f"<h1>groklab sweep: {e(str(root))}</h1><p>{time.strftime('%Y-%m-%d %H:%M')}; {len(df)} grid point(s), "
            f"{int(df['n'].sum())} runs" + (f", {len(failed)} failed or diverged: " + e(", ".join(
                f"{n} ({s})" for n, s in failed)) if failed else "") + "</p>"
            + (f"<h2>The sweep file</h2><pre>{e(read_text(own))}</pre>" if (own := inside(root, SWEEP)) else "")
            + f"<h2>Per point (over seeds)</h2><pre>{e(format_table(df))}</pre>"
            + f"<h2>Accuracy curves</h2>{figure}</body></html>")
