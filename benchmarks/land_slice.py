"""Land what a GPU slice brought back in its results archive: the one step after benchmarks/gpu_slice.sh.

    python benchmarks/land_slice.py trees.tgz results/beyond-paper                  # the slice's archive
    python benchmarks/land_slice.py trees.tgz results/investigation-paper --paper investigation   # a first one

1. Unpacks trees.tgz (a tree `slice/`, one folder per study) aside, with tarfile's "data" filter: no link, no
   device file, no absolute path and no '..' leaves the folder.
2. Re-judges every study the archive holds into a new tree (`reproduce PAPER/all --from ARCHIVE`); a study held
   part-way is laid out as it is (`--train-missing` under a budget no run fits: partial, nothing trained).
3. Puts each study of the slice in place of the archive's: the slice ran `--from ARCHIVE --train-missing`, so its
   study folder holds the archived runs beside the new ones. Its runs are evidence, its verdicts are not: a run
   folder the study does not make (at the archive's seeds and overrides) is refused, the slice's claims.json,
   partial.json and figures are dropped, and the study is judged again here from its runs (whole once every run
   is there, nothing trained).
4. Writes the archive anew (`groklab archive TREE ARCHIVE --replace`: built aside, renamed in, all or nothing)
   and prints each verdict that changed (benchmarks/verdict_changes.py) and what to regenerate.
Nothing is written to the archive until every step before has succeeded.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from groklab.errors import ConfigError  # noqa: E402

MAX_MEMBERS = 200_000  # a slice of 62 units holds ~20,000 files


def unpack(tgz: Path, into: Path) -> Path:
    """The `slice/` tree of `tgz`, extracted below `into` with the "data" filter; its study folders checked."""
    try:
        with tarfile.open(tgz, "r:gz") as tar:
            names = [m.name.rstrip("/") for m in tar.getmembers()]
            twice = sorted(n for n, k in Counter(names).items() if k > 1)
            if twice:  # a second member of one name would silently win (a forged claims.json after the real one)
                raise ConfigError("trees", str(tgz), f"holds {twice[0]!r} twice: a slice has one of each file")
            if len(names) > MAX_MEMBERS:
                raise ConfigError("trees", str(tgz), f"holds {len(names):,} members (at most {MAX_MEMBERS:,})")
            tar.extractall(into, filter="data")
    except (tarfile.TarError, OSError, EOFError) as err:
        raise ConfigError("trees", str(tgz), f"is not a readable slice archive ({type(err).__name__}: {err})")
    tree = into / "slice"
    studies = [p for p in tree.iterdir() if p.is_dir()] if tree.is_dir() else []
    if not studies:
        raise ConfigError("trees", str(tgz), "holds no study below slice/ (what benchmarks/gpu_slice.sh returns)")
    return tree


FIGS = {".png", ".pdf", ".svg"}


def runs_of(paper: str, study: Path, archive: Path | None, profile: str, tgz: Path) -> tuple[int, tuple]:
    """(seeds, overrides) the slice's study is judged at -- the archive's, else the slice's own manifest, checked
    as reproduce checks them -- after refusing a run folder the study does not make at them."""
    from groklab.experiments.papers import resolve
    from groklab.experiments.plan import SEEDS, archived_study, specs_of
    from groklab.store.archive import read_index
    from groklab.store.tree import read_manifest

    module = resolve(f"{paper}/{study.name}")[0]
    held = archive is not None and study.name in read_index(archive)["studies"]
    man = read_manifest(archived_study(archive, study.name, profile) if held else study) if (
        held or (study / "experiment.json").is_file()) else {}
    # the machine the slice trained on is not this one: a run left unfinished must not ask for its device here
    seeds = man.get("seeds", SEEDS[profile])
    overrides = tuple(o for o in man.get("overrides", ()) if not str(o).startswith("device="))
    if not isinstance(seeds, int) or isinstance(seeds, bool) or not 1 <= seeds <= 100:
        raise ConfigError("trees", str(tgz), f"{study.name}'s seeds are {seeds!r} (a whole number 1-100)")
    expected = {s.name for s in specs_of(module, profile, seeds, overrides)}
    found = sorted(c.parent.relative_to(study).as_posix() for c in study.rglob("config.yaml"))
    stray = [r for r in found if r not in expected]
    if stray:
        raise ConfigError("trees", str(tgz), f"holds run {study.name}/{stray[0]}, which {paper}/{study.name} does "
                                             f"not make at {seeds} seeds ({len(stray)} such)")
    return seeds, overrides


def land(tgz: Path, archive: Path, paper: str | None, profile: str, echo=print) -> list[str]:
    """Steps 1-4; returns the lines of verdict changes."""
    from verdict_changes import changes

    from groklab.experiments import PAPERS, reproduce
    from groklab.experiments.archive import archive as write
    from groklab.store.archive import is_archive, read_index

    held = is_archive(archive)
    index = read_index(archive) if held else {"studies": {}, "papers": []}
    paper = paper or (index["papers"][0] if len(index["papers"]) == 1 else None)
    if paper not in PAPERS:
        raise ConfigError("paper", paper, f"name the archive's paper: one of {', '.join(PAPERS)}")
    with tempfile.TemporaryDirectory(prefix="land-") as tmp:
        tmp = Path(tmp)
        got = unpack(tgz, tmp / "in")
        unknown = [p.name for p in got.iterdir() if p.is_dir() and p.name not in PAPERS[paper]]
        if unknown:
            raise ConfigError("trees", str(tgz), f"holds {unknown[0]!r}, not a study of {paper}")
        studies = sorted(p for p in got.iterdir() if p.is_dir())
        plans = {s.name: runs_of(paper, s, archive if held else None, profile, tgz) for s in studies}  # refuse first
        tree = tmp / "tree"
        if held:
            reproduce(f"{paper}/all", tree, profile=profile, source=archive, echo=echo,
                      command=f"groklab reproduce {paper}/all --profile {profile} --from {archive}")
            for study, entry in index["studies"].items():
                if (tree / study).is_dir() or (got / study).is_dir():
                    continue  # judged whole above, or replaced by the slice below
                # part-way: laid out as archived, nothing trained (no run fits a budget of 1 ns), partial.json
                reproduce(f"{paper}/{study}", tree, profile=profile, source=archive, train_missing=True,
                          budget=1e-9, echo=echo, command=f"groklab reproduce {paper}/{study} --profile {profile} "
                                                          f"--from {archive} --train-missing --budget 1e-9")
        tree.mkdir(exist_ok=True)
        for study in studies:
            shutil.rmtree(tree / study.name, ignore_errors=True)
            shutil.copytree(study, tree / study.name, symlinks=True)
            for verdicts in ("claims.json", "partial.json", *(f.name for f in study.iterdir() if f.suffix in FIGS)):
                (tree / study.name / verdicts).unlink(missing_ok=True)  # copies in our own temporary tree
            seeds, overrides = plans[study.name]
            doc = reproduce(f"{paper}/{study.name}", tree, profile=profile, seeds=seeds, overrides=overrides,
                            budget=1e-9, echo=echo, command=f"python benchmarks/land_slice.py {tgz} {archive} "
                                                            f"(re-judging {study.name})")[0]
            echo(f"land: {study.name} from the slice, re-judged here ({'partial' if doc.get('of') else 'judged'})")
        before = tmp / "before"
        if held:
            shutil.copytree(archive, before, symlinks=True)
        doc = write(tree, archive, replace=held, command=f"python benchmarks/land_slice.py {tgz} {archive}")
        lines, _, _ = changes(before, archive) if held else ([], [], [])
    echo(f"land: {archive} written ({doc['bytes'] / 2**20:.1f} MiB, {len(doc['sessions'])} sessions)")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", type=Path, help="trees.tgz as benchmarks/gpu_slice.sh returns it")
    ap.add_argument("archive", type=Path, help="the results archive to land it in, e.g. results/beyond-paper")
    ap.add_argument("--paper", help="the paper (beyond, investigation, ...); default: the archive's")
    ap.add_argument("--profile", default="paper")
    a = ap.parse_args(argv)
    try:
        lines = land(a.trees, a.archive, a.paper, a.profile)
    except ConfigError as err:  # a bad slice or archive (StoreError is one): one line, nothing written
        print(f"land_slice: error: {err}", file=sys.stderr)
        return 2
    print("\n".join(lines) or "no verdict differs")
    print("next: python benchmarks/results_docs.py --write F for F in docs/results.md, README.md, results/PLAN.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
