"""The Python-API cases of benchmarks/bad_inputs.py: each calls groklab.<function>(**kwargs) in a fresh process
(benchmarks/api_case.py); a refusal must be the one-line ConfigError, never a traceback."""
import json

TINY_CFG = {"p": 11, "task": "add", "model": {"d_emb": 8, "d_hidden": 32}, "steps": 30, "bar": False}
API_CASES = [
    ("api-train-unknown-key", ["api", "train", json.dumps({"config": {"foo": 1}, "out": "{tmp}/o"})], "", 2,
     ["{tmp}/o"]),
    ("api-train-steps-text", ["api", "train", json.dumps({"config": {**TINY_CFG, "steps": "ten"}, "out": "{tmp}/o"})],
     "", 2, ["{tmp}/o"]),
    ("api-train-steps-bool", ["api", "train", json.dumps({"config": {**TINY_CFG, "steps": True}, "out": "{tmp}/o"})],
     "", 2, ["{tmp}/o"]),
    ("api-train-into-users-folder", ["api", "train", json.dumps({"config": TINY_CFG, "out": "{tmp}/mine"})], "mine",
     2, []),
    ("api-train-resume-missing", ["api", "train", json.dumps({"resume": "{tmp}/nope"})], "", 2, []),
    ("api-train-resume-damaged", ["api", "train", json.dumps({"resume": "{run}"})], "run:metrics-garble", 2, []),
    ("api-train-negative-steps", ["api", "train", json.dumps({"config": TINY_CFG, "out": "{tmp}/o", "steps": -5})],
     "", 2, ["{tmp}/o"]),
    ("api-reproduce-unknown-study", ["api", "reproduce", json.dumps({"target": "embedding/fig99", "out": "{tmp}/r"})],
     "", 2, ["{tmp}/r"]),
    ("api-reproduce-bad-profile", ["api", "reproduce", json.dumps({"target": "embedding/fig6", "out": "{tmp}/r",
                                                                   "profile": "huge"})], "", 2, ["{tmp}/r"]),
    ("api-reproduce-zero-seeds", ["api", "reproduce", json.dumps({"target": "embedding/fig6", "out": "{tmp}/r",
                                                                  "seeds": 0})], "", 2, ["{tmp}/r"]),
    ("api-reproduce-bad-format", ["api", "reproduce", json.dumps({"target": "embedding/fig6", "out": "{tmp}/r",
                                                                  "formats": "png,gif"})], "", 2, ["{tmp}/r"]),
    ("api-reproduce-bad-override", ["api", "reproduce", json.dumps({"target": "embedding/fig6", "out": "{tmp}/r",
                                                                    "overrides": ["optim.lr=fast"]})], "", 2,
     ["{tmp}/r"]),
    ("api-reproduce-from-missing", ["api", "reproduce", json.dumps({"target": "embedding/fig6", "out": "{tmp}/r",
                                                                    "source": "{tmp}/nope"})], "", 2, ["{tmp}/r"]),
    ("api-load-runs-missing", ["api", "load_runs", json.dumps({"path": "{tmp}/nope"})], "", 2, []),
    ("api-load-runs-damaged", ["api", "load_runs", json.dumps({"path": "{run}"})], "run:summary-trunc", 2, []),
    ("api-make-config-bool-steps", ["api", "make_config", json.dumps({"base": {"steps": True}})], "", 2, []),
    ("api-make-config-unknown-key", ["api", "make_config", json.dumps({"overrides": ["model.widht=8"]})], "", 2, []),
]
