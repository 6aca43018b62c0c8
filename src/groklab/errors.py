"""The one error type for bad user input: a single line naming field, value and what is allowed."""


class ConfigError(ValueError):
    """Invalid user input. `str(err)` is one line: `field=value: what is allowed`."""

    def __init__(self, field: str, value, allowed: str):
        self.field, self.value, self.allowed = field, value, allowed
        super().__init__(f"{field}={value!r}: {allowed}")
