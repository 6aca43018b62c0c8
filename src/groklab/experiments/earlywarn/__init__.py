"""groklab earlywarn: which progress measure warns, before the test set does, that a run will grok (issue 67)."""
