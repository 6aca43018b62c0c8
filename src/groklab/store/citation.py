"""A claim of claims.json as one citable line, the same in the CLI, the report and Markdown:

    holds | 000 §5.2, Fig. 6 | Adam-LR (c = 10) groks mul faster than Adam. | mul: P(adam_lr first) = 0.825,
    p = 5e-05, n = 30/30, median adam_lr = 1000 [850, 1100], median adam = 1300 [1250, 1400]

verdict | paper and place | the claim | its statistics per cell, each number to 3 significant digits, medians
with their interval, n per arm. A measurement (a check of our own) says so after the verdict, and so does a rule
changed after its data were seen, with the verdict the rule it replaced gives.
"""
from __future__ import annotations

import math

from groklab.errors import printable
from groklab.store.schema import verdict_words

MAX_DEPTH = 4  # a forged claims.json cannot nest without end
MAX_TEXT = 2_000  # characters of one field shown (a forged 20 MB claim text is cut, not printed whole)
MAX_ITEMS = 40  # values shown per list or mapping; the rest counted


def one_line(text, limit: int = MAX_TEXT) -> str:
    """`text` as one printable line: cut to `limit` characters, then every control, escape, newline and bidi
    character escaped (errors.printable): a claims.json read from someone else's archive cannot clear a
    terminal, reorder what it shows, or start a line of its own (a forged BibTeX entry)."""
    text = str(text)
    return printable(text[:limit] + ("…" if len(text) > limit else ""))


def number(x) -> str:
    """A number as a reader would cite it: integers whole, others to 3 significant digits (0.825, 5e-05, 1.3e+04)."""
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            return str(x)
        if x.is_integer() and abs(x) < 1e6:
            return str(int(x))
        return f"{x:.3g}"
    return str(x)


def value(key: str, v, depth: int = 0) -> str:
    """One statistic: `n` lists as 30/30; a `median ...` or interval triple as m [lo, hi]; nested maps inline."""
    if depth > MAX_DEPTH:
        return "…"
    if v is None:
        return "n/a"
    if isinstance(v, dict):
        items = list(v.items())
        more = f", … {len(items) - MAX_ITEMS} more" if len(items) > MAX_ITEMS else ""
        return "; ".join(f"{k} = {value(str(k), x, depth + 1)}" for k, x in items[:MAX_ITEMS]) + more
    if isinstance(v, (list, tuple)):
        if key == "n" and all(isinstance(x, int) for x in v):
            return "/".join(map(str, v))
        if len(v) == 3 and all(isinstance(x, (int, float)) or x is None for x in v) and \
                key.split(" ")[0] in ("median", "ratio", "mean", "gm", "estimate"):
            return f"{value(key, v[0], depth + 1)} [{value(key, v[1], depth + 1)}, {value(key, v[2], depth + 1)}]"
        more = f", … {len(v) - MAX_ITEMS} more" if len(v) > MAX_ITEMS else ""
        return "[" + ", ".join(value(key, x, depth + 1) for x in v[:MAX_ITEMS]) + more + "]"
    return number(v)


def statistics(aggregate: dict) -> str:
    """A claim's aggregate: each cell as `cell: stat = value, ...`, cells and scalar entries joined by `; `."""
    parts = []
    for k, v in list((aggregate or {}).items())[:MAX_ITEMS]:
        if isinstance(v, dict):
            parts.append(f"{k}: " + ", ".join(f"{s} = {value(str(s), x)}" for s, x in list(v.items())[:MAX_ITEMS]))
        else:
            parts.append(f"{k} = {value(str(k), v)}")
    return "; ".join(parts)


POST_HOC = " (post hoc)"  # after a verdict judged by a rule fixed after its data (claims.json, reports)


def after_data(claim: dict) -> bool:
    """A claim judged by a rule fixed after its data: revised after them (`post_hoc`), or first written after
    them (`fixed.before_data` false)."""
    fx = claim.get("fixed")
    return bool(claim.get("post_hoc")) or (isinstance(fx, dict) and fx.get("before_data") is False)


def post_hoc_mark(claim: dict) -> str:
    """' (post hoc since DATE; under the replaced rule: VERDICT)' for a rule changed after its data, ' (post hoc:
    rule first fixed DATE, after its data)' for a claim written after them, else ''."""
    ph = claim.get("post_hoc") or {}
    if isinstance(ph, dict) and ph:
        return f" (post hoc since {ph.get('since', '?')}; under the replaced rule: {ph.get('verdict', '?')})"
    fx = claim.get("fixed") or {}
    if isinstance(fx, dict) and fx.get("before_data") is False:
        return f" (post hoc: rule first fixed {fx.get('date') or '?'}, after its data)"
    return ""


def line(claim: dict, source: str | None = None) -> str:
    """verdict | source and place | claim | statistics (a measurement marked after its verdict)."""
    verdict = verdict_words(claim.get("holds"), claim.get("reason") or "", claim.get("depends_on") or ())
    if claim.get("kind") == "measurement":
        verdict += " (measurement)"
    verdict += post_hoc_mark(claim)
    where = " ".join(one_line(x) for x in (source, claim.get("where")) if x) or "-"
    return " | ".join([one_line(verdict), where, one_line(str(claim.get("text", "")).strip()),
                       one_line(statistics(claim.get("aggregate")), 4 * MAX_TEXT)])
