"""Command line: `groklab train key=value ...`, `measure RUN --at STEP`, `demo`, `numberline`,
`reproduce`, `report`. Bad input: one line on stderr, exit 2."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from groklab.errors import ConfigError


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
        result = train(cfg, out=args.out or _default_out(cfg))
    s = result.summary
    print(json.dumps({"out": str(result.path), **{k: s[k] for k in (
        "status", "steps", "wall_s", "steps_per_s", "t_train", "t_test", "gap",
        "final/train_acc", "final/test_acc")}}, indent=1))
    return 0 if s["status"] != "diverged" else 1


def cmd_measure(args) -> int:
    from groklab.measures.posthoc import measure_checkpoint
    from groklab.measures.schedule import MEASURES

    names = MEASURES if args.what == "all" else tuple(w.strip() for w in args.what.split(","))
    step, scalars, arrays = measure_checkpoint(args.run, args.at, names, args.overrides)
    print(json.dumps({"run": args.run, "step": step, **scalars, "arrays": sorted(arrays)}, indent=1))
    return 0


def cmd_demo(args) -> int:
    from groklab.demo import run_demo

    run_demo(out=Path(args.out), p=args.p, steps=args.steps, seeds=args.seeds, frac=args.frac)
    return 0


def cmd_sweep(args) -> int:
    from groklab.executors import EXECUTORS, Progress, run_units
    from groklab.sweep import expand, load_sweep, plan

    # checked here, before the sweep directory is created
    if args.executor not in EXECUTORS:
        raise ConfigError("executor", args.executor, f"allowed: {', '.join(EXECUTORS)}")
    for name, value in (("workers", args.workers), ("members", args.members)):
        if value is not None and value < 1:
            raise ConfigError(name, value, "must be an integer >= 1")
    out = Path(args.out)
    sweep = load_sweep(args.file)
    runs = expand(sweep, out)  # every config validated before anything is written
    units, done = plan(runs, args.packing, args.members)
    out.mkdir(parents=True, exist_ok=True)
    (out / "sweep.yaml").write_text(Path(args.file).read_text())
    print(f"groklab sweep: {len(runs)} runs ({len(done)} finished, {sum(map(len, units))} to run in "
          f"{len(units)} population(s)) -> {out}", file=sys.stderr)
    progress = Progress(len(runs), len(done), show=not args.quiet)
    try:
        results = run_units(units, args.packing, args.executor, args.workers, args.address, progress)
    finally:
        progress.close()
    failed = [name for name, status in results if status.startswith("failed")]
    print(json.dumps({"out": str(out), "runs": len(runs), "skipped": len(done), "ran": len(results),
                      "failed": failed}, indent=1))
    return 1 if failed else 0


def cmd_summarize(args) -> int:
    from groklab.summarize import format_table, summarize

    df = summarize(args.dir)
    print(format_table(df))
    if not df.empty:
        csv = Path(args.csv) if args.csv else Path(args.dir) / "summary.csv"
        df.to_csv(csv, index=False)
        print(f"written: {csv}")
    return 0


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


def _numberline_parser(sub) -> None:
    nl = sub.add_parser("numberline", help="number-line probe of an LLM's numerals or a run's embeddings",
                        description="Project numeral hidden states to 1-D/2-D (PCA, out-of-fold PLS) per layer; "
                                    "report Spearman rho, beta of z = a + b n^beta with a 95%% CI, R^2 log vs "
                                    "linear. Models are read from a local directory only.")
    src = nl.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", help="local Hugging Face model directory (needs groklab[llm])")
    src.add_argument("--run", help="groklab run directory: analyse its operand embeddings 0..p-1")
    nl.add_argument("--out", required=True, help="output directory (new or empty)")
    nl.add_argument("--numbers", help="1:1000 | 0:100:5 | log:1:1e6:200 | 3,17,42 | @file (default 1:1000)")
    nl.add_argument("--template", default="{n}", help="text around each numeral, with {n} once")
    nl.add_argument("--layers", default="all", help="all | comma-separated indices (0 = embeddings, -1 = last)")
    nl.add_argument("--method", choices=["pca", "pls", "both"], default="both")
    nl.add_argument("--dims", type=int, default=1, help="1 or 2 projection dimensions")
    nl.add_argument("--folds", type=int, default=5, help="out-of-fold PLS folds (0: in-sample)")
    nl.add_argument("--pls-target", default="n", help="PLS regresses on n or log (default n)")
    nl.add_argument("--bootstrap", type=int, default=0, help="beta CI by B bootstrap resamples (default: Wald)")
    nl.add_argument("--scatter", help="layers for the projection scatter (default: first, middle, last)")
    nl.add_argument("--intervene", type=int, metavar="LAYER", help="steer block LAYER's input along the line")
    nl.add_argument("--alpha", type=float, default=4.0, help="steering strength (unit direction; default 4)")
    nl.add_argument("--batch-size", type=int, default=16)
    nl.add_argument("--device", default="cpu", help="cpu | cuda | auto")
    nl.add_argument("--dtype", default="float32", help="float32 | bfloat16 | float16")
    nl.add_argument("--seed", type=int, default=0)
    nl.set_defaults(func=cmd_numberline)


def cmd_reproduce(args) -> int:
    from groklab.experiments import default_jobs, reproduce

    if args.jobs < 0:
        raise ConfigError("jobs", args.jobs, "must be >= 1 (0: one per CPU core)")
    t0 = time.perf_counter()
    docs = reproduce(args.experiment, args.out, profile=args.profile, seeds=args.seeds,
                     jobs=args.jobs or default_jobs(), overrides=tuple(args.overrides))
    claims = [c for d in docs for c in d["claims"]]
    print(f"{sum(c['holds'] for c in claims)} of {len(claims)} claims hold; "
          f"{time.perf_counter() - t0:.0f} s; report: groklab report {args.out}")
    return 0


def cmd_report(args) -> int:
    from groklab.report import markdown, write_report

    if args.markdown:
        print(markdown(args.dir))
    else:
        print(write_report(args.dir, args.out))
    return 0


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="groklab", description="A laboratory for grokking.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train", help="train one run: groklab train task=mul model=mlp_emb optim=adam_lr",
                       description="Train one run. Keys: task, p, encoding, split.*, model.*, optim.*, "
                                   "batch_size, sampler, steps, seed, eval.*, grok.*, stop.*, "
                                   "checkpoint_every, checkpoint_keep, measures.*, device, dtype, progress.")
    t.add_argument("overrides", nargs="*", metavar="key=value", help="dotted config overrides")
    t.add_argument("--config", help="YAML config file, applied before the overrides")
    t.add_argument("--out", help="run directory to create (default: runs/<task>-p<p>-<model>-...)")
    t.add_argument("--resume", metavar="DIR", help="continue the run in DIR (optionally steps=N)")
    t.set_defaults(func=cmd_train)
    ms = sub.add_parser("measure", help="measure a saved checkpoint: groklab measure RUN --at STEP",
                        description="Compute measures on a run's checkpoint; writes RUN/posthoc/step_<N>.json/.npz.")
    ms.add_argument("run", metavar="RUN_DIR")
    ms.add_argument("--at", type=int, help="step (a kept ckpt_<step>.pt, the latest ckpt.pt, or 0 = init); "
                                           "default: the latest checkpoint")
    ms.add_argument("--what", default="all", help="comma list of hessian,spectra,progress,token_grads,geometry,"
                                                  "landscape (default all)")
    ms.add_argument("overrides", nargs="*", metavar="measures.key=value", help="e.g. measures.hessian.k=3")
    ms.set_defaults(func=cmd_measure)
    d = sub.add_parser("demo", help="the core observation of paper 000 in a few minutes on a CPU")
    d.add_argument("--out", default="runs/demo", help="directory for the runs and the figure")
    d.add_argument("--p", type=int, default=47, help="modulus (default 47)")
    d.add_argument("--steps", type=int, default=6000, help="max steps per run (default 6000)")
    d.add_argument("--seeds", type=int, default=3, help="seeds per configuration (default 3)")
    d.add_argument("--frac", type=float, default=0.5, help="training fraction of the table (default 0.5)")
    d.set_defaults(func=cmd_demo)
    w = sub.add_parser("sweep", help="run a grid of configs over seeds: groklab sweep grid.yaml --out runs/g",
                       description="Expand a sweep file, run it (finished runs are skipped, unfinished resumed).")
    w.add_argument("file", help="sweep YAML: config, base, grid, seeds, seed_keys")
    w.add_argument("--out", required=True, help="directory for the sweep's runs")
    w.add_argument("--executor", default="inprocess", help="inprocess (default), process or ray")
    w.add_argument("--workers", type=int, help="process pool size (default: CPU count)")
    w.add_argument("--address", help="Ray cluster address (default: start a local Ray)")
    w.add_argument("--packing", default="auto", help="auto (stacked on a GPU), sequential or stacked")
    w.add_argument("--members", type=int, default=256, help="most members per stacked population")
    w.add_argument("--quiet", action="store_true", help="no progress bar")
    w.set_defaults(func=cmd_sweep)
    m = sub.add_parser("summarize", help="statistics over seeds per grid point: groklab summarize runs/g")
    m.add_argument("dir", help="a sweep directory (or any tree of runs)")
    m.add_argument("--csv", help="where to write the CSV (default: DIR/summary.csv)")
    m.set_defaults(func=cmd_summarize)
    _numberline_parser(sub)
    r = sub.add_parser("reproduce", help="re-run a paper figure, draw it, check its claims: embedding/fig6",
                       description="Train a paper figure's runs into OUT/<fig>/<run> (finished runs are "
                                   "skipped, unfinished ones resumed), draw PNG and PDF figures and write "
                                   "claims.json with a verdict per claim.")
    r.add_argument("experiment", help="embedding/<fig> (fig2, fig3, fig4, fig5, fig6, fig7, fig8, fig10, "
                                      "fig11) or embedding/all")
    r.add_argument("overrides", nargs="*", metavar="key=value", help="appended to every run's config")
    r.add_argument("--profile", default="quick", help="quick (CPU-friendly sizes) or paper (the paper's)")
    r.add_argument("--seeds", type=int, default=3, help="seeds per configuration (default 3)")
    r.add_argument("--out", default="runs/reproduce", help="experiment tree (default runs/reproduce)")
    r.add_argument("--jobs", type=int, default=0, help="runs trained at once, 1 thread each (default: cores)")
    r.set_defaults(func=cmd_reproduce)
    rp = sub.add_parser("report", help="one self-contained HTML page for an experiment tree")
    rp.add_argument("dir", help="directory written by groklab reproduce")
    rp.add_argument("--out", help="HTML file to write (default DIR/report.html)")
    rp.add_argument("--markdown", action="store_true", help="print the claim verdicts as a Markdown table")
    rp.set_defaults(func=cmd_report)
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = parser()
    args, extra = ap.parse_known_args(argv)
    if extra and (args.cmd != "measure" or any(x.startswith("-") for x in extra)):
        ap.error(f"unrecognized arguments: {' '.join(extra)}")
    if extra:  # `measure RUN --at N key=value`: overrides after options land here
        args.overrides = args.overrides + extra
    try:
        return args.func(args)
    except ConfigError as err:
        print(f"groklab: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("groklab: interrupted; continue with --resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
