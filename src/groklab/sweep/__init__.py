"""Sweeps: grids of configs over seeds, planned into units of work (finished runs skipped, unfinished
resumed, busy ones left to their writer), run by an executor, summarized over seeds."""
from groklab.sweep.executors import EXECUTORS, SweepBar, run_units
from groklab.sweep.plan import Run, Sweep, expand, load_sweep, plan
from groklab.sweep.summarize import format_table, summarize

__all__ = ["EXECUTORS", "SweepBar", "Run", "Sweep", "expand", "format_table", "load_sweep", "plan", "run_units",
           "summarize"]
