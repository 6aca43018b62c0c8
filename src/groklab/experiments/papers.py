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


# The papers, as a citation names them: groklab's short id (used in every verdict line), title, authors (as the
# paper prints them; 004's and 003's extracted texts lost them: their arXiv pages name them), year, arXiv id.
REFERENCES = {
    "embedding": {"id": "000", "key": "alquabeh2025embedding", "type": "article",
                  "title": "Mechanistic Insights into Grokking from the Embedding Layer",
                  "author": "AlQuabeh, Hilal and Bojkovi{\\'c}, Velibor and Nwadike, Munachiso and Inui, Kentaro",
                  "year": 2025, "eprint": "2505.15624"},
    "beyond": {"id": "004", "key": "beyond2025grokking", "type": "article",
               "title": "Beyond Progress Measures: Theoretical Insights into the Mechanism of Grokking",
               "author": None, "year": 2025, "eprint": "2504.03162",
               "url": "https://github.com/Qihuai27/Grokking-Insight"},
    "investigation": {"id": "002", "key": "lou2024investigation", "type": "misc",
                      "title": "An Investigation Report of the Grokking Phenomenon",
                      "author": "Lou, Junhe and Wang, Siqiang and Yang, Xinye", "year": 2024, "eprint": None,
                      "note": "course report",
                      "url": "https://github.com/stevenWang0825/Mathematics-of-ML-Final-24Fall"},
}


def bibtex(ref: dict) -> str:
    """A BibTeX entry; fields a reference lacks are left out (an arXiv id as eprint, archivePrefix arXiv)."""
    fields = [("title", "{" + ref["title"] + "}"), ("author", ref.get("author")), ("year", ref.get("year"))]
    if ref.get("eprint"):
        fields += [("eprint", ref["eprint"]), ("archivePrefix", "arXiv")]
    if ref.get("url"):
        fields.append(("url", ref["url"]))
    if ref.get("note"):
        fields.append(("note", ref["note"]))
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields if v is not None)
    return f"@{ref['type']}{{{ref['key']},\n{body}\n}}"
