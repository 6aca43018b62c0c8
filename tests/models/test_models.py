"""Every architecture: shapes, finite loss, learning, parameter blocks; Transformer against a reference."""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from groklab.config import make_config
from groklab.data import make_task
from groklab.errors import ConfigError
from groklab.models import build_model, circulant

ARCHS = {
    "mlp_emb": ["model=mlp_emb", "model.depth=3"],
    "transformer": ["model=transformer"],
    "transformer_pre": ["model=transformer", "model.norm=pre", "model.depth=1"],
    "transformer_none": ["model=transformer", "model.norm=none"],
    "lstm": ["model=lstm"],
    "birnn": ["model=birnn"],
}


def _small(name, extra=()):
    return make_config(["p=7", "model.d_emb=16", "model.d_hidden=32", *ARCHS[name], *extra])


@pytest.mark.parametrize("name", ARCHS)
def test_shapes_loss_learning_and_blocks(name):
    cfg = _small(name)
    model = build_model(cfg, make_task(cfg))
    g = torch.Generator().manual_seed(0)
    x, y = torch.randint(0, 9, (32, 4), generator=g), torch.randint(0, 7, (32,), generator=g)
    out = model(x)
    assert out.shape == (32, 7) and torch.isfinite(out).all()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    first = F.cross_entropy(model(x), y).item()
    for _ in range(30):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < 0.5 * first
    b = model.blocks()
    ids = {k: {id(t) for t in v} for k, v in b.items()}
    assert all(ids.values()), "every block non-empty"
    assert not (ids["E"] & ids["W"] or ids["E"] & ids["rest"] or ids["W"] & ids["rest"])
    assert ids["E"] | ids["W"] | ids["rest"] == {id(t) for t in model.parameters()}
    assert b["E"][0].shape == (9, 16)  # the token embedding
    W = [t for t in b["W"] if t.ndim == 2]
    assert W and all(t.shape[1] in (16, 64) for t in W)  # W reads the embedding (64: MLP's 4 concatenated)


def test_a_field_left_out_gets_the_library_default_whatever_the_model():
    """No paper's sizes hide in the library: every architecture gets the documented defaults; paper 002's studies
    ask for 002's sizes themselves (experiments/investigation/profile.py)."""
    m = lambda *o: make_config(list(o)).model  # noqa: E731
    for name in ("mlp_emb", "transformer", "lstm", "birnn"):
        assert (m(f"model={name}").depth, m(f"model={name}").d_hidden, m(f"model={name}").act) == (1, 512, "relu")
    assert m("model=lstm", "model.depth=5").depth == 5


def test_paper_002_studies_ask_for_002_sizes():
    from groklab.experiments.investigation.profile import model

    sizes = {arch: make_config(model(arch, "paper")).model for arch in ("transformer", "lstm", "mlp", "birnn")}
    assert {a: (s.depth, s.d_hidden) for a, s in sizes.items()} == {
        "transformer": (2, 512), "lstm": (2, 256), "mlp": (3, 256), "birnn": (3, 128)}
    assert sizes["transformer"].act == "relu" and sizes["transformer"].d_emb == 128


class _RefBlock(nn.Module):
    """Post-LN block written with nn.MultiheadAttention and an explicit causal mask."""

    def __init__(self, d, heads, d_mlp):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, d_mlp), nn.GELU(), nn.Linear(d_mlp, d))

    def forward(self, x):
        T = x.shape[1]
        mask = torch.triu(torch.full((T, T), float("-inf"), dtype=x.dtype), diagonal=1)
        x = self.ln1(x + self.attn(x, x, x, attn_mask=mask, need_weights=False)[0])
        return self.ln2(x + self.mlp(x))


def test_transformer_equals_multihead_attention_reference():
    cfg = make_config(["p=7", "model=transformer", "model.depth=2", "model.act=gelu", "model.d_emb=16",
                       "model.d_hidden=24", "dtype=float64"])
    model = build_model(cfg, make_task(cfg))
    blocks = []
    for blk in model.blocks_:
        r = _RefBlock(16, 4, 24).double()
        with torch.no_grad():
            r.attn.in_proj_weight.copy_(blk.W_qkv.weight)
            r.attn.in_proj_bias.copy_(blk.W_qkv.bias)
            r.attn.out_proj.weight.copy_(blk.W_O.weight)
            r.attn.out_proj.bias.copy_(blk.W_O.bias)
            r.mlp.load_state_dict(blk.mlp.state_dict())
            r.ln1.load_state_dict(blk.ln_attn.state_dict())
            r.ln2.load_state_dict(blk.ln_mlp.state_dict())
        blocks.append(r)
    x = torch.randint(0, 9, (10, 4), generator=torch.Generator().manual_seed(1))
    h = model.E(x) + model.pos.weight
    for r in blocks:
        h = r(h)
    want = model.U(model.ln_final(h[:, -1]))
    torch.testing.assert_close(model(x), want, rtol=1e-10, atol=1e-10)
    # causal: the logits at the last position ignore nothing, earlier positions never see later tokens
    h2 = model.E(x) + model.pos.weight
    x_mod = x.clone()
    x_mod[:, 3] = (x[:, 3] + 1) % 9
    h2_mod = model.E(x_mod) + model.pos.weight
    out, out_mod = model.blocks_[0](h2), model.blocks_[0](h2_mod)
    torch.testing.assert_close(out[:, :3], out_mod[:, :3], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("norm", ["pre", "post", "none"])
def test_last_position_shortcut_equals_full_computation(norm):
    cfg = make_config(["p=7", "model=transformer", "model.d_emb=16", "model.d_hidden=24", f"model.norm={norm}",
                       "dtype=float64"])
    model = build_model(cfg, make_task(cfg))
    x = torch.randint(0, 9, (10, 4), generator=torch.Generator().manual_seed(2))
    h = model.E(x) + model.pos.weight
    for blk in model.blocks_:
        h = blk(h, last_only=False)
    torch.testing.assert_close(model(x), model.U(model.ln_final(h[:, -1])), rtol=1e-10, atol=1e-10)


def test_circulant_embedding_rows_are_shifts_of_one_vector():
    v = torch.arange(5.0)
    C = circulant(v, 5, 5)
    assert torch.equal(C[0], v) and torch.equal(C[1], torch.tensor([4.0, 0, 1, 2, 3]))
    for name in ("mlp_emb", "transformer", "lstm"):
        cfg = _small(name, ["model.emb_init=circulant", "model.emb_init_std=0.5"])
        E = build_model(cfg, make_task(cfg)).blocks()["E"][0].detach()
        # vocab 9 < d_emb 16: the generating vector has length 16 and is row 0
        assert torch.equal(E, circulant(E[0], 9, 16))
        for i in range(1, 9):
            assert torch.equal(E[i], torch.roll(E[i - 1], 1))  # each row is the previous one rolled right
        assert 0.2 < E[0].std().item() < 0.9  # drawn at the configured scale


@pytest.mark.parametrize("name", ["mlp_emb", "transformer", "lstm"])
def test_dropout_only_in_training(name):
    cfg = _small(name, ["model.dropout=0.5", "model.depth=2"])
    model = build_model(cfg, make_task(cfg))
    x = torch.randint(0, 9, (16, 4))
    model.train()
    assert not torch.equal(model(x), model(x))
    model.eval()
    assert torch.equal(model(x), model(x))


def test_the_transformer_of_004s_code():
    """1 layer, no LayerNorm, no Q/K/V/O or unembedding biases, N(0, 1/d_model) init, [a, b, =]: the parameter
    count of 004's released model at p = 97 is 222,592."""
    from groklab.engine.setup import build

    e = build(make_config(["model=transformer", "model.depth=1", "model.norm=none", "model.bias=false",
                           "model.init=scaled", "model.act=relu", "encoding=eq", "p=97", "task=add"]))
    params = dict(e.model.named_parameters())
    assert sum(t.numel() for t in params.values()) == 222_592
    assert "U.bias" not in params and "blocks_.0.W_qkv.bias" not in params and "blocks_.0.mlp.0.bias" in params
    assert abs(params["blocks_.0.W_qkv.weight"].std().item() - 128 ** -0.5) < 0.002
    assert abs(params["E.weight"].std().item() - 128 ** -0.5) < 0.005
    assert params["blocks_.0.mlp.0.bias"].abs().sum() == 0
    assert e.X_train.shape[1] == 3 and int(e.X_train[:, 2].unique()) == 97


def test_the_mlp_of_002s_code_initialises_as_it_does():
    """model.init=kaiming: linears N(0, 2 / fan_in) with zero biases, the embedding N(0, 2 / (vocab + d_emb)) (002's
    t2_MLP.py: kaiming_normal_ relu, xavier_normal_); the transformer's `scaled` and this one refuse each other."""
    import pytest

    from groklab.engine.setup import build
    from groklab.errors import ConfigError

    over = ["model=mlp_emb", "model.tied=true", "model.depth=5", "model.d_emb=128", "model.d_hidden=128", "p=59",
            "encoding=no_op", "task=add"]
    params = dict(build(make_config(over + ["model.init=kaiming"])).model.named_parameters())
    vocab = params["E.weight"].shape[0]
    assert abs(params["E.weight"].std().item() - (2 / (vocab + 128)) ** 0.5) < 0.004
    assert abs(params["hidden.0.weight"].std().item() - (2 / 128) ** 0.5) < 0.004
    assert abs(params["W.weight"].std().item() - (2 / 256) ** 0.5) < 0.003
    assert all(params[f"{k}.bias"].abs().sum() == 0 for k in ("W", "hidden.0", "U"))
    torch_init = dict(build(make_config(over)).model.named_parameters())
    assert torch_init["W.bias"].abs().sum() > 0 and abs(torch_init["E.weight"].std().item() - 1) < 0.05
    with pytest.raises(ConfigError, match="model.init.*only for model=transformer"):
        make_config(over + ["model.init=scaled"])
    with pytest.raises(ConfigError, match="model.init.*only for model=mlp or mlp_emb"):
        make_config(["model=transformer", "model.init=kaiming"])


def test_toeplitz_embedding_of_004s_code():
    import torch

    from groklab.models import make_embedding

    torch.manual_seed(0)
    E = make_embedding(5, 8, init="toeplitz").weight.detach()
    r = E[0] * 8 ** 0.5  # token 0's row is r itself
    assert all(torch.allclose(E[t, i] * 8 ** 0.5, r[abs(i - t)]) for t in range(5) for i in range(8))
    with pytest.raises(Exception, match="vocab"):
        make_embedding(9, 8, init="toeplitz")


def test_tied_mlp_reuses_one_hidden_layer_as_002s_code():
    from groklab.engine.setup import build
    from groklab.experiments.investigation.profile import CODE_MLP

    exp = build(make_config(CODE_MLP))
    m = exp.model
    assert sum(t.numel() for t in m.parameters()) == 44_411  # 002's logged parameter count for this MLP
    assert len(m.hidden) == 1 and m.order == [0, 0, 0, 0]
    x = exp.X_train[:5]
    h = torch.relu(m.W(m.E(x).flatten(1)))
    for _ in range(4):
        h = torch.relu(m.hidden[0](h))
    assert torch.allclose(m(x), m.U(h))
    with pytest.raises(ConfigError, match="model.tied"):
        make_config(["model=transformer", "model.tied=true"])


def test_value_input_rnn_reads_numbers_as_002s_birnn_code():
    cfg = make_config(["p=7", "model=birnn", "model.input=value", "encoding=no_op", "model.d_hidden=8",
                       "model.depth=2"])
    m = build_model(cfg, make_task(cfg))
    assert m.E is None and m.blocks()["E"] == [] and m.rnn.input_size == 1
    x = torch.tensor([[3, 4], [0, 6]])
    ref = nn.RNN(1, 8, num_layers=2, bidirectional=True, batch_first=True)
    ref.load_state_dict(m.rnn.state_dict())
    _, h = ref(x.float().unsqueeze(-1))  # the raw numbers 3., 4. are the inputs, unscaled
    assert torch.allclose(m(x), m.U(h[-2:].transpose(0, 1).flatten(1)))
    for bad, key in ((["model=mlp_emb", "model.input=value"], "model.input"),
                     (["model=birnn", "model.input=value", "encoding=op"], "encoding"),
                     (["model=lstm", "model.input=value", "encoding=no_op", "optim.c=10"], "optim.c")):
        with pytest.raises(ConfigError, match=key):
            make_config(bad)


def test_models_name_their_sizes_as_the_config_does():
    """One vocabulary: a size argument of a model is the ModelConfig field it comes from (d_emb, d_hidden, depth),
    not a second name for it (d_model, d_mlp, n_layers)."""
    import inspect

    from groklab.config.schema import ModelConfig
    from groklab.models import MLP, RNN, Transformer

    for cls in (MLP, RNN, Transformer):
        sizes = [a for a in inspect.signature(cls).parameters if a.startswith(("d_", "n_layers", "depth"))]
        assert sizes and all(a in ModelConfig.model_fields for a in sizes), (cls.__name__, sizes)
