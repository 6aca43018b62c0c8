"""Optional metric sinks beside the run directory (TensorBoard, Weights & Biases); the store stays the truth."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from groklab.errors import ConfigError


def check_sinks(cfg) -> None:
    """Refuse a sink whose package is missing, before anything is written."""
    for flag, module, extra in (("tensorboard", "tensorboard", "track"), ("wandb", "wandb", "track")):
        if getattr(cfg.track, flag) and importlib.util.find_spec(module) is None:
            raise ConfigError(f"track.{flag}", True, f"needs the {module} package: pip install 'groklab[{extra}]'")


class TensorBoardSink:
    """Scalars to event files in <run>/tb; a resumed run purges events past its checkpoint step."""

    def __init__(self, path: Path, start: int):
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(log_dir=str(path / "tb"), purge_step=start or None)

    def log(self, row: dict) -> None:
        for key, value in row.items():
            if key != "step" and isinstance(value, (int, float)):
                self.writer.add_scalar(key, value, row["step"])

    def close(self) -> None:
        self.writer.close()


class WandbSink:
    """One W&B run per run directory, files under <run>/wandb; WANDB_MODE=offline needs no network."""

    def __init__(self, path: Path, cfg):
        import wandb

        try:
            self.run = wandb.init(project=cfg.track.wandb_project, dir=str(path), name=path.name,
                                  config=cfg.to_dict(), reinit="create_new")
        except Exception as err:  # no key, no network: one line, not W&B's traceback
            first = (str(err).strip().splitlines() or [type(err).__name__])[0][:160]
            raise ConfigError("track.wandb", True, f"W&B did not start ({first}); log in with `wandb login` or "
                              "WANDB_API_KEY, or set WANDB_MODE=offline to log without an account") from None

    def log(self, row: dict) -> None:
        self.run.log({k: v for k, v in row.items() if k != "step"}, step=row["step"])

    def close(self) -> None:
        self.run.finish()


class Sinks:
    """The enabled sinks, fed each eval row."""

    def __init__(self, sinks: list):
        self.sinks = sinks

    def log(self, row: dict) -> None:
        for s in self.sinks:
            s.log(row)

    def close(self) -> None:
        for s in self.sinks:
            s.close()


def open_sinks(cfg, path, start: int = 0):
    """The sinks cfg.track enables for the run at `path`, or None when all are off (no cost at all)."""
    t = getattr(cfg, "track", None)
    if t is None or not (t.tensorboard or t.wandb):
        return None
    path = Path(path)
    sinks = [TensorBoardSink(path, start)] if t.tensorboard else []
    if t.wandb:
        sinks.append(WandbSink(path, cfg))
    return Sinks(sinks)
