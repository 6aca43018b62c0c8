import pytest

from groklab.config import make_config, parse_override
from groklab.errors import ConfigError


def test_defaults_are_the_papers_mlp():
    cfg = make_config()
    assert (cfg.p, cfg.model.d_emb, cfg.model.d_hidden, cfg.optim.weight_decay) == (97, 128, 512, 1e-3)
    assert cfg.optim.c == 1.0


def test_shorthands_and_dotted_overrides():
    cfg = make_config(["task=mul", "model=mlp_emb", "optim=adam_lr", "optim.lr=0.01", "optim.c=10",
                       "batch_size=512", "steps=20000", "seed=3", "optim.betas=[0.9,0.98]"])
    assert cfg.task.name == "mul" and cfg.model.name == "mlp_emb" and cfg.optim.name == "adam"
    assert cfg.optim.lr == 0.01 and cfg.optim.c == 10 and cfg.seed == 3 and cfg.optim.betas == (0.9, 0.98)


def test_adam_lr_default_ratio_is_ten_and_plain_is_one():
    assert make_config(["optim=adam_lr"]).optim.c == 10
    assert make_config(["optim=adamw"]).optim.c == 1


def test_polynomial_task_shorthand():
    cfg = make_config(["task=a^2+a*b+b^2"])
    assert cfg.task.name == "poly" and cfg.task.expr == "a^2+a*b+b^2"


def test_scientific_notation_is_a_float():
    assert make_config(["optim.lr=1e-3"]).optim.lr == pytest.approx(1e-3)


def test_yaml_file_then_overrides(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text("task: add\np: 31\noptim: {name: adamw, lr: 0.002}\n")
    cfg = make_config(["p=37"], file=str(f))
    assert (cfg.task.name, cfg.p, cfg.optim.name, cfg.optim.lr) == ("add", 37, "adamw", 0.002)


def test_config_round_trips_through_its_dict():
    cfg = make_config(["task=sum", "task.K=3", "split=strip", "split.k=4"])
    assert make_config(base=cfg.to_dict()) == cfg


@pytest.mark.parametrize("override, field", [
    ("foo=1", "foo"), ("optim.foo=1", "optim.foo"), ("task=xor", "task.name"), ("p=1", "p"),
    ("split.frac_train=0", "split.frac_train"), ("batch_size=0", "batch_size"),
    ("optim.lr=-1", "optim.lr"), ("optim.weight_decay=-0.5", "optim.weight_decay"),
    ("steps=abc", "steps"), ("model=resnet", "model.name"), ("p.x=3", "p.x"),
])
def test_bad_values_name_the_field(override, field):
    with pytest.raises(ConfigError) as err:
        make_config([override])
    assert err.value.field == field and "\n" not in str(err.value)


def test_override_without_equals():
    with pytest.raises(ConfigError, match="key=value"):
        parse_override("lr0.1")
