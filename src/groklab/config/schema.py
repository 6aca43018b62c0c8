"""The run config's schema: every field typed, bounded and commented; cross-field rules as validators.

Each rule raises a one-line ConfigError naming the field, the value and what is allowed.
"""
from __future__ import annotations

from typing import Any, ClassVar, Literal, Optional, get_args

from pydantic import Field, model_validator

from groklab.config.measures import MeasuresConfig
from groklab.config.rules import cross_field_rules
from groklab.config.section import Section
from groklab.errors import ConfigError, deprecated

# The names each choice allows; the tuples below are read off these types (one list of names each).
TaskName = Literal["add", "sub", "mul", "div", "poly", "sum", "dihedral", "perm", "parity", "shapes"]
SplitName = Literal["random", "uniform", "skewed", "square", "strip"]
ModelName = Literal["mlp", "mlp_emb", "transformer", "lstm", "birnn", "resnet18"]
OptimName = Literal["sgd", "adam", "adamw", "nadam", "rmsprop", "muon"]
SamplerName = Literal["epoch", "replacement", "full", "balanced", "entropy"]
Encoding = Literal["op", "no_op", "eq", "sep", "offset"]
EmbInit = Literal["normal", "circulant", "toeplitz"]
MAX_SEED = 2**31 - 1  # seeds are mixed with steps into 64-bit generator seeds
TASK_NAMES, SPLITS, MODELS, OPTIMIZERS, SAMPLERS, ENCODINGS, EMB_INITS = (
    get_args(t) for t in (TaskName, SplitName, ModelName, OptimName, SamplerName, Encoding, EmbInit))


class TaskConfig(Section):
    name: TaskName = "mul"  # operation over Z_p, a group's composition, or shapes: grids of pictures (004 §6.3)
    expr: Optional[str] = None  # polynomial in a, b for name=poly, e.g. "a^2+a*b+b^2"
    K: int = Field(2, ge=2)  # number of operands for name=sum, of bits for name=parity
    # dihedral / perm: composition in D_(p/2) / S_m (p = m!), p the group's order (data/groups.py);
    # parity: p = 2, the label the parity of the first `support` of the K bits
    support: int = Field(3, ge=1)
    # shapes: a cells x cells grid of dictionary pictures (empty, polygons with 3, 4, ... sides), side x side px;
    # label = sum of the cells' side counts (weight=sides) or that sum mod `mod`; labels=random: a control
    cells: int = Field(2, ge=1, le=4)
    entries: int = Field(11, ge=2, le=16)
    image: int = Field(224, ge=4)  # pixels per side (224: 004's ResNet input)
    weight: Literal["sides", "mod"] = "sides"
    mod: int = Field(2, ge=2)
    labels: Literal["sum", "random"] = "sum"


class SplitConfig(Section):
    name: SplitName = "random"
    frac_train: float = Field(0.3, gt=0, lt=1)  # training fraction of the WHOLE table
    seed: int = Field(0, ge=0, le=MAX_SEED)  # split seed, separate from the init seed
    test_reserve: Optional[float] = Field(None, gt=0, lt=1)  # 000 §5.1 protocol: 0.2
    unused_to_test: bool = False  # with test_reserve: rows chosen for neither go to test
    skew: float = Field(3.0, ge=0)  # skewed: weight exp(-skew * x / (p-1)) on x = `skew_by`
    # skewed: x = operand a (every token stays common as b) or a + b (tokens near p-1 become rare in both places)
    skew_by: Literal["a", "a+b"] = "a"
    k: Optional[int] = None  # square/strip holdout size: a <= k (and b <= k)
    # square/strip: frac_train of the whole table (004's code) or of what the holdout leaves (004's prose)
    frac_of: Literal["table", "remainder"] = "table"


class ModelConfig(Section):
    # mlp / mlp_emb: 000 eq. 1 (raw values) / eq. 2 (embedding); transformer: decoder, logits at the
    # last position; lstm; birnn: bidirectional tanh RNN
    name: ModelName = "mlp_emb"
    d_emb: int = Field(128, ge=1)  # embedding dim; the transformer's residual width (TransformerLens: d_model)
    d_hidden: int = Field(512, ge=1)  # MLP hidden width (paper: 4 x d_emb), transformer MLP width (d_mlp), RNN hidden
    depth: int = Field(1, ge=1)  # MLP hidden layers / transformer blocks / RNN layers
    act: Literal["relu", "gelu", "tanh", "silu"] = "relu"  # MLP and transformer-MLP activation
    n_heads: int = Field(4, ge=1)  # transformer attention heads
    norm: Literal["pre", "post", "none"] = "post"  # transformer LayerNorm placement (Power et al.: post)
    dropout: float = Field(0.0, ge=0, lt=1)  # after hidden activations / attention and MLP / between RNN layers
    # circulant: rows = shifts of one N(0, std^2) vector (004 App. E's words); toeplitz: 004's code, token t's
    # row r[|i - t|] / sqrt(d_emb) from one U[0, 1) vector r (symmetric Toeplitz; needs vocab <= d_emb)
    emb_init: EmbInit = "normal"
    emb_init_std: float = Field(1.0, gt=0)  # std of the embedding init (torch: 1)
    freeze_emb: bool = False  # keep the embedding at its init
    bias: bool = True  # transformer: biases in Q/K/V/O and the unembedding (004's code, Nanda et al.: none)
    # torch's defaults; transformer scaled: every weight and embedding N(0, 1/d_emb), biases 0 (004's code, Nanda
    # et al.); mlp/mlp_emb kaiming: linears kaiming_normal_ (relu, fan_in), biases 0, embedding N(0, 2/(vocab +
    # d_emb)) as xavier_normal_ draws it (002's released MLP)
    init: Literal["torch", "scaled", "kaiming"] = "torch"
    input: Literal["embed", "value"] = "embed"  # lstm/birnn: tokens -> E, or each one raw float (002's BiRNN code)
    tied: bool = False  # mlp/mlp_emb: hidden layers 2..depth share one weight (002's code reuses one layer)
    width: int = Field(64, ge=1)  # resnet18: channels of the first stage (torchvision: 64), stages w, 2w, 4w, 8w


class OptimConfig(Section):
    name: OptimName = "adam"  # a real algorithm, as in torch
    lr: float = Field(1e-3, ge=0)
    weight_decay: float = Field(1e-3, ge=0)
    # coupled: wd * theta joins the gradient (torch's sgd/adam/nadam/rmsprop); decoupled: theta *= 1 - lr * wd
    wd_mode: Optional[Literal["coupled", "decoupled"]] = None  # before the update; None: adamw's own (decoupled)
    c: float = Field(1.0, gt=0)  # embedding lr ratio: E at c * lr, the rest at lr (000 Prop. 4.1; Adam-LR: 10)
    # adaptive: c = sigma_max(E)/sigma_max(W) * f_W/f_E every c_every steps (from c), clipped to c_range; f_E per
    c_mode: Literal["fixed", "adaptive"] = "fixed"  # c_freq: one c from the mean over rows, or a c_i per row
    c_freq: Literal["mean", "row"] = "mean"
    c_every: int = Field(100, ge=1)
    c_range: tuple[float, float] = (1.0, 100.0)
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = Field(1e-8, gt=0)
    momentum: float = Field(0.9, ge=0, lt=1)  # sgd only (rmsprop: none, as torch)
    alpha: float = Field(0.99, gt=0, lt=1)  # rmsprop smoothing constant
    # lr(t) = lr * warm-up ramp (linear over `warmup` steps) * decay from `warmup` to `decay_steps`
    schedule: Literal["constant", "linear", "cosine", "exp"] = "constant"  # decay shape after warm-up
    warmup: int = Field(0, ge=0)
    decay_steps: Optional[int] = Field(None, ge=1)  # step where the decay ends; None: `steps`
    final_frac: float = Field(0.0, ge=0, le=1)  # lr at the end of the decay, as a fraction of lr (exp: > 0)
    # Grokfast (Lee et al. 2024): g <- g + lamb * ema (alpha) or window mean (window) of past grads
    grokfast: Literal["none", "ema", "ma"] = "none"
    grokfast_alpha: float = Field(0.98, ge=0, lt=1)
    grokfast_lamb: float = Field(2.0, ge=0, le=1e3)  # Lee et al. use 0.1-5; past 1e3 the amplified grads overflow
    grokfast_window: int = Field(100, ge=1)
    ortho_grad: bool = False  # ⊥Grad (Prieto et al. 2025): drop the grad component along each weight tensor

    DEPRECATED_KEYS: ClassVar[tuple] = ("c_adaptive",)  # accepted by overrides for one release, translated below

    @model_validator(mode="before")
    @classmethod
    def _old_names(cls, data: Any) -> Any:
        """0.1 names: `adam_lr` etc. (= the algorithm with c defaulting to 10), `c_adaptive`, `c: null`."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        name = data.get("name")
        if isinstance(name, str) and name.endswith("_lr") and name[:-3] in OPTIMIZERS:
            deprecated(f"optim={name}", f"optim={name[:-3]} optim.c=10")
            data["name"] = name[:-3]
            if data.get("c") is None:
                data["c"] = 10.0
        if "c_adaptive" in data:
            flag = data.pop("c_adaptive")
            if flag:
                deprecated("optim.c_adaptive=true", "optim.c_mode=adaptive")
            data.setdefault("c_mode", "adaptive" if flag else "fixed")
        if "c" in data and data["c"] is None:
            data["c"] = 1.0
        return data

    @model_validator(mode="after")
    def _rules(self) -> "OptimConfig":
        if self.name in ("adamw", "muon") and self.wd_mode == "coupled":  # muon: torch's Muon and AdamW halves
            raise ConfigError("optim.wd_mode", "coupled", f"{self.name} has decoupled decay only; use optim=adam")
        if self.decoupled and self.name in ("sgd", "rmsprop"):
            raise ConfigError("optim.wd_mode", "decoupled", f"allowed with adam, adamw, nadam (not {self.name})")
        if self.c_freq == "row" and self.c_mode != "adaptive":
            raise ConfigError("optim.c_freq", "row", "needs optim.c_mode=adaptive (a fixed c has no f_E)")
        for i, beta in enumerate(self.betas):
            if not 0 <= beta < 1:
                raise ConfigError("optim.betas", list(self.betas), f"each beta must be in [0, 1); beta{i + 1}={beta}")
        if not 0 < self.c_range[0] <= self.c_range[1]:
            raise ConfigError("optim.c_range", list(self.c_range), "must be [lo, hi] with 0 < lo <= hi")
        if self.schedule == "exp" and self.final_frac <= 0:
            raise ConfigError("optim.final_frac", self.final_frac, "must be > 0 for schedule=exp")
        # a setting that does nothing in the chosen recipe is refused, not silently kept (a changed value only:
        # stored configs carry every default)
        changed = lambda k: getattr(self, k) != type(self).model_fields[k].default  # noqa: E731
        inert = [(k, "optim.grokfast=none") for k in ("grokfast_alpha", "grokfast_lamb", "grokfast_window")
                 if self.grokfast == "none" and changed(k)]
        inert += [(k, why) for k, on, why in (
            ("grokfast_alpha", self.grokfast == "ma", "optim.grokfast=ma (its window replaces alpha)"),
            ("grokfast_window", self.grokfast == "ema", "optim.grokfast=ema (alpha sets its memory)"),
            ("momentum", self.name == "muon", "optim=muon (momentum is SGD's; Muon's Nesterov momentum is 0.95)"))
            if on and changed(k)]
        if inert:
            key, why = inert[0]
            raise ConfigError(f"optim.{key}", getattr(self, key), f"does nothing with {why}")
        return self

    @property
    def decoupled(self) -> bool:
        """Whether weight decay is decoupled from the gradient (AdamW's theta *= 1 - lr * wd)."""
        return self.wd_mode == "decoupled" or (self.wd_mode is None and self.name in ("adamw", "muon"))


class EvalConfig(Section):
    every: Optional[int] = Field(None, ge=1)  # evaluate train/test every k steps; None: auto (engine/evals.py)
    log_points: int = Field(20, ge=0, le=10_000)  # ... plus this many log-spaced early steps (log-x plots)
    chunk: int = Field(16384, ge=1)  # rows per evaluation forward pass


class GrokConfig(Section):
    train_acc: float = Field(0.99, gt=0, le=1)  # t_train: first eval step with train acc >= this
    test_acc: float = Field(0.99, gt=0, le=1)  # t_test: first eval step with test acc >= this
    # go_step (004's GO-epoch): first eval step from t_train on with test acc >= its value at t_train + rise;
    # u_acc / l_acc (U-Acc / L-Acc): highest test acc from go_step on / lowest after that maximum
    rise: float = Field(0.1, gt=0, lt=1)


class StopConfig(Section):
    early: bool = True  # stop once test acc stayed >= target for `patience` steps
    target: float = Field(0.99, ge=0, le=1)
    patience: int = Field(1000, ge=0)
    # plateau: also stop once neither train nor test accuracy rose more than plateau_tol above its level at
    # its last rise for `plateau` steps. Off by default: a grokking run sits on exactly such a plateau (the fit,
    # test accuracy flat) before it generalizes; for runs whose late rise is not the question (a holdout that
    # caps test accuracy, a control that never learns), with a window longer than the delays being studied.
    plateau: Optional[int] = Field(None, ge=1)
    plateau_tol: float = Field(0.01, gt=0, lt=1)
    # diverged: a non-finite loss, or the train loss above diverge_factor x its first value for diverge_evals
    # evals in a row (Adam at lr 1e6 reaches 1e17 with finite numbers); quick-profile runs stay below 2x
    diverge_factor: Optional[float] = Field(100.0, gt=1)  # None: only non-finite losses
    diverge_evals: int = Field(3, ge=1)


class TrackConfig(Section):
    tensorboard: bool = False  # also write TensorBoard event files to <run>/tb (extra: track)
    wandb: bool = False  # also log to Weights & Biases under <run>/wandb; WANDB_MODE=offline works offline
    wandb_project: str = "groklab"


class Config(Section):
    task: TaskConfig = TaskConfig()
    p: int = Field(97, ge=2)  # modulus; operands are 0..p-1
    # op: [a, op, b, =]; no_op: [a, b]; eq: [a, b, =] (004's released code); sep: [a, p+b, =] (own ids per operand);
    # offset: [a, d+b, =] (004's STRIP code: d = 60 at p = 97, the operands' id ranges overlap)
    encoding: Encoding = "op"
    encoding_offset: Optional[int] = Field(None, ge=1)  # d of encoding=offset; unset: round(60 p / 97)
    split: SplitConfig = SplitConfig()
    model: ModelConfig = ModelConfig()
    optim: OptimConfig = OptimConfig()
    batch_size: int = Field(512, ge=1)
    # shuffled epochs / iid / full batch / 000 App. A: balanced token coverage, p_i ∝ exp(L_i^2 / gamma)
    sampler: SamplerName = "epoch"
    # entropy sampler: gamma = sampler_tau * mean_i L_i^2, or the absolute sampler_gamma (App. A's 1e-4: one-hot)
    sampler_tau: float = Field(0.3, gt=0)  # measured: entropy 0.82-0.92 of uniform at tau 0.3 (docs/results.md)
    sampler_gamma: Optional[float] = Field(None, gt=0)
    sampler_beta: float = Field(0.9, ge=0, lt=1)  # entropy sampler: EMA decay of the token gradient norms L_i
    loss: Literal["ce", "stablemax"] = "ce"  # softmax or StableMax cross-entropy (Prieto et al. 2025)
    loss_float64: bool = False  # cast logits to float64 before the training loss (softmax collapse)
    steps: int = Field(20000, ge=0)  # maximum optimizer steps
    seed: int = Field(0, ge=0, le=MAX_SEED)  # init + sampler seed
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
    # CUDA only; stored in every run so a verdict names its numerics:
    # tf32: TF32 matmuls, cuDNN convolutions and RNNs in the training step, solo or stacked (engine/precision.py;
    # off: full float32 even where cuDNN defaults to TF32, since 2026-11-28); 8.7 -> 5.25 ms/step at M=256 on an
    # H100, ~1e-3 relative per matmul, which chaotic high-lr runs amplify. fused (stacked populations only):
    # Adam/AdamW as a compiled one-pass optimizer and the step as a CUDA graph (false without a working triton).
    # Both were environment variables before 2026-11-28.
    tf32: bool = False
    fused: bool = True
    # amp: the training step's forward and loss under torch.autocast in bfloat16 (weights, gradients, optimizer and
    # evaluation stay float32; solo runs only). Off unless a profile sets it: a numerics assumption of its own
    amp: Literal["off", "bf16"] = "off"
    bar: bool = True  # live progress bar (`progress` in configs stored before 2026-11-26: RENAMED below)
    track: TrackConfig = TrackConfig()  # optional metric sinks; the run directory stays the source of truth

    # top-level keys renamed since configs were first stored, old -> new; "progress" now means only the progress
    # measures (MED, norms). A user's old name is accepted for one release with a notice; stored configs (run
    # folders, results archives) are read through `renamed`, silently
    RENAMED: ClassVar[dict] = {"progress": "bar"}
    DEPRECATED_KEYS: ClassVar[tuple] = tuple(RENAMED)

    def to_dict(self) -> dict:
        return self.model_dump(mode="json")

    @classmethod
    def renamed(cls, data: dict) -> dict:
        """`data` with its old top-level keys under their current names (a new dict where one was renamed; `data`
        itself is not changed). The store reads every stored config through it, without the user's notice."""
        if not any(old in data for old in cls.RENAMED):
            return data
        return {cls.RENAMED.get(k, k): v for k, v in data.items()}

    @model_validator(mode="before")
    @classmethod
    def _old_names(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        for old in cls.RENAMED.keys() & data.keys():
            deprecated(old, cls.RENAMED[old])
        return cls.renamed(data)

    @model_validator(mode="after")
    def _rules(self) -> "Config":
        """Rules across sections that a single field's type cannot express (config/rules.py)."""
        cross_field_rules(self)
        return self
