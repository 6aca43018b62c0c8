"""Typed, validated run config: YAML file + dotted `key=value` overrides, saved into every run."""
from groklab.config.parse import config_error, flatten, load_yaml, make_config, parse_override, set_dotted, validate
from groklab.config.schema import (
                                   EMB_INITS,
                                   ENCODINGS,
                                   MODELS,
                                   OPTIMIZERS,
                                   SAMPLERS,
                                   SPLITS,
                                   TASK_NAMES,
                                   Config,
                                   MeasuresConfig,
)

__all__ = ["EMB_INITS", "ENCODINGS", "MODELS", "OPTIMIZERS", "SAMPLERS", "SPLITS", "TASK_NAMES",
           "Config", "MeasuresConfig", "config_error", "flatten", "load_yaml", "make_config", "parse_override",
           "set_dotted", "validate"]
