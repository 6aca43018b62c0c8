"""What each `groklab` subcommand does, given its parsed arguments; returns the exit code."""
from __future__ import annotations

import json
import shlex
import sys
import tempfile
import time
from pathlib import Path

from groklab.errors import ConfigError
from groklab.store import PARTIAL, atomic_write
from groklab.store.files import begins_with


def _default_out(cfg) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    task = cfg.task.name if cfg.task.name != "poly" else "poly"
    return Path("runs") / f"{task}-p{cfg.p}-{cfg.model.name}-{cfg.optim.name}-s{cfg.seed}-{stamp}"


def cmd_train(args) -> int:
    from groklab.config import make_config, parse_override
    from groklab.engine.loop import train

    if args.resume:
        steps = None
        for text in args.overrides:
            key, value = parse_override(text)
            if key != "steps":
                raise ConfigError(key, value, "a resumed run keeps its config; only steps=N may be given")
            steps = value
        if steps is not None:
            make_config([f"steps={steps}"])  # type-check before touching the run
        result = train(resume=args.resume, steps=steps)
    else:
        cfg = make_config(args.overrides, file=args.config)
        if args.print_config:  # what would run, every default resolved; nothing trained, nothing written
            from groklab.config.yaml12 import dump

            print(dump(cfg.to_dict()), end="")
            return 0
        result = train(cfg, out=args.out or _default_out(cfg))
    s = result.summary
    print(json.dumps({"out": str(result.path), **{k: s[k] for k in (
        "status", "steps", "wall_s", "steps_per_s", "t_train", "t_test", "gap",
        "final/train_acc", "final/test_acc")}}, indent=1))
    if s["status"] == "diverged":
        print(f"groklab: error: {result.path}: diverged at step {s['steps']} ({s.get('diverged', 'non-finite loss')}); "
              "lower optim.lr, or set stop.diverge_factor=null to keep training", file=sys.stderr)
        return 1
    return 0


def cmd_measure(args) -> int:
    from groklab.engine.posthoc import measure_checkpoint
    from groklab.measures import MEASURES

    names = MEASURES if args.what == "all" else tuple(dict.fromkeys(w.strip() for w in args.what.split(",")))
    unknown = [n for n in names if n not in MEASURES]  # checked before the checkpoint is read: 20,000 names were run
    if unknown:
        raise ConfigError("what", unknown[0][:60], f"allowed: all, or a comma list of {', '.join(MEASURES)}")
    step, scalars, arrays = measure_checkpoint(args.run, args.at, names, args.overrides)
    print(json.dumps({"run": args.run, "step": step, **scalars, "arrays": sorted(arrays)}, indent=1))
    return 0


def cmd_demo(args) -> int:
    from groklab.engine.budget import allow_large
    from groklab.experiments.embedding.demo import run_demo

    for name, value, least in (("seeds", args.seeds, 1), ("steps", args.steps, 0)):
        if value < least:
            raise ConfigError(name, value, f"must be an integer >= {least}")
    if args.seeds > 1000 and not allow_large():
        raise ConfigError("seeds", args.seeds, "at most 1000 seeds per configuration; pass --allow-large for more")
    if args.jobs < 0:
        raise ConfigError("jobs", args.jobs, "must be >= 1 (0: one per CPU core)")
    from groklab.experiments import default_jobs

    run_demo(out=Path(args.out), p=args.p, steps=args.steps, seeds=args.seeds, frac=args.frac,
             jobs=args.jobs or default_jobs())
    return 0


def _sweep_text(args) -> str | None:
    """The text of a sweep file made from -m KEY=V1,V2 axes, --set KEY=VALUE and --seeds (None: FILE is given)."""
    import yaml

    from groklab.config import parse_override

    if bool(args.file) == bool(args.multirun):
        raise ConfigError("sweep", args.file or "-m", "give a sweep FILE or -m KEY=V1,V2 axes (not both)")
    if args.file:
        if args.set or args.seeds is not None:
            raise ConfigError("sweep", args.file, "--set and --seeds go with -m; a FILE has base: and seeds:")
        return None
    grid = {}
    for axis in args.multirun:
        key, _, values = axis.partition("=")
        if not values or (key := key.strip()) in grid:  # a second axis on one key would replace the first
            raise ConfigError("multirun", axis, f"{key} is already an axis: give its values once" if values else
                              "must be KEY=V1,V2,..., e.g. optim.weight_decay=0,0.1,1")
        grid[key] = [parse_override(f"{key}={v}")[1] for v in _top_level(values)]
    return yaml.safe_dump({"base": dict(parse_override(text) for text in args.set), "grid": grid,
                           "seeds": 1 if args.seeds is None else args.seeds}, sort_keys=False)


def _top_level(values: str) -> list[str]:
    """'0,0.1,[0.9,0.98]' -> ['0', '0.1', '[0.9,0.98]']: commas inside brackets belong to a value."""
    out, depth, cur = [], 0, ""
    for ch in values:
        depth += {"[": 1, "{": 1, "]": -1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def cmd_sweep(args) -> int:
    from groklab.engine.setup import preflight
    from groklab.store import check_out, make_out, write_sweep_file
    from groklab.sweep import EXECUTORS, SweepBar, expand, load_sweep, plan, run_units

    # checked here, before the sweep directory is created
    if args.executor not in EXECUTORS:
        raise ConfigError("executor", args.executor, f"allowed: {', '.join(EXECUTORS)}")
    for name, value in (("workers", args.workers), ("members", args.members)):
        if value is not None and value < 1:
            raise ConfigError(name, value, "must be an integer >= 1")
    out = check_out(args.out)  # new, empty or groklab's own: a folder of the user's files is refused
    text = _sweep_text(args)
    with tempfile.TemporaryDirectory() as tmp:  # -m: the same file, written aside until it is valid
        file = Path(args.file) if args.file else Path(tmp) / "axes.yaml"
        if text is not None:
            file.write_text(text)
        sweep = load_sweep(file)  # a FILE is read (and refused) as the store reads any file
    text = Path(args.file).read_text() if text is None else text
    runs = expand(sweep, out)  # every config validated before anything is written
    preflight([r.cfg for r in runs])  # and every point built as far as it can be without training
    units, done, busy = plan(runs, args.packing, args.members)
    write_sweep_file(make_out(out), text)
    print(f"groklab sweep: {len(runs)} runs ({len(done)} finished, {len(busy)} being written by another "
          f"process, {sum(map(len, units))} to run in {len(units)} population(s)) -> {out}", file=sys.stderr)
    bar = SweepBar(len(runs), len(done) + len(busy), show=not args.quiet)
    try:
        results = run_units(units, args.packing, args.executor, args.workers, args.address, bar)
    finally:
        bar.close()
    failed = [name for name, status in results if status.startswith("failed") or status == "diverged"]
    busy += [name for name, status in results if status.startswith("busy")]
    tally = {"out": str(out), "runs": len(runs), "skipped": len(done),
             "ran": sum(not status.startswith("busy") for _, status in results),
             "failed": {name: status for name, status in results if name in failed},
             "busy": [getattr(r, "name", r) for r in busy]}
    if args.json:
        print(json.dumps(tally, indent=1))
    else:
        _print_sweep(out, tally)
    return _failures(failed and [(n, dict(results)[n]) for n in failed], len(runs), args.allow_failed)


def _print_sweep(out: Path, tally: dict) -> None:
    """What a sweep did, in a line, then its table per grid point (what `summarize` prints)."""
    from groklab.sweep import format_table, summarize

    print(f"{tally['runs']} runs: {tally['ran']} trained here, {tally['skipped']} already finished, "
          f"{len(tally['failed'])} failed, {len(tally['busy'])} left to another process -> {tally['out']}")
    try:
        print(format_table(summarize(out)))
    except ConfigError:  # nothing finished yet (every run left to another process)
        pass


def _failures(failed: list, total: int, allowed: bool) -> int:
    """Name the runs that diverged or crashed in one line; exit 1 unless the user allows failures."""
    if not failed:
        return 0
    names = ", ".join(f"{n} ({s.split(':')[0]})" for n, s in failed[:5]) + (" ..." if len(failed) > 5 else "")
    print(f"groklab: {'note' if allowed else 'error'}: {len(failed)} of {total} runs failed: {names}"
          + ("" if allowed else "; --allow-failed exits 0 anyway"), file=sys.stderr)
    return 0 if allowed else 1


def cmd_summarize(args) -> int:
    from groklab.sweep import format_table, summarize

    df = summarize(args.dir)
    own = Path(args.dir) / "summary.csv"  # the tree's own table: groklab's to replace
    csv = Path(args.csv) if args.csv else own
    if csv.is_dir():
        raise ConfigError("csv", str(csv), "is a directory; give a file name")
    if csv.is_symlink() or csv.exists() and not (csv == own and begins_with(csv, b"point,")):
        raise ConfigError("csv", str(csv), "exists; groklab replaces only the tree's own summary.csv (pick a new "
                                           "file name, or remove this one)")
    print(format_table(df))
    atomic_write(csv, df.to_csv(index=False))
    print(f"written: {csv}")
    return _failures(df.attrs["failed"], int(df["n"].sum()), args.allow_failed)


def cmd_check(args) -> int:
    from groklab.store.health import check_tree, format_health

    rows = check_tree(args.dir)
    print(format_health(rows))
    bad = [r for r in rows if not r["ok"]]
    if bad:
        print(f"groklab: error: {len(bad)} of {len(rows)} runs damaged (listed above)", file=sys.stderr)
    return 1 if bad else 0


def cmd_numberline(args) -> int:
    from groklab.numberline import make_spec, run_numberline

    methods = {"both": ["pca", "pls"], "pca": ["pca"], "pls": ["pls"]}[args.method]
    spec = make_spec(model=args.model, run=args.run, numbers=args.numbers, template=args.template,
                     layers=args.layers, methods=methods, dims=args.dims, folds=args.folds,
                     pls_target=args.pls_target, bootstrap=args.bootstrap, scatter=args.scatter,
                     intervene=args.intervene, alpha=args.alpha, batch_size=args.batch_size,
                     device=args.device, dtype=args.dtype, seed=args.seed)
    meta = run_numberline(spec, args.out)
    best = max((r for r in meta["layers"] if r["component"] == 1), key=lambda r: r["rho"] or -1)
    print(json.dumps({"out": args.out, "wall_s": meta["wall_s"], "best_rho_layer": best}, indent=1))
    return 0


def cmd_reproduce(args) -> int:
    from groklab.experiments import default_jobs, reproduce
    from groklab.report import headline

    if args.jobs < 0:
        raise ConfigError("jobs", args.jobs, "must be >= 1 (0: one per CPU core)")
    t0 = time.perf_counter()
    docs = reproduce(args.experiment, args.out, profile=args.profile, seeds=args.seeds,
                     jobs=args.jobs or default_jobs(), overrides=tuple(args.overrides) if args.overrides else None,
                     only=args.only, source=args.source, command=command_line(), train_missing=args.train_missing,
                     budget=args.budget)
    claims = [c for d in docs for c in d["claims"]]
    if any("of" in d for d in docs):  # a study with runs still to train (--only, or --train-missing with --only)
        print(f"partial: {len(claims)} claims measured on a subset, not judged; "
              f"{time.perf_counter() - t0:.0f} s; statistics in {args.out}/<fig>/{PARTIAL}; "
              + ("run the same command again" if args.budget and not args.only else "run again without --only")
              + " to train the rest and judge")
        return 0
    if args.source is not None:  # re-judging is seconds: the report comes with it
        from groklab.report import write_report

        report = write_report(args.out)
    print(f"{headline(claims)}; {time.perf_counter() - t0:.0f} s; report: "
          + (str(report) if args.source is not None else f"groklab report {args.out}"))
    return 0


def cmd_plan(args) -> int:
    from groklab.experiments.estimate import print_plan

    print_plan(args.experiment, args.profile, seeds=args.seeds, source=args.source, out=args.out,
               device=args.device, jobs=args.jobs, slice_s=args.slices)
    return 0


def command_line() -> str:
    """The command line as typed (for the record a reproduction keeps of how it was made)."""
    return "groklab " + shlex.join(sys.argv[1:])


def cmd_archive(args) -> int:
    from groklab.experiments.archive import archive

    doc = archive(args.tree, args.dest, replace=args.replace, command=command_line())
    how = "reproduce STUDY" if doc["papers"] else "earlywarn [--stage pilot]"  # a study of groklab's own
    print(f"archived {args.tree} -> {doc['path']}: {len(doc['sessions'])} session(s), "
          f"{doc['bytes'] / 1e6:.2f} MB; re-judge with groklab {how} --from {doc['path']}")
    return 0


def cmd_cite(args) -> int:
    from groklab.experiments.citations import citations

    print("\n".join(citations(args.study)))
    return 0


def cmd_report(args) -> int:
    from groklab.report import markdown, write_report

    if args.markdown:
        print(markdown(args.dir))
    else:
        print(write_report(args.dir, args.out))
    return 0
