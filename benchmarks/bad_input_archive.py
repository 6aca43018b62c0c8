"""Bad-input cases of Reliability IV (benchmarks/bad_inputs.py runs them with the rest): an archive's data never
chooses a path, and groklab never replaces or deletes what it did not write."""

# (name, argv with {tmp} placeholders, setup, expected exit code, paths that must not exist after)
ARCHIVE_CASES: list[tuple[str, list[str], str, int, list[str]]] = [
    ("archive-run-name-dotdot", ["reproduce", "embedding/fig6", "--from", "{tmp}/archive", "--out", "{tmp}/r"],
     "archive:run-name-dotdot", 2, ["{tmp}/r", "{tmp}/escape"]),
    ("archive-study-dotdot", ["summarize", "{tmp}/archive", "--csv", "{tmp}/s.csv"], "archive:study-dotdot", 2,
     ["{tmp}/s.csv"]),
    ("archive-replace-keeps-notes", ["archive", "{tmp}/repro", "{tmp}/archive", "--replace"], "repro|archive:notes",
     2, []),
    ("archive-into-itself", ["archive", "{tmp}/archive", "{tmp}/archive", "--replace"], "archive", 2, []),
    ("archive-into-its-tree", ["archive", "{tmp}/repro", "{tmp}/repro/fig6/a"], "repro", 2, ["{tmp}/repro/fig6/a"]),
    ("rejudge-into-the-archive", ["reproduce", "embedding/fig6", "--from", "{tmp}/archive", "--out",
                                  "{tmp}/archive/fig6"], "archive", 2, []),
    ("sweep-out-looks-like-a-run", ["sweep", "{tmp}/grid.yaml", "--out", "{tmp}/mine", "--quiet"],
     "grid:seeds: 1|mine:config", 2, []),
    ("summarize-csv-users-table", ["summarize", "{tmp}/tree", "--csv", "{tmp}/data.csv"], "tree|csv", 2, []),
]
