"""The registry of papers and their studies, as `reproduce` names them (embedding/fig6, beyond/all, ...)."""
from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module

from groklab.errors import ConfigError


class _Studies(Mapping):
    """A paper's studies by name, each module imported when first asked for: `reproduce embedding/fig6` imports
    fig6 alone, not the 31 other studies and the libraries they need (torch among them: 3 s)."""

    def __init__(self, package: str, names: str):
        self._package, self._names = package, names.split()  # each module's NAME is its file's name (a test)

    def __getitem__(self, name: str):
        if name not in self._names:
            raise KeyError(name)
        return import_module(f"groklab.experiments.{self._package}.{name}")

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


PAPERS = {"embedding": _Studies("embedding", "fig2 fig3 fig4 fig5 fig6 fig7 fig8 fig10 fig11 fig12 init43 sampler "
                                             "adaptive"),  # paper 000
          "beyond": _Studies("beyond", "table1 fig4 dnn med depth embdim circulant uniformity resnet "
                                       "threshold"),  # paper 004
          "investigation": _Studies("investigation", "task1 lstm mlp birnn optimizers decay batch ksum "
                                                     "landscape")}  # 002


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
