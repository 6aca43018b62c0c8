"""A tiny random Hugging Face model built and saved in the test, probed offline through the CLI."""
import json
import socket

import numpy as np
import pytest
import torch

from groklab.cli import main

transformers = pytest.importorskip("transformers")
pytest.importorskip("sklearn")


def _tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=["<unk>", "<eos>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator([f"The number {i} is {i + 1} and then {2 * i}." for i in range(0, 3000, 7)], trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", eos_token="<eos>")


@pytest.fixture(scope="module")
def gpt(tmp_path_factory):
    """A 2-block GPT-2 (d_model 32) with a BPE tokenizer trained on numerals, saved to disk."""
    from transformers import GPT2Config, GPT2LMHeadModel

    path = tmp_path_factory.mktemp("tinygpt")
    tok = _tokenizer()
    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=2, n_embd=32, n_head=2, n_positions=64, vocab_size=len(tok),
                     bos_token_id=tok.eos_token_id, eos_token_id=tok.eos_token_id)
    GPT2LMHeadModel(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    """A 1-layer BERT encoder (no next-token head)."""
    from transformers import BertConfig, BertModel

    path = tmp_path_factory.mktemp("tinybert")
    tok = _tokenizer()
    torch.manual_seed(0)
    BertModel(BertConfig(num_hidden_layers=1, hidden_size=16, num_attention_heads=2, intermediate_size=32,
                         vocab_size=len(tok), max_position_embeddings=64)).save_pretrained(path)
    tok.save_pretrained(path)
    return path


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a socket fails the test."""
    def refuse(*a, **k):
        raise AssertionError("network access attempted")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_end_to_end_offline_through_the_cli(gpt, tmp_path, capsys, no_network):
    out = tmp_path / "nl"
    rc = main(["numberline", "--model", str(gpt), "--numbers", "1:120", "--template", "The number {n} is",
               "--layers", "all", "--out", str(out), "--dims", "2", "--intervene", "1", "--alpha", "2"])
    assert rc == 0, capsys.readouterr().err
    for f in ("results.csv", "results.json", "projections.csv", "layers.png", "scatter.png", "intervention.csv"):
        assert (out / f).is_file() and (out / f).stat().st_size > 0
    meta = json.loads((out / "results.json").read_text())
    rows = meta["layers"]
    assert len(rows) == 3 * 2 * 2  # hidden states 0..2, pca and pls, 2 components
    assert {r["layer"] for r in rows} == {0, 1, 2} and all(r["rho"] is not None for r in rows)
    assert meta["source"]["n_layers"] == 2 and meta["source"]["d_model"] == 32 and meta["source"]["causal"]
    assert meta["numbers"]["count"] == 120 and meta["tokenization"]["max_subtokens"] >= 2
    assert set(meta["fourier"]) == {"0", "1", "2"}  # 1..120 is consecutive: circularity reported
    iv = meta["intervention"]
    assert iv["layer"] == 1 and 0 < iv["mean_p_numeral"] <= 1 and iv["sd_along_u"] > 0
    assert len((out / "intervention.csv").read_text().splitlines()) == 1 + 3 * 120
    assert len((out / "projections.csv").read_text().splitlines()) == 1 + 3 * 2 * 120
    import os
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TRANSFORMERS_OFFLINE"] == "1"


def test_numeral_span_from_offsets_and_the_slow_fallback_agree(gpt):
    from groklab.numberline.hf import encode, load

    lm = load(gpt)
    tok = lm.tokenizer
    numerals = [str(x) for x in (1, 7, 42, 105, 999, 1234, 20231)]
    enc = encode(tok, numerals, "In {n}, the end.")
    for s, ids, pos, k in zip(numerals, enc.ids, enc.pos, enc.n_sub):
        assert tok.decode(ids[pos + 1 - k:pos + 1]).strip() == s  # the k sub-tokens spell the numeral
    assert enc.clean.all()

    class Slow:  # the same tokenizer without offsets: exercises the documented fallback
        is_fast = False
        all_special_ids = tok.all_special_ids

        def __call__(self, text):
            return {"input_ids": tok(text)["input_ids"]}

    slow = encode(Slow(), numerals, "In {n}, the end.")
    assert slow.ids == enc.ids and (slow.pos == enc.pos).all() and (slow.n_sub == enc.n_sub).all()


def test_hidden_states_are_the_last_subtoken_rows_and_batching_is_exact(gpt):
    from groklab.numberline.hf import blocks, encode, hidden_states, load

    lm = load(gpt)
    numerals = [str(x) for x in (3, 30, 300, 3000, 12, 7777)]
    enc = encode(lm.tokenizer, numerals, "{n} is")
    H1 = hidden_states(lm, enc, [0, 1, 2], batch_size=1)
    H4 = hidden_states(lm, enc, [0, 1, 2], batch_size=4)  # right padding must not move anything
    for layer in (0, 1, 2):
        np.testing.assert_allclose(H1[layer], H4[layer], atol=1e-5)
    # the input of block l is hidden state l: where the intervention hook adds its vector
    seen = {}
    hooks = [b.register_forward_pre_hook(lambda m, a, k, i=i: seen.__setitem__(i, (a[0] if a else k["hidden_states"])),
                                         with_kwargs=True) for i, b in enumerate(blocks(lm.model, 2))]
    ids = torch.tensor([enc.ids[5]])
    with torch.no_grad():
        hs = lm.model(input_ids=ids, output_hidden_states=True).hidden_states
    for h in hooks:
        h.remove()
    for i in (0, 1):
        torch.testing.assert_close(seen[i], hs[i])
    np.testing.assert_allclose(H1[1][5], hs[1][0, enc.pos[5]].numpy(), atol=1e-5)


def test_steering_with_alpha_zero_is_the_plain_model_and_nonzero_moves_it(gpt):
    from groklab.numberline.hf import encode, load
    from groklab.numberline.intervene import numeral_tokens, steer

    lm = load(gpt)
    ids, values = numeral_tokens(lm.tokenizer)
    assert len(ids) > 10 and values.max() >= 10  # single digits and merged multi-digit tokens
    assert all(int(lm.tokenizer.decode([int(i)])) == v for i, v in zip(ids, values))
    enc = encode(lm.tokenizer, ["5", "50", "500"], "after {n}")
    u = np.random.default_rng(0).normal(size=32)
    u /= np.linalg.norm(u)
    rows = steer(lm, enc, 1, u, [0.0, 50.0], batch_size=2)
    with torch.no_grad():
        logits = lm.model(input_ids=torch.tensor([enc.ids[1]])).logits[0, -1]
    p = torch.softmax(logits.double(), -1)[torch.as_tensor(ids)]
    plain = float((p * torch.as_tensor(values)).sum() / p.sum())
    r0 = {r["row"]: r for r in rows if r["alpha"] == 0.0}
    r50 = {r["row"]: r for r in rows if r["alpha"] == 50.0}
    assert r0[1]["expected"] == pytest.approx(plain, rel=1e-9)
    assert r0[1]["p_numeral"] == pytest.approx(float(p.sum()), rel=1e-9)
    assert all(abs(r50[i]["expected"] - r0[i]["expected"]) > 1e-6 for i in range(3))


BAD = [
    (["--model", "{missing}"], "model="),
    (["--model", "{empty_dir}"], "config.json"),
    (["--numbers", ","], "numbers="),
    (["--numbers", "log:10:1:5"], "numbers="),
    (["--layers", "3"], "layers="),
    (["--layers", "0,-4"], "layers="),
    (["--template", "no placeholder"], "template="),
    (["--template", "{n} and {n}"], "template="),
    (["--dims", "3"], "dims="),
    (["--folds", "1"], "folds="),
    (["--intervene", "2"], "intervene="),
    (["--scatter", "9"], "layers="),
]


@pytest.mark.parametrize("args, field", BAD)
def test_bad_inputs_give_one_line_and_write_nothing(gpt, tmp_path, capsys, args, field):
    (tmp_path / "empty").mkdir()
    args = [a.replace("{missing}", str(tmp_path / "nope")).replace("{empty_dir}", str(tmp_path / "empty"))
            for a in args]
    if "--model" not in args:
        args = ["--model", str(gpt), *args]
    out = tmp_path / "out"
    rc = main(["numberline", "--numbers", "1:20", *args, "--out", str(out)] if "--numbers" not in args
              else ["numberline", *args, "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.startswith("groklab: error: ") and "\n" not in err and field in err
    assert not out.exists()


def test_intervention_needs_a_causal_lm(bert, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["numberline", "--model", str(bert), "--numbers", "1:30", "--out", str(out)]) == 0
    assert len(json.loads((out / "results.json").read_text())["layers"]) == 2 * 2
    rc = main(["numberline", "--model", str(bert), "--numbers", "1:30", "--intervene", "0", "--out",
               str(tmp_path / "o2")])
    err = capsys.readouterr().err
    assert rc == 2 and "causal" in err and not (tmp_path / "o2").exists()
