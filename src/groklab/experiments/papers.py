"""The registry of papers and their studies, as `reproduce` names them (embedding/fig6, beyond/all, ...)."""
from __future__ import annotations

from groklab.errors import ConfigError
from groklab.experiments.beyond import circulant, depth, dnn, embdim, med, resnet, table1, threshold, uniformity
from groklab.experiments.beyond import fig4 as beyond_fig4
from groklab.experiments.embedding import (
    adaptive,
    fig2,
    fig3,
    fig4,
    fig5,
    fig6,
    fig7,
    fig8,
    fig10,
    fig11,
    fig12,
    init43,
    sampler,
)
from groklab.experiments.investigation import batch, birnn, decay, ksum, landscape, lstm, mlp, optimizers, task1

PAPERS = {"embedding": {m.NAME: m for m in (fig2, fig3, fig4, fig5, fig6, fig7, fig8, fig10, fig11, fig12,
                                             init43, sampler, adaptive)},  # paper 000
          "beyond": {m.NAME: m for m in (table1, beyond_fig4, dnn, med, depth, embdim, circulant,
                                                  uniformity, resnet, threshold)},  # paper 004
          "investigation": {m.NAME: m for m in (task1, lstm, mlp, birnn, optimizers, decay, batch, ksum,
                                                   landscape)}}  # 002


def resolve(target: str) -> list:
    """'embedding/fig6' -> [fig6 module]; 'embedding/all' -> every figure of the paper."""
    paper, _, fig = target.partition("/")
    if paper not in PAPERS:
        raise ConfigError("experiment", target, f"unknown paper '{paper}'; known: {', '.join(PAPERS)}")
    figs = PAPERS[paper]
    if fig == "all":
        return list(figs.values())
    if fig not in figs:
        raise ConfigError("experiment", target, f"allowed: {', '.join(f'{paper}/{f}' for f in [*figs, 'all'])}")
    return [figs[fig]]
