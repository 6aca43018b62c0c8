"""Property: whatever an archive holds -- run lines with fields of any shape, names that climb out, forged
manifests and claims, array keys naming any folder, special files and links in place of its files --
`reproduce --from`, `summarize`, `check`, `report`, `load_runs` and `archive` (writing a new archive, or replacing
the forged one) answer with an exit code and at most one error line: never a traceback, never a file outside their
own output changed (Reliability IV)."""
import gzip
import json
import os
import runpy
import shutil
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import groklab
from conftest import answers_in_one_line
from groklab.errors import ConfigError

ROOT = Path(__file__).parents[2]
BAD = runpy.run_path(str(ROOT / "benchmarks" / "bad_inputs.py"))  # its tiny archive and its folder snapshot
NAMES = st.one_of(st.sampled_from(["../../victim", "/abs", "a/./b", "a//b", "x\x1b[2J", "ok/" * 20, "x" * 600,
                                   "add/adam/s0", "fig6", "", "\x00"]), st.text(max_size=12))
JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_subnormal=False),
                              NAMES), lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                              st.dictionaries(NAMES, inner, max_size=3)), max_leaves=6)
FORGE = st.one_of(
    st.tuples(st.just("line"), st.sampled_from(["run", "config", "summary", "error", "metrics", "missing"]), JSON),
    st.tuples(st.just("study-name"), NAMES),
    st.tuples(st.just("file-json"), st.sampled_from(["manifest.json", "fig6/experiment.json", "fig6/claims.json"]),
              JSON),
    st.tuples(st.just("npz-key"), NAMES, NAMES),
    st.tuples(st.just("special"), st.sampled_from(["manifest.json", "fig6/runs.jsonl.gz", "fig6/claims.json",
                                                   "fig6"]), st.sampled_from(["fifo", "link", "folder"])),
)
EXAMPLES = int(os.environ.get("GROKLAB_HYPOTHESIS_EXAMPLES_ARCHIVE", 30))


def _clear(path: Path) -> None:
    if path.is_symlink() or path.exists() and not path.is_dir():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def _forge(arch: Path, victim: Path, how: tuple) -> None:
    kind = how[0]
    if kind == "line":
        f = arch / "fig6" / "runs.jsonl.gz"
        if not f.is_file() or f.is_symlink():
            return
        lines = [json.loads(x) for x in gzip.open(f, "rt")]
        lines[0][how[1]] = how[2]
        with gzip.open(f, "wt") as z:
            z.write("".join(json.dumps(x) + "\n" for x in lines))
    elif kind == "study-name":
        f = arch / "manifest.json"
        index = json.loads(f.read_text()) if f.is_file() else None
        if isinstance(index, dict) and isinstance(index.get("studies"), dict):  # not already forged away
            index["studies"] = {how[1]: v for v in index["studies"].values()}
            f.write_text(json.dumps(index))
    elif kind == "file-json":
        if (arch / how[1]).parent.is_dir() and not (arch / how[1]).parent.is_symlink():
            _clear(arch / how[1])
            (arch / how[1]).write_text(json.dumps(how[2]))
    elif kind == "npz-key":
        if not (arch / "fig6").is_dir() or (arch / "fig6").is_symlink():
            return
        np.savez_compressed(arch / "fig6" / "arrays.npz", **{f"add/adam/s0|{how[1]}|10|{how[2]}": np.zeros(2)})
    else:
        path = arch / how[1]
        if not path.parent.is_dir() or path.parent.is_symlink():
            return
        _clear(path)
        if how[2] == "fifo":
            os.mkfifo(path)
        elif how[2] == "link":
            path.symlink_to(victim, target_is_directory=True)
        else:
            path.mkdir()


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                         HealthCheck.function_scoped_fixture])
@given(st.lists(FORGE, min_size=1, max_size=2))
def test_every_reader_answers_a_forged_archive_in_one_line(capsys, tmp_path_factory, forgeries):
    root = tmp_path_factory.getbasetemp() / "archive-property"
    root.mkdir(exist_ok=True)
    BAD["_repro_fixture"](root)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        arch = Path(shutil.copytree(root / "fixture-archive", tmp / "arch"))
        victim = tmp / "victim"
        (victim / "arrays").mkdir(parents=True)
        (victim / "NOTES.md").write_text("mine\n")
        for how in forgeries:
            _forge(arch, victim, how)
        before = BAD["snapshot"](tmp)
        for argv in (["reproduce", "embedding/fig6", "--from", str(arch), "--out", str(tmp / "out")],
                     ["summarize", str(arch), "--csv", str(tmp / "s.csv")], ["check", str(arch)],
                     ["report", str(arch), "--out", str(tmp / "r.html")], ["report", str(arch), "--markdown"]):
            answers_in_one_line(argv, capsys)
        try:
            groklab.load_runs(arch)
        except ConfigError as err:  # StoreError is one: a line naming the file
            assert "\n" not in str(err)
        after = BAD["snapshot"](tmp)
        mine = {k: v for k, v in before.items() if not k.startswith(("out/", "s.csv", "r.html"))}
        assert {k: after.get(k) for k in mine} == mine  # the archive and the user's folder unchanged
        assert not [k for k in after if k not in before and not k.startswith(("out/", "s.csv", "r.html"))]
        # archive: of the re-judged tree into a new folder, then over the forged archive (a replace may only
        # touch the archive it replaces, and only when it is groklab's; a refusal changes nothing)
        answers_in_one_line(["archive", str(tmp / "out"), str(tmp / "a2")], capsys)
        before = BAD["snapshot"](tmp)
        rc = answers_in_one_line(["archive", str(tmp / "out"), str(arch), "--replace"], capsys)
        after = BAD["snapshot"](tmp)
        ours = (lambda k: k.startswith("arch/")) if rc == 0 else (lambda k: False)  # what it may change
        assert {k: after.get(k) for k in before if not ours(k)} == {k: v for k, v in before.items() if not ours(k)}
        assert not [k for k in after if k not in before and not ours(k)]
