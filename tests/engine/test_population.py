"""Population engine: every member equals its solo run, whatever the packing."""
import json
import shutil

import numpy as np
import pytest

from conftest import tiny
from groklab import ConfigError, make_config, train
from groklab.data.sampling import make_sampler
from groklab.engine.population import train_population

KEYS = ("train/loss", "train/acc", "test/loss", "test/acc")


def _members(**shared):
    """Four members differing in seed, split seed and size, lr, weight decay and Adam-LR c."""
    per = [dict(seed=0), dict(seed=1, **{"split.seed": 3}), dict(seed=2, **{"optim.lr": 0.01, "optim": "adam_lr"}),
           dict(seed=3, **{"optim.weight_decay": 0.1, "split.frac_train": 0.5, "optim.c": 3})]
    return [make_config(tiny(**{"steps": 40, "eval.every": 5, **shared, **kw})) for kw in per]


def _assert_close(stacked, solo, rtol):
    assert [r["step"] for r in stacked.history] == [r["step"] for r in solo.history]
    for a, b in zip(stacked.history, solo.history):
        for k in KEYS:
            assert a[k] == pytest.approx(b[k], rel=rtol, abs=rtol), (a["step"], k)
    for k in ("status", "steps", "t_train", "t_test", "gap", "n_train", "n_test"):
        assert stacked.summary[k] == solo.summary[k], k


@pytest.mark.parametrize("optim", ["adam", "adamw", "sgd"])
def test_stacked_members_equal_solo_runs_float64(optim):
    cfgs = _members(dtype="float64", **{"optim.lr": 0.05 if optim == "sgd" else 0.003})
    cfgs = [c.model_copy(update={"optim": c.optim.model_copy(update={"name": optim + c.optim.name[4:]})})
            for c in cfgs]
    for res, cfg in zip(train_population(cfgs, packing="stacked"), cfgs):
        _assert_close(res, train(cfg), 1e-9)


def test_stacked_float32_raw_mlp_and_depth():
    cfgs = [make_config(tiny(steps=30, seed=s, model="mlp", **{"optim.lr": 0.01})) for s in (0, 1)]
    for res, cfg in zip(train_population(cfgs, packing="stacked"), cfgs):
        _assert_close(res, train(cfg), 1e-4)
    cfgs = [make_config(tiny(steps=30, seed=s, **{"model.depth": 2})) for s in (0, 1)]
    for res, cfg in zip(train_population(cfgs, packing="stacked"), cfgs):
        _assert_close(res, train(cfg), 1e-4)


def test_stacked_members_follow_their_lr_schedules():
    """Warm-up and decay in a stack: each member's lr at each step is its solo run's, the decay ending at its
    own steps (members of 30 and 40 steps), the embedding's at c times it."""
    for sched in ({"optim.warmup": 7}, {"optim.schedule": "cosine", "optim.warmup": 5, "optim.final_frac": 0.1}):
        cfgs = [make_config(tiny(dtype="float64", seed=s, steps=30 + 10 * s, optim="adam_lr", **sched,
                                 **{"optim.c": 1 + 2 * s, "optim.lr": 0.01 * (s + 1)})) for s in (0, 1)]
        runs = train_population(cfgs, packing="stacked")
        for res, cfg in zip(runs, cfgs):
            _assert_close(res, train(cfg), 1e-9)
        flat = train(make_config(tiny(dtype="float64", seed=0, steps=30, optim="adam_lr", **{"optim.lr": 0.01})))
        assert runs[0].history[-1]["train/loss"] != pytest.approx(flat.history[-1]["train/loss"], rel=1e-6)


def test_stacked_tied_mlp_applies_its_shared_layer_every_time():
    """002's MLP reuses one hidden layer (model.tied): stacked members must apply it depth - 1 times too."""
    cfgs = [make_config(tiny(steps=20, seed=s, dtype="float64", **{"model.depth": 4, "model.tied": True}))
            for s in (0, 1)]
    for res, cfg in zip(train_population(cfgs, packing="stacked"), cfgs):
        _assert_close(res, train(cfg), 1e-9)


def test_stacked_members_stop_on_their_own(tmp_path):
    """Different steps and early stopping: a finished member leaves the stack, the others go on."""
    cfgs = [make_config(tiny(steps=s, p=7, seed=i, **{"split.frac_train": 0.5, "eval.every": 5,
                                                      "stop.patience": 10, "stop.target": t}))
            for i, (s, t) in enumerate([(60, 0.0), (25, 0.99), (60, 0.99)])]
    res = train_population(cfgs, [tmp_path / f"m{i}" for i in range(3)], packing="stacked")
    for i, (r, cfg) in enumerate(zip(res, cfgs)):
        solo = train(cfg, out=tmp_path / f"solo{i}")
        _assert_close(r, solo, 1e-4)
        rows = [json.loads(x) for x in open(tmp_path / f"m{i}" / "metrics.jsonl")]
        assert [x["step"] for x in rows] == [x["step"] for x in solo.history]
    assert res[0].summary["status"] == "early_stop" and res[0].summary["steps"] == 10


def test_stacked_checkpoint_is_a_solo_checkpoint(tmp_path):
    """Resume a stacked member with the solo loop, and a stacked population from its checkpoints."""
    cfgs = _members(steps=40, checkpoint_every=20)
    outs = [tmp_path / f"m{i}" for i in range(4)]
    train_population(cfgs, outs, packing="stacked")
    shutil.copytree(outs[2], tmp_path / "copy")
    solo_resumed = train(resume=tmp_path / "copy", steps=60)
    ref = train(cfgs[2].model_copy(update={"steps": 60}))
    assert [r["step"] for r in solo_resumed.history] == [45, 50, 55, 60]
    for a, b in zip(solo_resumed.history, ref.history[-4:]):
        assert a["test/loss"] == pytest.approx(b["test/loss"], rel=1e-4) and a["test/acc"] == b["test/acc"]
    # the stacked population resumes from the members' checkpoints (all at step 40) to step 60
    longer = [c.model_copy(update={"steps": 60}) for c in cfgs]
    for o, c in zip(outs, longer):
        (o / "summary.json").unlink()
        (o / "config.yaml").write_text(__import__("yaml").safe_dump(c.to_dict(), sort_keys=False))
    again = train_population(longer, outs, packing="stacked")
    for r, c in zip(again, longer):
        rows = [json.loads(x) for x in open(r.path / "metrics.jsonl")]
        solo = train(c)
        assert [x["step"] for x in rows] == [x["step"] for x in solo.history]
        for a, b in zip(rows, solo.history):
            assert a["test/loss"] == pytest.approx(b["test/loss"], rel=1e-4)


@pytest.mark.parametrize("optim", ["nadam", "rmsprop", "sgd", "adamw+grokfast", "adamw+dropout", "adamw+ma",
                                   "adam+adaptive"])
def test_stacked_checkpoints_of_every_rule_resume_as_solo_runs(optim, tmp_path):
    """A stacked member's checkpoint holds torch's own state for its rule (NAdam's step and mu product too), its
    Grokfast-EMA average in the solo filter's format and its dropout generator as the solo run's RNG state: the solo
    loop resumes it and the stack resumes from it, each equal to the uninterrupted solo run (float64)."""
    optim, *filt = optim.split("+")
    extra = ({"model.dropout": 0.3} if filt == ["dropout"] else
             {"optim.c_mode": "adaptive", "optim.c_every": 4} if filt == ["adaptive"] else
             {"optim.grokfast": "ma", "optim.grokfast_window": 3} if filt == ["ma"] else
             {"optim.grokfast": "ema", "optim.ortho_grad": "true"} if filt else {})
    cfgs = [make_config(tiny(optim=optim, dtype="float64", seed=s, steps=20, checkpoint_every=10,
                             **{"eval.every": 5, "optim.lr": 0.01 * (s + 1), "optim.c": 1 + s, **extra}))
            for s in (0, 1)]
    outs = [tmp_path / f"m{i}" for i in range(2)]
    train_population(cfgs, outs, packing="stacked")
    longer = [c.model_copy(update={"steps": 35}) for c in cfgs]
    solo = [train(c) for c in longer]
    shutil.copytree(outs[1], tmp_path / "copy")
    resumed = train(resume=tmp_path / "copy", steps=35)
    for a, b in zip(resumed.history, solo[1].history[-3:]):
        assert a["step"] == b["step"] and a["test/loss"] == pytest.approx(b["test/loss"], rel=1e-10)
    for o, c in zip(outs, longer):
        (o / "summary.json").unlink()
        (o / "config.yaml").write_text(__import__("yaml").safe_dump(c.to_dict(), sort_keys=False))
    for r, ref in zip(train_population(longer, outs, packing="stacked"), solo):
        rows = [json.loads(x) for x in open(r.path / "metrics.jsonl")]
        assert [x["step"] for x in rows] == [x["step"] for x in ref.history]
        for a, b in zip(rows, ref.history):
            assert a["test/loss"] == pytest.approx(b["test/loss"], rel=1e-10)


def test_sequential_packing_is_exactly_solo(tmp_path):
    cfgs = _members()
    strip = lambda h: [{k: v for k, v in r.items() if k != "time/wall_s"} for r in h]  # noqa: E731
    for res, cfg in zip(train_population(cfgs, packing="sequential"), cfgs):
        assert strip(res.history) == strip(train(cfg).history)


def test_batch_block_equals_the_sampler():
    for name in ("epoch", "replacement"):
        s = make_sampler(make_config(tiny(sampler=name, batch_size=16, seed=5)), 37)
        for start, K in ((0, 10), (3, 300), (250, 20)):
            ref = np.stack([s.batch(t).numpy() for t in range(start, start + K)])
            assert (s.block(start, K) == ref).all()


def test_stacked_refuses_what_it_cannot_do(tmp_path):
    a, b = make_config(tiny()), make_config(tiny(**{"model.d_hidden": 16}))
    with pytest.raises(ConfigError, match="model.d_hidden.*must share"):
        train_population([a, b], packing="stacked")
    with pytest.raises(ConfigError, match="optim.name"):
        train_population([a, make_config(tiny(optim="sgd"))], packing="stacked")
    with pytest.raises(ConfigError, match="model.d_hidden"):
        train_population([a, b], [tmp_path / "x", tmp_path / "y"], packing="stacked")
    assert not (tmp_path / "x").exists()  # refused before anything was written
    with pytest.raises(ConfigError, match="packing"):
        train_population([a], packing="vmap")
    for extra, field in (({"model.dropout": 0.1, "model": "transformer"}, "model.dropout"),
                         ({"model.dropout": 0.1, "sampler": "full"}, "model.dropout"),  # MLP dropout, padded rows
                         ({"optim.c_mode": "adaptive", "optim.c_freq": "row"}, "optim.c_mode"),
                         ({"optim.c_mode": "adaptive", "sampler": "full"}, "optim.c_mode"),
                         ({"sampler": "balanced"}, "sampler")):
        pair = [make_config(tiny(**extra, seed=s)) for s in (0, 1)]
        with pytest.raises(ConfigError, match=field):
            train_population(pair, packing="stacked")


FAMILIES = {  # 002's and 004's paper-profile families and optimizers, each at a tiny size
    "lstm": ["model=lstm", "model.depth=2", "optim=adamw"],
    "birnn_value": ["model=birnn", "model.depth=3", "model.input=value", "encoding=no_op", "optim=adamw", "optim.c=1"],
    "birnn_emb": ["model=birnn", "model.depth=2", "optim=adam"],
    "deep_mlp": ["model.depth=3"],
    "deep_mlp_tied": ["model.depth=4", "model.tied=true", "optim=sgd"],
    "nadam": ["optim=nadam"],
    "nadam_decoupled": ["optim=nadam", "optim.wd_mode=decoupled"],
    "rmsprop": ["optim=rmsprop"],
    "circulant": ["model.emb_init=circulant", "optim=adamw"],
    "lstm_nadam_warmup": ["model=lstm", "model.depth=1", "optim=nadam", "optim.warmup=7"],
    "grokfast_ema": ["optim=adamw", "optim.grokfast=ema", "optim.grokfast_alpha=0.9", "optim.grokfast_lamb=1.5"],
    "ortho_grad": ["optim=adamw", "optim.ortho_grad=true"],
    "lstm_grokfast_ortho": ["model=lstm", "model.depth=1", "optim=adam", "optim.grokfast=ema", "optim.ortho_grad=true"],
    "stablemax_perp": ["loss=stablemax", "optim=adamw", "optim.ortho_grad=true"],  # GrokBench's StableMax + ⊥Grad
    "mlp_dropout": ["model.depth=3", "model.dropout=0.3", "optim=adamw"],  # 002's dropout arms: masks per member
    "adaptive_c": ["optim=adam", "optim.c_mode=adaptive", "optim.c_every=4", "optim.c_range=[1,40]"],
    "transformer_adaptive_c": ["model=transformer", "model.depth=1", "optim=adamw", "optim.c_mode=adaptive",
                               "optim.c_every=3"],
    "grokfast_ma": ["optim=adamw", "optim.grokfast=ma", "optim.grokfast_window=4", "optim.grokfast_lamb=2"],
    "lstm_grokfast_ma_ortho": ["model=lstm", "model.depth=1", "optim=adam", "optim.grokfast=ma",
                               "optim.grokfast_window=3", "optim.ortho_grad=true"],
    "mlp_tied_dropout": ["model.depth=4", "model.tied=true", "model.dropout=0.5"],
    "transformer_stablemax_float64_loss": ["model=transformer", "model.depth=1", "loss=stablemax", "loss_float64=true",
                                           "optim=adamw"],
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_family_stacks_equal_to_solo_float64(family):
    """Members differing in seed, split, lr, weight decay and c train as one stack and each equals its solo run
    (float64, <= 1e-10): the model's own batched forward or vmap, the member's own torch optimizer rule."""
    cfgs = [make_config(tiny(steps=25, seed=s, dtype="float64", **{"eval.every": 5, "split.seed": s + 3,
                                                                   "optim.lr": 0.004 * (s + 1),
                                                                   "optim.weight_decay": 0.3 * s,
                                                                   "optim.c": 1 + 2 * s}) + FAMILIES[family])
            for s in range(3)]
    for res, cfg in zip(train_population(cfgs, packing="stacked"), cfgs):
        assert res.summary["population/packing"] == "stacked"
        _assert_close(res, train(cfg), 1e-10)


def test_members_of_other_initialisations_share_a_stack():
    """An embedding's init (normal, circulant) and the Transformer's (torch, scaled) only set the starting values:
    members differing in them stack (004's circulant study: one population) and each equals its solo run."""
    transformer = ["model=transformer", "model.depth=1", "optim=adamw"]
    for extra, key, values in (([], "model.emb_init", ["normal", "circulant"]),
                               (transformer, "model.init", ["torch", "scaled"])):
        cfgs = [make_config(tiny(dtype="float64", seed=i, **{key: v}) + extra) for i, v in enumerate(values)]
        for res, cfg in zip(train_population(cfgs, packing="stacked"), cfgs):
            assert res.summary["population/packing"] == "stacked"
            _assert_close(res, train(cfg), 1e-10)


def test_stacked_transformers_equal_solo_runs():
    """Any model stacks through functional_call + vmap: 004's Transformer (no LayerNorm, no biases, scaled
    init, [a, b, =]) and the default one (2 layers, LayerNorm), members differing in seed, lr and wd."""
    variants = (["model.depth=1", "model.norm=none", "model.bias=false", "model.init=scaled", "encoding=eq",
                 "sampler=full", "optim.warmup=10"], ["model.depth=2"])
    for extra in variants:
        cfgs = [make_config(tiny(**{"model": "transformer", "dtype": "float64", "optim": "adamw", "seed": s,
                                    "optim.lr": 0.003 * (s + 1), "optim.weight_decay": 0.5 * s}) + extra)
                for s in range(3)]
        for res, cfg in zip(train_population(cfgs, packing="stacked"), cfgs):
            assert res.summary["population/packing"] == "stacked"
            _assert_close(res, train(cfg), 1e-12)


def test_full_batches_of_unequal_sizes_stack_and_equal_solo_runs():
    """Members training on different fractions of the table (004's Fig. 4 and threshold study) share one stack:
    each full batch is padded to the largest, padded rows weigh 0 and a member's own rows 1 / n_i, so every member
    follows its solo run (float64), for the MLP and 004's Transformer; once the largest finishes, the rest go on."""
    for extra in ([], ["model=transformer", "model.depth=1", "model.norm=none", "model.bias=false", "encoding=eq",
                       "optim=adamw"]):
        cfgs = [make_config(tiny(sampler="full", dtype="float64", seed=s, steps=50 - 10 * s,
                                 **{"split.frac_train": f}) + extra) for s, f in enumerate((0.3, 0.5, 0.8))]
        results = train_population(cfgs, packing="stacked")
        assert len({r.summary["n_train"] for r in results}) == 3
        for res, cfg in zip(results, cfgs):
            assert res.summary["population/packing"] == "stacked"
            _assert_close(res, train(cfg), 1e-10)


def test_a_stack_records_the_numerics_it_ran_with():
    """tf32 and fused are config fields (stored with the run, shared by a stack); the summary says what the step
    used: on a CPU neither applies, whatever the config asks."""
    from groklab.engine.population import stack_key

    cfgs = [make_config(tiny(steps=10, seed=s, tf32=True)) for s in (0, 1)]
    assert all(c.tf32 and c.fused for c in cfgs)
    assert stack_key(cfgs[0]) != stack_key(cfgs[0].model_copy(update={"tf32": False}))  # never stacked together
    for res in train_population(cfgs, packing="stacked"):
        assert res.summary["numerics/tf32"] is False and res.summary["numerics/fused"] is False
