"""Can every paper claim's decision rule both hold and fail? Each archived study is re-judged with the claim
vocabulary (experiments/levels.py, experiments/claims.py) recorded call by call; each paper claim's rule is then
fed two synthetic sets of per-seed values of its own statistic, in its own groups and seed counts -- one on which
the sentence is true, one on which it is false -- and must answer "holds" and "does not hold". A rule that cannot
is one a verdict can never refute (or never confirm); a claim built outside the vocabulary is listed as not shown.

    python benchmarks/falsifiable.py                      # every archive in results/ (minutes: a re-judge each)
    python benchmarks/falsifiable.py results/beyond-quick --only 'table1'

The last line: `N of M paper claims can both hold and fail`.
"""
from __future__ import annotations

import argparse
import contextvars
import fnmatch
import functools
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VOCABULARY = {"groklab.experiments.levels": ("every_seed", "contrast", "within", "not_below", "trend", "no_trend",
                                              "below", "above", "all_of"),
              "groklab.experiments.claims": ("time_claim", "level_claim", "no_later_claim"),
              "groklab.experiments.published": ("matches",)}
_study: contextvars.ContextVar = contextvars.ContextVar("study", default=None)


_sink: list = []  # the dict the wrappers record into (record() installs them once per process)


def record(calls: dict) -> None:
    """Wrap every vocabulary function, wherever a study module imported it, so each call is kept in `calls`
    {(study, claim id): (function, args, kwargs, looks)} -- the first call per id: the study's own runs, not an
    arm's. A later call only points the wrappers at a new `calls` (wrapping a wrapper would record the wrapper)."""
    import importlib
    import pkgutil

    if _sink:
        _sink[0] = calls
        return
    _sink.append(calls)

    import groklab.experiments as pkg
    from groklab.experiments import stats
    modules = [importlib.import_module(m.name) for m in pkgutil.walk_packages(pkg.__path__, "groklab.experiments.")]
    for home, names in VOCABULARY.items():
        mod = importlib.import_module(home)
        for name in names:
            orig = getattr(mod, name)

            def wrapper(*args, _orig=orig, **kwargs):
                claim = _orig(*args, **kwargs)
                key, sink = (_study.get(), claim.id), _sink[0]
                if key[0] is not None and key not in sink:
                    sink[key] = (_orig, args, kwargs, round(stats.ALPHA / stats.alpha()))
                return claim
            for m in [mod, *modules]:
                if getattr(m, name, None) is orig:
                    setattr(m, name, wrapper)
    for m in modules:
        if hasattr(m, "analyze") and hasattr(m, "NAME"):
            m.analyze = _in_study(m.NAME, m.analyze)


def _in_study(name: str, analyze):
    @functools.wraps(analyze)
    def inner(*args, **kwargs):
        token = _study.set(name)
        try:
            return analyze(*args, **kwargs)
        finally:
            _study.reset(token)
    return inner


def _levels(n: int, centre: float, step: float) -> list[float]:
    return [centre + step * i for i in range(max(n, 3))]


def _times(n: int, start: float, like) -> list:
    from groklab.experiments.claims import Times

    values = [start + 10.0 * i for i in range(max(n, 3))]
    return Times(values) if isinstance(like, Times) else values


def synthetic(fn, args: tuple, kwargs: dict, sense: bool, done: dict, study: str):
    """The call's verdict on values built so that the claim's sentence is true (`sense`) or false; None when no
    such values can be built for this rule."""
    import inspect

    from groklab.experiments.claims import Times

    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    a = dict(bound.arguments)
    name = fn.__name__
    if name == "all_of":  # every part true, or one part false
        verdicts = [done.get((study, part.id), {}).get(sense) for part in a["parts"].values()]
        if sense:
            return True if verdicts and all(v is True for v in verdicts) else None
        return False if any(v is False for v in verdicts) else None
    if name in ("time_claim", "level_claim", "no_later_claim"):
        first, later = (100.0, 10_000.0) if sense else (10_000.0, 100.0)
        a["cells"] = {c: (_times(len(x), first, x), _times(len(y), later, y)) for c, (x, y) in a["cells"].items()}
        if name == "level_claim":  # "A lower than B": levels, not times
            a["cells"] = {c: (list(x), list(y)) for c, (x, y) in a["cells"].items()}
        return fn(**a).holds
    if name == "matches":  # seeds scattered around each published number, or far from it
        out = {}
        for c, ref in a["reference"].items():
            step = max(abs(ref or 0.0), 1.0) * 0.001
            centre = (ref or 0.0) + (0.0 if sense else 10000.0 * step)
            out[c] = [centre - step, centre, centre + step]
        return fn(**{**a, "values": out}).holds
    values = a["values"]
    n = {k: len(v) for k, v in values.items()}
    times = lambda k: isinstance(values.get(k), Times)  # noqa: E731  (event times: compared as censored data)
    if name in ("contrast", "within", "not_below"):
        x, y, floor = a["a"], a["b"], a.get("floor") or 0.0
        gap = 10.0 * max(a.get("margin") or 0.0, a.get("smallest") or 0.0, 1.0)
        if name == "contrast":
            sign = a["sign"] if sense else -a["sign"]
            if times(x) or times(y):
                lo, hi = _times(n.get(x, 3), 100.0, values.get(x)), _times(n.get(y, 3), 10_000.0, values.get(y))
                values = {**values, x: lo if sign < 0 else hi, y: hi if sign < 0 else lo}
            else:
                base = floor + gap + 1.0
                values = {**values, x: _levels(n.get(x, 3), base + sign * gap, 0.01),
                          y: _levels(n.get(y, 3), base, 0.01)}
        else:  # equal (true), or a far below b (false); both above any floor
            top = floor + gap + 1.0
            values = {**values, y: _levels(n.get(y, 3), top, 0.0001),
                      x: _levels(n.get(x, 3), top if sense else top - gap, 0.0001)}
        return fn(**{**a, "values": values}).holds
    if name in ("trend", "no_trend"):  # a perfect trend (rho 1 meets any strength asked), or none at all
        sign = a["sign"] if sense == (name == "trend") else -a["sign"]
        flat = name == "no_trend" and sense
        values = {k: [1000.0 + (i % 2 * 5.0 if flat else sign * 100.0 * float(x)) + 0.1 * j
                      for j in range(max(n.get(k, 2), 3))] for i, (k, x) in enumerate(a["xs"].items())}
        return fn(**{**a, "values": values}).holds
    if name in ("below", "above"):
        side = (-1 if name == "below" else 1) * (1 if sense else -1)
        values = {**values, **{c: _levels(n.get(c, 3), a["threshold"] + side * 10.0, 0.01) for c in a["cells"]}}
        return fn(**{**a, "values": values}).holds
    if name == "every_seed":  # one value the test passes on every seed, or one it fails on one seed
        tests = a["test"] if isinstance(a["test"], dict) else {g: a["test"] for g in values}
        pool = [v for vals in values.values() for v in vals]
        # values of the statistic's own shape: the archived ones, plain numbers across its range, and each
        # archived tuple with one entry swapped for such a number
        scalars = [None, 0.0, 1e-9, 0.01, 0.3, 0.5, 0.9, 0.99, 0.999, 1.0, 2.0, 3.0, 10.0, 1e3, 1e9, -1.0]
        pool += scalars + [tuple(x if j != i else s for j, x in enumerate(v))
                           for v in pool if isinstance(v, tuple) for i in range(len(v)) for s in scalars]
        out = {}
        for g, vals in values.items():
            want = [v for v in pool if _safe(tests[g], v) is sense]
            if not want:
                return None
            out[g] = [want[0]] * max(len(vals), 1) if sense else [want[0], *vals[1:]] if vals else [want[0]]
        return fn(**{**a, "values": out}).holds
    return None


def _safe(test, v):
    try:
        r = test(v)
    except Exception:  # a value of another group's shape
        return None
    return None if r is None else bool(r)


def judge(archive: Path, only: str | None, echo) -> tuple[int, int, list[str]]:
    """(paper claims that can both hold and fail, paper claims, lines for the others) for one archive."""
    from groklab.experiments import PAPERS, reproduce
    from groklab.experiments.stats import looking
    from groklab.store.archive import read_index

    calls: dict = {}
    record(calls)
    index = read_index(archive)
    papers = json.loads((archive / "manifest.json").read_text())["papers"]
    ok, total, lines = 0, 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for study, entry in index["studies"].items():
            if entry.get("analysed") != "claims" or (only and not fnmatch.fnmatchcase(study, only)):
                continue
            target = next((f"{p}/{study}" for p in papers if p in PAPERS), None)
            if target is None:  # a study of groklab's own (early warning): its rules live in its frozen protocol
                continue
            docs = reproduce(target, Path(tmp) / study, profile=entry["profile"], source=archive, echo=lambda *_: None)
            done: dict = {}
            for key, (fn, args, kwargs, looks) in list(calls.items()):
                if key[0] != study:
                    continue
                with looking(looks):
                    done[key] = {s: synthetic(fn, args, kwargs, s, done, study) for s in (True, False)}
            for c in (c for d in docs for c in d["claims"] if c.get("kind", "paper") == "paper"):
                total += 1
                got = done.get((study, c["id"]))
                if got and got[True] is True and got[False] is False:
                    ok += 1
                    continue
                why = "built outside the vocabulary" if got is None else (
                    f"true values give {got[True]}, false values give {got[False]}")
                lines.append(f"{archive.name}/{study} {c['id']}: not shown ({why})")
            echo(f"{archive.name}/{study}: done")
    return ok, total, lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archives", nargs="*", type=Path)
    ap.add_argument("--only", help="a glob over study names")
    a = ap.parse_args()
    archives = a.archives or sorted(p.parent for p in (ROOT / "results").glob("*/manifest.json"))
    ok = total = 0
    for arch in archives:
        n, m, lines = judge(arch, a.only, lambda s: print(s, file=sys.stderr))
        ok, total = ok + n, total + m
        print("\n".join(lines)) if lines else None
    print(f"{ok} of {total} paper claims can both hold and fail")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
