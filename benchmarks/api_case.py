"""One Python-API call as a bad-input case (benchmarks/bad_inputs.py): `python api_case.py FUNCTION JSON_KWARGS`
calls groklab.FUNCTION(**kwargs) in a fresh process. A refusal at the API boundary is a ConfigError, printed as
the CLI prints it (one line, exit 2); anything else escapes as a traceback, which the case counts as unclean."""
import json
import sys

import groklab
from groklab.errors import ConfigError

API = ("train", "reproduce", "load_runs", "make_config")


def call(name: str, kwargs: str) -> int:
    """groklab.<name>(**json kwargs): 0, or 2 with the ConfigError's line on stderr."""
    if name not in API:  # the harness's own table, never user text
        raise SystemExit(f"api_case: {name} is not one of {API}")
    try:
        getattr(groklab, name)(**json.loads(kwargs))
    except ConfigError as err:
        print(f"groklab: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(call(sys.argv[1], sys.argv[2]))
