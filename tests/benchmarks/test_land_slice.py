"""benchmarks/land_slice.py: a GPU slice's trees.tgz lands in its archive -- the slice's studies in place of the
archive's, the others re-judged or kept part-way as they were -- and a hostile or foreign tarball writes nothing."""
import io
import json
import runpy
import tarfile
from pathlib import Path

import pytest

from groklab.errors import ConfigError
from groklab.experiments import reproduce
from groklab.experiments.archive import archive
from groklab.store.archive import archived_runs, read_index

ROOT = Path(__file__).parents[2]
LAND = runpy.run_path(str(ROOT / "benchmarks" / "land_slice.py"))
TINY = ("p=11", "model.d_emb=8", "model.d_hidden=32", "steps=40", "eval.every=10", "eval.log_points=0")
QUIET = {"echo": lambda *_: None}


def _claims(study: Path):
    return [(c["id"], c["holds"], json.dumps(c["per_seed"], sort_keys=True))
            for c in json.loads((study / "claims.json").read_text())["claims"]]


@pytest.fixture
def held(tmp_path):
    """An archive holding fig6 whole and fig2 part-way (its add runs), as a paper archive between two windows."""
    tree = tmp_path / "t0"
    reproduce("embedding/fig6", tree, seeds=1, overrides=TINY, command="test fig6", **QUIET)
    reproduce("embedding/fig2", tree, seeds=1, overrides=TINY, only="add/*", command="test fig2 add", **QUIET)
    return Path(archive(tree, tmp_path / "results" / "embedding-quick", command="test")["path"])


def _slice(tmp_path, held, only):
    """What gpu_slice.sh returns: a unit run --from the archive --train-missing, packed as slice/ in trees.tgz."""
    work = tmp_path / "gpu"
    reproduce("embedding/fig2", work / "slice", source=held, train_missing=True, only=only, **QUIET)
    tgz = tmp_path / "trees.tgz"
    with tarfile.open(tgz, "w:gz") as tar:
        tar.add(work / "slice", arcname="slice")
    return tgz


def test_a_slice_completes_a_study_and_the_others_are_kept(tmp_path, held):
    fig6 = _claims(held / "fig6")
    assert read_index(held)["studies"]["fig2"]["analysed"] == "partial"
    tgz = _slice(tmp_path, held, "mul/*")
    lines = LAND["land"](tgz, held, None, "quick", echo=lambda *_: None)
    index = read_index(held)
    assert index["studies"]["fig2"]["analysed"] == "claims" and index["studies"]["fig2"]["runs"] == 4
    assert _claims(held / "fig6") == fig6  # re-judged to the same verdicts
    assert all(line.startswith("fig2 ") for line in lines)  # only the completed study's claims can change
    assert {"test fig6", "test fig2 add"} <= {s["command"] for s in index["sessions"]}


def test_a_part_way_study_the_slice_did_not_touch_stays_part_way(tmp_path, held):
    """A slice of another study (fig6 again, from the archive) leaves fig2 laid out as it was: 2 runs, partial."""
    work = tmp_path / "gpu"
    reproduce("embedding/fig6", work / "slice", source=held, train_missing=True, **QUIET)
    tgz = tmp_path / "trees.tgz"
    with tarfile.open(tgz, "w:gz") as tar:
        tar.add(work / "slice", arcname="slice")
    LAND["land"](tgz, held, None, "quick", echo=lambda *_: None)
    assert read_index(held)["studies"]["fig2"]["analysed"] == "partial"
    assert sorted(d["run"] for d in archived_runs(held / "fig2") if not d.get("missing")) == ["add/mlp/s0",
                                                                                             "add/mlp_emb/s0"]


def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes]]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data else None)
    return path


@pytest.mark.parametrize("kind", ["escape", "link", "foreign", "empty", "garbage", "twice"])
def test_a_hostile_or_foreign_tarball_writes_nothing(tmp_path, held, kind):
    before = {f: f.read_bytes() for f in held.rglob("*") if f.is_file()}
    tgz = tmp_path / "trees.tgz"
    if kind == "garbage":
        tgz.write_bytes(b"not a tarball")
    else:
        members = {"escape": [("../evil.txt", b"x")], "foreign": [("slice/notastudy/x.txt", b"x")],
                   "empty": [("other/x.txt", b"x")], "link": [],
                   # a forged second claims.json after the real one would win on extraction
                   "twice": [("slice/fig2/claims.json", b"{}"), ("slice/fig2/claims.json", b'{"forged": 1}')]}[kind]
        infos = []
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            infos.append((info, data))
        if kind == "link":
            link = tarfile.TarInfo("slice/fig2")
            link.type, link.linkname = tarfile.SYMTYPE, str(tmp_path)
            infos.append((link, b""))
        _tar(tgz, infos)
    with pytest.raises(ConfigError, match="trees"):
        LAND["land"](tgz, held, None, "quick", echo=lambda *_: None)
    assert {f: f.read_bytes() for f in held.rglob("*") if f.is_file()} == before
    assert not (tmp_path / "evil.txt").exists()


def _repack(tmp_path, edit) -> Path:
    """A slice of fig2's mul runs, unpacked, changed by `edit(slice_dir)` and packed again."""
    work = tmp_path / "gpu"
    tgz = tmp_path / "trees.tgz"
    with tarfile.open(tgz, "w:gz") as tar:
        edit(work / "slice")
        tar.add(work / "slice", arcname="slice")
    return tgz


def test_a_slice_is_landed_by_its_runs_not_its_verdicts(tmp_path, held):
    """A slice whose claims.json was forged (every verdict flipped, a claim added) lands the verdicts its runs give."""
    _slice(tmp_path, held, "mul/*")
    honest = json.loads((tmp_path / "gpu" / "slice" / "fig2" / "claims.json").read_text())

    def forge(folder):
        doc = json.loads((folder / "fig2" / "claims.json").read_text())
        for c in doc["claims"]:
            c["holds"], c["verdict"] = not c["holds"], "forged"
        doc["claims"].append({**doc["claims"][0], "id": "forged_claim"})
        (folder / "fig2" / "claims.json").write_text(json.dumps(doc))
    tgz = _repack(tmp_path, forge)
    LAND["land"](tgz, held, None, "quick", echo=lambda *_: None)
    landed = json.loads((held / "fig2" / "claims.json").read_text())
    assert [(c["id"], c["holds"]) for c in landed["claims"]] == [(c["id"], c["holds"]) for c in honest["claims"]]
    assert "forged" not in json.dumps(landed)


def test_a_run_the_study_does_not_make_is_refused_and_nothing_written(tmp_path, held):
    before = {f: f.read_bytes() for f in held.rglob("*") if f.is_file()}
    _slice(tmp_path, held, "mul/*")

    def stray(folder):  # a seed the archive's study does not have, copied from a real run
        import shutil
        shutil.copytree(folder / "fig2" / "mul" / "mlp" / "s0", folder / "fig2" / "mul" / "mlp" / "s7")
    tgz = _repack(tmp_path, stray)
    with pytest.raises(ConfigError, match="mul/mlp/s7"):
        LAND["land"](tgz, held, None, "quick", echo=lambda *_: None)
    assert {f: f.read_bytes() for f in held.rglob("*") if f.is_file()} == before


def test_a_gpu_slice_is_judged_here_without_its_device(tmp_path):
    """A first slice of a study (no archive) trained with device=cuda: judged on this machine without asking for
    CUDA -- the device override is the slice machine's, not a setting of the study."""
    study = tmp_path / "slice" / "fig2"
    study.mkdir(parents=True)
    (study / "experiment.json").write_text(json.dumps({"figure": "fig2", "title": "t", "paper": "p", "profile": "quick",
                                                       "seeds": 1, "overrides": ["device=cuda", *TINY], "runs": {}}))
    seeds, overrides = LAND["runs_of"]("embedding", study, None, "quick", tmp_path / "trees.tgz")
    assert seeds == 1 and overrides == TINY
