"""Outputs that escape by construction: a value read from someone else's archive cannot become a spreadsheet
formula, a Markdown row or markup (terminal lines: store/citation.one_line)."""
from __future__ import annotations

import re

FORMULA = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet evaluates at the start of a cell (OWASP)


def csv_cell(value):
    """A CSV value that a spreadsheet shows as text: a string starting like a formula gets a leading quote
    (numbers, including negative ones, pass as they are)."""
    if isinstance(value, str) and value.startswith(FORMULA):
        return "'" + value
    return value


def md_cell(x) -> str:
    """Text made safe for one Markdown table cell: a '<' that could open a tag escaped, '|' escaped, line breaks
    joined (a claim's text can neither forge a row nor carry markup into a page; 'f_E < 1' and '->' stay)."""
    text = re.sub(r"<(?=[A-Za-z/!?])", "&lt;", str(x))
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ")
