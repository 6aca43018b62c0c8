"""The `groklab` argument parser: one subparser per command, each `--help` ending with two real examples."""
from __future__ import annotations

import argparse

from groklab.cli import commands as c
from groklab.cli import studies as st

EXAMPLES = {
    "train": ["groklab train task=mul p=97 optim=adam optim.c=10 optim.lr=0.01 --out runs/mul-c10",
              "groklab train --resume runs/mul-c10 steps=40000"],
    "measure": ["groklab measure runs/m --at 3000",
                "groklab measure runs/m --what hessian,landscape measures.hessian.k=5"],
    "demo": ["groklab demo", "groklab demo --p 31 --seeds 1 --out runs/demo31"],
    "sweep": ["groklab sweep grid.yaml --out runs/g",
              "groklab sweep -m optim.weight_decay=0,0.1,1 --set p=47 --seeds 3 --out runs/wd"],
    "summarize": ["groklab summarize runs/g", "groklab summarize runs/g --csv g.csv"],
    "check": ["groklab check runs/g", "groklab check runs/mul-c10"],
    "numberline": ["groklab numberline --model ~/models/gpt2 --numbers log:1:1e6:200 --out runs/nl",
                   "groklab numberline --run runs/mul-c10 --out runs/nl-grok"],
    "reproduce": ["groklab reproduce embedding/fig6 --profile quick --seeds 3 --out runs/repro",
                  "groklab reproduce embedding/fig6 --profile paper --from results/embedding-paper --out runs/r"],
    "plan": ["groklab plan investigation/all --profile paper --device cuda",
             "groklab plan beyond/all --profile paper --from results/beyond-paper --device cuda"],
    "report": ["groklab report runs/repro", "groklab report results/embedding-paper --markdown"],
    "cite": ["groklab cite results/embedding-paper/fig6",
             "groklab cite results/embedding-paper/fig6/adam_lr_faster_mul"],
    "grokbench": ["groklab grokbench --profile quick --out runs/gb",
                  "groklab grokbench --profile quick --from results/grokbench-quick --out runs/gb-rejudged"],
    "earlywarn": ["groklab earlywarn --out runs/ew --jobs 2",
                  "groklab earlywarn --stage pilot --from results/earlywarn-pilot --out runs/ew-pilot"],
    "archive": ["groklab archive runs/repro results/embedding-quick",
                "groklab archive runs/paper results/embedding-paper --replace"],
}


def _sub(sub, name: str, func, help: str, description: str | None = None) -> argparse.ArgumentParser:
    epilog = "examples:\n" + "\n".join(f"  {e}" for e in EXAMPLES[name])
    p = sub.add_parser(name, help=help, description=description or help, epilog=epilog,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(func=func)
    return p


def _version() -> str:
    """The installed version (read from the package metadata: importing groklab would load torch)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("groklab")
    except PackageNotFoundError:
        return "unknown (not installed)"


def parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    ap = argparse.ArgumentParser(
        prog="groklab", description="A laboratory for grokking. Papers, as `reproduce` names them: embedding/ = "
        "Mechanistic Insights into Grokking from the Embedding Layer; beyond/ = Beyond Progress Measures (arXiv "
        "2504.03162); investigation/ = An Investigation Report of the Grokking Phenomenon; `numberline` = Number "
        "Representations in LLMs (arXiv 2502.16147).")
    ap.add_argument("--version", action="version", version=f"groklab {_version()}")
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = _sub(sub, "train", c.cmd_train, "train one run: groklab train task=mul model=mlp_emb optim=adam optim.c=10",
             "Train one run. Keys: task, p, encoding, split.*, model.*, optim.*, batch_size, sampler, steps, seed, "
             "eval.*, grok.*, stop.*, checkpoint_every, checkpoint_keep, measures.*, device, dtype, bar.")
    t.add_argument("overrides", nargs="*", metavar="key=value", help="dotted config overrides")
    t.add_argument("--config", help="YAML config file, applied before the overrides")
    t.add_argument("--out", help="run directory to create (default: runs/<task>-p<p>-<model>-...)")
    t.add_argument("--resume", metavar="DIR", help="continue the run in DIR (optionally steps=N)")
    t.add_argument("--print-config", action="store_true", help="print the resolved config as YAML and exit")
    _run_options(t)
    ms = _sub(sub, "measure", c.cmd_measure, "measure a saved checkpoint: groklab measure RUN --at STEP",
              "Compute measures on a run's checkpoint; writes RUN/posthoc/step_<N>.json/.npz.")
    ms.add_argument("run", metavar="RUN_DIR")
    ms.add_argument("--at", type=int, help="step (a kept ckpt_<step>.pt, the latest ckpt.pt, or 0 = init); "
                                           "default: the latest checkpoint")
    ms.add_argument("--what", default="all", help="comma list of hessian,spectra,progress,token_grads,geometry,"
                                                  "landscape (default all)")
    ms.add_argument("overrides", nargs="*", metavar="measures.key=value", help="e.g. measures.hessian.k=3")
    d = _sub(sub, "demo", c.cmd_demo, "the core observation of paper 000 in a few minutes on a CPU")
    d.add_argument("--out", default="runs/demo", help="directory for the runs and the figure")
    d.add_argument("--p", type=int, default=47, help="modulus (default 47)")
    d.add_argument("--steps", type=int, default=6000, help="max steps per run (default 6000)")
    d.add_argument("--seeds", type=int, default=3, help="seeds per configuration (default 3)")
    d.add_argument("--frac", type=float, default=0.5, help="training fraction of the table (default 0.5)")
    d.add_argument("--jobs", type=int, default=0, help="runs trained at once, 1 thread each (default: cores)")
    _run_options(d)
    _format(d)
    w = _sub(sub, "sweep", c.cmd_sweep, "run a grid of configs over seeds: groklab sweep grid.yaml --out runs/g",
             "Expand a sweep file and run it: finished runs are skipped, unfinished ones resumed, runs that "
             "another process is writing are left to it.")
    w.add_argument("file", nargs="?", help="sweep YAML: config, base, grid, seeds, seed_keys (or -m instead)")
    w.add_argument("-m", "--multirun", action="append", metavar="KEY=V1,V2", help="a grid axis from the command "
                   "line, e.g. -m optim.weight_decay=0,0.1,1 (repeat for more axes; instead of FILE)")
    w.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="with -m: a setting every run "
                   "shares, e.g. --set p=47")
    w.add_argument("--seeds", type=int, help="with -m: seeds per grid point (default 1)")
    w.add_argument("--out", required=True, help="directory for the sweep's runs")
    w.add_argument("--executor", default="inprocess", help="inprocess (default), process or ray")
    w.add_argument("--workers", type=int, help="process pool size (default: CPU count)")
    w.add_argument("--address", help="Ray cluster address (default: start a local Ray)")
    w.add_argument("--packing", default="auto", help="auto (stacked on a GPU), sequential or stacked")
    w.add_argument("--members", type=int, default=256, help="most members per stacked population")
    w.add_argument("--quiet", action="store_true", help="no progress bar")
    w.add_argument("--json", action="store_true", help="end with what was run as JSON instead of the table")
    _run_options(w)
    _allow_failed(w)
    m = _sub(sub, "summarize", c.cmd_summarize, "statistics over seeds per grid point: groklab summarize runs/g")
    m.add_argument("dir", help="a sweep directory (or any tree of runs)")
    m.add_argument("--csv", help="where to write the CSV (default: DIR/summary.csv)")
    _allow_failed(m)
    k = _sub(sub, "check", c.cmd_check, "the health of every run in a tree: readable files, resumable checkpoints",
             "Read every file of every run below DIR as a resume would (config, metrics, summary, checkpoint, "
             "arrays) and print one line per run; exit 1 if any run is damaged.")
    k.add_argument("dir", help="a run directory or a tree of runs")
    _numberline_args(_sub(sub, "numberline", c.cmd_numberline,
                          "number-line probe of an LLM's numerals or a run's embeddings",
                          "Project numeral hidden states to 1-D/2-D (PCA, out-of-fold PLS) per layer; report Spearman "
                          "rho, beta of z = a + b n^beta with a 95% CI, R^2 log vs linear. Models are read from a "
                          "local directory only."))
    r = _sub(sub, "reproduce", c.cmd_reproduce, "re-run a paper figure, draw it, check its claims: embedding/fig6",
             "Train a paper figure's runs into OUT/<fig>/<run> (finished runs are skipped, unfinished ones "
             "resumed), draw PNG and PDF figures and write claims.json with a verdict per claim.")
    r.add_argument("experiment", help="embedding/<fig> (000: fig2 ... fig12, init43, sampler, adaptive), beyond/<x> "
                                      "(004: table1, fig4, dnn, med, depth, embdim, circulant, uniformity, resnet, "
                                      "threshold), "
                                      "investigation/<study> (002: task1, lstm, mlp, birnn, optimizers, decay, "
                                      "ksum, landscape), or <paper>/all")
    r.add_argument("overrides", nargs="*", metavar="key=value", help="appended to every run's config")
    r.add_argument("--profile", default="quick", help="quick (CPU-friendly sizes) or paper (the paper's)")
    r.add_argument("--seeds", type=int, help="seeds per configuration (default: quick 5, paper 3; with --from, "
                                             "the archive's)")
    r.add_argument("--out", default="runs/reproduce", help="experiment tree (default runs/reproduce)")
    r.add_argument("--jobs", type=int, default=0, help="runs trained at once, 1 thread each (default: cores)")
    r.add_argument("--only", metavar="GLOB", help="train only the runs whose name matches (e.g. 'mul/b512/*'; "
                                                  "several globs: 'a/*,b/*'); "
                                                  "their statistics are written without verdicts")
    r.add_argument("--from", dest="source", metavar="ARCHIVE", help="re-judge the runs of a results archive "
                   "(groklab archive) without training: claims, figures and report in seconds")
    r.add_argument("--train-missing", action="store_true", help="with --from: train the runs the archive lacks "
                   "(those matching --only, when given) beside its own, to finish a reproduction archived part-way")
    r.add_argument("--budget", type=float, metavar="SECONDS", help="start a run only while its estimated time "
                   "(groklab plan) fits what is left; the rest are left for the same command again")
    _run_options(r)
    _format(r)
    pl = _sub(sub, "plan", c.cmd_plan, "what a reproduction still has to train, and its estimated time",
              "List the units a reproduction would train (a study's runs of one configuration: one stacked "
              "population on a GPU), with estimated seconds from a cost model fitted to archived runs "
              "(src/groklab/sweep/costs.json); runs an archive (--from) or a tree (--out) already holds are not "
              "listed. The last line: N units, about M min on DEVICE.")
    pl.add_argument("experiment", help="as for reproduce: embedding/fig6, investigation/all, ...")
    pl.add_argument("--profile", default="quick", help="quick or paper")
    pl.add_argument("--seeds", type=int, help="seeds per configuration (default: quick 5, paper 3; the archive's)")
    pl.add_argument("--from", dest="source", metavar="ARCHIVE", help="list only the runs this archive lacks")
    pl.add_argument("--out", help="a tree whose finished runs are not listed")
    pl.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="estimate for this device")
    pl.add_argument("--jobs", type=int, default=1, help="CPU runs side by side (divides the CPU total)")
    pl.add_argument("--slices", type=float, metavar="SECONDS", help="print the units as results/PLAN.md's table: "
                    "slices of at most SECONDS each, one GPU command each (benchmarks/gpu_slice.sh)")
    rp = _sub(sub, "report", c.cmd_report, "one self-contained HTML page for an experiment tree")
    rp.add_argument("dir", help="directory written by groklab reproduce, or a results archive")
    rp.add_argument("--out", help="HTML file to write (default DIR/report.html)")
    rp.add_argument("--markdown", action="store_true", help="print the claim verdicts as a Markdown table")
    gb = _sub(sub, "grokbench", st.cmd_grokbench, "which methods speed up grokking, tuned alike: the leaderboard",
              "Tune every method with the same number of runs per task (declared ranges, tuning seeds), run its best "
              "configuration on held-out seeds, and rank by censoring-aware statistics: Kaplan-Meier median steps, "
              "P(improvement) over tuned AdamW, the interquartile mean across tasks (docs/grokbench.md).")
    gb.add_argument("--profile", choices=["quick", "paper", "tiny"], default="quick",
                    help="quick: CPU (~1 h on 2 cores); paper: the paper-sized runs (a GPU)")
    gb.add_argument("--out", required=True, help="output directory (new, or one to continue)")
    gb.add_argument("--from", dest="source", metavar="ARCHIVE", help="re-judge a packed GrokBench, no training")
    gb.add_argument("--methods", help="comma list of methods (default all; the baseline always runs)")
    gb.add_argument("--tasks", help="comma list of the profile's tasks (default all)")
    gb.add_argument("--add-methods", metavar="FILE", help="a YAML file of methods to add (methods.yaml's form)")
    gb.add_argument("--protocol", metavar="FILE", help="a protocol file in place of the built-in one")
    gb.add_argument("--jobs", type=int, help="runs trained at once (default: one per core)")
    gb.add_argument("--anchors", nargs="?", const="all", metavar="NAMES",
                    help="run the anchors instead of the board: each published claim in its authors' setting "
                         "against its paper's baseline and a tuned AdamW (all, or a comma list: grokfast,muon,"
                         "perp_grad); with --from, re-judge them")
    ew = _sub(sub, "earlywarn", st.cmd_earlywarn, "which progress measure warns that a run will grok, and how early",
              "Train the preregistered early-warning study under its frozen protocol (docs/earlywarn.md) and judge "
              "it: the pilot that chose each setting's fraction, or the study's explore, evaluate and held-out runs "
              "(finished runs are skipped, unfinished ones resume).")
    ew.add_argument("--stage", choices=["pilot", "study"], default="study", help="which study folder (default study)")
    ew.add_argument("--profile", choices=["quick"], default="quick", help="quick: CPU (p = 31, 32, 24)")
    ew.add_argument("--out", required=True, help="output directory (new, or one to continue)")
    ew.add_argument("--from", dest="source", metavar="ARCHIVE", help="re-judge an archive's runs, no training")
    ew.add_argument("--jobs", type=int, help="runs trained at once (default 1)")
    ct = _sub(sub, "cite", c.cmd_cite, "a study's verdicts as citable lines, with BibTeX for groklab and the paper")
    ct.add_argument("study", help="a judged study (ARCHIVE/STUDY or a reproduce --out's study), or STUDY/CLAIM")
    a = _sub(sub, "archive", c.cmd_archive, "keep a reproduction's evidence: groklab archive TREE results/NAME",
             "Write the results archive of a reproduction's run tree: each study's manifest, claims and figures, "
             "and per run the resolved config, every metric row, the summary and the measured arrays (no "
             "checkpoints), with the build, machine and commands. Built aside and renamed in: all or nothing.")
    a.add_argument("tree", help="the --out of groklab reproduce")
    a.add_argument("dest", help="archive directory to write, e.g. results/embedding-paper")
    a.add_argument("--replace", action="store_true", help="replace an existing archive at DEST")
    return ap, dict(sub.choices)


def _run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--threads", help="CPU threads per run (default: usable CPUs // runs at once; 'torch': torch's "
                   "own choice); also GROKLAB_THREADS")
    _allow_large(p)


def _format(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", metavar="LIST", help="figure files to write, a comma list of png, pdf, svg (PNG "
                   "always: the report embeds it; default PNG, and PDF for paper figures)")


def _allow_large(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow-large", action="store_true", help="skip the size checks (memory estimate, runs in a "
                   "sweep, numbers in a probe); also GROKLAB_ALLOW_LARGE=1")


def _allow_failed(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow-failed", action="store_true", help="exit 0 even when runs diverged or crashed "
                   "(they are still named)")


def _numberline_args(nl: argparse.ArgumentParser) -> None:
    src = nl.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", help="local Hugging Face model directory (needs groklab[llm])")
    src.add_argument("--run", help="groklab run directory: analyse its operand embeddings 0..p-1")
    nl.add_argument("--out", required=True, help="output directory (new or empty)")
    _format(nl)
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
    _allow_large(nl)
