"""`groklab report DIR`: one self-contained HTML page (figures inlined) for an experiment tree."""
from __future__ import annotations

import base64
import html
import time
from collections import Counter
from pathlib import Path

import yaml

from groklab.errors import ConfigError
from groklab.store import (
    RunStore,
    archive,
    atomic_write,
    experiment_dirs,
    find_runs,
    read_claims,
    read_error,
    read_manifest,
    read_partial,
    read_summary,
)
from groklab.store.files import begins_with
from groklab.store.tree import inside

HEAD = "<!doctype html><html><head><meta charset='utf-8'><title>groklab report: "
CSS = """body{font:14px/1.45 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.6em 0;font-size:13px}td,th{border:1px solid #ccc;padding:3px 7px;
text-align:left;vertical-align:top}th{background:#f3f3f3}.holds{color:#176b2c;font-weight:600}
.fails{color:#b3261e;font-weight:600}img{max-width:100%;border:1px solid #eee;margin:.4em 0}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:12px}code{font-size:12px}
.paper{background:#f4f7fb;border-left:3px solid #7a9cc6;padding:.4em .8em}"""


def runs_of(fig_dir: Path) -> dict[str, dict]:
    """Run name -> {"status", "error", "config"} from disk (a run tree) or from an archived study: a run
    with an error note is 'failed'; without a summary, 'missing'."""
    names = read_manifest(fig_dir)["runs"]
    if (fig_dir / archive.RUNS).is_file():
        docs = {d["run"]: d for d in archive.archived_runs(fig_dir)}
        found = {n: docs.get(n, {"missing": True}) for n in names}
        return {n: {"status": "failed" if d.get("error") else (d.get("summary") or {}).get("status", "missing"),
                    "error": d.get("error"), "config": d.get("config")} for n, d in found.items()}
    out = {}
    for name in names:
        path, err = fig_dir / name, read_error(fig_dir / name)
        out[name] = {"status": "failed" if err is not None else read_summary(path).get("status", "missing"),
                     "error": err, "config": None}
    return out


def health(fig_dir: Path) -> dict[str, str]:
    """Run name -> status (see runs_of)."""
    return {name: r["status"] for name, r in runs_of(fig_dir).items()}


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    if isinstance(v, dict):
        return "; ".join(f"{k}: {_fmt(x)}" for k, x in v.items())
    return "–" if v is None else str(v)


def verdict(c: dict) -> str:
    """A claim's verdict: 'holds', 'does not hold' or 'inconclusive (reason)' (a `--only` subset: partial), with
    the unstated settings it depends on or was judged with (a sensitivity arm's, experiments/assumptions.py)."""
    v = {True: "holds", False: "does not hold"}.get(c["holds"], f"inconclusive ({c.get('reason') or 'partial'})")
    judged = [f"{k}={s['judged_with']}" for k, s in c.get("sensitivity", {}).items() if "judged_with" in s]
    v += f" (judged with {', '.join(judged)})" if judged else ""
    return v + (f"; depends on {', '.join(c['depends_on'])}" if c.get("depends_on") else "")


def counts(claims: list[dict]) -> dict:
    """Paper claims that hold / do not / were not judged, and measurements apart: the numbers of a headline."""
    paper = [c for c in claims if c.get("kind", "paper") == "paper"]
    return {"paper": len(paper), "holds": sum(c["holds"] is True for c in paper),
            "fails": sum(c["holds"] is False for c in paper), "unjudged": sum(c["holds"] is None for c in paper),
            "measurements": len(claims) - len(paper)}


def headline(claims: list[dict]) -> str:
    """'N of M paper claims hold, K do not, J inconclusive (L measurements beside)': measurements are never
    counted as claims."""
    n = counts(claims)
    text = f"{n['holds']} of {n['paper']} paper claims hold, {n['fails']} do not"
    text += f", {n['unjudged']} inconclusive" if n["unjudged"] else ""
    return text + (f" ({n['measurements']} measurements beside)" if n["measurements"] else "")


def _verdict_html(c: dict) -> str:
    css = {True: "holds", False: "fails"}.get(c["holds"], "partial")  # inconclusive: neither green nor red
    return f"<span class='{css}'>{verdict(c)}</span>"


def _analysed(fig_dir: Path) -> dict | None:
    """claims.json, else the partial.json of a `reproduce --only` call, else None."""
    return read_claims(fig_dir) or read_partial(fig_dir)


def _img(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<img alt="{html.escape(path.name)}" src="data:image/png;base64,{data}">'


def _claims_table(claims: list[dict]) -> str:
    e = html.escape
    rows = ["<table class='claims'><tr><th>claim</th><th>statistic</th><th>aggregate</th>"
            "<th>per seed</th><th>verdict</th></tr>"]
    before = None
    for c in claims:
        per = "<br>".join(f"{e(k)}: {e(_fmt(v))}" for k, v in c.get("per_seed", {}).items())
        statistic = "<i>as above</i>" if c["statistic"] == before else e(c["statistic"])
        before = c["statistic"]
        note = f"<br><i>{e(c['note'])}</i>" if c.get("note") else ""
        kind = " <i>(measurement: our own check, not counted among the paper's claims)</i>" \
            if c.get("kind") == "measurement" else ""
        quote = (f"<blockquote>“{e(c['quote'])}” ({e(c.get('where') or '')})</blockquote>"
                 if c.get("quote") else "")
        rows.append(f"<tr><td><b>{e(c['id'])}</b>{kind}<br>{e(c['text'])}{quote}</td><td>{statistic}</td>"
                    f"<td>{e(_fmt(c.get('aggregate', {})))}</td><td>{per}</td>"
                    f"<td>{_verdict_html(c)}{note}</td></tr>")
    return "\n".join(rows) + "</table>"


def arm_value(a: dict) -> str:
    """An assumption's other value as its arm sets it, with the overrides it needs beside it ("a+b
    split.skew=6", as a claim's sensitivity names it; an archive judged before `extra` was stored: the value)."""
    return " ".join((str(a["other"]), *(a.get("extra") or ())))


def _assumptions(rows: list[dict]) -> str:
    e = html.escape
    items = "".join(f"<tr><td><code>{e(a['field'])}</code></td><td>{e(str(a['ours']))}</td><td>{e(a['why'])}</td>"
                    f"<td>{e(arm_value(a)) if a.get('arm') else '–'}</td></tr>" for a in rows)
    return ("<h3>Settings the paper does not state</h3><table><tr><th>field</th><th>ours</th><th>why</th>"
            f"<th>also run with (sensitivity arm)</th></tr>{items}</table>")


def _provenance(sessions: list[dict]) -> str:
    """Who trained these runs: per call of reproduce, its command, groklab version and commit, torch, cores,
    date (a tree made before sessions were recorded has none)."""
    e = html.escape
    lines = []
    for x in sessions:
        m = x.get("machine") or {}
        verb = "re-judged" if "from" in x else "trained"
        lines.append(f"{verb} by <code>{e(str(x.get('command', '?')))}</code>: groklab {e(str(m.get('groklab', '?')))} "
                     f"(commit {e(str(m.get('commit') or '?'))}), torch {e(str(m.get('torch', '?')))}, "
                     f"{e(str(m.get('cores', '?')))} cores, {e(str(m.get('date', '?')))}")
    return "<p class='provenance'>" + ("<br>".join(lines) or "no record of the calls that made these runs") + "</p>"


def _controls(rows: list[dict]) -> str:
    e = html.escape
    items = "".join(f"<tr><td>{e(c['what'])} (<code>{e(c['runs'])}</code>)</td><td>{c['reach']:g}</td>"
                    f"<td>{e(', '.join(f'{r}: {v:.3f}' for r, v in c['best'].items()) or 'no run')}</td>"
                    f"<td class='{'holds' if c['ok'] else 'fails'}'>{'shown' if c['ok'] else 'not shown'}</td></tr>"
                    for c in rows)
    return ("<h3>Controls (the claims resting on one that is not shown are inconclusive)</h3><table><tr>"
            f"<th>control</th><th>test acc to reach</th><th>highest per run</th><th></th></tr>{items}</table>")


def _section(fig_dir: Path) -> tuple[str, list[dict], dict]:
    e = html.escape
    man = read_manifest(fig_dir)
    doc = _analysed(fig_dir)
    runs = runs_of(fig_dir)
    status = {name: r["status"] for name, r in runs.items()}
    counts = Counter(status.values())
    parts = [f"<h2 id='{e(man['figure'])}'>{e(man['figure'])}: {e(man['title'])}</h2>",
             f"<p class='paper'><b>Paper:</b> {e(man['paper'])}</p>",
             f"<p>profile <code>{e(man['profile'])}</code>, {man['seeds']} seeds, {len(status)} runs"
             + (f", analysed in {doc['wall_s']} s" if doc else "") + "</p>"]
    parts += [_provenance(man.get("sessions", []))]
    claims = doc["claims"] if doc else []
    if doc:
        for f in doc["figures"]:
            img = inside(fig_dir, f)
            if img is not None and img.suffix == ".png":
                parts.append(_img(img))
        parts.append(_claims_table(claims))
        parts += [_controls(doc["controls"])] if doc.get("controls") else []
        parts += [_assumptions(doc["assumptions"])] if doc.get("assumptions") else []
    else:
        parts.append("<p class='fails'>not analysed yet: no claims.json (re-run groklab reproduce)</p>")
    bad = {n: s for n, s in status.items() if s in ("diverged", "failed", "missing", "running", "interrupted")}
    parts.append("<h3>Run health</h3><p>" + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) + "</p>")
    if bad:
        items = []
        for n, s in bad.items():
            why = (runs[n]["error"] or "").splitlines()[-1:] or [""]
            why = why[0]
            items.append(f"<tr><td>{e(n)}</td><td class='fails'>{e(s)}</td><td>{e(why)}</td></tr>")
        parts.append("<table><tr><th>run</th><th>status</th><th>error</th></tr>" + "".join(items) + "</table>")
    parts.append(_configs(fig_dir, man, runs))
    return "\n".join(parts), claims, counts


def _configs(fig_dir: Path, man: dict, runs: dict) -> str:
    """The runs' overrides, and one resolved config in full (the rest differ only by the overrides)."""
    e = html.escape
    rows = "".join(f"<tr><td>{e(n)}</td><td><code>{e(' '.join(o))}</code></td></tr>" for n, o in man["runs"].items())
    first = next(((n, r["config"]) for n, r in runs.items() if r["config"]), None)
    if first is None:
        run = next(iter(find_runs(fig_dir)), None)
        first = (run.relative_to(fig_dir).as_posix(), RunStore(run).config()) if run else None
    full = yaml.safe_dump(first[1], sort_keys=False) if first else ""
    return (f"<details><summary>Configs ({len(man['runs'])} runs)</summary><table><tr><th>run</th>"
            f"<th>overrides</th></tr>{rows}</table><p>Resolved config of {e(first[0] if first else '-')}:</p>"
            f"<pre>{e(full)}</pre></details>")


def write_report(root: str | Path, out: str | Path | None = None) -> Path:
    """Write `root`/report.html (or `out`) for every figure directory below `root`."""
    root = Path(root)
    if not root.is_dir():
        raise ConfigError("report", str(root), "is not a directory")
    figs = experiment_dirs(root)
    if not figs and next(iter(find_runs(root)), None) is not None:  # a sweep: statistics and curves, no claims
        from groklab.report_sweep import sweep_page

        return _write_page(sweep_page(root, HEAD, CSS, _img), Path(out) if out else root / "report.html")
    if not figs:
        raise ConfigError("report", str(root), "holds no experiment or run; run groklab reproduce or sweep first")
    sections, summary = [], []
    for d in figs:
        text, claims, counts = _section(d)
        sections.append(text)
        name = read_manifest(d)["figure"]
        summary += [(name, c) for c in claims]
    e = html.escape
    rows = "".join(f"<tr><td><a href='#{e(f)}'>{e(f)}</a></td><td>{e(c['text'])}</td><td>"
                   f"{_verdict_html(c)}</td></tr>" for f, c in summary)
    page = (f"{HEAD}{e(root.name)}</title>"
            f"<style>{CSS}</style></head><body><h1>groklab report: {e(str(root))}</h1>"
            f"<p>{time.strftime('%Y-%m-%d %H:%M')}; {len(figs)} figure(s); {e(headline([c for _, c in summary]))}.</p>"
            f"<table id='verdicts'><tr><th>figure</th><th>claim</th><th>verdict</th></tr>{rows}</table>"
            + "\n".join(sections) + "</body></html>")
    return _write_page(page, Path(out) if out else root / "report.html")


def _write_page(page: str, path: Path) -> Path:
    """Write the report page to `path`, replacing only a report groklab wrote."""
    if path.is_dir():
        raise ConfigError("out", str(path), "is a directory; give a file name such as report.html")
    if path.exists() and not _is_report(path):
        raise ConfigError("out", str(path), "exists and is not a groklab report; pick a new file name")
    atomic_write(path, page)  # the old report stays whole if this fails (e.g. a full disk)
    return path


def _is_report(path: Path) -> bool:
    """A page groklab wrote (it may replace it), recognised by how every report begins."""
    return begins_with(path, HEAD.encode())


def markdown(root: str | Path) -> str:
    """Claim verdicts of every figure below `root` as a Markdown table (for docs/results.md)."""
    root = Path(root)
    if not root.is_dir():
        raise ConfigError("report", str(root), "is not a directory")
    lines = ["| figure | claim | aggregate | verdict |", "| --- | --- | --- | --- |"]
    for d in experiment_dirs(root):
        doc = _analysed(d)
        if doc is None:
            continue
        lines += [f"| {doc['figure']} | {row}" for row in claim_rows(doc)]
    if len(lines) == 2:
        raise ConfigError("report", str(root), "holds no analysed experiment (no claims); run groklab reproduce first")
    return "\n".join(lines)


def claim_rows(doc: dict) -> list[str]:
    """One Markdown row per claim of a claims.json document: `claim | aggregate | verdict |` (a measurement
    of our own is marked as such)."""
    mark = lambda c: " *(measurement)*" if c.get("kind") == "measurement" else ""  # noqa: E731
    return [f"{c['text']}{mark(c)} | {_fmt(c.get('aggregate', {})).replace('|', '/')} | {verdict(c)} |"
            for c in doc["claims"]]


def claims_markdown(doc: dict) -> str:
    """A figure's verdict table (claim, aggregate, verdict), as docs/results.md shows it."""
    return "\n".join(["| claim | aggregate | verdict |", "| --- | --- | --- |"] + [f"| {r}" for r in claim_rows(doc)])
