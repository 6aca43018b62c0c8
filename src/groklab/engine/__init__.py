"""The training engine: experiment setup, the one loop, checkpoints."""
from groklab.engine.loop import RunResult, train
from groklab.engine.setup import Experiment, build

__all__ = ["Experiment", "RunResult", "build", "train"]
