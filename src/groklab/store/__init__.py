"""The store owns the on-disk format of runs and experiment trees; nothing else opens their files."""
from groklab.store.files import atomic_write, clean, dumps, write_json
from groklab.store.frames import load_runs, load_summaries
from groklab.store.lock import holder
from groklab.store.run import RunStore, array_series, is_run, load_arrays, read_metrics, read_summary
from groklab.store.schema import FINISHED, STATUSES
from groklab.store.tree import (
                                PARTIAL,
                                check_out,
                                clear_error,
                                experiment_dirs,
                                find_runs,
                                make_out,
                                read_claims,
                                read_error,
                                read_manifest,
                                read_partial,
                                read_sweep_file,
                                write_claims,
                                write_error,
                                write_manifest,
                                write_partial,
                                write_sweep_file,
)

__all__ = ["FINISHED", "PARTIAL", "STATUSES", "RunStore", "array_series", "atomic_write", "check_out", "clean",
           "clear_error", "dumps", "experiment_dirs", "find_runs", "holder", "is_run", "load_arrays", "load_runs",
           "load_summaries",
           "make_out", "read_claims", "read_error", "read_manifest", "read_metrics", "read_partial", "read_summary",
           "read_sweep_file", "write_claims", "write_error", "write_json", "write_manifest", "write_partial",
           "write_sweep_file"]
