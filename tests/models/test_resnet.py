"""ResNet-18 for the image tasks: torchvision's network at width 64, the same topology narrower, blocks."""
import pytest
import torch

from groklab.config import make_config
from groklab.errors import ConfigError

torchvision = pytest.importorskip("torchvision")

from groklab.models.resnet import ResNet18  # noqa: E402


def test_width_64_is_torchvisions_resnet18():
    ours = ResNet18(45).net.state_dict()
    ref = torchvision.models.resnet18(weights=None, num_classes=45).state_dict()
    assert list(ours) == list(ref)
    assert all(ours[k].shape == ref[k].shape for k in ref)
    n = sum(t.numel() for t in ResNet18(45).parameters())
    assert n == 11_689_512 - (512 * 1000 + 1000) + (512 * 45 + 45)  # ResNet-18's 11.7 M with a 45-way readout


def test_narrow_keeps_the_topology_and_scales_every_stage():
    w = 8
    net = ResNet18(17, width=w, small=True).net
    ref = torchvision.models.resnet18(weights=None, num_classes=17)
    assert [k for k, _ in net.named_parameters()] == [k for k, _ in ref.named_parameters()]
    assert net.conv1.weight.shape == (w, 3, 3, 3) and isinstance(net.maxpool, torch.nn.Identity)
    for i, layer in enumerate([net.layer1, net.layer2, net.layer3, net.layer4]):
        assert layer[-1].conv2.weight.shape[0] == w * 2 ** i
    assert net.fc.weight.shape == (17, 8 * w)


def test_forward_is_features_then_readout_and_blocks_cover_the_model():
    torch.manual_seed(0)
    m = ResNet18(9, width=4, small=True).eval()
    x = torch.randint(0, 256, (5, 1, 16, 16), dtype=torch.uint8)
    h = (x.float() / 255 - 0.5) / 0.5
    assert torch.allclose(m(x), m.net(h.expand(-1, 3, -1, -1)), atol=1e-5)  # torchvision's own forward
    assert m.features(x).shape == (5, 32)
    b = m.blocks()
    assert not b["E"] and {id(t) for t in b["W"] + b["rest"]} == {id(t) for t in m.parameters()}
    assert {id(t) for t in b["last"]} <= {id(t) for t in b["rest"]} and any(t is m.net.fc.weight for t in b["last"])


def test_image_configs_refuse_what_needs_a_token_embedding():
    base = ["task=shapes", "model=resnet18"]
    for bad, field in [("measures.spectra.every=10", "measures.spectra.every"),
                       ("measures.token_grads.every=10", "measures.token_grads.every"),
                       ("measures.hessian.every=10", "measures.hessian.blocks"),
                       ("split=uniform", "split.name"), ("sampler=entropy", "sampler")]:
        with pytest.raises(ConfigError) as err:
            make_config(base + [bad])
        assert err.value.field == field
    make_config(base + ["measures.hessian.every=10", "measures.hessian.blocks=[last]"])
    for bad, field in [("model.width=8", "model.width"),
                       ("measures.hessian.blocks=[last]", "measures.hessian.blocks")]:
        with pytest.raises(ConfigError) as err:
            make_config([bad])  # token models: no width, no block 'last'
        assert err.value.field == field


@pytest.mark.parametrize("width", [4, 6, 8])
def test_narrow_widths_train_without_crashing(width):
    """Widths below 8 in channels_last aborted the process in torch 2.14 (heap corruption): a child process
    trains 3 steps so that a crash fails this test instead of killing the suite."""
    import subprocess
    import sys
    code = ("import torch; from groklab.models.resnet import ResNet18; torch.manual_seed(0); "
            f"m = ResNet18(6, width={width}, small=True); o = torch.optim.SGD(m.parameters(), lr=0.01); "
            "x = torch.randint(0, 256, (16, 1, 32, 32), dtype=torch.uint8)\n"
            "for _ in range(3):\n    o.zero_grad(); m(x).logsumexp(1).mean().backward(); o.step()\nprint('ok')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-500:]
