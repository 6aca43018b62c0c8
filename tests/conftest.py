import pytest
import torch


@pytest.fixture(autouse=True)
def _threads():
    """Tests run on 2 cores; one intra-op thread keeps small models fast and results stable."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def tiny(**kw) -> list[str]:
    """Overrides for a run that takes well under a second."""
    base = {"p": 11, "task": "add", "model.d_emb": 8, "model.d_hidden": 32, "steps": 30, "batch_size": 16,
            "eval.every": 10, "eval.log_points": 0, "progress": "false", "checkpoint_every": 10}
    base.update(kw)
    return [f"{k}={v}" for k, v in base.items()]
