"""Paper 004, Beyond Progress Measures (arXiv 2504.03162): one module per table / figure / appendix study."""
