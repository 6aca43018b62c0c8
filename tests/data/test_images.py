"""Image-composition tasks (004 §6.3): labels from known grids, determinism, shapes, bad parameters."""
import pytest
import torch

from groklab.config import make_config
from groklab.data.images import make_image_task, polygon, sides_of
from groklab.errors import ConfigError


def test_labels_are_the_sums_of_the_sides():
    t = make_image_task(cells=2, entries=11, side=32)
    assert len(t) == 11 ** 4 and t.inputs.shape == (14641, 1, 32, 32) and t.inputs.dtype == torch.uint8
    assert t.n_classes == 49 and sides_of(11) == [0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    ops = t.operands
    i = int(((ops == torch.tensor([1, 0, 10, 4])).all(1)).nonzero())  # triangle, empty / dodecagon, hexagon
    assert int(t.labels[i]) == 3 + 0 + 12 + 6 and t.show(i).endswith("-> label 21")
    assert int(t.labels[0]) == 0 and int(t.labels[-1]) == 48
    m = make_image_task(cells=2, entries=4, side=16, weight="mod", mod=5)
    assert m.n_classes == 5 and torch.equal(m.labels, torch.tensor(sides_of(4))[m.operands].sum(1) % 5)


def test_each_cell_shows_its_picture_and_rendering_is_deterministic():
    t = make_image_task(cells=2, entries=5, side=24)
    c = 12
    for i in (0, 7, 123, len(t) - 1):
        ids = t.operands[i].tolist()
        for k, e in enumerate(ids):
            r, q = divmod(k, 2)
            cell = t.inputs[i, 0, r * c:(r + 1) * c, q * c:(q + 1) * c]
            assert torch.equal(cell, polygon(sides_of(5)[e], c))
    assert polygon(0, c).sum() == 0 and polygon(3, c).max() == 255
    assert torch.equal(make_image_task(cells=2, entries=5, side=24).inputs, t.inputs)
    a, b = (make_image_task(cells=1, entries=5, side=8, labels="random", seed=s).labels for s in (0, 1))
    assert not torch.equal(a, b)


@pytest.mark.parametrize("kw, field", [
    (dict(cells=3, entries=11), "task.entries"), (dict(cells=0), "task.cells"),
    (dict(side=30, cells=4, entries=2), "task.image"), (dict(entries=1), "task.entries"),
    (dict(weight="mod", mod=1), "task.mod")])
def test_bad_parameters_are_refused(kw, field):
    with pytest.raises(ConfigError) as err:
        make_image_task(**{"side": 16, **kw})
    assert err.value.field == field and "\n" not in str(err.value)


@pytest.mark.parametrize("overrides, field", [
    (["task.cells=4", "task.entries=16"], "task.entries"),  # 16^16 grids: refused before anything renders
    (["task.cells=3", "task.entries=3", "task.image=31"], "task.image"),  # not a multiple of the cells
    (["task.entries=16", "task.image=4096"], "task.image")])  # 65,536 images of 4096^2 px: 1 TiB
def test_image_sizes_are_refused_when_the_config_is_made(overrides, field):
    with pytest.raises(ConfigError) as err:
        make_config(["task=shapes", "model=resnet18", *overrides])
    assert err.value.field == field and "\n" not in str(err.value)


def test_config_pairs_shapes_with_resnet():
    with pytest.raises(ConfigError, match="model.name"):
        make_config(["task=shapes"])
    with pytest.raises(ConfigError, match="task.name"):
        make_config(["model=resnet18"])
    with pytest.raises(ConfigError, match="optim.c"):
        make_config(["task=shapes", "model=resnet18", "optim.c=10"])
    cfg = make_config(["task=shapes", "model=resnet18", "task.image=32", "task.entries=3"])
    assert (cfg.task.cells, cfg.task.entries, cfg.task.image) == (2, 3, 32)


def test_resnet18_trains_on_images_or_says_what_it_needs():
    """With torchvision (torch 2.14.1 + torchvision 0.29.1): a forward/backward at a tiny size and blocks
    covering every parameter; without it: one line naming model.name and the install command."""
    from groklab.engine.setup import build

    cfg = make_config(["task=shapes", "model=resnet18", "task.image=16", "task.entries=3", "task.cells=2",
                       "batch_size=8"])
    try:
        import torchvision  # noqa: F401
    except (ImportError, RuntimeError):
        with pytest.raises(ConfigError) as err:
            build(cfg)
        assert err.value.field == "model.name" and "torchvision" in str(err.value) and "\n" not in str(err.value)
        return
    e = build(cfg)
    out = e.model(e.X_train[:8])
    assert out.shape == (8, e.task.n_classes) and e.task.n_classes == 4 * 4 + 1
    out.logsumexp(1).mean().backward()
    b = e.model.blocks()
    assert not b["E"] and len(b["W"]) + len(b["rest"]) == len(list(e.model.parameters()))
    assert all(t.grad is not None for t in e.model.parameters())
