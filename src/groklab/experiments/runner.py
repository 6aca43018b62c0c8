"""Train a figure's runs into DIR/<fig>/<run>/ (finished runs skipped, unfinished resumed), then analyse.

`execute` is the one place that decides how runs are trained: it hands them to the sweep machinery.
"""
from __future__ import annotations

import fnmatch
import inspect
import time
from pathlib import Path
from typing import Callable

from groklab.config import make_config, parse_override, validate
from groklab.engine.threads import usable_cpus
from groklab.errors import ConfigError
from groklab.experiments.archive import trained
from groklab.experiments.assumptions import (
    ARM,
    arm_rows,
    assumptions_of,
    complete_arms,
    judge_arms,
    keeps,
    split_arms,
    with_arms,
)
from groklab.experiments.controls import apply as apply_controls
from groklab.experiments.looks import looks_of
from groklab.experiments.quotes import cite
from groklab.experiments.spec import RunSpec, seed_of
from groklab.experiments.stats import looking
from groklab.store import (
    RunStore,
    clear_error,
    load_runs,
    make_out,
    read_manifest,
    read_summary,
    write_claims,
    write_error,
    write_manifest,
    write_partial,
)
from groklab.store.archive import lacking, unpack
from groklab.store.run import differences
from groklab.store.schema import verdict_words
from groklab.sweep import Run, SweepBar, plan, run_units


def execute(root: Path, configs: dict[str, dict], jobs: int = 1, echo: Callable = print,
            packing: str = "auto") -> dict[str, dict]:
    """Train every run (name -> resolved config dict) below `root` with the sweep machinery: finished
    runs are skipped, unfinished ones resume; `jobs` > 1 trains in a process pool; on a GPU, compatible
    runs are stacked into populations (packing=auto). Returns name -> summary ({"status": "failed"} on a crash)."""
    runs = [Run(name, name, validate(dict(cfg)), root / name) for name, cfg in configs.items()]
    units, done, busy = plan(runs, packing)
    echo(f"  {len(done)} of {len(runs)} runs already finished; training {sum(map(len, units))}"
         + (f"; {len(busy)} being trained by another process" if busy else ""))
    for r in (r for unit in units for r in unit):
        clear_error(r.out)  # a retried run is judged by its new outcome
    bar = SweepBar(len(runs), len(done), show=echo is print)
    try:
        ran = run_units(units, packing, "process" if jobs > 1 else "inprocess", jobs, bar=bar, echo=echo)
    finally:
        bar.close()
    results = {r.name: read_summary(r.out) for r in runs}
    for name, status in ran:
        if status.startswith("failed"):  # the run crashed: keep the reason beside its files
            write_error(root / name, status)
            results[name] = {"status": "failed"}
    return results


def default_jobs() -> int:
    """One single-threaded run per core: the quick models are too small to use two threads well."""
    return max(1, min(usable_cpus(), 8))


def specs_of(module, profile: str, seeds: int, overrides: tuple[str, ...] = ()) -> list:
    """The figure's runs and its sensitivity arms' (assumptions.py), with `overrides` (e.g. p=31) appended to
    every run's config. A module whose runs() takes `p` gets the overridden modulus, to rescale what is tied
    to it (004's SQUARE/STRIP k)."""
    kw = {}
    if "p" in inspect.signature(module.runs).parameters:
        ps = [o for o in overrides if parse_override(o)[0] == "p"]
        kw["p"] = make_config([ps[-1]]).p if ps else None  # validated first: one-line error on p=abc
    specs = with_arms(module, profile, module.runs(profile, seeds, **kw))
    return [RunSpec(s.name, tuple(s.overrides) + tuple(overrides)) for s in specs]


def select(specs: list, only: str | None) -> list:
    """The specs whose run name matches the glob `only` (all of them when None)."""
    return specs if only is None else [s for s in specs if fnmatch.fnmatchcase(s.name, only)]


def run_figure(module, out: Path, profile: str = "quick", seeds: int = 3, jobs: int = 1,
               echo: Callable = print, overrides: tuple[str, ...] = (), only: str | None = None,
               source: Path | None = None, session: dict | None = None, train_missing: bool = False) -> dict:
    """Train (or resume) a figure's runs, draw its figures, check its claims; returns claims.json's content.
    With `only` (a glob over run names) it trains that subset and writes its statistics to partial.json
    without verdicts: a claim over runs that were not trained cannot be judged. A later call without
    `only` skips the finished runs, trains the rest and judges. With `source` (an archived study) nothing
    is trained: the archived runs are laid out below `out` and judged; with `train_missing` too, the runs the
    archive lacks (those matching `only`, when given) are trained beside them, and the study is judged once
    every run is there. `session` (command, machine) is appended to the manifest's list of the calls that
    built this directory."""
    every = specs_of(module, profile, seeds, overrides)
    specs = select(every, only)
    archived = []  # with train_missing: the runs laid out from the archive (specs: the ones to train)
    aside = []  # an arm's archived runs not judged (not whole at these seeds): laid out, kept, not judged
    if source is not None and train_missing:
        lack = set(lacking(source, [s.name for s in every]))
        archived = [s.name for s in every if s.name not in lack]
        specs = [s for s in specs if s.name in lack]
    elif source is not None:  # an archive without (all of) an arm's runs is judged without that arm
        gone = set(lacking(source, [s.name for s in specs]))
        cut = complete_arms([s.name for s in specs], list(gone))
        aside = [s for s in specs if not keeps(cut, s.name) and s.name not in gone]
        specs = [s for s in specs if keeps(cut, s.name)]
        every = [s for s in every if keeps(cut, s.name)]
        for arm, k in cut.items():
            echo(f"  {module.NAME}: {ARM}{arm} " + (f"whole at {k} seeds in {source}: judged at those" if k else
                                                    f"not (wholly) in {source}: judged without it"))
    configs = {s.name: make_config(list(s.overrides)).to_dict() for s in specs}  # all validated first
    root = make_out(out) / module.NAME
    root.mkdir(parents=True, exist_ok=True)
    manifest = {"figure": module.NAME, "title": module.TITLE, "paper": module.PAPER, "profile": profile, "seeds": seeds,
                "overrides": list(overrides), "runs": {s.name: list(s.overrides) for s in every + aside}}
    if only is not None:
        manifest["only"] = only
    if source is not None:
        manifest["from"] = str(source)
    # the calls that built these runs: a re-judged study keeps its archive's training sessions
    sessions = _sessions(root) or (_sessions(source) if source is not None else [])
    if source is not None:  # the last re-judging is the one that wrote these claims; earlier ones are gone
        sessions = [x for x in sessions if trained(x)]
    here = {"from": str(source), **({"train_missing": True} if train_missing else {})} if source is not None else {}
    sessions += [{**session, **here, "seeds": seeds}] if session else []
    write_manifest(root, {**manifest, "sessions": sessions})
    part = "" if only is None else f" (--only {only!r}: {len(specs)} of {len(every)})"
    verb = f"re-judged from {source}" if source is not None else ""
    echo(f"{module.NAME}: {module.TITLE} ({profile}, {seeds} seeds, {len(every)} runs{part}) -> {root} {verb}")
    t0 = time.perf_counter()
    if source is not None and not train_missing:
        laid = unpack(source, [*configs, *(s.name for s in aside)], root)  # aside too: re-archiving keeps them
        results = {name: laid[name] for name in configs}
    else:
        results = {**(unpack(source, archived, root) if archived else {}), **execute(root, configs, jobs, echo)}
    if source is not None:  # the configs this study makes today for the runs laid out from the archive
        wanted = configs if not train_missing else {s.name: make_config(list(s.overrides)).to_dict()
                                                    for s in every if s.name in set(archived)}
    stale = _stale(root, wanted) if source is not None else {}
    if stale:
        first = next(iter(stale.items()))
        echo(f"  {module.NAME}: {len(stale)} archived runs were trained with configs this study no longer makes "
             f"(e.g. {first[0]}: {first[1]}); their verdicts describe those runs: retrain them to judge today's")
    have, partial = set(configs) | set(archived), only is not None
    if train_missing:  # runs an earlier call trained into this --out count too: judged once every run is there
        results = {s.name: read_summary(root / s.name) for s in every if (root / s.name).is_dir()}
        have = {n for n, r in results.items() if r.get("status") not in (None, "running", "interrupted")}
        partial = len(have) < len(every)
    df = load_runs(root)
    df = df[df["run"].isin(have)] if not df.empty else df  # ignore stray runs of another profile
    from groklab.experiments import SEEDS

    looks = looks_of(sessions, seeds, SEEDS[profile])
    with looking(len(looks)):  # seeds raised on sight of a verdict: each look held to 0.05 / looks (looks.py)
        figures, claims, controls = _analyze(module, df, root, profile)
    health = {name: s.get("status", "missing") for name, s in sorted(results.items())}
    doc = {**{k: manifest[k] for k in ("figure", "title", "paper", "profile", "seeds")},
           "wall_s": round(time.perf_counter() - t0, 1),
           "figures": [Path(f).relative_to(root).as_posix() for f in figures],
           "health": health, "claims": [c.to_dict() for c in claims]}
    if controls:
        doc["controls"] = controls
    if len(looks) > 1:
        doc["looks"] = looks
    if stale:
        doc["stale"] = stale
    if assumptions_of(module):
        doc["assumptions"] = [a.to_dict(profile) for a in assumptions_of(module)]
    doc = cite(module.__name__.split(".")[2], doc)  # the paper's sentence, where, kind, threshold sources
    if sessions:
        sessions[-1]["wall_s"] = doc["wall_s"]
        write_manifest(root, {**manifest, "sessions": sessions})
    if partial:
        note = f"partial: {len(have)} of {len(every)} runs" + (f" ({only!r})" if only else "") + "; not judged"
        doc.update(only=only, trained=sorted(have), of=len(every),
                   claims=[{**c, "holds": None, "reason": "partial", "verdict": "inconclusive (partial)",
                            "note": " ".join(filter(None, [c["note"], note]))} for c in doc["claims"]])
        write_partial(root, doc)
    else:
        write_claims(root, doc)
    for c in doc["claims"]:
        verdict = verdict_words(c["holds"], c.get("reason") or "", c.get("depends_on") or ())
        kind = "" if c["kind"] == "paper" else " (measurement)"
        echo(f"  [{verdict}] {c['id']}{kind}: {c['text']}  ({_agg(c['aggregate'])})")
    return doc


def _analyze(module, df, root: Path, profile: str) -> tuple[list, list, list]:
    """The study's analysis of its own runs, and of each sensitivity arm's below arm-<name>/, each checked
    against the study's controls (controls.py), its claims' verdicts combined with the arms' (assumptions.py);
    and the checks of the controls on its own runs."""
    own, arms = split_arms(df)
    figures, claims = module.analyze(own, root, profile)
    claims, controls = apply_controls(module, own, claims)
    judged, n = {}, len(set(map(seed_of, own["run"]))) if "run" in own else 0
    fewer = {name: k for name, sub in arms.items() if 0 < (k := len(set(map(seed_of, sub["run"])))) < n}
    for name, sub in arms.items():
        k = fewer.get(name)  # an arm at fewer seeds borrows the study's runs at its seeds only
        base = own if k is None else own[[(seed_of(r) or 0) < k for r in own["run"]]]
        sub = arm_rows(module, name, sub, base)
        figs, judged[name] = module.analyze(sub, root / f"{ARM}{name}", profile)
        judged[name] = apply_controls(module, sub, judged[name])[0]
        figures = [*figures, *figs]
    return figures, judge_arms(module, claims, judged, profile, fewer), controls


def _stale(root: Path, wanted: dict[str, dict]) -> dict[str, str]:
    """Run -> the first difference between an archived run laid out below `root` and `wanted`, the resolved
    config the study makes for it today (none: the archive is today's study)."""
    out = {}
    for name, cfg in wanted.items():
        diff = differences(_resolved(RunStore(root / name).config()), cfg, ignore=("bar",))
        if diff:
            out[name] = diff[0]
    return out


def _resolved(archived: dict) -> dict:
    """An archived config as today's schema reads it: a field added since takes its default (a new setting
    whose default keeps the old behaviour is no difference); as stored where today's rules refuse it."""
    try:
        return make_config(base=archived).to_dict()
    except ConfigError:
        return archived


def _sessions(root: Path) -> list[dict]:
    """The calls that built this figure directory so far (from its manifest; none when it is new or damaged)."""
    try:
        return list(read_manifest(root).get("sessions", []))
    except ConfigError:
        return []


def _agg(aggregate: dict) -> str:
    return ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in aggregate.items())
