"""`groklab earlywarn`: train (or continue) the pilot or the study under the frozen protocol and judge it, or
re-judge an archive's runs without training (read in place: nothing is unpacked)."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from groklab.engine.machine import describe
from groklab.errors import ConfigError
from groklab.experiments.earlywarn.pilot import judge_pilot
from groklab.experiments.earlywarn.protocol import PROTOCOL, load, sha256
from groklab.experiments.earlywarn.runs import PILOT, STUDY, train_study
from groklab.store import check_out, make_out
from groklab.store.archive import is_archive
from groklab.store.names import nested
from groklab.store.tree import MANIFEST, read_manifest, write_manifest

STAGES = {"pilot": PILOT, "study": STUDY}


def earlywarn(out: str | Path, stage: str = "study", source: str | Path | None = None, jobs: int = 1,
              echo: Callable = print, command: str | None = None, protocol: str | Path = PROTOCOL) -> dict:
    """The stage's study folder below `out`, trained and judged (with `source`, an archive: its runs re-judged);
    returns what the judge wrote to claims.json. `protocol`: the frozen file (another only in tests)."""
    if stage not in STAGES:
        raise ConfigError("stage", stage, f"allowed: {', '.join(STAGES)}")
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ConfigError("jobs", jobs, "must be an integer >= 1")
    name, proto, digest = STAGES[stage], load(protocol), sha256(protocol)
    check_out(out)
    session = {"command": command or f"groklab.earlywarn({str(out)!r}, stage={stage!r})", "machine": describe()}
    if source is None:
        root = train_study(proto, out, name, jobs, echo, session, digest)
        runs = root
    else:
        runs = Path(source) / name
        if not is_archive(source) or not (runs / MANIFEST).is_file():
            raise ConfigError("from", str(source), f"is not a groklab archive holding the {name} study")
        if nested(out, source):
            raise ConfigError("out", str(out), f"is the archive it re-judges ({source}), inside it or holds it")
        root = make_out(out) / name
        root.mkdir(parents=True, exist_ok=True)
        man = read_manifest(runs)
        man["sessions"] = [*man.get("sessions", []), {**session, "from": str(runs)}]
        write_manifest(root, man)
    if name == PILOT:
        return judge_pilot(runs, root, proto, echo)
    from groklab.experiments.earlywarn.judge import judge_study

    return judge_study(runs, root, proto, digest, echo, protocol)
