"""The package's import surface: public names on first use, and a CLI import that leaves torch unloaded."""
import subprocess
import sys

import pytest


def test_cli_import_leaves_torch_unloaded_so_the_wait_policy_takes_effect():
    # OpenMP reads OMP_WAIT_POLICY once, when torch loads it: the CLI sets the policy in main(), so importing
    # groklab.cli must not import torch (it did through groklab/__init__, and the policy never took effect)
    code = ("import os, sys; os.environ.pop('OMP_WAIT_POLICY', None); import groklab.cli; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_public_names_resolve_on_first_use():
    import groklab
    from groklab import Config, ConfigError, load_runs, make_config, train  # noqa: F401
    assert groklab.train is train and "train" in dir(groklab) and groklab.__version__
    assert set(groklab.__all__) <= set(dir(groklab))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        groklab.nothing  # noqa: B018
