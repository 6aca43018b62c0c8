"""Outputs that escape by construction: a value read from someone else's archive cannot become a spreadsheet
formula, a Markdown row or markup (terminal lines: store/citation.one_line)."""
from __future__ import annotations

import html

from groklab.errors import printable

FORMULA = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet evaluates at the start of a cell (OWASP)


def csv_cell(value):
    """A CSV value that a spreadsheet shows as text: a string starting like a formula gets a leading quote
    (numbers, including negative ones, pass as they are)."""
    if isinstance(value, str) and value.startswith(FORMULA):
        return "'" + value
    return value


def md_cell(value) -> str:
    """A Markdown table cell: one printable line, `|` escaped, markup shown as text."""
    return html.escape(printable(value), quote=False).replace("|", "\\|")
