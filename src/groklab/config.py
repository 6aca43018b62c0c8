"""Typed, validated run config: YAML file + dotted `key=value` overrides, saved into every run."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Optional

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from groklab.errors import ConfigError

TASK_NAMES = ("add", "sub", "mul", "div", "poly", "sum")


class Section(BaseModel):
    """A config block: unknown keys are errors, assignment re-validates."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class TaskConfig(Section):
    name: Literal["add", "sub", "mul", "div", "poly", "sum"] = "mul"  # operation over Z_p
    expr: Optional[str] = None  # polynomial in a, b for name=poly, e.g. "a^2+a*b+b^2"
    K: int = Field(2, ge=2)  # number of operands for name=sum


class SplitConfig(Section):
    name: Literal["random", "uniform", "skewed", "square", "strip"] = "random"
    frac_train: float = Field(0.3, gt=0, lt=1)  # training fraction of the WHOLE table
    seed: int = 0  # split seed, separate from the init seed
    test_reserve: Optional[float] = Field(None, gt=0, lt=1)  # 000 §5.1 protocol: 0.2
    unused_to_test: bool = False  # with test_reserve: rows chosen for neither go to test
    skew: float = Field(3.0, ge=0)  # skewed: weight exp(-skew * a / (p-1)) on operand a
    k: Optional[int] = None  # square/strip holdout size: a <= k (and b <= k)


# Paper defaults per architecture, applied to the fields a config leaves out (002 §1, §2.1, §2.3).
MODEL_DEFAULTS = {
    "transformer": {"depth": 2, "d_hidden": 512, "act": "gelu"},
    "lstm": {"depth": 2, "d_hidden": 256},
    "birnn": {"depth": 3, "d_hidden": 128},
}


class ModelConfig(Section):
    # mlp / mlp_emb: 000 eq. 1 (raw values) / eq. 2 (embedding); transformer: decoder, logits at the
    # last position; lstm; birnn: bidirectional tanh RNN
    name: Literal["mlp", "mlp_emb", "transformer", "lstm", "birnn"] = "mlp_emb"
    d_emb: int = Field(128, ge=1)  # embedding dim (= d_model of the transformer)
    d_hidden: int = Field(512, ge=1)  # MLP hidden width (paper: 4 x d_emb), transformer d_mlp, RNN hidden
    depth: int = Field(1, ge=1)  # MLP hidden layers / transformer blocks / RNN layers
    act: Literal["relu", "gelu", "tanh", "silu"] = "relu"  # MLP and transformer-MLP activation
    n_heads: int = Field(4, ge=1)  # transformer attention heads
    norm: Literal["pre", "post", "none"] = "post"  # transformer LayerNorm placement (Power et al.: post)
    dropout: float = Field(0.0, ge=0, lt=1)  # after hidden activations / attention and MLP / between RNN layers
    emb_init: Literal["normal", "circulant"] = "normal"  # circulant: rows = shifts of one random vector (004 App. E)
    emb_init_std: float = Field(1.0, gt=0)  # std of the embedding init (torch: 1)
    freeze_emb: bool = False  # keep the embedding at its init

    @model_validator(mode="before")
    @classmethod
    def _paper_defaults(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("name") in MODEL_DEFAULTS:
            data = {**MODEL_DEFAULTS[data["name"]], **data}
        return data


class OptimConfig(Section):
    # *_lr = Adam-LR (000 Prop. 4.1): embedding lr = c * lr, with c defaulting to 10
    name: Literal["sgd", "adam", "adamw", "nadam", "rmsprop",
                  "sgd_lr", "adam_lr", "adamw_lr", "nadam_lr", "rmsprop_lr"] = "adam"
    lr: float = Field(1e-3, ge=0)
    weight_decay: float = Field(1e-3, ge=0)  # coupled (L2 in grad) for sgd/adam, decoupled for adamw
    c: Optional[float] = Field(None, gt=0)  # embedding lr ratio; None: 10 for *_lr, 1 otherwise
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = Field(1e-8, gt=0)
    momentum: float = Field(0.9, ge=0, lt=1)  # sgd only (rmsprop: none, as torch)
    alpha: float = Field(0.99, gt=0, lt=1)  # rmsprop smoothing constant
    # adaptive c (000 Prop. 4.1): c = sigma_max(E)/sigma_max(W) * f_W/f_E every c_every steps, clipped
    c_adaptive: bool = False
    c_every: int = Field(100, ge=1)
    c_range: tuple[float, float] = (1.0, 100.0)
    # lr(t) = lr * warm-up ramp (linear over `warmup` steps) * decay from `warmup` to `decay_steps`
    schedule: Literal["constant", "linear", "cosine", "exp"] = "constant"  # decay shape after warm-up
    warmup: int = Field(0, ge=0)
    decay_steps: Optional[int] = Field(None, ge=1)  # step where the decay ends; None: `steps`
    final_frac: float = Field(0.0, ge=0, le=1)  # lr at the end of the decay, as a fraction of lr (exp: > 0)
    # Grokfast (Lee et al. 2024): g <- g + lamb * ema (alpha) or window mean (window) of past grads
    grokfast: Literal["none", "ema", "ma"] = "none"
    grokfast_alpha: float = Field(0.98, ge=0, lt=1)
    grokfast_lamb: float = Field(2.0, ge=0)
    grokfast_window: int = Field(100, ge=1)
    ortho_grad: bool = False  # ⊥Grad (Prieto et al. 2025): drop the grad component along each weight tensor

    @property
    def base(self) -> str:
        return self.name.removesuffix("_lr")

    @property
    def ratio(self) -> float:
        """The embedding learning-rate ratio c actually used."""
        if self.c is not None:
            return self.c
        return 10.0 if self.name.endswith("_lr") else 1.0


class EvalConfig(Section):
    every: int = Field(100, ge=1)  # evaluate train/test every k steps ...
    log_points: int = Field(20, ge=0)  # ... plus this many log-spaced early steps (log-x plots)
    chunk: int = Field(16384, ge=1)  # rows per evaluation forward pass


class GrokConfig(Section):
    train_acc: float = Field(0.99, gt=0, le=1)  # t_train: first eval step with train acc >= this
    test_acc: float = Field(0.99, gt=0, le=1)  # t_test: first eval step with test acc >= this


class StopConfig(Section):
    early: bool = True  # stop once test acc stayed >= target for `patience` steps
    target: float = Field(0.99, ge=0, le=1)
    patience: int = Field(1000, ge=0)


class TrackConfig(Section):
    tensorboard: bool = False  # also write TensorBoard event files to <run>/tb (extra: track)
    wandb: bool = False  # also log to Weights & Biases under <run>/wandb; WANDB_MODE=offline works offline
    wandb_project: str = "groklab"


class HessianMeasure(Section):
    every: int = Field(0, ge=0)  # steps between Hessian measures; 0: off (costs ~10-40 HVPs per block)
    blocks: list[Literal["E", "W", "rest", "all"]] = ["E", "W"]  # blocks from model.blocks(); all = whole model
    k: int = Field(1, ge=1)  # top eigenvalues per block (Lanczos)
    tol: float = Field(1e-2, gt=0, lt=1)  # Lanczos stop: Ritz residual <= tol * |eigenvalue| (bounds the rel. error)
    max_iter: int = Field(100, ge=1)  # HVP cap per block
    trace_samples: int = Field(0, ge=0)  # Hutchinson probes for hessian/<B>_trace; 0: no trace
    max_rows: Optional[int] = Field(None, ge=1)  # fixed random subsample of train rows; None: all


class SpectraMeasure(Section):
    every: int = Field(0, ge=0)  # SVD of E, W, EW and the Fourier spectrum of E; 0: off
    rank_rtol: Optional[float] = Field(None, gt=0, lt=1)  # rank: sigma > rtol*sigma_max; None: max(m,n)*eps
    n_key: int = Field(5, ge=1)  # key Fourier frequencies reported


class EveryMeasure(Section):
    every: int = Field(0, ge=0)  # steps between measures; 0: off


class GeometryMeasure(Section):
    every: int = Field(0, ge=0)  # PCA coordinates of the operand embeddings; 0: off
    tsne: bool = False  # also t-SNE (scikit-learn; seconds per call)


class LandscapeMeasure(Section):
    every: int = Field(0, ge=0)  # loss slices; 0: off (n_points^dims evaluations of the train loss)
    dims: Literal[1, 2] = 2
    n_points: int = Field(21, ge=3)  # grid points per direction, odd keeps alpha=0 on the grid
    radius: float = Field(1.0, gt=0)  # alpha in [-radius, radius]
    blocks: list[Literal["E", "W", "rest", "all"]] = ["all"]  # perturbed blocks
    filter_norm: bool = True  # Li et al. filter-normalised directions; False: plain N(0, 1)


class MeasuresConfig(Section):
    hessian: HessianMeasure = HessianMeasure()
    spectra: SpectraMeasure = SpectraMeasure()
    progress: EveryMeasure = EveryMeasure()  # MED, weight and gradient norms per block (train set)
    token_grads: EveryMeasure = EveryMeasure()  # per-token embedding grad norms + token counts of the batch
    geometry: GeometryMeasure = GeometryMeasure()
    landscape: LandscapeMeasure = LandscapeMeasure()
    seed: int = 0  # measure randomness (Lanczos start, probes, directions), apart from training RNG


class Config(Section):
    task: TaskConfig = TaskConfig()
    p: int = Field(97, ge=2)  # modulus; operands are 0..p-1
    encoding: Literal["op", "no_op"] = "op"  # [a, op, b, =] or [a, b]
    split: SplitConfig = SplitConfig()
    model: ModelConfig = ModelConfig()
    optim: OptimConfig = OptimConfig()
    batch_size: int = Field(512, ge=1)
    # shuffled epochs / iid / full batch / 000 App. A: balanced token coverage, p_i ∝ exp(L_i^2 / gamma)
    sampler: Literal["epoch", "replacement", "full", "balanced", "entropy"] = "epoch"
    sampler_gamma: float = Field(1e-4, gt=0)  # entropy sampler temperature gamma
    sampler_beta: float = Field(0.9, ge=0, lt=1)  # entropy sampler: EMA decay of the token gradient norms L_i
    loss: Literal["ce", "stablemax"] = "ce"  # softmax or StableMax cross-entropy (Prieto et al. 2025)
    loss_float64: bool = False  # cast logits to float64 before the training loss (softmax collapse)
    steps: int = Field(20000, ge=0)  # maximum optimizer steps
    seed: int = 0  # init + sampler seed
    eval: EvalConfig = EvalConfig()
    grok: GrokConfig = GrokConfig()
    stop: StopConfig = StopConfig()
    checkpoint_every: int = Field(1000, ge=0)  # steps between atomic checkpoints; 0: only at the end
    checkpoint_keep: int = Field(0, ge=0)  # also keep ckpt_<step>.pt every k steps (for `groklab measure`); 0: no
    measures: MeasuresConfig = MeasuresConfig()  # scheduled measures, all off by default
    device: Literal["cpu", "cuda", "auto"] = "cpu"
    dtype: Literal["float32", "float64"] = "float32"
    # CPU: flush subnormal floats to zero (process-wide). Once the training set is fit, tiny gradients
    # and Adam moments turn subnormal and each op on them is ~100x slower: measured 6x faster steps
    # late in a run (p=47, batch 64); values below 1.2e-38 (float32) become 0.
    flush_denormal: bool = True
    progress: bool = True  # live progress bar
    track: TrackConfig = TrackConfig()  # optional metric sinks; the run directory stays the source of truth

    def to_dict(self) -> dict:
        return self.model_dump(mode="json")


# A sub-config given a plain value sets its `name` (`model=mlp_emb`); a task given an
# expression sets a polynomial task (`task=a^2+b`).
def _shorthand(key: str, value: Any) -> Any:
    if key in ("model", "optim", "split") and isinstance(value, str):
        return {"name": value}
    if key == "task" and isinstance(value, str):
        # a bare word other than a variable is a task name (so `task=xor` says "unknown task")
        is_name = value in TASK_NAMES or (value.isidentifier() and value not in ("a", "b"))
        return {"name": value} if is_name else {"name": "poly", "expr": value}
    return value


def _fields(cls: type[BaseModel]) -> dict[str, Any]:
    return {name: f.annotation for name, f in cls.model_fields.items()}


def _section_cls(cls: type[BaseModel], key: str) -> Optional[type[BaseModel]]:
    ann = cls.model_fields[key].annotation
    return ann if isinstance(ann, type) and issubclass(ann, BaseModel) else None


def flatten(d: dict, prefix: str = "") -> dict:
    """Nested config dict -> {"optim.lr": 0.001, ...}; lists become tuples so values hash."""
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = tuple(v) if isinstance(v, list) else v
    return out


def set_dotted(data: dict, dotted: str, value: Any) -> None:
    """Set `a.b.c = value` in a nested dict, checking every key against the schema."""
    cls: type[BaseModel] = Config
    parts = dotted.split(".")
    node = data
    for i, key in enumerate(parts):
        if key not in cls.model_fields:
            where = ".".join(parts[:i]) or "config"
            raise ConfigError(dotted, value, f"unknown key; {where} has: {', '.join(cls.model_fields)}")
        sub = _section_cls(cls, key)
        last = i == len(parts) - 1
        if last:
            value = _shorthand(key, value) if i == 0 else value
            if sub is not None and isinstance(value, dict) and isinstance(node.get(key), dict):
                node[key].update(value)
            else:
                node[key] = value
            return
        if sub is None:
            raise ConfigError(dotted, value, f"{'.'.join(parts[:i + 1])} has no sub-keys")
        if not isinstance(node.get(key), dict):
            node[key] = {}
        node, cls = node[key], sub


def parse_override(text: str) -> tuple[str, Any]:
    """`key=value` with a YAML scalar/list value (`lr=0.01`, `betas=[0.9,0.98]`)."""
    if "=" not in text:
        raise ConfigError("override", text, "expected key=value, e.g. task=mul or optim.lr=0.01")
    key, raw = text.split("=", 1)
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError:
        value = raw
    # YAML reads "1e-3" as a string; pydantic converts it for float fields.
    return key.strip(), value


def _first_error(err: ValidationError) -> ConfigError:
    e = err.errors()[0]
    field = ".".join(str(x) for x in e["loc"]) or "config"
    msg = e["msg"]
    if e["type"] == "extra_forbidden":
        msg = "unknown key"
    elif e["type"] == "literal_error":
        msg = "allowed: " + msg.removeprefix("Input should be ")
    return ConfigError(field, e.get("input"), msg)


def validate(data: dict) -> Config:
    """Build a Config from nested plain data, turning pydantic errors into one-line ConfigErrors."""
    for key in list(data):
        if key in Config.model_fields:
            data[key] = _shorthand(key, data[key])
    try:
        return Config.model_validate(data)
    except ValidationError as err:
        raise _first_error(err) from None


def load_yaml(path: str | Path) -> dict:
    path = Path(path)
    if not path.is_file():
        raise ConfigError("config", str(path), "no such file")
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as err:
        raise ConfigError("config", str(path), f"not valid YAML ({str(err).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise ConfigError("config", str(path), "must hold a mapping of config keys")
    return data


def make_config(overrides: list[str] = (), base: Optional[dict] = None, file: Optional[str] = None) -> Config:
    """Base dict, then a YAML file, then `key=value` overrides, validated once at the end."""
    data: dict = {}
    for source in (base or {}), (load_yaml(file) if file else {}):
        for key, value in source.items():
            set_dotted(data, key, value)
    for text in overrides:
        set_dotted(data, *parse_override(text))
    return validate(data)
