"""When each claim's rule was fixed, back-filled from git: src/groklab/experiments/rules_fixed.json.

A claim's rule (statistic, threshold, definitions) enters the code in the commit that first names its id; the
date of that commit is when it was fixed, unless a later revision changed it after its data (those are marked
post hoc by the study itself: experiments/posthoc.py). The judge compares this date with the first session that
trained the study's runs (experiment.json) and says whether the rule was fixed before its data existed.

    python benchmarks/rules_fixed.py            # print the table and the ids it could not date
    python benchmarks/rules_fixed.py --write    # write src/groklab/experiments/rules_fixed.json

An id built from a template (`{variant}_faster_{task}`) is named in full only where quotes.yaml lists it; the code
that judged a study's first archived runs dates it too (the earlier of the two is kept). An id no commit names yet
(written in this working tree) is left out, and its claims say "not yet in a commit" until the commit that names
it and a rerun. Run after committing the claims' code, then re-judge the archives (their claims.json carry it).
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "groklab" / "experiments" / "rules_fixed.json"
PACKAGES = ("embedding", "beyond", "investigation")
REVISIONS = "revisions"  # posthoc.REVISIONS: the table of revised rules' commits


def first_commit(needle: str) -> tuple[str, str] | None:
    """(commit, ISO date-time) of the first commit adding `needle` to a source file under src/, or None."""
    out = subprocess.run(["git", "-C", str(ROOT), "log", "--reverse", "--format=%h %cI", "-S", needle, "--",
                          "src/*.py", "src/*.yaml"], capture_output=True, text=True, check=True).stdout.split()
    return (out[0], out[1]) if out else None


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True).stdout


def first_judged(claims: Path) -> tuple[str, str, set[str]] | None:
    """(commit, date, claim ids) of the code that judged a study's first archived runs: the commit its first
    archived experiment.json names for its first session, and the ids of the claims.json archived with it. An id
    there was in the code before anyone saw the judged data (its first names may be a template: `{task}_...`)."""
    rel = claims.relative_to(ROOT).as_posix()
    added = git("log", "--diff-filter=A", "--format=%h", "--", rel).split()
    if not added:
        return None
    first = added[-1]
    try:
        doc = json.loads(git("show", f"{first}:{rel}"))
        session = json.loads(git("show", f"{first}:{rel[:-len('claims.json')]}experiment.json"))["sessions"][0]
    except (json.JSONDecodeError, KeyError, IndexError):
        return None
    commit = str(session.get("machine", {}).get("commit", "")).split("+")[0][:12]
    date = git("show", "-s", "--format=%cI", commit).strip() if commit else ""
    return (commit, date, {c["id"] for c in doc.get("claims", [])}) if date else None


def studies() -> list[tuple[str, str, list[str], Path | None]]:
    """(package, study, claim ids, an archived claims.json or None): every id quotes.yaml lists (each claim has
    its sentence there) and every id an archive holds."""
    import yaml

    out = []
    for package in PACKAGES:
        quotes = yaml.safe_load((ROOT / "src" / "groklab" / "experiments" / package / "quotes.yaml").read_text())
        for study, ids in (quotes or {}).items():
            out.append((package, study, list(ids or {}), None))
    for f in sorted((ROOT / "results").glob("*/*/claims.json")):
        if f.parent.parent.name.split("-")[0] in PACKAGES:
            out.append((f.parent.parent.name.split("-")[0], f.parent.name,
                        [c["id"] for c in json.loads(f.read_text())["claims"]], f))
    return out


def table() -> tuple[dict, list[str]]:
    """({package: {study: {claim id: {commit, date, how}}}}, ids no commit names): the earlier of the first
    commit naming the id and the code that judged a first archived judgement holding it."""
    found, missing = {}, []
    for package, name, ids, f in studies():
        judged = first_judged(f) if f is not None else None
        for cid in ids:
            study = found.setdefault(package, {}).setdefault(name, {})
            hits = [(*hit, "named") for hit in [first_commit(cid)] if hit]
            if judged and cid in judged[2]:
                hits.append((judged[0], judged[1], f"judged the first runs of {f.parent.parent.name}"))
            if cid in study:  # another archive of the same study dated it already
                hits.append((study[cid]["commit"], study[cid]["date"], study[cid]["how"]))
            if not hits:
                if f"{package}/{name}/{cid}" not in missing:
                    missing.append(f"{package}/{name}/{cid}")
                continue
            commit, date, how = min(hits, key=lambda h: h[1])
            study[cid] = {"commit": commit, "date": date, "how": how}
    return found, missing


def revisions() -> tuple[dict, list[str]]:
    """({a change's first KEY characters: {commit, date}}, changes no commit holds): each change of a post hoc rule
    an archive records, dated by the first commit whose source holds its words (the longest of its first 40, 30
    or 20 characters found; a rule built from pieces may hold none of them)."""
    from groklab.experiments.posthoc import KEY

    found, missing = {}, []
    for f in sorted((ROOT / "results").glob("*/*/claims.json")):
        for c in json.loads(f.read_text())["claims"]:
            rule = (c.get("post_hoc") or {}).get("rule", "")
            for phrase in re.split(r"; then, \d{4}-\d{2}-\d{2}: ", rule) if rule else []:
                if phrase[:KEY] in found or phrase[:KEY] in missing:
                    continue
                hit = next((h for n in (40, 30, 20) if (h := first_commit(phrase[:n]))), None)
                if hit:
                    found[phrase[:KEY]] = {"commit": hit[0], "date": hit[1]}
                else:
                    missing.append(phrase[:KEY])
    return found, missing


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"write {OUT.relative_to(ROOT)}")
    a = ap.parse_args()
    found, missing = table()
    found[REVISIONS], undated = revisions()
    missing += [f"the revision {m!r}" for m in undated]
    for package, studies in found.items():
        for study, ids in studies.items() if package != REVISIONS else ():
            for cid, e in ids.items():
                print(f"{package}/{study}/{cid}: {e['date']} {e['commit']} ({e['how']})")
    for m in missing:
        print(f"rules_fixed: no commit names {m}", file=sys.stderr)
    if a.write:
        from groklab.store import atomic_write

        atomic_write(OUT, json.dumps(found, indent=1, sort_keys=True) + "\n")
        n = sum(len(i) for k, s in found.items() if k != REVISIONS for i in s.values())
        print(f"wrote {OUT.relative_to(ROOT)}: {n} claims, {len(found[REVISIONS])} revised rules")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
