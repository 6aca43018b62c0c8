"""A small real run per architecture: add mod 17 is learned to high test accuracy within seconds."""
import pytest

from groklab import make_config, train

BASE = ["task=add", "p=17", "split.frac_train=0.8", "batch_size=64", "eval.every=100", "eval.log_points=0",
        "bar=false", "stop.target=0.95", "stop.patience=100", "optim=adamw", "optim.weight_decay=1",
        "model.d_emb=32"]
RUNS = {
    "transformer": ["model=transformer", "model.depth=1", "model.d_hidden=128", "optim.lr=3e-3", "steps=2000"],
    "lstm": ["model=lstm", "encoding=no_op", "model.d_hidden=64", "optim.lr=3e-3", "steps=2000"],
    "birnn": ["model=birnn", "model.depth=1", "model.d_hidden=64", "optim.lr=1e-2", "steps=4000"],
    "deep_mlp": ["model=mlp_emb", "model.depth=3", "model.d_hidden=64", "optim.lr=3e-3", "steps=2000"],
}


@pytest.mark.parametrize("name", RUNS)
def test_architecture_learns_modular_addition(name):
    s = train(make_config(BASE + RUNS[name])).summary
    assert s["final/train_acc"] == 1.0
    assert s["final/test_acc"] >= 0.9, s
