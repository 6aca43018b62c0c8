"""Statistics over seeds, per grid point (named as its directory, each varying setting also its own column).

Event times (t_train, t_test, gap) that some runs never reach are right-censored: a run that ended at step s
without the event says only "later than s". They get a Kaplan-Meier median with its 95% interval and the count
of runs that reached them, never a mean over the runs that happened to arrive (which favours the grid point
whose slow seeds failed). Final accuracies, which every run has, get mean ± std and median."""
from __future__ import annotations

import math
import statistics
from pathlib import Path

from groklab.config import flatten
from groklab.errors import ConfigError
from groklab.store import RunStore, archive, find_runs
from groklab.survival import Censored, km_median
from groklab.sweep.plan import seed_keys_of

EVENTS = ("t_train", "t_test", "gap")  # censored where not reached: Kaplan-Meier medians
FINALS = ("final/train_acc", "final/test_acc")
FAILED = ("diverged", "failed")  # statuses of runs that ended without a result
IGNORED = ("bar", "checkpoint_every", "device", "track.")  # settings that do not change the science


def _stats(values: list) -> dict:
    v = [x for x in values if x is not None and not (isinstance(x, float) and math.isnan(x))]
    return {"mean": statistics.fmean(v) if v else None, "std": statistics.stdev(v) if len(v) > 1 else None,
            "median": statistics.median(v) if v else None}


def _event(s: dict, key: str):
    """A run's time to `key`: the step, `Censored(step it was last seen at)`, or None where it says nothing
    (gap needs the fit: a run that never fit has no gap, not a late one)."""
    last = float(s.get("steps") or 0)
    if key == "gap":
        if s.get("t_train") is None:
            return None
        return float(s["gap"]) if s.get("gap") is not None else Censored(max(0.0, last - s["t_train"]))
    return float(s[key]) if s.get(key) is not None else Censored(last)


def _event_stats(summaries: list, key: str) -> dict:
    """{median, lo, hi, reached, n}: the Kaplan-Meier median time to `key` and its 95% interval (None: beyond
    what the runs saw), and how many of the n runs that can have it reached it."""
    times = [t for t in (_event(s, key) for s in summaries) if t is not None]
    out = {"median": None, "lo": None, "hi": None, "reached": 0, "n": len(times)}
    if times:
        km = km_median(times, max(float(t) for t in times))
        out.update(median=km["median"], lo=km["lo"], hi=km["hi"], reached=km["events"])
    return out


def _records(root: Path):
    """(name, config, summary) of every run below `root`: a tree of run directories or a results archive."""
    if archive.holds_runs(root):
        yield from ((name, doc["config"], doc.get("summary") or {}) for name, doc in archive.runs_at(root))
        return
    for path in find_runs(root):
        store = RunStore(path)
        yield str(Path(path).relative_to(root)), store.config(), store.summary()


def summarize(root: str | Path):
    """One row per grid point (runs whose configs differ only in the seed keys); a pandas DataFrame."""
    import pandas as pd

    root = Path(root)
    if not root.is_dir():
        raise ConfigError("dir", str(root), "does not exist" if not root.exists() else "is not a directory")
    seeds = seed_keys_of(root)
    runs, failed, names = [], [], []
    for name, config, summary in _records(root):
        names.append(name)
        cfg = flatten(config)
        point = {k: v for k, v in cfg.items()
                 if k not in seeds and not any(k == i or (i.endswith(".") and k.startswith(i)) for i in IGNORED)}
        runs.append((point, summary))
        if summary.get("status") in FAILED:
            failed.append((name, summary["status"]))
    if not runs:
        raise ConfigError("dir", str(root), "holds no runs (no run directory below it)")
    varying = [k for k in runs[0][0] if len({repr(p.get(k)) for p, _ in runs}) > 1]
    # a sweep's runs live in <point>/seed=<s>: the point is named as its directory is
    dirs = [str(Path(n).parent) if Path(n).name.startswith("seed=") and Path(n).parent.name else None
            for n in names]
    groups: dict = {}
    for (point, s), folder in zip(runs, dirs):
        label = folder if None not in dirs else ",".join(f"{k}={point.get(k)}" for k in varying) or "all"
        groups.setdefault(label, ({k: point.get(k) for k in varying}, []))[1].append(s)
    first = next(iter(groups), "")
    varying.sort(key=lambda k: (first.find(f"{k}="), k) if f"{k}=" in first else (len(first), k))
    rows = []
    for label, (values, ss) in groups.items():
        row = {"point": label, **{k: values[k] for k in varying}, "n": len(ss),
               "finished": sum(s.get("status") in ("completed", "early_stop") for s in ss),
               "failed": sum(s.get("status") in FAILED for s in ss),
               "success": sum(s.get("t_test") is not None for s in ss) / len(ss)}
        for key in EVENTS:
            for stat, value in _event_stats(ss, key).items():
                row[f"{key}_{stat}"] = value
        for key in FINALS:
            for stat, value in _stats([s.get(key) for s in ss]).items():
                row[f"{key}_{stat}"] = value
        rows.append(row)
    df = pd.DataFrame(rows)
    df.attrs["failed"] = failed  # (run, status) of every run that diverged or crashed, for the caller to name
    return df


def format_table(df) -> str:
    """The summary as aligned text: events as median [95% interval] reached/n, finals as mean ± std (median)."""
    if df.empty:
        return "no runs found"
    f = lambda v, d: "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{d}f}"  # noqa: E731
    out = []
    for _, r in df.iterrows():
        row = {"point": r["point"], "n": r["n"], "failed": r["failed"], "success": f"{r['success']:.2f}"}
        for key in EVENTS:
            row[key] = (f"{f(r[key + '_median'], 0)} [{f(r[key + '_lo'], 0)}, {f(r[key + '_hi'], 0)}] "
                        f"{r[key + '_reached']}/{r[key + '_n']}")
        for key in FINALS:
            row[key] = f"{f(r[key + '_mean'], 3)} ± {f(r[key + '_std'], 3)} ({f(r[key + '_median'], 3)})"
        out.append(row)
    cols = list(out[0])
    width = {c: max(len(c), *(len(str(o[c])) for o in out)) for c in cols}
    lines = ["  ".join(c.ljust(width[c]) for c in cols)]
    lines += ["  ".join(str(o[c]).ljust(width[c]) for c in cols) for o in out]
    return "\n".join(lines + ["(events: Kaplan-Meier median [95% interval] over seeds, reached/n, a run without the "
                               "event censored at its last step, - beyond what the runs saw; finals: mean ± std "
                               "(median))"])
