"""Paper 000, Mechanistic Insights into Grokking from the Embedding Layer: one module per figure, and the demo."""
