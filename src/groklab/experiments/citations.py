"""`groklab cite STUDY[/CLAIM]`: a study's verdicts as citable lines, then BibTeX for groklab (at the commit that
judged them) and for the paper they test."""
from __future__ import annotations

import difflib
from importlib import metadata
from pathlib import Path

from groklab.errors import ConfigError
from groklab.experiments.papers import PAPERS, REFERENCES, bibtex
from groklab.store import read_claims, read_manifest
from groklab.store.archive import is_archive, read_index
from groklab.store.citation import line, one_line
from groklab.store.tree import judged

TITLE = "groklab: a reproducible laboratory for grokking and embedding-layer dynamics"


def locate(path: str | Path) -> tuple[Path, str | None]:
    """(the study folder holding claims.json, the claim id asked for or None); one-line errors otherwise."""
    p = Path(path)
    if not p.exists() and not judged(p.parent):
        raise ConfigError("path", str(p), "does not exist")
    if judged(p):
        return p, None
    if judged(p.parent):
        return p.parent, p.name
    if p.is_dir() and any(judged(p / d) for d in _subdirs(p)):
        studies = ", ".join(sorted(d for d in _subdirs(p) if judged(p / d))[:12])
        raise ConfigError("path", str(p), f"is a tree or archive; cite one study of it: {studies}")
    raise ConfigError("path", str(p), "holds no judged study (claims.json): give ARCHIVE/STUDY or ARCHIVE/STUDY/CLAIM")


def _subdirs(p: Path) -> list[str]:
    return [d.name for d in p.iterdir() if d.is_dir()][:1000]


def _package(study: Path, source: str | None) -> str | None:
    """The paper package of a judged study: its `source` id, else the archive's paper, else its commands."""
    by_id = {r["id"]: k for k, r in REFERENCES.items()}
    if source in by_id:
        return by_id[source]
    if is_archive(study.parent):
        papers = read_index(study.parent).get("papers") or []
        if len(papers) == 1 and papers[0] in PAPERS:
            return papers[0]
    for s in reversed(read_manifest(study).get("sessions", [])):  # `groklab reproduce embedding/fig6 ...`
        words = str(s.get("command", "")).split()
        target = next((w for w in words if "/" in w and w.split("/")[0] in PAPERS), None)
        if target:
            return target.split("/")[0]
    return None


def _commit(study: Path) -> str | None:
    """The commit of the code that judged the study (its last session's machine record), else the archive's."""
    sessions = read_manifest(study).get("sessions", [])
    commit = next((s.get("machine", {}).get("commit") for s in reversed(sessions) if s.get("machine")), None)
    if commit is None and is_archive(study.parent):
        commit = read_index(study.parent).get("archiving_machine", {}).get("commit")
    return commit


def groklab_bibtex(commit: str | None) -> str:
    try:
        version = metadata.version("groklab")
    except metadata.PackageNotFoundError:
        version = None
    # the commit comes from a manifest someone else may have written: one line, and no brace closes the value
    commit = one_line(commit, 64).replace("{", "(").replace("}", ")") if commit else None
    fields = [("title", "{" + TITLE + "}"), ("author", "{The groklab developers}"), ("version", version),
              ("note", f"commit {commit}" if commit else None), ("year", 2026)]
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields if v is not None)
    return f"@software{{groklab,\n{body}\n}}"


def citations(path: str | Path) -> list[str]:
    """The lines `groklab cite` prints: one per claim (paper claims, then measurements), then the BibTeX."""
    study, claim_id = locate(path)
    doc = read_claims(study)
    claims = doc["claims"]
    if claim_id is not None:
        ids = [c["id"] for c in claims]
        if claim_id not in ids:
            hint = difflib.get_close_matches(claim_id, ids, n=1, cutoff=0.75)
            raise ConfigError("claim", claim_id, (f"did you mean {hint[0]}? " if hint else "") +
                              f"{study} judges: {', '.join(ids[:20])}" + (" …" if len(ids) > 20 else ""))
        claims = [c for c in claims if c["id"] == claim_id]
    package = _package(study, doc.get("source"))
    source = doc.get("source") or (REFERENCES[package]["id"] if package in REFERENCES else None)
    ordered = sorted(claims, key=lambda c: c.get("kind") == "measurement")  # paper claims first, stable
    out = [line(c, source) for c in ordered]
    out += ["", one_line(f"% {study} ({doc.get('profile')} profile, {doc.get('seeds')} seeds): cite groklab and "
                         "the paper")]
    out += [groklab_bibtex(_commit(study))]
    if package in REFERENCES:
        out += [bibtex(REFERENCES[package])]
    return out
