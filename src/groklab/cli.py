"""Command line: `groklab train key=value ...`, `groklab demo`. Bad input: one line on stderr, exit 2."""
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


def cmd_demo(args) -> int:
    from groklab.demo import run_demo

    run_demo(out=Path(args.out), p=args.p, steps=args.steps, seeds=args.seeds, frac=args.frac)
    return 0


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="groklab", description="A laboratory for grokking.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train", help="train one run: groklab train task=mul model=mlp_emb optim=adam_lr",
                       description="Train one run. Keys: task, p, encoding, split.*, model.*, optim.*, "
                                   "batch_size, sampler, steps, seed, eval.*, grok.*, stop.*, "
                                   "checkpoint_every, device, dtype, progress.")
    t.add_argument("overrides", nargs="*", metavar="key=value", help="dotted config overrides")
    t.add_argument("--config", help="YAML config file, applied before the overrides")
    t.add_argument("--out", help="run directory to create (default: runs/<task>-p<p>-<model>-...)")
    t.add_argument("--resume", metavar="DIR", help="continue the run in DIR (optionally steps=N)")
    t.set_defaults(func=cmd_train)
    d = sub.add_parser("demo", help="the core observation of paper 000 in a few minutes on a CPU")
    d.add_argument("--out", default="runs/demo", help="directory for the runs and the figure")
    d.add_argument("--p", type=int, default=47, help="modulus (default 47)")
    d.add_argument("--steps", type=int, default=6000, help="max steps per run (default 6000)")
    d.add_argument("--seeds", type=int, default=3, help="seeds per configuration (default 3)")
    d.add_argument("--frac", type=float, default=0.5, help="training fraction of the table (default 0.5)")
    d.set_defaults(func=cmd_demo)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
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
