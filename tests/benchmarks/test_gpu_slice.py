"""benchmarks/gpu_slice.sh as a program with inputs: numbers checked before shell arithmetic, a unit that is not
STUDY:GLOB refused, its own temporary folder, and a non-zero exit when every unit failed (Reliability V)."""
import os
import subprocess
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path, *args):
    env = {**os.environ, "OUT": str(tmp_path), "DEVICE": "cpu", "TMPDIR": str(tmp_path)}
    return subprocess.run(["bash", str(ROOT / "benchmarks" / "gpu_slice.sh"), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_slice_whose_every_unit_failed_exits_non_zero(tmp_path):
    r = _run(tmp_path, "60", "1", "embedding/nope:x/*", "embedding/fig2")
    assert r.returncode == 1 and "every unit failed" in r.stderr
    log = (tmp_path / "slice.log").read_text()
    assert "embedding/fig2 rc 2: not STUDY:GLOB" in log and "embedding/nope:x/* rc 2" in log
    with tarfile.open(tmp_path / "trees.tgz") as t:  # still packed, as the landing step expects: slice/, empty
        assert [m.name for m in t.getmembers()] == ["slice"]


def test_numbers_are_checked_before_shell_arithmetic(tmp_path):
    for bad in (["2x", "1", "a:b"], ["60", "$(touch pwned)", "a:b"], ["60", "1"]):
        r = _run(tmp_path, *bad)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "gpu_slice:" in r.stderr, (bad, r.stderr)
    assert not (ROOT / "pwned").exists() and not (tmp_path / "slice.log").exists()
