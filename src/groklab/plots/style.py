"""The one figure style of groklab: Agg backend (files only), paper-sized fonts, PNG (+ PDF) output."""
from __future__ import annotations

import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; no display needed
import matplotlib.pyplot as plt  # noqa: E402

from groklab.store import atomic_write  # noqa: E402

STYLE = {"font.size": 9, "axes.titlesize": 9, "legend.fontsize": 7, "axes.grid": True, "grid.alpha": 0.3}


def save(fig, path: str | Path, pdf: bool = False, dpi: int = 130, tight: bool = True) -> list[Path]:
    """Write `path` as PNG (for the report), and as PDF (for papers) with `pdf`; close the figure. `tight`:
    lay the panels out first (False when the caller placed a figure legend in space it reserved)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if tight:
        fig.tight_layout()
    out = [path.with_suffix(".png")] + ([path.with_suffix(".pdf")] if pdf else [])
    try:
        for f in out:  # rendered in memory, then written whole: a failed save leaves the old figure intact
            buf = io.BytesIO()
            meta = {"CreationDate": None} if f.suffix == ".pdf" else None  # same figure, same bytes
            fig.savefig(buf, dpi=dpi, format=f.suffix[1:], metadata=meta)
            atomic_write(f, buf.getvalue())
    finally:
        plt.close(fig)
    return out


__all__ = ["STYLE", "plt", "save"]
