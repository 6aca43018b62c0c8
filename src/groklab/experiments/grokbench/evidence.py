"""GrokBench's evidence read as data, never as authority: protocol.json, runs.json, selection.json and
runs.csv.gz (v1), or protocol.json, selection.json and evals/<task>.npz (v2: evals.py; each evaluation run's
overrides drawn again from the protocol and the selection, its digest checked against them) checked against each
other before anything is judged or written.

A packed benchmark may come from someone else (`groklab grokbench --from`). Every name in it passes the gate
a name passes when it is declared (protocol.NAME); every evaluation run is one the protocol drew (its methods,
tasks and evaluation seeds) and names its horizon; every row belongs to a declared run and no (run, step)
appears twice; a chosen configuration holds config keys and numbers or words. Damage is one line naming the
file and what is wrong (exit 2), before any output is written.
"""
from __future__ import annotations

import gzip
import io
import json
import re
from pathlib import Path

from pydantic import ValidationError

from groklab.errors import ConfigError
from groklab.experiments.grokbench.protocol import NAME, NAMED, Protocol

FILES = ("runs.csv.gz", "runs.json", "protocol.json", "selection.json")
V2 = ("protocol.json", "selection.json")  # and evals/<task>.npz per tuned and held-out task
MAX_BYTES = 256 * 2**20  # one evidence file; the quick board's largest is ~2 MB (runs.csv.gz)
KEY = re.compile(r"[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*")  # a config key, e.g. optim.grokfast_lamb
WORD = re.compile(r"[A-Za-z0-9_.+-]{1,64}")


def read_bytes(path: Path) -> bytes:
    """One evidence file's bytes: a regular file (never a FIFO or device), refused by its size before it is read."""
    from groklab.errors import StoreError
    from groklab.store.files import regular

    regular(path)
    try:
        if path.stat().st_size > MAX_BYTES:
            raise ConfigError(path.name, f"{path.stat().st_size:,} bytes", f"larger than GrokBench evidence can be "
                                                                         f"({MAX_BYTES:,} bytes)")
        return path.read_bytes()
    except OSError as err:
        raise StoreError(path, "missing" if isinstance(err, FileNotFoundError) else "cannot be read") from None


def read_evidence(folder: Path) -> dict[str, bytes]:
    """Every evidence file of a packed benchmark, v1 or v2 (told by its protocol.json), as bytes."""
    head = read_bytes(folder / "protocol.json")
    try:
        doc = json.loads(head)
        prof = doc["protocol"]["profiles"][doc["profile"]]
        v2 = bool(prof.get("tuner"))
        tasks = list(doc["tasks"]) + list(doc.get("heldout") or []) if v2 else []
    except (ValueError, UnicodeDecodeError, KeyError, TypeError, AttributeError):
        raise ConfigError("protocol.json", "profile", "not a GrokBench protocol document") from None
    bad = [t for t in tasks if not isinstance(t, str) or not NAME.fullmatch(t)]  # before a name becomes a path
    if bad:
        raise ConfigError("protocol.json", ascii(bad[0])[:80], f"not a task name: {NAMED}")
    names = [*V2, *(f"evals/{t}.npz" for t in tasks)] if v2 else list(FILES)
    return {n: head if n == "protocol.json" else read_bytes(folder / n) for n in names}


def parse(evidence: dict[str, bytes]):
    """(protocol doc, runs, selection, rows DataFrame) from the four files' bytes; one line per damaged file."""
    import pandas as pd

    for name, data in evidence.items():
        if len(data) > MAX_BYTES:
            raise ConfigError(name, f"{len(data):,} bytes", f"larger than GrokBench evidence can be "
                                                           f"({MAX_BYTES:,} bytes)")
    if "runs.csv.gz" not in evidence:
        return _parse_v2(evidence)
    try:
        doc, runs, selection = (json.loads(evidence[n]) for n in ("protocol.json", "runs.json", "selection.json"))
    except (ValueError, UnicodeDecodeError) as e:
        raise ConfigError("evidence", "json", f"not JSON ({str(e)[:120]})") from None
    try:
        with gzip.open(io.BytesIO(evidence["runs.csv.gz"]), "rb") as f:
            rows = pd.read_csv(io.BytesIO(f.read(MAX_BYTES + 1)))
    except Exception as e:  # gzip, CSV and size errors alike: the file is damaged
        raise ConfigError("runs.csv.gz", "rows", f"cannot be read ({type(e).__name__})") from None
    check(doc, runs, selection, rows)
    return doc, runs, selection, rows


def _parse_v2(evidence: dict[str, bytes]):
    """(protocol doc, runs, selection, rows) of a v2 benchmark: runs drawn again from the protocol and selection,
    every one packed in its task's file with the digest of those overrides."""
    import copy

    from groklab.experiments.grokbench import evals as E
    from groklab.experiments.grokbench.protocol import Method

    try:
        doc, selection = (json.loads(evidence[n]) for n in V2)
    except (ValueError, UnicodeDecodeError) as e:
        raise ConfigError("evidence", "json", f"not JSON ({str(e)[:120]})") from None
    check_doc(doc)
    try:
        studies = [int(k) for k in doc["protocol"]["profiles"][doc["profile"]]["tuner"]["studies"]]
        tasks = list(doc["tasks"]) + list(doc.get("heldout") or [])
    except (KeyError, TypeError, ValueError):
        raise ConfigError("protocol.json", "tuner", "the profile's tuner studies are missing") from None
    for t in tasks:
        for m in doc["methods"]:
            for k in studies:
                _chosen(selection, t, m, k)  # named in selection.json's terms before any run is drawn from it
    try:
        methods = {n: Method.model_validate(m) for n, m in doc["methods"].items()}
        prof = Protocol.model_validate(doc["protocol"]).profiles[doc["profile"]]
        runs = E.eval_runs(prof, methods, list(doc["tasks"]), copy.deepcopy(selection))
    except (ValidationError, KeyError, TypeError, AttributeError, ValueError):
        raise ConfigError("selection.json", "choices", "the protocol's methods x tasks x studies need a chosen "
                                                       "configuration each") from None
    packed = {}
    for name, data in evidence.items():
        if name.startswith("evals/"):
            task = name.removeprefix("evals/").removesuffix(".npz")
            got = E.parse(data, name)
            odd = [n for n in got if n.split("/")[1:2] != [task]]
            if odd:
                raise ConfigError(name, ascii(odd[0])[:80], f"a run of another task than {task}")
            packed.update(got)
    extra = sorted(set(packed) - set(runs))
    if extra:  # named in v2's own files (check() below would name runs.json, which v2 does not write)
        raise ConfigError(f"evals/{extra[0].split('/')[1]}.npz", ascii(extra[0])[:80], "a run the protocol and the "
                          "selection do not draw")
    for name in runs:
        where = f"evals/{name.split('/')[1]}.npz"
        if name not in packed:
            raise ConfigError(where, ascii(name)[:80], "an evaluation run the protocol draws is not packed (the "
                                                       "evaluation has not finished)")
        if packed[name]["digest"] != E.digest(runs[name]["overrides"]):
            raise ConfigError(where, ascii(name)[:80], "trained with other overrides than the protocol and the "
                                                       "selection draw")
    rows = E.rows(packed)
    check(doc, runs, selection, rows)
    return doc, runs, selection, rows


def check_doc(doc) -> None:
    """protocol.json's keys and its protocol as declared, typed and bounded."""
    if not isinstance(doc, dict) or not all(k in doc for k in ("protocol", "methods", "tasks", "profile")):
        raise ConfigError("protocol.json", "keys", "needs protocol, methods, tasks and profile")
    try:  # the protocol as declared: every field the judge reads (persistence, the tuner's budget) typed and bounded
        Protocol.model_validate(doc["protocol"])
    except ValidationError as err:
        e = err.errors()[0]  # its location may hold a key from the file: shown as ascii, bounded
        where = ascii(".".join(map(str, e["loc"])))[:80]
        raise ConfigError("protocol.json", f"protocol {where}", f"not a GrokBench protocol ({e['msg'][:80]})") from None


def check(doc, runs, selection, rows) -> None:
    """Raise ConfigError on the first inconsistency between the evidence files (module doc)."""
    check_doc(doc)
    methods, tasks, held = list(doc["methods"]), list(doc["tasks"]), list(doc.get("heldout") or [])
    for kind, names in (("method", methods), ("task", tasks + held)):
        bad = [n for n in names if not isinstance(n, str) or not NAME.fullmatch(n)]
        if bad:
            raise ConfigError("protocol.json", ascii(bad[0])[:80], f"not a {kind} name: {NAMED}")
    try:
        prof = doc["protocol"]["profiles"][doc["profile"]]
        seeds = {int(s) for s in prof["eval_seeds"]}
        # protocol v2: one choice per tuning study, evaluated on every seed, on the tuned and the held-out tasks
        studies = [int(k) for k in (prof.get("tuner") or {}).get("studies", [])] or [None]
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ConfigError("protocol.json", "eval_seeds", "the profile's evaluation seeds are missing") from None
    tasks = tasks + held if studies != [None] else tasks
    want = {f"eval/{t}/{m}/" + ("" if k is None else f"k{k}/") + f"s{s}" for t in tasks for m in methods
            for k in studies for s in seeds}
    if not isinstance(runs, dict):
        raise ConfigError("runs.json", type(runs).__name__, "must map run names to their overrides")
    for name, entry in runs.items():
        ov = entry.get("overrides") if isinstance(entry, dict) else None
        if not isinstance(ov, list) or not any(isinstance(o, str) and re.fullmatch(r"steps=\d+", o) for o in ov):
            raise ConfigError("runs.json", ascii(name)[:80], "a run's overrides must name its horizon (steps=N)")
    evals = {n for n in runs if str(n).startswith("eval/")}
    if evals != want:
        odd = sorted(evals ^ want)[0]
        raise ConfigError("runs.json", ascii(odd)[:80], "the protocol's methods x tasks x evaluation seeds and the "
                                                        "evaluation runs differ (missing or undeclared)")
    if not {"run", "step"} <= set(rows.columns):
        raise ConfigError("runs.csv.gz", "columns", "needs run and step")
    undeclared = sorted(set(rows["run"].astype(str)) - set(runs))
    if undeclared:
        raise ConfigError("runs.csv.gz", ascii(undeclared[0])[:80], "rows of a run runs.json does not declare")
    twice = rows.duplicated(["run", "step"])
    if twice.any():
        r = rows[twice].iloc[0]
        raise ConfigError("runs.csv.gz", f"{ascii(str(r['run']))[:80]} step {r['step']}", "appears twice: damage")
    for t in tasks:
        for m in methods:
            for study in studies:
                _chosen(selection, t, m, study)


def _chosen(selection, t: str, m: str, study) -> None:
    """One chosen configuration (v1: per task and method; v2: per study too) holds config keys and numbers or words."""
    got = ((selection.get(t) or {}).get(m) or {}) if isinstance(selection, dict) else {}
    got = got.get(str(study)) if study is not None and isinstance(got, dict) else got
    values = got.get("values") if isinstance(got, dict) else None
    extra = {k: got.get(k) for k in ("curve", "edges", "carried_from")} if isinstance(got, dict) else {}
    if not (extra.get("curve") is None or isinstance(extra["curve"], list) and all(
            isinstance(x, list) and len(x) == 2 and all(v is None or isinstance(v, (int, float))
                                                        and not isinstance(v, bool) for v in x)
            for x in extra["curve"])):
        raise ConfigError("selection.json", f"{t}/{m}/k{study}", "a tuning curve is a list of [steps, score] pairs")
    if not (extra.get("edges") is None or isinstance(extra["edges"], list) and all(
            isinstance(k, str) and KEY.fullmatch(k) for k in extra["edges"])):
        raise ConfigError("selection.json", f"{t}/{m}/k{study}", "edges must be config keys")
    if not (extra.get("carried_from") is None or isinstance(extra["carried_from"], str)
            and NAME.fullmatch(extra["carried_from"])):
        raise ConfigError("selection.json", f"{t}/{m}/k{study}", f"carried_from must be a task name: {NAMED}")
    if not isinstance(values, dict):
        raise ConfigError("selection.json", f"{t}/{m}" + ("" if study is None else f"/k{study}"),
                          "no chosen configuration")
    for k, v in values.items():
        if not KEY.fullmatch(str(k)) or not (isinstance(v, (int, float)) and not isinstance(v, bool)
                                             or isinstance(v, str) and WORD.fullmatch(v)):
            raise ConfigError("selection.json", ascii(f"{k}={v}")[:80], "a chosen value must be a config key and a "
                                                                        "number or word")
