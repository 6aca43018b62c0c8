"""Typed, validated run config: YAML file + dotted `key=value` overrides, saved into every run."""
from groklab.config.parse import config_error, flatten, load_yaml, make_config, parse_override, set_dotted, validate
from groklab.config.schema import MODEL_DEFAULTS, OPTIMIZERS, TASK_NAMES, Config

__all__ = ["MODEL_DEFAULTS", "OPTIMIZERS", "TASK_NAMES", "Config", "config_error", "flatten", "load_yaml",
           "make_config", "parse_override", "set_dotted", "validate"]
