"""The polynomial parser against Python integer arithmetic, precedence, and hostile inputs."""
import random

import pytest
import torch

from groklab.data.expr import parse_poly
from groklab.errors import ConfigError

P = 11
A = torch.arange(P).repeat_interleave(P)
B = torch.arange(P).repeat(P)

# Binding strength as the grammar defines it; an atom binds tightest.
PREC = {"add": 1, "sub": 1, "mul": 2, "neg": 3, "pow": 4, "int": 5, "var": 5}


def random_tree(rng: random.Random, depth: int):
    if depth == 0 or (depth < 4 and rng.random() < 0.25):  # the root is never a leaf
        return ("var", rng.choice("ab")) if rng.random() < 0.6 else ("int", rng.randrange(0, 30))
    op = rng.choice(["add", "sub", "mul", "neg", "pow"])
    if op == "neg":
        return ("neg", random_tree(rng, depth - 1))
    if op == "pow":
        # occasionally a right-assoc literal chain like 2^2 in the exponent
        exps = [rng.randrange(0, 4)] if rng.random() < 0.8 else [rng.randrange(1, 3), rng.randrange(0, 3)]
        return ("pow", random_tree(rng, depth - 1), exps)
    return (op, random_tree(rng, depth - 1), random_tree(rng, depth - 1))


def render(node, rng: random.Random, need: int = 0) -> str:
    """Text with the parentheses the grammar needs, plus some redundant ones and spaces."""
    op = node[0]
    if op == "int":
        text = str(node[1])
    elif op == "var":
        text = node[1]
    elif op == "neg":
        text = "-" + render(node[1], rng, 3)
    elif op == "pow":
        text = render(node[1], rng, 5) + "^" + "^".join(map(str, node[2]))
    else:
        sym = {"add": "+", "sub": "-", "mul": "*"}[op]
        left, right = render(node[1], rng, PREC[op]), render(node[2], rng, PREC[op] + 1)
        # a right operand may be a unary minus (a*-b, a--b) but never a bare sum or product
        text = left + rng.choice(["", " "]) + sym + rng.choice(["", " "]) + right
    if PREC[op] < need or rng.random() < 0.15:
        text = "(" + text + ")"
    return text


def value(node, a: int, b: int) -> int:
    """Exact integer value, reduced only at the end: an independent check of mod-every-step."""
    op = node[0]
    if op == "int":
        return node[1]
    if op == "var":
        return a if node[1] == "a" else b
    if op == "neg":
        return -value(node[1], a, b)
    if op == "pow":
        e = 1
        for c in reversed(node[2]):
            e = c**e
        return value(node[1], a, b) ** e
    x, y = value(node[1], a, b), value(node[2], a, b)
    return x + y if op == "add" else x - y if op == "sub" else x * y


def test_random_polynomials_match_python():
    rng = random.Random(0)
    pairs = list(zip(A.tolist(), B.tolist()))
    for _ in range(250):
        tree = random_tree(rng, 4)
        text = render(tree, rng)
        if len(text) > 200:
            continue
        got = parse_poly(text)(A, B, P).tolist()
        want = [value(tree, a, b) % P for a, b in pairs]
        assert got == want, text


@pytest.mark.parametrize("text, fn", [
    ("-a^2", lambda a, b: -(a**2)),
    ("a-b-a", lambda a, b: (a - b) - a),
    ("2^3^2", lambda a, b: 2**9),
    ("a*b+b", lambda a, b: a * b + b),
    ("a+b*b", lambda a, b: a + b * b),
    ("-a*b", lambda a, b: -a * b),
    ("a*-b^3", lambda a, b: a * -(b**3)),
    ("(a+b)^2 - (a - b)^2", lambda a, b: 4 * a * b),
    ("a^0 + 0^0", lambda a, b: 2),
])
def test_precedence(text, fn):
    want = [fn(a, b) % P for a, b in zip(A.tolist(), B.tolist())]
    assert parse_poly(text)(A, B, P).tolist() == want


def test_results_are_residues_and_broadcast():
    out = parse_poly("-a - 3*b - 100")(A, B, P)
    assert out.dtype == torch.long and out.shape == A.shape
    assert int(out.min()) >= 0 and int(out.max()) < P
    const = parse_poly("5")(A, B, P)
    assert const.shape == A.shape and (const == 5).all()


def test_no_int64_overflow_near_2_31():
    p = 2**31 - 1  # prime; residues squared are just under 2**62
    g = torch.Generator().manual_seed(0)
    a = torch.randint(p - 1000, p, (200,), generator=g)
    b = torch.randint(p - 1000, p, (200,), generator=g)
    got = parse_poly("a*b - a^3 + b^1000 * a")(a, b, p).tolist()
    want = [(x * y - x**3 + pow(y, 1000, p) * x) % p for x, y in zip(a.tolist(), b.tolist())]
    assert got == want


def test_variables():
    assert parse_poly("a^2 + 3").variables == frozenset("a")
    assert parse_poly("a*b").variables == frozenset("ab")
    assert parse_poly("7").variables == frozenset()


@pytest.mark.parametrize("text", [
    "__import__('os')", "a**2", "a/b", "c", "(a", "a)", "a+", "2^a", "a^-1", "a^(2)", "a^1001",
    "a^2^10", "1e3", "ab", "2a", "a b", "", "   ", "a" + "+a" * 100, "(" * 60 + "a" + ")" * 60,
    "a % b", "a\nb", "ａ", "a^", "()",
])
def test_rejects(text):
    with pytest.raises(ConfigError) as info:
        parse_poly(text)
    assert info.value.field == "task.expr"
    message = str(info.value)
    assert message.startswith("task.expr=") and "\n" not in message
    assert "allowed:" in message


def test_rejects_non_string():
    with pytest.raises(ConfigError):
        parse_poly(None)


def test_error_names_the_column():
    with pytest.raises(ConfigError, match="column 5"):
        parse_poly("a + $")


def test_nesting_at_the_limit_is_fine():
    text = "(" * 50 + "a" + ")" * 50
    assert parse_poly(text)(A, B, P).tolist() == A.tolist()
