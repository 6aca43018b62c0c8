"""The base of every config block."""
from __future__ import annotations

import types
import typing

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator


class Section(BaseModel):
    """A config block: unknown keys are errors, assignment re-validates, every float is finite (an `inf`
    learning rate or `1e400` would train a run of NaNs), a boolean is never a number (pydantic would
    read `steps=true` as 1 and `optim.lr=true` as 1.0) and a number or a word is never a boolean."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_numbers(cls, value, info: ValidationInfo):
        annotation = cls.model_fields[info.field_name].annotation
        if isinstance(value, bool) and _numeric(annotation):
            raise ValueError("must be a number, not a boolean")
        if annotation in (bool, typing.Optional[bool]) and value is not None and not isinstance(value, bool):
            raise ValueError("must be true or false")  # pydantic would read 1, 'yes' and 'on' as true
        if isinstance(value, (list, tuple)) and any(isinstance(v, bool) for v in value) \
                and _numeric(cls.model_fields[info.field_name].annotation, inside=True):
            raise ValueError("must hold numbers, not booleans")
        return value


def _numeric(annotation, inside: bool = False) -> bool:
    """Whether a field takes numbers but no booleans: int or float (optional), or with `inside` a list or tuple
    of them."""
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return bool not in args and any(_numeric(a, inside) for a in args if a is not type(None))
    if inside and origin in (list, tuple):
        return any(a in (int, float) for a in args)
    if origin is typing.Annotated:
        return _numeric(args[0], inside)
    return not inside and annotation in (int, float)
