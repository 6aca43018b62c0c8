"""A model directory that ships Python code: groklab refuses it and never runs the code, even with "y" on stdin."""
import json
import subprocess
import sys

import pytest

from groklab.errors import ConfigError

pytest.importorskip("transformers")

EVIL = """import pathlib
pathlib.Path({marker!r}).write_text("ran")
from transformers import PretrainedConfig
class EvilConfig(PretrainedConfig):
    model_type = "evil"
"""


@pytest.fixture
def remote_code_dir(tmp_path):
    """config.json with an auto_map naming evil.py, whose import writes a marker file."""
    model, marker = tmp_path / "model", tmp_path / "ran.txt"
    model.mkdir()
    (model / "evil.py").write_text(EVIL.format(marker=str(marker)))
    (model / "config.json").write_text(json.dumps({
        "model_type": "evil", "architectures": ["EvilForCausalLM"],
        "auto_map": {"AutoConfig": "evil.EvilConfig", "AutoModelForCausalLM": "evil.EvilConfig"}}))
    return model, marker


def test_numberline_refuses_a_model_with_code_and_runs_none_of_it(remote_code_dir, tmp_path):
    model, marker = remote_code_dir
    out = tmp_path / "nl"
    p = subprocess.run([sys.executable, "-m", "groklab", "numberline", "--model", str(model), "--out", str(out)],
                       input="y\ny\ny\n", capture_output=True, text=True, timeout=300)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "auto_map" in lines[0] and "never runs code" in lines[0]
    assert not marker.exists() and not out.exists()


def test_the_loader_itself_passes_trust_remote_code_false(remote_code_dir, monkeypatch):
    """Past the auto_map check (disabled here), transformers is told not to trust the code: still refused."""
    from groklab.numberline import hf

    model, marker = remote_code_dir
    monkeypatch.setattr(hf, "_auto_map", lambda path: False)
    monkeypatch.setattr("sys.stdin", open("/dev/null"))
    with pytest.raises(ConfigError, match="could not be loaded offline"):
        hf.load(model)
    assert not marker.exists()
