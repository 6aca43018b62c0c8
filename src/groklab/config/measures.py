"""Config of the measures scheduled in the loop: each has an `every` (0: off) and its own parameters."""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field

from groklab.config.section import Section


class HessianMeasure(Section):
    every: int = Field(0, ge=0)  # steps between Hessian measures; 0: off (costs ~10-40 HVPs per block)
    blocks: list[Literal["E", "W", "rest", "last", "all"]] = ["E", "W"]  # from model.blocks(); all = whole model
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
    blocks: list[Literal["E", "W", "rest", "last", "all"]] = ["all"]  # perturbed blocks
    filter_norm: bool = True  # Li et al. filter-normalised directions; False: plain N(0, 1)


class MeasuresConfig(Section):
    hessian: HessianMeasure = HessianMeasure()
    spectra: SpectraMeasure = SpectraMeasure()
    progress: EveryMeasure = EveryMeasure()  # MED, weight and gradient norms per block (train set)
    token_grads: EveryMeasure = EveryMeasure()  # per-token embedding grad norms + token counts of the batch
    geometry: GeometryMeasure = GeometryMeasure()
    landscape: LandscapeMeasure = LandscapeMeasure()
    # logit scale and softmax-collapse share (train rows); Nanda's restricted and excluded losses (add, mul)
    logits: EveryMeasure = EveryMeasure()
    # measure randomness (Lanczos start, probes, directions), apart from training RNG
    seed: int = Field(0, ge=0, le=2**31 - 1)
