"""The typed, validated options of one number-line analysis (CLI flags map onto these fields)."""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from groklab.config import config_error
from groklab.engine.budget import allow_large
from groklab.errors import ConfigError

MAX_BOOTSTRAP = 10_000  # pairs-bootstrap resamples of the beta fit: 10,000 already give a 95% CI to ~0.5%


class NumberlineSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", protected_namespaces=())

    model: Optional[str] = None  # local Hugging Face model directory (never downloaded)
    run: Optional[str] = None  # or a groklab run directory: analyse its operand embeddings E[0..p-1]
    numbers: Optional[str] = None  # number-set spec (numbers.py); None: 1:1000 for a model, 0..p-1 for a run
    template: str = "{n}"  # text around each numeral; must contain {n} once
    layers: str = "all"  # "all" or comma-separated hidden-state indices (0 = embeddings, -1 = last)
    methods: list[Literal["pca", "pls"]] = ["pca", "pls"]  # 1-D/2-D projections to analyse
    dims: Literal[1, 2] = 1  # projection dimension; with 2 every component is analysed
    folds: int = Field(5, ge=0)  # out-of-fold PLS with K folds (K >= 2); 0: in-sample (overfits when D >~ N)
    pls_target: Literal["n", "log"] = "n"  # PLS regresses on n, or on log n (biases toward a log line)
    bootstrap: int = Field(0, ge=0)  # beta CI: 0 = Wald from the fit covariance; B > 0 = pairs bootstrap
    scatter: Optional[str] = None  # layers for the projection scatter; None: first, middle, last
    intervene: Optional[int] = None  # block input (hidden-state index) to steer along the number line
    alpha: float = Field(4.0, gt=0)  # steering strength, in units of hidden-state norm (u is a unit vector)
    batch_size: int = Field(16, ge=1)  # texts per forward pass
    device: Literal["cpu", "cuda", "auto"] = "cpu"
    dtype: Literal["float32", "bfloat16", "float16"] = "float32"  # model weights while extracting
    seed: int = Field(0, ge=0, le=2**31 - 1)  # K-fold shuffling, bootstrap (scikit-learn's random_state range)


def make_spec(**kw) -> NumberlineSpec:
    """Validate options into a spec, with the cross-field rules; one-line ConfigError on bad input."""
    try:
        spec = NumberlineSpec(**{k: v for k, v in kw.items() if v is not None})
    except ValidationError as err:
        raise config_error(err) from None
    if (spec.model is None) == (spec.run is None):
        raise ConfigError("model", spec.model, "give exactly one of --model PATH or --run RUN_DIR")
    if spec.folds == 1:
        raise ConfigError("folds", 1, "0 (in-sample PLS) or K >= 2 folds")
    if spec.bootstrap > MAX_BOOTSTRAP and not allow_large():
        raise ConfigError("bootstrap", spec.bootstrap, f"at most {MAX_BOOTSTRAP:,} resamples (each refits the line "
                                                       "for every layer); pass --allow-large for more")
    if spec.run is not None:
        for name in ("intervene", "numbers"):
            if getattr(spec, name) is not None:
                raise ConfigError(name, getattr(spec, name), "only used with --model (a run's numbers are 0..p-1)")
        if spec.template != "{n}":
            raise ConfigError("template", spec.template, "only used with --model")
    if spec.model is not None and spec.template.count("{n}") != 1:
        raise ConfigError("template", spec.template, "must contain '{n}' exactly once, e.g. 'The number {n}'")
    return spec


def check_folds(spec: NumberlineSpec, count: int) -> None:
    """K-fold PLS needs at least K numbers (each fold holds one out at least)."""
    if spec.folds > count:
        raise ConfigError("folds", spec.folds, f"at most the {count} numbers analysed (or 0: in-sample PLS)")


def parse_layers(text: str, n_layers: int) -> list[int]:
    """Hidden-state indices from 'all' or '0,3,-1' (0 = embeddings, n_layers = the last block)."""
    L = n_layers
    if text.strip() == "all":
        return list(range(L + 1))
    out = []
    for part in text.split(","):
        try:
            k = int(part.strip())
        except ValueError:
            raise ConfigError("layers", text, "'all' or comma-separated integers, e.g. 0,3,-1") from None
        if not -(L + 1) <= k <= L:
            raise ConfigError("layers", text, f"layer {k} is out of range: hidden states are 0..{L} (0 = embeddings)")
        out.append(k % (L + 1))
    return list(dict.fromkeys(out))
