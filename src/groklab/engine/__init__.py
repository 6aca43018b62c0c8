"""The training engine: run setup, steppers, run records, the one loop, populations."""
from groklab.engine.loop import train, train_members
from groklab.engine.record import RunRecord, RunResult
from groklab.engine.setup import RunSetup, build

__all__ = ["RunSetup", "RunRecord", "RunResult", "build", "train", "train_members"]
