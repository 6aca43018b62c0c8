"""`groklab report DIR`: one self-contained HTML page (figures inlined) for an experiment tree."""
from __future__ import annotations

import csv
import re
import time
from collections import Counter
from pathlib import Path

import yaml
from jinja2 import Environment, FileSystemLoader

from groklab.errors import ConfigError
from groklab.report_sweep import data_uri, sweep_page
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
from groklab.store.citation import POST_HOC, after_data, line, statistics
from groklab.store.escape import md_cell
from groklab.store.files import begins_with
from groklab.store.schema import verdict_words
from groklab.store.tree import inside

ARM = "arm-"  # a sensitivity arm's folder below its study (experiments/assumptions.py)
HEAD = "<!doctype html><html><head><meta charset='utf-8'><title>groklab report: "  # how every report begins
PAGE = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"), autoescape=True,
                   keep_trailing_newline=True).get_template("report.html.j2")
CSS = """body{font:14px/1.45 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.6em 0;font-size:13px}td,th{border:1px solid #ccc;padding:3px 7px;
text-align:left;vertical-align:top}th{background:#f3f3f3}.holds{color:#176b2c;font-weight:600}
.fails{color:#b3261e;font-weight:600}img{max-width:100%;border:1px solid #eee;margin:.4em 0}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:12px}code{font-size:12px}
.paper{background:#f4f7fb;border-left:3px solid #7a9cc6;padding:.4em .8em}
.cite{font:11px ui-monospace,monospace;color:#555;margin-top:.3em}figure{margin:.4em 0}figcaption{font-size:12px}
@media print{body{max-width:none;margin:0;font-size:11px}img{max-width:60%;page-break-inside:avoid}
tr{page-break-inside:avoid}details.configs{display:none}h2{page-break-before:always}}"""


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


def _fmt(v, depth: int = 0) -> str:
    """A statistic's value as text (nested values bounded: a forged claims.json cannot recurse without end)."""
    if depth > 8:
        return "…"
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x, depth + 1) for x in v[:1000]) + ("…" if len(v) > 1000 else "") + "]"
    if isinstance(v, dict):
        return "; ".join(f"{k}: {_fmt(x, depth + 1)}" for k, x in list(v.items())[:1000])
    return "–" if v is None else str(v)


def verdict(c: dict) -> str:
    """A claim's verdict: 'holds', 'does not hold' or 'inconclusive (reason)' (a `--only` subset: partial), with
    the unstated settings it depends on or was judged with (a sensitivity arm's, experiments/assumptions.py), and
    '(post hoc)' for a rule fixed after its data."""
    v = verdict_words(c["holds"], c.get("reason") or "", c.get("depends_on") or ())
    judged = [f"{k}={s['judged_with']}" for k, s in c.get("sensitivity", {}).items() if "judged_with" in s]
    return v + (f" (judged with {', '.join(judged)})" if judged else "") + (POST_HOC if after_data(c) else "")


def _depends(c: dict) -> bool:
    return bool(c.get("depends_on")) and c["holds"] is not None


def counts(claims: list[dict]) -> dict:
    """Paper claims that hold / do not / depend on a setting the paper leaves open / were not judged, and
    measurements apart: the numbers of a headline."""
    paper = [c for c in claims if c.get("kind", "paper") == "paper"]
    decided = [c for c in paper if not _depends(c)]
    return {"paper": len(paper), "holds": sum(c["holds"] is True for c in decided),
            "fails": sum(c["holds"] is False for c in decided), "depends": len(paper) - len(decided),
            "unjudged": sum(c["holds"] is None for c in paper), "measurements": len(claims) - len(paper),
            "post_hoc": sum(after_data(c) for c in paper)}


def headline(claims: list[dict]) -> str:
    """'N of M paper claims hold, K do not, D depend on an unstated setting, J inconclusive (P by a rule fixed or
    changed after its data; L measurements beside)': measurements are never counted as claims."""
    n = counts(claims)
    text = f"{n['holds']} of {n['paper']} paper claims hold, {n['fails']} do not"
    text += f", {n['depends']} depend on an unstated setting" if n["depends"] else ""
    text += f", {n['unjudged']} inconclusive" if n["unjudged"] else ""
    beside = [f"{n['post_hoc']} by a rule fixed or changed after its data"] if n["post_hoc"] else []
    beside += [f"{n['measurements']} measurements beside"] if n["measurements"] else []
    return text + (f" ({'; '.join(beside)})" if beside else "")


def _css_of(c: dict) -> str:
    # inconclusive, or depending on an unstated setting: neither green nor red
    return "partial" if _depends(c) else {True: "holds", False: "fails"}.get(c["holds"], "partial")


def _analysed(fig_dir: Path) -> dict | None:
    """claims.json, else the partial.json of a `reproduce --only` call, else None."""
    return read_claims(fig_dir) or read_partial(fig_dir)


GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "eta": "η", "sigma": "σ", "lambda": "λ", "mu": "μ", "theta": "θ",
         "propto": "∝", "cdot": "·", "times": "×", "approx": "≈", "sum": "Σ", "leq": "≤", "geq": "≥", "max": "max",
         "min": "min", "infty": "∞", "ell": "ℓ", "in": "∈", "to": "→"}


def plain_math(text: str | None) -> str | None:
    """A quote's LaTeX as readable text: $c = 10$ -> c = 10, \\frac{a}{b} -> a/b, \\mathbf{E} -> E, \\eta -> η."""
    if not text:
        return text
    t = re.sub(r"\\[()\[\]]|\$", "", text)
    for _ in range(4):  # innermost groups first: \frac{\sigma_{\max}(E)}{...}
        t = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)", t)
        t = re.sub(r"\\(?:mathbf|mathrm|mathit|text|operatorname)\{([^{}]*)\}", r"\1", t)
        t = re.sub(r"_\{([^{}]*)\}", r"_\1", t)
    t = re.sub(r"\\([A-Za-z]+)", lambda m: GREEK.get(m[1], m[1]), t)
    return re.sub(r"\((\w+)\)/\((\w+)\)", r"\1/\2", t)  # (a)/(b) of single words: a/b


def _claim(c: dict, before: str | None, source: str | None = None) -> dict:
    return {"id": c["id"], "text": c["text"], "measurement": c.get("kind") == "measurement", "line": line(c, source),
            "quote": plain_math(c.get("quote")), "where": c.get("where") or "", "statistic": c["statistic"],
            "same_statistic": c["statistic"] == before, "aggregate": statistics(c.get("aggregate", {})),
            "per_seed": [(k, _fmt(v)) for k, v in (c.get("per_seed") or {}).items()], "note": c.get("note"),
            "verdict": verdict(c), "css": _css_of(c)}


def ours(a: dict) -> str:
    """An assumption's value as the study states it, and -- where they differ -- what its runs used."""
    stated, ran = str(a["ours"]), a.get("in_runs")
    return stated if ran is None or ran == stated else f"{stated} (these runs: {ran})"


def arm_value(a: dict) -> str:
    """An assumption's other value as its arm sets it, with the overrides it needs beside it ("a+b
    split.skew=6", as a claim's sensitivity names it; an archive judged before `extra` was stored: the value)."""
    return " ".join((str(a["other"]), *(str(x) for x in (a.get("extra") or ()))))


def _session(x: dict) -> dict:
    """Who trained these runs: one call of reproduce, its command, build, cores and date."""
    m = x.get("machine") or {}
    return {"verb": "re-judged" if "from" in x else "trained", "command": str(x.get("command", "?")),
            "groklab": str(m.get("groklab", "?")), "commit": str(m.get("commit") or "?"),
            "torch": str(m.get("torch", "?")), "cores": str(m.get("cores", "?")), "date": str(m.get("date", "?"))}


def _section(fig_dir: Path) -> dict:
    """One figure's part of the page, as plain values (the template escapes every one)."""
    man, doc, runs = read_manifest(fig_dir), _analysed(fig_dir), runs_of(fig_dir)
    status = {name: r["status"] for name, r in runs.items()}
    claims, before = [], None
    for c in (doc or {}).get("claims", []):
        claims.append(_claim(c, before, (doc or {}).get("source")))
        before = c["statistic"]
    images = [{"name": img.name, "uri": data_uri(img), "arm": f.split("/")[0] if f.startswith(ARM) else None}
              for f in (doc or {}).get("figures", [])
              if (img := inside(fig_dir, f)) is not None and img.suffix == ".png"]
    tables = [{"name": f, "rows": _csv_rows(img)} for f in (doc or {}).get("figures", [])
              if (img := inside(fig_dir, f)) is not None and img.suffix == ".csv"]
    texts = [{"name": f, "text": img.read_text(encoding="utf-8")[:TEXT_CHARS]} for f in (doc or {}).get("figures", [])
             if (img := inside(fig_dir, f)) is not None and img.suffix in (".yaml", ".json")]
    controls = [{"what": c["what"], "runs": c["runs"], "reach": f"{c['reach']:g}", "ok": c["ok"],
                 "best": ", ".join(f"{r}: {v:.3f}" for r, v in c["best"].items()) or "no run"}
                for c in (doc or {}).get("controls") or []]
    assumptions = [{"field": a["field"], "ours": ours(a), "why": a["why"],
                    "arm": arm_value(a) if a.get("arm") else "–"} for a in (doc or {}).get("assumptions") or []]
    bad = [(n, s, ((runs[n]["error"] or "").splitlines()[-1:] or [""])[0]) for n, s in status.items()
           if s in ("diverged", "failed", "missing", "running", "interrupted")]
    first = next(((n, r["config"]) for n, r in runs.items() if r["config"]), None)
    if first is None:
        run = next(iter(find_runs(fig_dir)), None)
        first = (run.relative_to(fig_dir).as_posix(), RunStore(run).config()) if run else None
    return {"figure": man["figure"], "title": man["title"], "paper": man["paper"], "profile": man["profile"],
            "seeds": man["seeds"], "n_runs": len(status), "analysed": doc is not None,
            "wall_s": (doc or {}).get("wall_s"), "sessions": [_session(x) for x in man.get("sessions", [])],
            "images": images, "tables": tables, "texts": texts, "claims": [c for c in claims if not c["measurement"]],
            "measurements": [c for c in claims if c["measurement"]], "raw_claims": (doc or {}).get("claims", []),
            "controls": controls,
            "assumptions": assumptions, "bad": bad,
            "health": ", ".join(f"{k}: {v}" for k, v in sorted(Counter(status.values()).items())),
            "configs": [(n, " ".join(o)) for n, o in man["runs"].items()],
            "first_name": first[0] if first else "-",
            "full_config": yaml.safe_dump(first[1], sort_keys=False) if first else ""}


TABLE_ROWS = 200  # a study's table shown on the page up to this many rows (the file keeps them all)
TEXT_CHARS = 100_000  # and a declared file (a protocol, the rules fixed from data) up to this many characters


def _csv_rows(path: Path) -> list[list[str]]:
    """A table the study wrote (a CSV it lists beside its figures), header first, at most TABLE_ROWS rows."""
    with open(path, newline="") as f:
        return [row for _, row in zip(range(TABLE_ROWS + 1), csv.reader(f))]


def render(**page) -> str:
    """The report page from its values: Jinja2 with autoescaping, so no field can reach the HTML unescaped
    (replaced hand-built f-strings, each of which had to remember html.escape)."""
    return PAGE.render(css=CSS, date=time.strftime("%Y-%m-%d %H:%M"), **page)


def write_report(root: str | Path, out: str | Path | None = None) -> Path:
    """Write `root`/report.html (or `out`) for every figure directory below `root`."""
    root = Path(root)
    if not root.is_dir():
        raise ConfigError("report", str(root), "is not a directory")
    figs = experiment_dirs(root)
    if not figs and next(iter(find_runs(root)), None) is not None:  # a sweep: statistics and curves, no claims
        page = render(title=root.name, root=str(root), sweep=sweep_page(root), sections=[])
        return _write_page(page, Path(out) if out else root / "report.html")
    if not figs:
        raise ConfigError("report", str(root), "holds no experiment or run; run groklab reproduce or sweep first")
    sections = [_section(d) for d in figs]
    page = render(title=root.name, root=str(root), sweep=None, sections=sections,
                  headline=headline([c for s in sections for c in s["raw_claims"]]))
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
        lines += [f"| {md_cell(doc['figure'])} | {row}" for row in claim_rows(doc)]
    if len(lines) == 2:
        raise ConfigError("report", str(root), "holds no analysed experiment (no claims); run groklab reproduce first")
    return "\n".join(lines)


def claim_rows(doc: dict) -> list[str]:
    """One Markdown row per claim of a claims.json document: `claim | aggregate | verdict |` (a measurement
    of our own is marked as such)."""
    mark = lambda c: " *(measurement)*" if c.get("kind") == "measurement" else ""  # noqa: E731
    return [f"{md_cell(c['text'])}{mark(c)} | {md_cell(statistics(c.get('aggregate', {})).replace('|', '/'))} | "
            f"{md_cell(verdict(c))} |" for c in doc["claims"]]


def claims_markdown(doc: dict) -> str:
    """A figure's verdict table (claim, aggregate, verdict), as docs/results.md shows it."""
    return "\n".join(["| claim | aggregate | verdict |", "| --- | --- | --- |"] + [f"| {r}" for r in claim_rows(doc)])
