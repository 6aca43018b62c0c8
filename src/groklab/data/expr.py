"""A safe polynomial language in a and b, parsed by hand and evaluated elementwise mod p.

Grammar (lowest to highest precedence):
  sum   := prod (('+' | '-') prod)*
  prod  := unary ('*' unary)*
  unary := '-' unary | power          # -a^2 = -(a^2), as in math
  power := atom ('^' exp)?
  exp   := INT ('^' exp)?             # right-assoc and literal only: 2^3^2 = 2^9
  atom  := INT | 'a' | 'b' | '(' sum ')'
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from groklab.errors import ConfigError

MAX_LEN = 200
MAX_DEPTH = 50
MAX_EXP = 1000
ALLOWED = "allowed: integers, a, b, + - * ^, parentheses"
VARIABLES = ("a", "b")


def _fail(text: str, what: str) -> ConfigError:
    return ConfigError("task.expr", text, f"{what}; {ALLOWED}")


def _tokenize(text: str) -> list[tuple[str, str, int]]:
    """Text -> (kind, value, column) tokens; kind is 'int', 'var', 'op' or 'end'."""
    tokens, i = [], 0
    while i < len(text):
        c = text[i]
        if c in " \t":
            i += 1
        elif c.isascii() and c.isdigit():
            j = i
            while j < len(text) and text[j].isascii() and text[j].isdigit():
                j += 1
            tokens.append(("int", text[i:j], i + 1))
            i = j
        elif c in VARIABLES:
            # 'ab' or 'a2' would be a silent implicit product elsewhere; here the parser rejects it
            tokens.append(("var", c, i + 1))
            i += 1
        elif c in "+-*^()":
            if text.startswith("**", i):
                raise _fail(text, f"'**' at column {i + 1} (use ^ for powers)")
            tokens.append(("op", c, i + 1))
            i += 1
        else:
            raise _fail(text, f"unexpected character {c!r} at column {i + 1}")
    tokens.append(("end", "", len(text) + 1))
    return tokens


class _Parser:
    """Recursive descent over the token list; builds tuples like ('add', x, y)."""

    def __init__(self, text: str):
        self.text, self.tokens, self.i, self.depth = text, _tokenize(text), 0, 0

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.i]

    def take(self) -> tuple[str, str, int]:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def error(self, what: str) -> ConfigError:
        kind, value, col = self.peek()
        found = "end of text" if kind == "end" else repr(value)
        return _fail(self.text, f"{what}, found {found} at column {col}")

    def parse(self) -> tuple:
        node = self.sum()
        if self.peek()[0] != "end":
            raise self.error("expected an operator or end of text")
        return node

    def sum(self) -> tuple:
        node = self.prod()
        while self.peek()[:2] in (("op", "+"), ("op", "-")):
            op = self.take()[1]
            node = ("add" if op == "+" else "sub", node, self.prod())
        return node

    def prod(self) -> tuple:
        node = self.unary()
        while self.peek()[:2] == ("op", "*"):
            self.take()
            node = ("mul", node, self.unary())
        return node

    def unary(self) -> tuple:
        # Iterative so a long run of minus signs cannot exhaust the Python stack.
        n_neg = 0
        while self.peek()[:2] == ("op", "-"):
            self.take()
            n_neg += 1
        node = self.power()
        return ("neg", node) if n_neg % 2 else node

    def power(self) -> tuple:
        node = self.atom()
        if self.peek()[:2] == ("op", "^"):
            self.take()
            node = ("pow", node, self.exponent())
        return node

    def exponent(self) -> int:
        """A right-assoc chain of integer literals, folded to one int <= MAX_EXP."""
        lits = []
        while True:
            kind, value, col = self.peek()
            if kind != "int":
                raise self.error("exponent must be a non-negative integer literal")
            self.take()
            lits.append((int(value), col))
            if self.peek()[:2] != ("op", "^"):
                break
            self.take()
        e = 1
        for c, col in reversed(lits):
            # c >= 2 with e > 10 already exceeds MAX_EXP; testing first keeps c**e small
            e = c ** e if c < 2 or e <= 10 else MAX_EXP + 1
            if e > MAX_EXP:
                raise _fail(self.text, f"exponent at column {col} exceeds {MAX_EXP}")
        return e

    def atom(self) -> tuple:
        kind, value, _ = self.peek()
        if kind == "int":
            self.take()
            return ("int", int(value))
        if kind == "var":
            self.take()
            if self.peek()[0] in ("int", "var") or self.peek()[:2] == ("op", "("):
                raise self.error("expected an operator after a variable (write a*b, not ab)")
            return ("var", value)
        if (kind, value) == ("op", "("):
            self.take()
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise self.error(f"parentheses nested deeper than {MAX_DEPTH}")
            node = self.sum()
            if self.peek()[:2] != ("op", ")"):
                raise self.error("expected ')'")
            self.take()
            self.depth -= 1
            return node
        raise self.error("expected an integer, a, b or '('")


def pow_mod(x: torch.Tensor, e: int, p: int) -> torch.Tensor:
    """x**e mod p elementwise by repeated squaring; x must already be in [0, p)."""
    result = torch.ones_like(x)
    while e:
        if e & 1:
            result = result * x % p
        x = x * x % p
        e >>= 1
    return result % p  # e = 0 leaves ones (0^0 = 1), which are residues only once reduced (p = 1)


def _eval(node: tuple, env: dict[str, torch.Tensor], p: int) -> torch.Tensor:
    # Every result is reduced to [0, p), so a product of two is < p^2 < 2^62 for p < 2^31.
    op = node[0]
    if op == "int":
        return torch.tensor(node[1] % p, dtype=torch.long)
    if op == "var":
        return env[node[1]]
    if op == "neg":
        return -_eval(node[1], env, p) % p
    if op == "pow":
        return pow_mod(_eval(node[1], env, p), node[2], p)
    x, y = _eval(node[1], env, p), _eval(node[2], env, p)
    if op == "add":
        return (x + y) % p
    if op == "sub":
        return (x - y) % p
    return x * y % p


def _cost(node: tuple) -> int:
    """Elementwise tensor operations one evaluation takes (a power: two per bit of its exponent)."""
    op = node[0]
    if op in ("int", "var"):
        return 0
    if op == "pow":
        return 2 * node[2].bit_length() + _cost(node[1])
    return 1 + sum(_cost(c) for c in node[1:] if isinstance(c, tuple))


def _variables(node: tuple) -> set[str]:
    if node[0] == "var":
        return {node[1]}
    if node[0] == "int":
        return set()
    return set().union(*(_variables(c) for c in node[1:] if isinstance(c, tuple)))


@dataclass(frozen=True)
class Poly:
    """A parsed polynomial in a and b; call it on operand tensors to get values mod p."""

    text: str
    ast: tuple

    @property
    def variables(self) -> frozenset[str]:
        return frozenset(_variables(self.ast))

    @property
    def cost(self) -> int:
        """Tensor operations per evaluation (times the rows: the work of building a table)."""
        return _cost(self.ast)

    def __call__(self, a: torch.Tensor, b: torch.Tensor, p: int) -> torch.Tensor:
        if not isinstance(p, int) or isinstance(p, bool) or not 2 <= p < 2**31:
            # products of two residues must fit in int64
            raise ConfigError("p", p, "must be an integer in [2, 2**31) to evaluate a polynomial")
        a, b = a.long() % p, b.long() % p
        out = _eval(self.ast, {"a": a, "b": b}, p)
        return out.expand(torch.broadcast_shapes(a.shape, b.shape)).contiguous()


def parse_poly(text: str) -> Poly:
    """Parse a polynomial in a and b (integers, + - * ^, unary minus, parentheses) or raise ConfigError."""
    if not isinstance(text, str):
        raise _fail(text, "must be a string")
    if len(text) > MAX_LEN:
        raise _fail(text, f"text is {len(text)} characters, longer than {MAX_LEN}")
    if not text.strip():
        raise _fail(text, "empty expression")
    return Poly(text, _Parser(text).parse())
