"""Progress bars: a run or sweep that shows none never imports tqdm.auto (in a notebook without ipywidgets
that import alone warns "IProgress not found", even with bar=false)."""
import subprocess
import sys

from conftest import tiny


def test_no_bar_no_tqdm_auto(tmp_path):
    code = ("import sys\nfrom groklab import make_config, train\n"
            f"train(make_config({tiny(bar='false')!r}), out={str(tmp_path / 'r')!r})\n"
            "print(sorted(m for m in sys.modules if m.startswith('tqdm.a')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"
