"""Paper 002, "An Investigation Report of the Grokking Phenomenon": one module per study."""
