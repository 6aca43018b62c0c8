"""Command line: `groklab train key=value ...`, `measure`, `demo`, `sweep`, `summarize`, `check`, `numberline`,
`reproduce`, `report`. Options and key=value overrides in any order. Bad input: one line on stderr, exit 2."""
from __future__ import annotations

import sys

from groklab.errors import ConfigError


def main(argv: list[str] | None = None) -> int:
    from groklab.cli.parser import parser

    argv = sys.argv[1:] if argv is None else list(argv)
    ap, subs = parser()
    if not argv or argv[0] not in subs:  # no command, --help, or an unknown one: argparse says what is allowed
        ap.parse_args(argv)
        return 2
    args = subs[argv[0]].parse_intermixed_args(argv[1:])  # overrides may come before or after options
    try:
        return args.func(args)
    except ConfigError as err:
        print(f"groklab: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("groklab: interrupted; continue with --resume", file=sys.stderr)
        return 130


__all__ = ["main"]
