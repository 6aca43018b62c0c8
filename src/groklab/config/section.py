"""The base of every config block."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Section(BaseModel):
    """A config block: unknown keys are errors, assignment re-validates."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)
