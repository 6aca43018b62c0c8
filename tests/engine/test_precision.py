"""engine/precision.py: a run's `tf32` decides CUDA matmuls, cuDNN convolutions and RNNs alike, and is restored."""
from groklab.engine.precision import BACKENDS, fp32_precision


def test_fp32_precision_sets_every_cuda_kernel_family_and_restores_it():
    before = [b.fp32_precision for b in BACKENDS]
    with fp32_precision(False):
        assert [b.fp32_precision for b in BACKENDS] == ["ieee"] * 3
        with fp32_precision(True):
            assert [b.fp32_precision for b in BACKENDS] == ["tf32"] * 3
        assert [b.fp32_precision for b in BACKENDS] == ["ieee"] * 3
    assert [b.fp32_precision for b in BACKENDS] == before
    try:
        with fp32_precision(True):
            raise KeyError("x")
    except KeyError:
        pass
    assert [b.fp32_precision for b in BACKENDS] == before
    with fp32_precision(None):  # a CPU run: torch's settings untouched
        assert [b.fp32_precision for b in BACKENDS] == before


def test_a_cpu_run_leaves_precision_alone_and_cuda_default_is_full_float32():
    """On a CPU the step never touches the flags; the config's default (tf32=false) means IEEE float32 on CUDA,
    where cuDNN's own default for convolutions is TF32."""
    from groklab import make_config
    from groklab.engine.setup import build
    from groklab.engine.step import SoloStep

    step = SoloStep(build(make_config(["p=7", "model.d_emb=4", "model.d_hidden=8", "bar=false"])))
    assert step.tf32 is None
    assert make_config([]).tf32 is False


def test_amp_bf16_trains_the_forward_in_bfloat16_and_says_so(tmp_path):
    """amp=bf16: the step's forward and loss under bfloat16 autocast (the weights stay float32), so the run
    differs from a float32 one by bfloat16 rounding but learns alike; the summary records it; float64 runs and
    stacks refuse it in one line."""
    import pytest

    from conftest import tiny
    from groklab import ConfigError, make_config, train
    from groklab.engine.population import train_population

    base = tiny(steps=60, **{"eval.every": 20, "optim.lr": 0.01})
    full, amp = train(make_config(base)), train(make_config(base + ["amp=bf16"]), out=tmp_path / "a")
    assert full.history[-1]["train/loss"] < full.history[0]["train/loss"]
    assert amp.history[-1]["train/loss"] < 0.5 * amp.history[0]["train/loss"]  # it learns
    assert amp.history[-1]["train/loss"] != full.history[-1]["train/loss"]  # in other arithmetic
    assert amp.summary.get("numerics/amp") == "bf16" and "numerics/amp" not in full.summary
    with pytest.raises(ConfigError, match="amp"):
        make_config(base + ["amp=bf16", "dtype=float64"])
    with pytest.raises(ConfigError, match="amp"):
        train_population([make_config(base + ["amp=bf16", f"seed={s}"]) for s in (0, 1)], packing="stacked")
