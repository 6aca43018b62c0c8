"""Property: whatever happens to a run tree's files (truncated, bytes overwritten, replaced by JSON of any shape,
removed, turned into a folder or a link), `groklab check` and `groklab summarize` answer with an exit code and
at most one error line -- never a traceback, never an exception out of `main`, never a change to the tree."""
import json
import os
import runpy
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import answers_in_one_line

ROOT = Path(__file__).parents[2]
FILES = ["config.yaml", "metrics.jsonl", "summary.json", "ckpt.pt", ".groklab"]
JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(),
                              st.floats(allow_nan=False, allow_subnormal=False), st.text(max_size=8)),
                    lambda inner: st.one_of(st.lists(inner, max_size=3),
                                            st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                    max_leaves=8)
DAMAGE = st.one_of(
    st.tuples(st.just("truncate"), st.floats(0, 1, allow_subnormal=False)),
    st.tuples(st.just("overwrite"), st.floats(0, 1, allow_subnormal=False), st.binary(min_size=1, max_size=16)),
    st.tuples(st.just("json"), JSON),
    st.tuples(st.just("summary-field"), st.sampled_from(["status", "steps", "t_test", "final_test", "wall_s"]), JSON),
    st.tuples(st.just("raw"), st.sampled_from([b'"\\ud800"', b'{"status": "\\udc00x", "steps": 1}', b'a: "\\ud800"\n',
                                              b"[" * 5000, b"9" * 5000, b'{"steps": 1e999}', b"\xff\xfe\x00"])),
    st.tuples(st.just("remove")),
    st.tuples(st.just("folder")),
    st.tuples(st.just("link")),
)
EXAMPLES = int(os.environ.get("GROKLAB_HYPOTHESIS_EXAMPLES", 150))


BAD = runpy.run_path(str(ROOT / "benchmarks" / "bad_inputs.py"))  # its fixture run and its folder snapshot


@pytest.fixture(scope="module")
def fixture(tmp_path_factory):
    return BAD["_train_fixture"](tmp_path_factory.mktemp("damage"))


def _clear(path: Path) -> None:
    """Remove whatever an earlier damage left at `path` (a file, a link, a folder)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def _damage(path: Path, how: tuple) -> None:
    kind = how[0]
    if kind == "summary-field":
        path = path.parent / "summary.json"
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError):
            doc = {}
        _clear(path)
        path.write_text(json.dumps({**doc, how[1]: how[2]} if isinstance(doc, dict) else {how[1]: how[2]}))
    elif kind in ("truncate", "overwrite"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            cut = int(how[1] * len(data))
            path.write_bytes(data[:cut] if kind == "truncate" else data[:cut] + how[2] + data[cut + len(how[2]):])
    else:
        _clear(path)
        if kind == "folder":
            path.mkdir()
            (path / "x").write_text("x")
        elif kind == "link":
            path.symlink_to(path.parent / "config.yaml")
        elif kind == "json":
            path.write_text(json.dumps(how[1]))
        elif kind == "raw":
            path.write_bytes(how[1])


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                         HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(FILES), DAMAGE), min_size=1, max_size=3))
def test_check_and_summarize_answer_any_damage_in_one_line(fixture, capsys, damages):
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        shutil.copytree(fixture, tree / "s0")
        shutil.copytree(fixture, tree / "s1")  # one healthy run beside the damaged one
        for name, how in damages:
            _damage(tree / "s0" / name, how)
        before = BAD["snapshot"](tree)
        for argv in (["check", str(tree / "s0")], ["check", str(tree)], ["summarize", str(tree), "--csv",
                                                                             str(Path(tmp) / "summary.csv")]):
            answers_in_one_line(argv, capsys)
        assert BAD["snapshot"](tree) == before  # reading a tree changes nothing in it
