"""Strict input: YAML 1.2 numbers, no duplicate keys, bounded documents, booleans that are not numbers."""
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from groklab import ConfigError, make_config
from groklab.config.yaml12 import MAX_DEPTH, loads


@pytest.mark.parametrize("text, value", [("011", 11), ("1:00", "1:00"), ("yes", "yes"), ("on", "on"),
                                         ("true", True), ("1e-3", 0.001), ("0x1f", "0x1f"), ("1_000", "1_000"),
                                         ("2024-01-01", "2024-01-01"), ("~", None), ("-3", -3), (".inf", float("inf"))])
def test_scalars_follow_the_yaml_1_2_core_schema(text, value):
    assert loads(f"a: {text}") == {"a": value}


def test_duplicate_keys_are_refused_with_their_lines():
    with pytest.raises(yaml.YAMLError, match="duplicate key 'steps' on line 3 \\(first on line 1\\)"):
        loads("steps: 10\nseed: 1\nsteps: 20\n")


def test_alias_bombs_deep_nesting_and_huge_documents_are_refused_quickly():
    bomb = 'a: &a ["x","x","x","x","x","x","x","x","x","x"]\n' + "".join(
        f"{c}: &{c} [{','.join([f'*{p}'] * 10)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
    with pytest.raises(yaml.YAMLError, match="expands to more than"):
        loads(bomb)
    assert loads("a: &x [1, 2]\nb: *x") == {"a": [1, 2], "b": [1, 2]}  # a small alias is fine
    with pytest.raises(yaml.YAMLError, match=f"nested deeper than {MAX_DEPTH}"):
        loads("a: " + "[" * 100 + "]" * 100)
    with pytest.raises(yaml.YAMLError, match="longer than"):
        loads("a: " + "x" * 2_000_000)


@pytest.mark.parametrize("text, what", [("!!int 0x10", "not a valid int"), ("!!float abc", "not a valid float"),
                                        ("!!bool maybe", "not a valid bool"), ("9" * 5000, "not a valid int"),
                                        ("!!timestamp nope", "not allowed"), ("!!binary aGk=", "not allowed"),
                                        ("!!set {a}", "not allowed"), ("!!python/name:os.system", "not allowed")])
def test_explicit_tags_and_huge_integers_are_yaml_errors_with_a_line(text, what):
    # they raised ValueError / KeyError / AttributeError from PyYAML's constructors: a traceback from the CLI
    with pytest.raises(yaml.YAMLError, match=what):
        loads(f"seed: 1\nsteps: {text}\n")


def test_huge_values_and_keys_give_bounded_error_lines():
    with pytest.raises(ConfigError) as err:
        make_config(base={"seed": 10 ** 5000})  # str() of it raises past 4,300 digits
    assert "16,610 bits" in str(err.value)
    with pytest.raises(ConfigError) as err:
        make_config(["k" * 100_000 + "=1"])
    assert len(str(err.value)) < 600


def test_a_config_file_with_a_duplicate_key_is_one_line_naming_the_file(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text("steps: 10\nsteps: 20\n")
    with pytest.raises(ConfigError, match=r"c.yaml': not valid YAML \(duplicate key 'steps' on line 2"):
        make_config(file=str(f))
    f.write_text("steps: 011\noptim: {lr: 1e-3}\n")
    cfg = make_config(file=str(f))
    assert cfg.steps == 11 and cfg.optim.lr == 0.001


@pytest.mark.parametrize("override", ["steps=true", "optim.lr=true", "split.k=false", "optim.betas=[true,0.98]",
                                      "eval.every=yes", "steps=0x10", "batch_size=1:00"])
def test_booleans_and_non_decimal_numbers_are_not_numbers(override):
    with pytest.raises(ConfigError, match=override.split("=")[0]):
        make_config([override])


def test_booleans_still_set_boolean_fields():
    assert make_config(["bar=false", "stop.early=true"]).bar is False


@pytest.mark.parametrize("override", ["bar=1", "track.wandb=0", "stop.early=yes", "model.tied=on",
                                      "model.freeze_emb=2.0"])
def test_numbers_and_words_are_not_booleans(override):  # pydantic would read 1, 'yes' and 'on' as true
    with pytest.raises(ConfigError, match=override.split("=")[0] + ".*must be true or false"):
        make_config([override])


def test_operand_count_only_with_sums():  # task.K=3 on a + b was silently ignored
    with pytest.raises(ConfigError, match="task.K=3: only used with task=sum"):
        make_config(["task=add", "task.K=3"])
    assert make_config(["task=sum", "task.K=3", "p=7"]).task.K == 3


SCALARS = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_subnormal=False)
           | st.text(max_size=8))


@settings(max_examples=60, deadline=None)
@given(st.recursive(SCALARS,
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
                    max_leaves=20))
def test_any_yaml_document_loads_or_raises_a_yaml_error_and_any_config_is_valid_or_one_config_error(doc):
    # (no subnormal floats: a run elsewhere in the session may have set flush-to-zero, flush_denormal)
    text = yaml.safe_dump({"steps": doc})
    try:
        loaded = loads(text)
    except yaml.YAMLError:
        return
    try:
        make_config(base=loaded)
    except ConfigError as err:
        assert "\n" not in str(err) and len(str(err)) < 600


TAGS = st.sampled_from(["", "!!int ", "!!float ", "!!bool ", "!!str ", "!!null ", "!!timestamp ", "!!binary ",
                        "!!set ", "!!omap ", "!!python/object:os.system ", "!x ", "&a ", "*a "])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.text("abcsp", min_size=1, max_size=3), TAGS,
                          st.text(list("0123456789xeE.+-:abtruefalsn[]{}, ~'\""), max_size=12)), max_size=4),
       st.integers(0, 5000))
def test_raw_yaml_text_with_tags_anchors_and_long_numbers_loads_or_is_a_yaml_error(items, digits):
    text = "".join(f"{k}: {tag}{v}\n" for k, tag, v in items) + f"n: {'9' * digits}\n"
    try:
        loads(text)
    except yaml.YAMLError:
        pass


def test_surrogate_escapes_pair_into_one_character_and_a_lone_one_is_refused():
    """JSON escapes U+10000 as a surrogate pair, which PyYAML leaves as two lone surrogates that nothing can print
    (found by tests/cli/test_damage_property.py: `summarize` crashed printing such a config key)."""
    assert loads('{"\\ud800\\udc00": false}') == {"\U00010000": False}
    with pytest.raises(yaml.YAMLError, match="not valid Unicode text"):
        loads('a: "\\ud800"')
    with pytest.raises(yaml.YAMLError, match="not valid Unicode text"):
        loads('"\\udc00x": 1')


CORPUS = ["a: 1\nb: [1, 2]\n", "a: 011\nb: 1e-3\nc: yes\nd: 0x1f\ne: 1:00\n", "a: 1\na: 2\n", "a: &x [1,2]\nb: *x\n",
          "x: !!python/object:os.system 1\n", "- - - 1\n", 'a: "\\ud800"\n', 'a: "\\ud800\\udc00"\n', "<<: 1\n",
          "a: .inf\nb: ~\nc: True\nd: NULL\n", "k: {a: [1, {b: 2}]}\n", "a:\n- 1\n- b:\n  - 2\n", "a: 2001-01-01\n",
          "a: 'it''s'\nb: |\n  two\n  lines\n", "? [1]\n: 2\n", "a: \x07\n", "a:\tb\n", "{a: 1, a: 2}", "a: [1,\n", "",
          "--- 1\n--- 2\n", "a: !!str 1\nb: !!int 3\n", "a: -0\nb: +1\nc: 1.\nd: .5\n"]


@pytest.mark.parametrize("text", CORPUS)
def test_libyaml_and_the_python_loader_read_alike(text):
    """What the fast path (libyaml) returns is what the pure-Python loader reads; whatever libyaml refuses, or a
    document the fast path is not for (tabs, control characters), loads() answers as the Python loader does."""
    from groklab.config import yaml12

    if yaml12.FastLoader is None:
        pytest.skip("PyYAML without libyaml: the Python loader is the only one")

    def read(loader):
        try:
            return repr(yaml.load(text, Loader=loader))  # noqa: S506 -- both are safe loaders
        except Exception as e:  # noqa: BLE001
            return type(e).__name__

    fast, slow = read(yaml12.FastLoader), read(yaml12.StrictLoader)
    if yaml12._shallow(text) and not fast.endswith("Error"):  # what the fast path returns is what Python reads
        assert fast == slow
    try:
        got = repr(loads(text))
    except yaml.YAMLError as e:
        got = type(e).__name__
    assert got == slow


def test_the_fast_path_is_taken_only_for_shallow_documents():
    from groklab.config.yaml12 import _shallow

    assert _shallow("seed: 1\noptim:\n  lr: 0.001\n  betas: [0.9, 0.98]\n")
    assert not _shallow("a: " + "[" * 70 + "]" * 70)
    assert not _shallow("".join(" " * i + f"k{i}:\n" for i in range(40)))
    assert not _shallow("a: " + "- " * 70 + "1")
