"""Measures: pure functions that read a model or its curves and never change them."""
from groklab.measures.curves import GrokTracker, grok_events
from groklab.measures.run import MEASURES, measure_schedule, run_measures

__all__ = ["MEASURES", "GrokTracker", "grok_events", "measure_schedule", "run_measures"]
