"""The verdicts that differ between two copies of a results archive (or of a re-judged tree), claim by claim, and
both headlines: what a rule change or a retraining moved, for docs/results.md's before/after lines.

    git worktree add /tmp/before HEAD~1      # or any copy of the archive as it was
    python benchmarks/verdict_changes.py /tmp/before/results/embedding-paper results/embedding-paper
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from groklab.report import headline, verdict


def _claims(study: Path) -> dict[str, dict]:
    f = study / "claims.json"
    return {c["id"]: c for c in json.loads(f.read_text())["claims"]} if f.is_file() else {}


def changes(before: Path, after: Path) -> tuple[list[str], list[dict], list[dict]]:
    """(one line per claim whose verdict differs, every claim before, every claim after)."""
    lines, old_all, new_all = [], [], []
    studies = sorted({p.parent.name for p in [*before.glob("*/claims.json"), *after.glob("*/claims.json")]})
    for study in studies:
        old, new = _claims(before / study), _claims(after / study)
        old_all += old.values()
        new_all += new.values()
        for cid in [*old, *(k for k in new if k not in old)]:
            was = verdict(old[cid]) if cid in old else "absent"
            now = verdict(new[cid]) if cid in new else "absent"
            if was != now:
                c = new.get(cid) or old[cid]
                why = (new.get(cid) or {}).get("note", "")
                lines.append(f"{study} {cid} [{c.get('kind', 'paper')}]: {was} -> {now}"
                             + (f" | {why[:200]}" if why else ""))
    return lines, old_all, new_all


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    a = ap.parse_args()
    lines, old, new = changes(a.before, a.after)
    print("\n".join(lines) or "no verdict differs")
    print(f"before: {headline(old)}\nafter:  {headline(new)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
