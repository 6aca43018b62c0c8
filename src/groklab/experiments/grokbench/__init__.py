"""GrokBench: which methods really speed up grokking, under one harness, tuned alike, judged with statistics
made for censored times. The protocol and the methods are data (protocol.yaml, methods.yaml); bench.py trains
and packs, scores.py computes, board.py and figures.py write the leaderboard, the figures and the report."""
