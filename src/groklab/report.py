"""`groklab report DIR`: one self-contained HTML page (figures inlined) for an experiment tree."""
from __future__ import annotations

import base64
import html
import json
import re
import time
from collections import Counter
from pathlib import Path

import yaml

from groklab.errors import ConfigError
from groklab.experiments.runner import CLAIMS, ERROR, MANIFEST
from groklab.store import find_runs, read_summary

CSS = """body{font:14px/1.45 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.6em 0;font-size:13px}td,th{border:1px solid #ccc;padding:3px 7px;
text-align:left;vertical-align:top}th{background:#f3f3f3}.holds{color:#176b2c;font-weight:600}
.fails{color:#b3261e;font-weight:600}img{max-width:100%;border:1px solid #eee;margin:.4em 0}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:12px}code{font-size:12px}
.paper{background:#f4f7fb;border-left:3px solid #7a9cc6;padding:.4em .8em}"""


def figure_dirs(root: Path) -> list[Path]:
    """The figure directories (with a manifest) at or below `root`, in sorted order."""
    if (root / MANIFEST).is_file():
        return [root]
    natural = lambda p: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.as_posix())]  # noqa: E731
    return sorted((p.parent for p in root.rglob(MANIFEST)), key=natural)


def health(fig_dir: Path) -> dict[str, str]:
    """Run name -> status from disk: a run with error.txt is 'failed'; without a summary, 'missing'."""
    runs = json.loads((fig_dir / MANIFEST).read_text()).get("runs", {})
    out = {}
    for name in runs:
        path = fig_dir / name
        out[name] = "failed" if (path / ERROR).is_file() else read_summary(path).get("status", "missing")
    return out


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    if isinstance(v, dict):
        return "; ".join(f"{k}: {_fmt(x)}" for k, x in v.items())
    return "–" if v is None else str(v)


def _img(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<img alt="{html.escape(path.name)}" src="data:image/png;base64,{data}">'


def _claims_table(claims: list[dict]) -> str:
    e = html.escape
    rows = ["<table class='claims'><tr><th>claim</th><th>statistic</th><th>aggregate</th>"
            "<th>per seed</th><th>verdict</th></tr>"]
    for c in claims:
        verdict = "<span class='holds'>holds</span>" if c["holds"] else "<span class='fails'>does not hold</span>"
        per = "<br>".join(f"{e(k)}: {e(_fmt(v))}" for k, v in c.get("per_seed", {}).items())
        note = f"<br><i>{e(c['note'])}</i>" if c.get("note") else ""
        rows.append(f"<tr><td><b>{e(c['id'])}</b><br>{e(c['text'])}</td><td>{e(c['statistic'])}</td>"
                    f"<td>{e(_fmt(c.get('aggregate', {})))}</td><td>{per}</td><td>{verdict}{note}</td></tr>")
    return "\n".join(rows) + "</table>"


def _section(fig_dir: Path) -> tuple[str, list[dict], dict]:
    e = html.escape
    man = json.loads((fig_dir / MANIFEST).read_text())
    doc = json.loads((fig_dir / CLAIMS).read_text()) if (fig_dir / CLAIMS).is_file() else None
    status = health(fig_dir)
    counts = Counter(status.values())
    parts = [f"<h2 id='{e(man['figure'])}'>{e(man['figure'])}: {e(man['title'])}</h2>",
             f"<p class='paper'><b>Paper:</b> {e(man['paper'])}</p>",
             f"<p>profile <code>{e(man['profile'])}</code>, {man['seeds']} seeds, {len(status)} runs"
             + (f", analysed in {doc['wall_s']} s" if doc else "") + "</p>"]
    claims = doc["claims"] if doc else []
    if doc:
        for f in doc["figures"]:
            if f.endswith(".png") and (fig_dir / f).is_file():
                parts.append(_img(fig_dir / f))
        parts.append(_claims_table(claims))
    else:
        parts.append("<p class='fails'>not analysed yet: no claims.json (re-run groklab reproduce)</p>")
    bad = {n: s for n, s in status.items() if s in ("diverged", "failed", "missing", "running", "interrupted")}
    parts.append("<h3>Run health</h3><p>" + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) + "</p>")
    if bad:
        items = []
        for n, s in bad.items():
            err = fig_dir / n / ERROR
            why = err.read_text().strip().splitlines()[-1] if err.is_file() else ""
            items.append(f"<tr><td>{e(n)}</td><td class='fails'>{e(s)}</td><td>{e(why)}</td></tr>")
        parts.append("<table><tr><th>run</th><th>status</th><th>error</th></tr>" + "".join(items) + "</table>")
    parts.append(_configs(fig_dir, man))
    return "\n".join(parts), claims, counts


def _configs(fig_dir: Path, man: dict) -> str:
    """The runs' overrides, and one resolved config in full (the rest differ only by the overrides)."""
    e = html.escape
    rows = "".join(f"<tr><td>{e(n)}</td><td><code>{e(' '.join(o))}</code></td></tr>" for n, o in man["runs"].items())
    first = next(iter(find_runs(fig_dir)), None)
    full = yaml.safe_dump(yaml.safe_load((first / "config.yaml").read_text()), sort_keys=False) if first else ""
    return (f"<details><summary>Configs ({len(man['runs'])} runs)</summary><table><tr><th>run</th>"
            f"<th>overrides</th></tr>{rows}</table><p>Resolved config of {e(first.name if first else '-')}:</p>"
            f"<pre>{e(full)}</pre></details>")


def write_report(root: str | Path, out: str | Path | None = None) -> Path:
    """Write `root`/report.html (or `out`) for every figure directory below `root`."""
    root = Path(root)
    if not root.is_dir():
        raise ConfigError("report", str(root), "is not a directory")
    figs = figure_dirs(root)
    if not figs:
        raise ConfigError("report", str(root), f"holds no experiment ({MANIFEST}); run groklab reproduce first")
    sections, summary = [], []
    for d in figs:
        text, claims, counts = _section(d)
        sections.append(text)
        name = json.loads((d / MANIFEST).read_text())["figure"]
        summary += [(name, c) for c in claims]
    e = html.escape
    rows = "".join(f"<tr><td><a href='#{e(f)}'>{e(f)}</a></td><td>{e(c['text'])}</td><td>"
                   f"{'<span class=holds>holds</span>' if c['holds'] else '<span class=fails>does not hold</span>'}"
                   f"</td></tr>" for f, c in summary)
    n_hold = sum(c["holds"] for _, c in summary)
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>groklab report: {e(root.name)}</title>"
            f"<style>{CSS}</style></head><body><h1>groklab report: {e(str(root))}</h1>"
            f"<p>{time.strftime('%Y-%m-%d %H:%M')}; {len(figs)} figure(s); {n_hold} of {len(summary)} claims hold.</p>"
            f"<table id='verdicts'><tr><th>figure</th><th>claim</th><th>verdict</th></tr>{rows}</table>"
            + "\n".join(sections) + "</body></html>")
    path = Path(out) if out else root / "report.html"
    path.write_text(page, encoding="utf-8")
    return path


def markdown(root: str | Path) -> str:
    """Claim verdicts of every figure below `root` as a Markdown table (for docs/results.md)."""
    lines = ["| figure | claim | aggregate | verdict |", "| --- | --- | --- | --- |"]
    for d in figure_dirs(Path(root)):
        if not (d / CLAIMS).is_file():
            continue
        doc = json.loads((d / CLAIMS).read_text())
        for c in doc["claims"]:
            agg = _fmt(c.get("aggregate", {})).replace("|", "/")
            lines.append(f"| {doc['figure']} | {c['text']} | {agg} | {'holds' if c['holds'] else 'does not hold'} |")
    return "\n".join(lines)
