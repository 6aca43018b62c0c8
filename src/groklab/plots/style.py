"""The one figure style of groklab: Agg backend (files only), paper-sized fonts, PNG (+ PDF, SVG) output."""
from __future__ import annotations

import io
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; no display needed
import matplotlib.pyplot as plt  # noqa: E402

from groklab.errors import ConfigError  # noqa: E402
from groklab.store import atomic_write  # noqa: E402

STYLE = {"font.size": 9, "axes.titlesize": 9, "legend.fontsize": 7, "axes.grid": True, "grid.alpha": 0.3}
FORMATS = ("png", "pdf", "svg")
_formats: ContextVar = ContextVar("groklab_figure_formats", default=None)  # None: each caller's own choice
# bytes that do not change with the clock: the same figure gives the same file
_META = {"pdf": {"CreationDate": None}, "svg": {"Date": None}}


def parse_formats(text: str) -> tuple[str, ...]:
    """'png,pdf,svg' -> ('png', 'pdf', 'svg'); a ConfigError naming `format` for anything else."""
    names = tuple(dict.fromkeys(x.strip().lower() for x in str(text).split(",") if x.strip()))
    bad = [x for x in names if x not in FORMATS]
    if not names or bad:
        raise ConfigError("format", text, f"a comma list of {', '.join(FORMATS)}")
    return names


@contextmanager
def figure_formats(formats):
    """Within the block every figure is written in `formats` (a tuple or 'png,svg'), and always as PNG too: the
    HTML report and the README embed the PNG. None keeps each figure's default (PNG, and PDF for paper figures)."""
    token = _formats.set(None if formats is None else
                         parse_formats(formats if isinstance(formats, str) else ",".join(formats)))
    try:
        yield
    finally:
        _formats.reset(token)


def save(fig, path: str | Path, pdf: bool = False, dpi: int = 130, tight: bool = True,
         fit: bool = False) -> list[Path]:
    """Write `path` as PNG (for the report), and as PDF (for papers) with `pdf` -- or in the formats of an
    enclosing `figure_formats` block; close the figure. `tight`: lay the panels out first (False when the
    caller placed a figure legend in space it reserved). `fit`: the saved box grows to hold artists outside the
    panels (legends under them)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if tight:
        fig.tight_layout()
    chosen = _formats.get()
    kinds = ["png"] + (["pdf"] if pdf else []) if chosen is None else ["png"] + [k for k in chosen if k != "png"]
    out = [path.with_suffix(f".{k}") for k in kinds]
    try:
        for f in out:  # rendered in memory, then written whole: a failed save leaves the old figure intact
            buf = io.BytesIO()
            meta = _META.get(f.suffix[1:])
            fig.savefig(buf, dpi=dpi, format=f.suffix[1:], metadata=meta, bbox_inches="tight" if fit else None)
            atomic_write(f, _palette(buf.getvalue()) if f.suffix == ".png" else buf.getvalue())
    finally:
        plt.close(fig)
    return out


def _palette(png: bytes) -> bytes:
    """A PNG in 256 colours (Pillow's octree, deterministic): a plot has few colours and a colormap 256, so it looks
    the same at ~30% of the bytes (archived figures 8.2 -> 2.4 MB). What travels to a lent GPU is capped at
    64 MiB, archives included; the text metadata (software, source) is kept."""
    from PIL import Image, PngImagePlugin

    im = Image.open(io.BytesIO(png))
    info = PngImagePlugin.PngInfo()
    for k, v in im.text.items():
        info.add_text(k, v)
    out = io.BytesIO()
    im.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(out, "PNG", pnginfo=info)
    return out.getvalue()


__all__ = ["FORMATS", "STYLE", "figure_formats", "parse_formats", "plt", "save"]
