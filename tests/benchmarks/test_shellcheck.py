"""Every shell script the project ships (benchmarks/, .ci/) is shellcheck clean: scripts are code with inputs too."""
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted([*ROOT.glob("benchmarks/*.sh"), ROOT / ".ci" / "run"])


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="needs the shellcheck package (.ci/run installs it)")
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_script_is_shellcheck_clean(script):
    run = subprocess.run(["shellcheck", "--shell=bash", str(script)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout[-3000:]


def test_every_script_is_checked():
    assert len(SCRIPTS) >= 3 and all(p.is_file() for p in SCRIPTS)  # gpu_slice.sh, gpu_families.sh, .ci/run
