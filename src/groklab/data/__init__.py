"""Tasks (the Task interface; modular-arithmetic tables as tokens), splits, samplers, coverage measures."""
from groklab.config.rules import is_prime
from groklab.data.coverage import (
    coverage,
    coverage_bound,
    covered_probability,
    expected_coverage,
    token_counts,
    token_rows,
)
from groklab.data.expr import parse_poly
from groklab.data.splits import SPLITS, Split, make_split, split_of
from groklab.data.tables import KNOWN_TASKS, Table, make_table
from groklab.data.task import Task, TokenTask, make_task

__all__ = ["make_table", "Table", "KNOWN_TASKS", "is_prime", "parse_poly", "make_split", "split_of", "Split", "SPLITS",
           "token_counts", "token_rows", "coverage", "coverage_bound", "covered_probability", "expected_coverage",
           "Task", "TokenTask", "make_task"]
