"""YAML as groklab reads it: the YAML 1.2 core schema, decimal integers, no duplicate keys, bounded size.

PyYAML's safe loader follows YAML 1.1, where `011` is the octal 9, `1:00` the sexagesimal 60, `yes`/`on` are
true and a repeated key silently replaces the first. A config is read with YAML 1.2's core schema instead:
booleans are `true`/`false` only, integers are decimal (`011` is 11; `0x1f`, `0o17` stay strings, so an
integer field names them), `1e-3` is a float, dates and merge keys (`<<`) are plain strings. Aliases are
allowed, but a document whose aliases would expand beyond MAX_NODES nodes (a "billion laughs"), nests deeper
than MAX_DEPTH or is longer than MAX_BYTES is refused before anything is built from it.

PyYAML stays the parser (it is already a dependency); this module replaces its resolver table, the integer
constructor and the mapping constructor, which is all ruamel.yaml would have changed for us. Where PyYAML has
libyaml, a document that provably cannot nest deeper than MAX_DEPTH is parsed by libyaml with the same rules
(5x faster: 0.9 vs 5 ms for a run's config, the bulk of re-judging an archive); anything else, and every
document libyaml refuses, goes through the pure-Python loader, whose errors are the ones users see.
"""
from __future__ import annotations

import re

import yaml
from yaml.constructor import ConstructorError

MAX_BYTES = 1_000_000  # a config or sweep file is a few KB
MAX_DEPTH = 64  # nesting of mappings and lists
MAX_NODES = 100_000  # nodes after expanding every alias

_CORE = [  # YAML 1.2 core schema, integers decimal only
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^[-+]?[0-9]+$", "-+0123456789"),
    ("tag:yaml.org,2002:float", r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                                r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+0123456789."),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
]


_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "seq", "map")}


class _Core:
    """The rules both loaders apply once a document is composed: node budget, keys, tags, integers, text."""

    def get_single_node(self):
        node = super().get_single_node()
        if node is not None and _expanded(node, {}) > MAX_NODES:
            raise ConstructorError(None, None, f"expands to more than {MAX_NODES:,} nodes through its aliases",
                                   node.start_mark)
        return node

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if not isinstance(key, (str, int, float, bool, type(None))):
                    raise ConstructorError(None, None, "a mapping key must be a plain value", key_node.start_mark)
                if key in seen:
                    raise ConstructorError(None, None, f"duplicate key {str(key)[:40]!r} on line "
                                           f"{key_node.start_mark.line + 1} (first on line {seen[key] + 1})",
                                           key_node.start_mark)
                seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep)

    def construct_yaml_int(self, node):
        return int(self.construct_scalar(node), 10)

    def construct_object(self, node, deep=False):
        """Only the core schema's tags, explicit ones included (`!!timestamp`, `!!binary`, `!!set` are refused);
        a value its tag cannot hold (`!!int 0x10`, `!!float` with no value, a 5,000-digit integer) or a string
        that is not Unicode text (`"\\ud800"`) is a YAMLError with its line, not an error from deep inside."""
        if node.tag not in _TAGS:
            raise ConstructorError(None, None, f"the tag {node.tag[:60]!r} is not allowed (YAML 1.2 core: "
                                   "str, int, float, bool, null, seq, map)", node.start_mark)
        try:
            value = super().construct_object(node, deep)
        except (ValueError, TypeError, AttributeError, KeyError, IndexError, OverflowError) as e:
            what = str(node.value)[:40] if isinstance(node, yaml.ScalarNode) else node.id
            raise ConstructorError(None, None, f"{what!r} is not a valid {node.tag.rsplit(':', 1)[-1]} "
                                   f"({type(e).__name__})", node.start_mark) from None
        if isinstance(value, str):  # "\ud800\udc00" (JSON's escape of U+10000) is one character; a lone
            try:                     # "\ud800" is no text at all, and nothing can print it
                value.encode("utf-8")
            except UnicodeEncodeError:
                try:
                    return value.encode("utf-16", "surrogatepass").decode("utf-16")
                except UnicodeDecodeError:
                    pass
                raise ConstructorError(None, None, f"{value[:40].encode('utf-8', 'backslashreplace').decode()!r} "
                                       "is not valid Unicode text (a lone surrogate escape)", node.start_mark) from None
        return value


class StrictLoader(_Core, yaml.SafeLoader):
    """yaml.SafeLoader with the YAML 1.2 core schema, duplicate keys refused and size limits."""

    yaml_implicit_resolvers: dict = {}

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent, index):
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise ConstructorError(None, None, f"nested deeper than {MAX_DEPTH} levels",
                                       self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


for _tag, _regex, _first in _CORE:
    StrictLoader.add_implicit_resolver(_tag, re.compile(_regex), list(_first))
StrictLoader.add_constructor("tag:yaml.org,2002:int", StrictLoader.construct_yaml_int)

FastLoader = None
if getattr(yaml, "__with_libyaml__", False):
    class FastLoader(_Core, yaml.CSafeLoader):  # noqa: F811 -- libyaml's parser and composer, the rules above
        yaml_implicit_resolvers = StrictLoader.yaml_implicit_resolvers

    FastLoader.add_constructor("tag:yaml.org,2002:int", _Core.construct_yaml_int)

_NON_PRINTABLE = re.compile("[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]")


def _shallow(text: str) -> bool:
    """True when no node of `text` can nest deeper than MAX_DEPTH, so libyaml's recursive composer is safe on
    it. A level opens with a flow bracket, an indicator on its line (`- `, `: `, `? `) or a deeper indentation
    (a block sequence may share its parent key's indentation: two levels per indentation); plain text printable
    as the Python reader requires."""
    if _NON_PRINTABLE.search(text) or "\t" in text:
        return False
    indents, inline = set(), 0
    for line in text.splitlines():
        body = line.lstrip(" ")
        indents.add(len(line) - len(body))
        inline = max(inline, body.count("- ") + body.count(": ") + body.count("? ") + 1)
    return text.count("[") + text.count("{") + 2 * len(indents) + inline <= MAX_DEPTH


def _expanded(node, memo: dict) -> int:
    """How many nodes `node` stands for with every alias expanded (memoised per node: shared subtrees are
    counted as often as they are referenced, but visited once)."""
    key = id(node)
    if key not in memo:
        memo[key] = 0  # a recursive alias counts once (then the limit or the constructor stops it)
        if isinstance(node, yaml.SequenceNode):
            memo[key] = 1 + sum(_expanded(n, memo) for n in node.value)
        elif isinstance(node, yaml.MappingNode):
            memo[key] = 1 + sum(_expanded(k, memo) + _expanded(v, memo) for k, v in node.value)
        else:
            memo[key] = 1
    return memo[key]


def loads(text: str):
    """A YAML document under these rules (yaml.YAMLError on a violation, with its line)."""
    if len(text) > MAX_BYTES:
        raise yaml.YAMLError(f"longer than {MAX_BYTES:,} characters")
    if FastLoader is not None and _shallow(text):
        try:
            return yaml.load(text, Loader=FastLoader)  # noqa: S506 -- a CSafeLoader with the rules above
        except Exception:  # noqa: BLE001 -- the pure-Python loader below says what is wrong, in its words
            pass
    return yaml.load(text, Loader=StrictLoader)  # noqa: S506 -- StrictLoader is a SafeLoader


def dump(doc) -> str:
    """yaml.safe_dump(doc, sort_keys=False), by libyaml where PyYAML has it (the same text: every archived run's
    config dumps byte for byte alike; 4x faster)."""
    dumper = yaml.CSafeDumper if getattr(yaml, "__with_libyaml__", False) else yaml.SafeDumper
    return yaml.dump(doc, Dumper=dumper, sort_keys=False)
