"""The base of every config block."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Section(BaseModel):
    """A config block: unknown keys are errors, assignment re-validates, every float is finite (an `inf`
    learning rate or `1e400` would train a run of NaNs)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)
