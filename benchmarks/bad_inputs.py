"""Bad inputs over every subcommand, run as a user would (a fresh `groklab` process each): exit code, stderr,
time, what is left on disk. Writes the table of docs/reliability.md.

    python benchmarks/bad_inputs.py                       # print the table
    python benchmarks/bad_inputs.py --write docs/reliability.md
    python benchmarks/bad_inputs.py --only sweep-seeds-huge train-K-huge

A case is clean when it exits with its expected code (2: refused before anything was written; 1: a failure
found or reached after work began), prints exactly one `groklab: error:` line and no traceback, ends within
the time limit, leaves nothing at the paths it names and changes or removes no file that was in its folder
(a SHA-256 snapshot before and after); or, for a damaged file that can be recovered safely (expected code 0),
when it recovers, announces it with a `groklab: note:` line and leaves the user's folder `mine/` as it was.
`tests/cli/test_bad_inputs.py` runs every case in-process and holds each to that.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bad_input_cases import CASES, GRID, TINY, YAML_TEXTS  # noqa: E402  (the table, kept apart from the machinery)


def _train_fixture(root: Path) -> Path:
    """One finished tiny run, trained once and copied into each case that needs it."""
    from groklab import make_config, train

    src = root / "fixture-run"
    if not (src / "summary.json").exists():
        train(make_config(TINY), out=src)
    return src


def _damage(run: Path, how: str) -> None:
    if how == "summary-trunc":
        (run / "summary.json").write_text((run / "summary.json").read_text()[:20])
    elif how == "metrics-garble":
        lines = (run / "metrics.jsonl").read_text().splitlines()
        lines[1] = lines[1][:15]
        (run / "metrics.jsonl").write_text("\n".join(lines) + "\n")
    elif how == "metrics-torn":
        with open(run / "metrics.jsonl", "a") as f:
            f.write('{"step": 40, "train/lo')
    elif how == "metrics-deleted":
        (run / "metrics.jsonl").unlink()
    elif how == "metrics-binary":
        (run / "metrics.jsonl").write_bytes(os.urandom(300))
    elif how == "config-p":
        (run / "config.yaml").write_text((run / "config.yaml").read_text().replace("p: 11", "p: 13"))
    elif how == "config-trunc":
        (run / "config.yaml").write_text((run / "config.yaml").read_text()[:40])
    elif how == "metrics-deep":  # a row nested 100,000 levels deep
        with open(run / "metrics.jsonl", "a") as f:
            f.write('{"step": 40, "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    elif how == "summary-types":  # strings where the summary holds numbers (a run, or a tree's first run)
        f = run / "summary.json" if (run / "summary.json").exists() else next(run.rglob("summary.json"))
        f.write_text(json.dumps({**json.loads(f.read_text()), "steps": "thirty", "t_train": "soon"}))
    elif how == "summary-huge-int":  # a 5,000-digit integer: past Python's limit for int(str)
        f = run / "summary.json" if (run / "summary.json").exists() else next(run.rglob("summary.json"))
        f.write_text(f.read_text().replace('"steps": ', '"steps": ' + "9" * 5000 + ", \"was\": ", 1))
    elif how == "config-huge-int":
        text = (run / "config.yaml").read_text()
        (run / "config.yaml").write_text(re.sub(r"(?m)^steps: \d+$", "steps: " + "9" * 5000, text, count=1))
    elif how == "ckpt-no-tracker":  # a checkpoint written by another program: weights, no training state
        import torch
        ckpt = torch.load(run / "ckpt.pt", weights_only=True)
        torch.save({k: v for k, v in ckpt.items() if k != "tracker"}, run / "ckpt.pt")
    elif how == "ckpt-random":
        (run / "ckpt.pt").write_bytes(os.urandom(2000))
    elif how == "runs-trunc":
        runs = next(run.rglob("runs.jsonl.gz"))
        runs.write_bytes(runs.read_bytes()[:200])
    elif how in ("run-name-dotdot", "study-dotdot", "notes"):  # an archive forged (Reliability IV)
        if how == "run-name-dotdot":
            f = next(run.rglob("runs.jsonl.gz"))
            lines = [json.loads(x) for x in gzip.open(f, "rt")]
            lines[0]["run"] = "../../../escape"
            with gzip.open(f, "wt") as z:
                z.write("".join(json.dumps(x) + "\n" for x in lines))
        elif how == "study-dotdot":
            index = json.loads((run / "manifest.json").read_text())
            index["studies"] = {f"../{k}": v for k, v in index["studies"].items()}
            (run / "manifest.json").write_text(json.dumps(index))
        else:
            (run / "NOTES.md").write_text("the user's notes, beside an archive\n")
    elif how == "claims-trunc":
        claims = next(run.rglob("claims.json"))
        claims.write_text(claims.read_text()[:30])
    elif how == "diverged":
        from groklab.store import read_summary, write_json
        victim = next(p for p in run.iterdir() if (p / "summary.json").exists())
        s = read_summary(victim)
        write_json(victim / "summary.json", {**s, "status": "diverged"})


def setup(tmp: Path, fixture: Path, spec: str) -> None:
    """Prepare `tmp` for a case: `run`, `run:<damage>`, `file`, `binary`, `list`, `grid:<yaml>`, `empty`,
    `tree[:diverged]`, `repro[:claims-trunc]`, `mine` (a user's folder), `archive[:runs-trunc]`; several
    joined by `|`."""
    for part in filter(None, spec.split("|")):
        kind, _, arg = part.partition(":")
        if kind == "run":
            shutil.copytree(fixture, tmp / "run")
            _damage(tmp / "run", arg)
        elif kind == "file":
            (tmp / "file.txt").write_text("not a directory\n")
        elif kind == "binary":
            (tmp / "bin.yaml").write_bytes(b"\x00\xff\xfe" + os.urandom(100))
        elif kind == "list":
            (tmp / "list.yaml").write_text("- 1\n- 2\n")
        elif kind == "yaml":  # a config file of the given text
            (tmp / "c.yaml").write_text(YAML_TEXTS[arg])
        elif kind == "grid":
            (tmp / "grid.yaml").write_text(GRID + arg.replace("\\n", "\n") + "\n")
        elif kind == "empty":
            (tmp / "empty").mkdir()
        elif kind == "tree":
            for seed in (0, 1):
                shutil.copytree(fixture, tmp / "tree" / f"s{seed}")
            _damage(tmp / "tree", arg)
        elif kind == "repro":
            shutil.copytree(fixture.parent / "fixture-repro", tmp / "repro")
            _damage(tmp / "repro", arg)
        elif kind == "mine":  # a folder of the user's own files (`mine:config`: one that looks like a run's)
            (tmp / "mine").mkdir()
            (tmp / "mine" / "thesis.tex").write_text("mine\n")
            if arg == "config":
                (tmp / "mine" / "config.yaml").write_text("p: 11\n")
                (tmp / "mine" / "sweep.yaml").write_text("my notes\n")
        elif kind == "csv":  # a user's table whose header starts as groklab's summaries do
            (tmp / "data.csv").write_text("point,x,y\n1,2,3\n")
        elif kind == "archive":
            shutil.copytree(fixture.parent / "fixture-archive", tmp / "archive")
            _damage(tmp / "archive", arg)


def _repro_fixture(root: Path) -> None:
    """A tiny finished `reproduce` tree (for the report cases)."""
    from groklab.experiments import reproduce
    from groklab.experiments.archive import archive

    out = root / "fixture-repro"
    if not (out / "fig6").exists():
        reproduce("embedding/fig6", out, profile="quick", seeds=1, jobs=1,
                  overrides=("p=11", "steps=30", "model.d_emb=8", "model.d_hidden=32", "bar=false"))
    if not (root / "fixture-archive").exists():
        archive(out, root / "fixture-archive")


def run_case(case, root: Path, fixture: Path, inproc: bool = False, timeout: float = 120) -> dict:
    """Run one case in a fresh directory; its outcome."""
    name, argv, spec, expect, absent = case
    tmp = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=root))
    setup(tmp, fixture, spec)
    subs = {"{tmp}": str(tmp), "{run}": str(tmp / "run"), "{file}": str(tmp / "file.txt")}
    args = []
    for a in argv:
        for k, v in subs.items():
            a = a.replace(k, v)
        args.append(a)
    before = snapshot(tmp)
    t0 = time.perf_counter()
    if inproc:
        rc, err = _inproc(args, tmp)
    else:
        try:
            cmd = ([sys.executable, str(Path(__file__).with_name("api_case.py")), *args[1:]] if args[:1] == ["api"]
                   else [sys.executable, "-m", "groklab", *args])  # "api": a Python call (api_case.py)
            p = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=timeout, errors="replace")
            rc, err = p.returncode, p.stderr
        except subprocess.TimeoutExpired:
            rc, err = None, f"(no answer within {timeout:.0f} s)"
    wall = time.perf_counter() - t0
    notes = [ln for ln in err.splitlines() if ln.startswith("groklab: note:")]
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("groklab: note:")]
    errors = [ln for ln in lines if re.match(r"groklab( [a-z]+)?: error: ", ln)]  # argparse: "groklab train: error:"
    left = [a for a in absent if Path(a.replace("{tmp}", str(tmp))).exists()]
    touched = changed(before, snapshot(tmp), mine_only=expect == 0)
    one_line = len(errors) == 1  # status lines (a sweep's plan, a usage line) may come with it
    if expect == 0:  # a safe recovery: it must be announced
        one_line = bool(notes) and not errors
    clean = rc == expect and bool(one_line) and "Traceback" not in err and not left and not touched
    message = errors[-1] if errors else notes[-1] if expect == 0 and notes else (lines[-1] if lines else "")
    message = message.replace(str(tmp), "{tmp}")  # the table shows where, not which temp folder
    return {"name": name, "argv": argv, "expect": expect, "rc": rc, "message": message[:300],
            "lines": len(lines), "left": left, "touched": touched, "wall_s": round(wall, 2), "clean": clean}


def snapshot(tmp: Path) -> dict[str, bytes]:
    """Every file below a case's folder (a user's files and the damaged fixtures) by its content digest."""
    return {p.relative_to(tmp).as_posix(): hashlib.sha256(p.read_bytes()).digest()
            for p in sorted(tmp.rglob("*")) if p.is_file() and not p.is_symlink()}


def changed(before: dict, after: dict, mine_only: bool = False) -> list[str]:
    """Files a refused command changed or removed: none may be (a refusal touches nothing that was there).
    A case that recovers (exit 0) may rewrite groklab's own files; the user's folder `mine/` stays as it was."""
    keep = [k for k in before if not mine_only or k.startswith("mine/")]
    # a run's .lock holds the pid of its last writer: opening a run to resume records the new one (as a
    # process of its own, unlike the in-process test), which is groklab's bookkeeping, not a file changed
    return [k for k in keep if after.get(k) != before[k] and not k.endswith("/.lock")]


def _inproc(args: list[str], cwd: Path) -> tuple[int, str]:
    import contextlib
    import io

    from groklab.cli import main

    buf, old = io.StringIO(), os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stderr(buf), contextlib.redirect_stdout(io.StringIO()):
            try:
                if args[:1] == ["api"]:
                    from api_case import call
                    rc = call(*args[1:])
                else:
                    rc = main(args)
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else 2
            except Exception:  # a traceback a user would see
                import traceback
                buf.write(traceback.format_exc())
                rc = 1
    finally:
        os.chdir(old)
    return rc, buf.getvalue()


def _short(argv: list[str]) -> str:
    text = " ".join(a if a and " " not in a else repr(a) for a in argv)
    text = text.replace(" ".join(TINY), "<tiny>")
    return text if len(text) <= 90 else text[:87] + "..."


def table(results: list[dict]) -> str:
    rows = ["| case | command | exit (expected) | stderr | clean |", "| --- | --- | --- | --- | --- |"]
    for r in results:
        msg = r["message"].replace("|", "\\|")
        msg = msg if len(msg) <= 240 else f"{msg[:150]} ... {msg[-85:]}"  # the field and what is wrong
        argv = r["argv"]
        command = f"groklab.{argv[1]}(**{argv[2]})" if argv[:1] == ["api"] else f"groklab {_short(argv)}"
        rows.append(f"| {r['name']} | `{command.replace('|', chr(92) + '|')}` | {r['rc']} ({r['expect']}) | {msg} | "
                    f"{'yes' if r['clean'] else 'NO'} |")
    return "\n".join(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", help="write the Markdown table into this file (between the case-table markers)")
    ap.add_argument("--only", nargs="*", help="case names")
    ap.add_argument("--json", help="also write the outcomes as JSON")
    ap.add_argument("--from-json", help="rebuild the table from outcomes written by --json (runs nothing)")
    a = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="groklab-bad-"))
    results = json.loads(Path(a.from_json).read_text()) if a.from_json else []
    if not a.from_json:
        fixture = _train_fixture(root)
        _repro_fixture(root)
    for case in [] if a.from_json else [c for c in CASES if not a.only or c[0] in a.only]:
        r = run_case(case, root, fixture)
        results.append(r)
        print(f"{r['name']:32s} rc={r['rc']} ({r['expect']}) {'ok ' if r['clean'] else 'BAD'} {r['wall_s']:6.1f}s "
              f"{r['message'][:110]}", flush=True)
    n = sum(r["clean"] for r in results)
    print(f"{n} of {len(results)} clean")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))
    if a.write:
        path = Path(a.write)
        text = path.read_text()
        start, end = "<!-- cases:start -->", "<!-- cases:end -->"
        head, _, rest = text.partition(start)
        _, _, tail = rest.partition(end)
        path.write_text(f"{head}{start}\n{n} of {len(results)} cases clean.\n\n{table(results)}\n{end}{tail}")
    shutil.rmtree(root, ignore_errors=True)
    return 0 if n == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
