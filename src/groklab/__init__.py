"""groklab: a fast, reproducible laboratory for grokking and embedding-layer dynamics."""
from groklab.config import Config, make_config
from groklab.engine import RunResult, train
from groklab.errors import ConfigError
from groklab.store import load_runs

__version__ = "0.2.0"
__all__ = ["Config", "ConfigError", "RunResult", "load_runs", "make_config", "train", "__version__"]
