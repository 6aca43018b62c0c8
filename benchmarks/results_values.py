"""Numbers in docs/results.md's prose, generated from claims.json (results_docs.py fills and checks them):

    every seed reaches 0.99 at <!-- value results/investigation-quick/lstm/lstm_slower_than_transformer
    per_seed.all lstm-a0.5 -->1,600-2,800<!-- /value --> steps

A value block names ARCHIVE/STUDY/CLAIM_ID (STUDY may be an arm: `fig10/arm-lr`; in place of a claim id, a key of
claims.json itself: `controls`, `seeds`), then PATH into that claim:
keys joined by '.', each read as the longest key of its level that fits, so a key may hold '.', '/' or spaces
(`per_seed.all lstm-a0.5`, `aggregate.lag.add/mlp_mean`); a number indexes a list (`aggregate.all.median x.0`); a
glob takes every key it matches, their values as one list (`per_seed.square k=*`, `aggregate.*.published`).
Optional last words are the FORMAT (a path that exists as written is read whole: `aggregate.nearest n`):

    (none)   a list (or a mapping's values: a control's ratio per run) as its range lo-hi (min-max, nulls
             skipped; one number when equal), a number, text as it is
    min, max, median, mean        one number from a list
    count    the entries neither null nor false (the seeds that reached it); n: the list's length
    seeds    every entry, ' / ' between (null as –)
    ci       a [value, lo, hi] triple as 'value [lo, hi]'
    pct      times 100 (Table 1's percent), alone or after another: `mean pct`

Numbers as the prose writes them: integers with thousands separators (1,600), others to 3 significant digits
(0.411, 16.6; 1,910 above 1,000). A PATH that is not in the claim is a one-line error naming the block.

`range_contradictions` is the check beside it: a hand-written range "A-B" in a sentence (outside generated
blocks) that names a claim id in backticks must lie within the span (min-max) of one of that claim's per-seed
lists in some archive of results/ (arms included), each end widened by half its last printed digit. A heuristic:
it reads the ranges of numbers, not their meaning, and skips dates, percentages, seed numbers ("seeds 3-4"), a
comparison's P or p ("P = 0.52-0.61") and row labels ("STRIP 40-60").
"""
from __future__ import annotations

import fnmatch
import json
import math
import re
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VALUE = re.compile(r"(<!-- value (\S+)(?: (?!-->)([^\n]*?))? -->)(.*?)(<!-- /value -->)", re.S)
FORMATS = ("min", "max", "median", "mean", "count", "n", "seeds", "ci", "range", "pct")


class BadValue(SystemExit):
    """A value block that names nothing in its archive: one line, the block in it."""


def number(x) -> str:
    """A number as the prose cites it: integers with thousands separators, others to 3 significant digits."""
    if x is None:
        return "–"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if abs(x) >= 1e6:
        return f"{x:.3g}"
    if float(x).is_integer():
        return f"{int(x):,}"
    return f"{round(x, 2 - int(math.floor(math.log10(abs(x))))):,.0f}" if abs(x) >= 1000 else f"{x:.3g}"


def _claim(spec: str) -> dict:
    from groklab.store import read_claims

    folder, _, cid = spec.rpartition("/")
    doc = read_claims(ROOT / folder) if folder else None
    if doc is None:
        raise BadValue(f"results_docs: <!-- value {spec} -->: {folder or spec} has no claims.json")
    found = [c for c in doc["claims"] if c["id"] == cid] or ([doc[cid]] if cid in doc and cid != "claims" else [])
    if not found:
        raise BadValue(f"results_docs: <!-- value {spec} -->: no claim {cid!r} in {folder}/claims.json")
    return found[0]


def resolve(node, path: str, block: str):
    """The value at PATH: at each level the longest key that PATH starts with (then a '.'), a list index, or a
    glob (`per_seed.square k=*`, `aggregate.*.published`): every key it matches, their values in one list."""
    if not path:
        return node
    if isinstance(node, dict):
        keys = [k for k in node if path == k or path.startswith(k + ".")]
        if keys:
            key = max(keys, key=len)
            return resolve(node[key], path[len(key) + 1:], block)
        for cut in sorted({i for i, c in enumerate(path) if c == "."} | {len(path)}, reverse=True):
            hits = [k for k in node if any(c in path[:cut] for c in "*?[") and fnmatch.fnmatchcase(k, path[:cut])]
            if hits:
                found = [resolve(node[k], path[cut + 1:], block) for k in hits]
                return [x for v in found for x in (v if isinstance(v, list) else [v])]
        raise BadValue(f"results_docs: {block}: no key {path!r} (there: {', '.join(map(str, node))})")
    head, _, rest = path.partition(".")
    if isinstance(node, list) and head.isdigit() and int(head) < len(node):
        return resolve(node[int(head)], rest, block)
    raise BadValue(f"results_docs: {block}: {path!r} is not in {str(node)[:60]}")


def render(v, fmt: str, block: str, scale: float = 1) -> str:
    """v in FORMAT (`pct`: times 100 first)."""
    if isinstance(v, dict) and v and all(isinstance(x, (int, float, list)) or x is None for x in v.values()):
        v = [x for y in v.values() for x in (y if isinstance(y, list) else [y])]  # per run or per cell: all values

    def num(x) -> str:
        return number(x * scale if isinstance(x, (int, float)) and not isinstance(x, bool) else x)

    if isinstance(v, list):
        nums = [x for x in v if isinstance(x, (int, float)) and not isinstance(x, bool)]
        if fmt == "seeds":
            return " / ".join(num(x) for x in v)
        if fmt == "count":
            return str(sum(x is not None and x is not False for x in v))
        if fmt == "n":
            return str(len(v))
        if fmt == "ci" and len(v) == 3:
            return f"{num(v[0])} [{num(v[1])}, {num(v[2])}]"
        if not nums:
            raise BadValue(f"results_docs: {block}: no number in {str(v)[:60]}")
        one = {"min": min, "max": max, "median": statistics.median, "mean": statistics.fmean}.get(fmt)
        if one:
            return num(one(nums))
        lo, hi = num(min(nums)), num(max(nums))
        return lo if lo == hi else f"{lo}-{hi}" if min(nums) >= 0 else f"{lo} to {hi}"
    if fmt not in ("", "range"):
        raise BadValue(f"results_docs: {block}: {fmt} needs a list, the value is {str(v)[:60]}")
    return num(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)


def value_text(spec: str, where: str | None) -> str:
    """A value block's text: its claim's value at PATH, in its FORMAT."""
    claim, words, fmts = _claim(spec), (where or "").split(), []
    block = f"<!-- value {spec} {where or ''} -->".replace("  ", " ")
    try:  # a key that ends in a format's word ("nearest n") is read as the key
        return render(resolve(claim, " ".join(words), block), "", block)
    except BadValue:
        while len(words) > 1 and words[-1] in FORMATS and len(fmts) < 2:
            fmts.append(words.pop())
    fmt = "".join(f for f in fmts if f != "pct")
    return render(resolve(claim, " ".join(words), block), fmt, block, 100 if "pct" in fmts else 1)


def fill_values(text: str) -> str:
    return VALUE.sub(lambda m: m[1] + value_text(m[2], m[3]) + m[5], text)


def per_seed_spans(results: Path | None = None) -> dict[str, list[tuple[float, float]]]:
    """claim id -> (min, max) of each per-seed list it has in an archive (arms included)."""
    results = results or ROOT / "results"
    out: dict[str, list[tuple[float, float]]] = {}

    def leaves(v):
        if isinstance(v, dict):
            for x in v.values():
                yield from leaves(x)
        elif isinstance(v, list):
            nums = [x for x in v if isinstance(x, (int, float)) and not isinstance(x, bool)]
            if nums:
                yield min(nums), max(nums)

    for f in sorted([*results.glob("*/*/claims.json"), *results.glob("*/*/arm-*/claims.json")]):
        for c in json.loads(f.read_text())["claims"]:
            out.setdefault(c["id"], []).extend(leaves(c.get("per_seed") or {}))
    return out


NUM = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
RANGE = re.compile(r"(?<![\w.,/^§-])" + NUM + r" ?[-–] ?" + NUM + r"(?![\d.]\d|-\d|\w*/|\s?%)")
# not a range of per-seed values: seed numbers, a comparison's P or p, a row label (STRIP 40-60)
NOT_VALUES = re.compile(r"(?:\bseeds?|\b[Pp] =|\b[A-Z]{2,}) ?$")
SENTENCES = re.compile(r"(?<=[.!?])\s+(?=[^a-z0-9])|\n\s*\n|\n(?=\s*(?:[-|#]|\d+\.)\s)")
IDS = re.compile(r"`([^`\s]+)`")


def _half_unit(s: str) -> float:
    return 0.5 * 10 ** -len(s.split(".")[1]) if "." in s else 0.5


def range_contradictions(prose: str, spans: dict[str, list[tuple[float, float]]] | None = None) -> list[str]:
    """Each hand-written range beside a claim id that no per-seed list of that claim in any archive spans."""
    spans = per_seed_spans() if spans is None else spans
    prose = re.sub(r"```.*?```", " ", prose, flags=re.S)
    out = []
    for sentence in SENTENCES.split(prose):
        ids = [i for i in IDS.findall(sentence) if i in spans]
        if not ids:
            continue
        for m in RANGE.finditer(sentence):
            if NOT_VALUES.search(sentence[max(0, m.start() - 12):m.start()]):
                continue
            a, b = (float(x.replace(",", "")) for x in m.groups())
            ta, tb = _half_unit(m[1]), _half_unit(m[2])
            if not any(lo - ta <= a and b <= hi + tb for i in ids for lo, hi in spans[i]):
                span = "; ".join(f"{number(lo)}-{number(hi)}" for i in ids for lo, hi in spans[i])
                out.append(f"the range {m[0]} beside `{'`, `'.join(ids)}`, which no per-seed span of it in the "
                           f"archives ({span}) contains")
    return out
