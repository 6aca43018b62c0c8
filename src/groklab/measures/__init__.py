"""Measures: pure functions that read a model or its curves and never change them."""
from groklab.measures.curves import GrokTracker, grok_events

__all__ = ["GrokTracker", "grok_events"]
