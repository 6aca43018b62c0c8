"""Looks at a study's runs: each time its seeds were raised after its statistics had been seen.

A study's seeds are meant to be fixed before it trains. Raising them on sight of a verdict (3 seeds, then 5,
10, ...) is a new look at data that grew from the old, and testing every look at 0.05 lets a claim "hold" at
whichever look first crossed by chance. So a study judged at its n-th look is held to 0.05 / n (Bonferroni
over the looks; stats.looking) in every p-value threshold and interval level of its rules, and claims.json
lists the looks. Since 2026-11-28 each reproduce session records its seeds; older sessions are read from
their command's `--seeds N` (a session without it trained the profile's default, or -- re-judging an archive
-- the archive's own seeds).
"""
from __future__ import annotations

import re

_SEEDS = re.compile(r"--seeds[ =](\d+)")


def session_seeds(session: dict, default: int) -> int | None:
    """The seeds a session trained or judged at: its record, its command's --seeds, else `default` for a
    session that trained (None for a pure re-judging: it looked at the archive's seeds, no new ones)."""
    if isinstance(session.get("seeds"), int):
        return session["seeds"]
    found = _SEEDS.search(str(session.get("command", "")))
    if found:
        return int(found.group(1))
    if "from" in session and not session.get("train_missing"):
        return None
    return default


def looks_of(sessions: list[dict], seeds: int, default: int) -> list[int]:
    """The seed counts a study was looked at, in order, ending with `seeds` (today's): a count that does not
    grow past every earlier one is no new look (a resumed or re-judged session sees the same runs)."""
    out: list[int] = []
    for n in [session_seeds(s, default) for s in sessions] + [seeds]:
        if n is not None and (not out or n > out[-1]):
            out.append(n)
    return out
