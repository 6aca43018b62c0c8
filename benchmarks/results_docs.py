"""Fill docs/results.md's verdict tables and headlines from the results archives (results/<name>/).

A block in the Markdown names its archive and study; what lies between its markers is generated, the prose
around it is not:

    <!-- verdicts results/embedding-quick fig6 -->
    | claim | aggregate | verdict |            (generated from results/embedding-quick/fig6/claims.json)
    <!-- /verdicts -->
    <!-- headline results/embedding-quick -->N of M claims hold ...<!-- /headline -->
    <!-- assumptions results/embedding-paper -->
    | study | setting | ours | why | also run with |   (every study's `assumptions` in claims.json)
    <!-- /assumptions -->
    <!-- study results/embedding-paper fig6 -->3 of 5 paper claims hold, ...<!-- /study -->   (one study's count)
    <!-- cite results/embedding-paper/fig6/adam_lr_faster_mul -->holds | 000 ...<!-- /cite -->   (its line)
    <!-- value results/embedding-paper/fig2/emb_fits_both per_seed.mul/mlp_emb -->300-335<!-- /value -->
                   (one claim's number or range, inline in a sentence; PATH and FORMAT: results_values.py)
    <!-- include results/grokbench-quick/leaderboard.md -->     (a generated Markdown file, verbatim)
    <!-- /include -->
    <!-- plan beyond/all results/beyond-paper -->                 (results/PLAN.md: `groklab plan TARGET --profile
    | slice | units | est. min | command |                        paper --from ARCHIVE --device cuda --slices 480`;
    <!-- /plan -->                                                 `-` for no archive)

    python benchmarks/results_docs.py --write docs/results.md   # regenerate every block
    python benchmarks/results_docs.py --check docs/results.md   # exit 1 naming each block that drifted
    python benchmarks/results_docs.py --write README.md          # the README's tutorial numbers
    python benchmarks/results_docs.py --write results/PLAN.md   # the GPU queue's slices
tests/test_results.py runs the check on all three, so a number typed by hand into a verdict table fails the suite,
and so does prose that states a verdict for a claim id ("**holds** `id`", "`id` does not hold") that no archive gives,
or a range "A-B" beside a claim id that none of the claim's per-seed lists in an archive spans (results_values.py).
A number of an archived result goes in a value block; one no claims.json holds (a wall time, an earlier run) stays
only in a section dated by its heading.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from results_values import VALUE, fill_values, range_contradictions  # noqa: E402  (value blocks, kept apart)

VERDICTS = re.compile(r"(<!-- verdicts (\S+) (\S+) -->\n)(.*?)(<!-- /verdicts -->)", re.S)
HEADLINE = re.compile(r"(<!-- headline (\S+) -->)(.*?)(<!-- /headline -->)", re.S)
ASSUMPTIONS = re.compile(r"(<!-- assumptions (\S+) -->\n)(.*?)(<!-- /assumptions -->)", re.S)
STUDY = re.compile(r"(<!-- study (\S+) (\S+) -->)(.*?)(<!-- /study -->)", re.S)
CITE = re.compile(r"(<!-- cite (\S+) -->)(.*?)(<!-- /cite -->)", re.S)
INCLUDE = re.compile(r"(<!-- include (\S+) -->\n)(.*?)(<!-- /include -->)", re.S)
PLAN = re.compile(r"(<!-- plan (\S+) (\S+) -->\n)(.*?)(<!-- /plan -->)", re.S)


def plan_table(target: str, archive: str) -> str:
    """results/PLAN.md's slices of `target` at the paper profile on a GPU, and the total line."""
    from groklab.experiments.estimate import print_plan

    lines: list[str] = []
    source = None if archive == "-" else str(ROOT / archive)
    print_plan(target, "paper", source=source, device="cuda", echo=lines.append, slice_s=480)
    return "\n".join(lines).replace(str(ROOT) + "/", "") + "\n"


def included(path: str) -> str:
    """A generated Markdown file of an archive (GrokBench's leaderboard.md), its title dropped, headings one
    level down so they nest under the section that includes them."""
    lines = (ROOT / path).read_text().splitlines()
    body = lines[1:] if lines and lines[0].startswith("# ") else lines
    return "\n".join("#" + x if x.startswith("## ") else x for x in body).strip() + "\n"


def study_count(archive: str, study: str) -> str:
    """One study's headline, as `reproduce` prints it last: 'N of M paper claims hold, ...'."""
    from groklab.report import headline as study_headline

    return study_headline(_claims(archive, study)["claims"])


def cite_line(path: str) -> str:
    """The line `groklab cite ARCHIVE/STUDY/CLAIM` prints for one claim."""
    from groklab.experiments.citations import citations

    return citations(ROOT / path)[0]


def _claims(archive: str, study: str) -> dict:
    from groklab.store import read_claims

    doc = read_claims(ROOT / archive / study)
    if doc is None:
        raise SystemExit(f"results_docs: {archive}/{study} has no claims.json")
    return doc


def headline(archive: str) -> str:
    """'N of M paper claims hold, K do not (J measurements beside), in S studies (R runs; T of training and
    analysis at G GFLOP/s; torch B)'."""
    from groklab.store import read_claims
    from groklab.store.archive import archived_runs, read_index

    index = read_index(ROOT / archive)
    judged = {s: read_claims(ROOT / archive / s) for s in index["studies"]}
    docs = [d for d in judged.values() if d]
    held = {s: sum(not r.get("missing") for r in archived_runs(ROOT / archive / s)) for s in index["studies"]}
    part = [f"{s} part-way: {held[s]} of {index['studies'][s]['runs']} runs" for s, d in judged.items() if not d]
    claims = [c for d in docs for c in d["claims"]]
    runs = sum(held.values())
    from groklab.experiments.archive import trained

    machines = [s["machine"] for s in index["sessions"] if trained(s) and s.get("machine")]
    builds = sorted({m["torch"] for m in machines}) or [index["archiving_machine"]["torch"]]

    def span(values) -> str:
        v = sorted(values)
        return f"{v[0]:g}-{v[-1]:g}" if len(v) > 1 else (f"{v[0]:g}" if v else "?")
    on_gpu = [m for m in machines if m.get("gpu") and m.get("fp32_gflops", {}).get("gpu")]
    cpu = span(m["fp32_gflops"]["all_threads"] for m in machines if m.get("fp32_gflops") and m not in on_gpu)
    gpus = [f"{span(m['fp32_gflops']['gpu'] for m in on_gpu if m['gpu'] == g)} on {g}"  # one span per GPU model
            for g in sorted({m["gpu"] for m in on_gpu})]
    gf = " and ".join(([f"{cpu} (CPU)"] if cpu != "?" or not gpus else []) + gpus) + " fp32 GFLOP/s"
    from groklab.report import headline as verdicts

    return (f"{verdicts(claims)}, in {len(docs)} studies{''.join(f' (and {p})' for p in part)} "
            f"({runs} runs; {index['wall_s'] / 60:.0f} min of "
            f"training and analysis at {gf}; "
            f"torch {', '.join(builds)})")


def assumptions(archive: str) -> str:
    """A table of the settings each archived study assumes where its paper is silent, and the arms run."""
    from groklab.store.archive import read_index

    rows = ["| study | setting | ours | why | also run with (sensitivity arm) |", "| --- | --- | --- | --- | --- |"]
    from groklab.report import arm_value, ours
    from groklab.store import read_claims

    for study in read_index(ROOT / archive)["studies"]:
        doc = read_claims(ROOT / archive / study)
        if doc is None:  # archived part-way: no verdicts yet, its assumptions are listed once it is judged
            continue
        for a in doc.get("assumptions", []):
            absent = any(c.get("sensitivity", {}).get(a["field"], {}).get("verdict", "").startswith("not judged")
                         for c in doc["claims"])
            fewer = {c["sensitivity"][a["field"]].get("seeds") for c in doc["claims"]
                     if a["field"] in c.get("sensitivity", {})} - {None}
            gap = (": declared; not trained whole at the archive's seeds" if absent else
                   f", judged at its {min(fewer)} seeds" if fewer else "")
            arm = f"{arm_value(a)} (`{a['arm']}/`{gap})" if a.get("arm") else "–"
            rows.append(f"| {study} | `{a['field']}` | {ours(a)} | {a['why'].replace('|', '/')} | {arm} |")
    return "\n".join(rows)


GENERATED = re.compile(r"<!-- (verdicts|assumptions|include|plan|study|cite|headline|value) [^\n]*?-->.*?<!-- /\1 -->",
                       re.S)
# a verdict stated in prose beside a claim id: "**holds** `id`" or "`id` ... does not hold" within a clause
# ("X -> Y" and "X → Y" record a verdict that moved: history, not a statement about today)
SAID = re.compile(r"\*\*(holds|does not hold)\*\*:?\s*`([^`]+)`"
                  r"|`([A-Za-z0-9_.^+*\[\]=-]+)`[^`.;]{0,30}?\b(does not hold|holds)\b(?!\**\s*(?:->|→))")


def archived_verdicts() -> dict[str, set[str]]:
    """claim id -> every verdict it has in an archive of results/ (its words, as a verdict table shows them)."""
    import json

    from groklab.report import verdict

    out: dict[str, set[str]] = {}
    for f in sorted((ROOT / "results").glob("*/*/claims.json")):
        for c in json.loads(f.read_text())["claims"]:
            out.setdefault(c["id"], set()).add(verdict(c))
    return out


def prose_contradictions(text: str) -> list[str]:
    """Verdicts that the prose (outside generated blocks) states for a claim id and no archive gives it, and ranges
    beside a claim id that its archived per-seed values do not span: prose may explain a verdict, never keep one
    (or a number) the archive has moved away from."""
    known, prose = archived_verdicts(), GENERATED.sub(" ", text)
    out = range_contradictions(prose)
    for m in SAID.finditer(prose):
        said, cid = (m[1], m[2]) if m[1] else (m[4], m[3])
        # a verdict that depends on an unstated setting holds under one value and not the other: either is said
        if cid in known and not any(v.split(" (")[0] == said or v.startswith("depends") for v in known[cid]):
            out.append(f"`{cid}` {said}: the archives say {' / '.join(sorted(known[cid]))}")
    return out


def fill(text: str) -> str:
    from groklab.report import claims_markdown

    text = VERDICTS.sub(lambda m: m[1] + claims_markdown(_claims(m[2], m[3])) + "\n" + m[5], text)
    text = ASSUMPTIONS.sub(lambda m: m[1] + assumptions(m[2]) + "\n" + m[4], text)
    text = STUDY.sub(lambda m: m[1] + study_count(m[2], m[3]) + m[5], text)
    text = CITE.sub(lambda m: m[1] + cite_line(m[2]) + m[4], text)
    text = fill_values(text)
    text = INCLUDE.sub(lambda m: m[1] + included(m[2]) + m[4], text)
    text = PLAN.sub(lambda m: m[1] + plan_table(m[2], m[3]) + m[5], text)
    return HEADLINE.sub(lambda m: m[1] + headline(m[2]) + m[4], text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("doc", nargs="?", default=str(ROOT / "docs" / "results.md"))
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="regenerate the blocks in place")
    mode.add_argument("--check", action="store_true", help="exit 1 if a block differs from its archive")
    a = ap.parse_args()
    from groklab.store import atomic_write

    path = Path(a.doc)
    text = path.read_text()
    new = fill(text)
    if a.write:
        if new != text:
            atomic_write(path, new)
        print(f"{path}: {len(VERDICTS.findall(text))} verdict tables, {len(HEADLINE.findall(text))} headlines, "
              f"{len(VALUE.findall(text))} values")
        return 0
    drift = [f"{m[2]} {m[3]}" for m, n in zip(VERDICTS.finditer(text), VERDICTS.finditer(new)) if m[0] != n[0]]
    drift += [m[2] for m, n in zip(HEADLINE.finditer(text), HEADLINE.finditer(new)) if m[0] != n[0]]
    drift += [f"{m[2]} assumptions" for m, n in zip(ASSUMPTIONS.finditer(text), ASSUMPTIONS.finditer(new))
              if m[0] != n[0]]
    drift += [f"plan {m[2]}" for m, n in zip(PLAN.finditer(text), PLAN.finditer(new)) if m[0] != n[0]]
    drift += [f"{m[2]} {m[3]}" for m, n in zip(STUDY.finditer(text), STUDY.finditer(new)) if m[0] != n[0]]
    drift += [m[2] for m, n in zip(CITE.finditer(text), CITE.finditer(new)) if m[0] != n[0]]
    drift += [m[2] for m, n in zip(INCLUDE.finditer(text), INCLUDE.finditer(new)) if m[0] != n[0]]
    drift += [f"value {m[2]} {m[3] or ''}".strip() for m, n in zip(VALUE.finditer(text), VALUE.finditer(new))
              if m[0] != n[0]]
    for d in drift:
        print(f"results_docs: {path}: the block for {d} differs from its archive; run --write", file=sys.stderr)
    said = prose_contradictions(text)
    for d in said:
        print(f"results_docs: {path}: the prose says {d}", file=sys.stderr)
    return 1 if drift or said else 0


if __name__ == "__main__":
    raise SystemExit(main())
