"""Measures: pure functions that read a model or its curves and never change them.

The model measures (measures.run, which needs torch) load on first use: judging curves imports only
measures.curves, and a re-judge of an archive never pays torch's 3 s import."""
from groklab.measures.curves import GrokTracker, grok_events

_LAZY = ("MEASURES", "measure_schedule", "run_measures")


def __getattr__(name: str):
    if name in _LAZY:
        from groklab.measures import run

        return getattr(run, name)
    raise AttributeError(f"module 'groklab.measures' has no attribute {name!r}")


__all__ = ["MEASURES", "GrokTracker", "grok_events", "measure_schedule", "run_measures"]
