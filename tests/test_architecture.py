"""The tree tells the architecture: layers (import-linter), no import cycles, no private names across
modules, no file over 300 lines, ruff clean, and only the store opens a run's files."""
import ast
import re
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "groklab"
ROOT = SRC.parents[1]
RUN_FILES = ("config.yaml", "metrics.jsonl", "summary.json", "ckpt.pt", "experiment.json", "claims.json",
             "partial.json", "error.txt", "sweep.yaml")


def modules() -> dict[str, ast.Module]:
    out = {}
    for f in sorted(SRC.rglob("*.py")):
        rel = f.relative_to(SRC.parent).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        out[name] = ast.parse(f.read_text(), str(f))
    return out


def imports(tree: ast.Module, name: str) -> list[tuple[str, list[str]]]:
    """(imported module, names) for every import in a module, relative ones resolved."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(name.split(".")[:-node.level] + ([base] if base else []))
            out.append((base, [a.name for a in node.names]))
    return [(m, n) for m, n in out if m == "groklab" or m.startswith("groklab.")]


def test_layers_contract_is_kept(monkeypatch, capsys):
    """`lint-imports` with the contract in pyproject.toml (import-linter, a dev dependency)."""
    from importlinter.cli import lint_imports

    monkeypatch.chdir(ROOT)
    rc = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    out = capsys.readouterr().out
    assert rc == 0 and "1 kept, 0 broken" in out, out


def test_no_import_cycles():
    mods = modules()
    graph = {}
    for name, tree in mods.items():
        deps = set()
        for mod, names in imports(tree, name):
            for n in names:  # `from groklab.store import RunStore` depends on the package; `import x.y` on x.y
                if f"{mod}.{n}" in mods:
                    deps.add(f"{mod}.{n}")
            if mod in mods and not (name.startswith(mod + ".") and mods.get(mod) is not None and not names):
                deps.add(mod)
        graph[name] = {d for d in deps if d != name and not name.startswith(d + ".")}  # a package's own parent

    state, cycles = {}, []

    def visit(m, path):
        state[m] = 1
        for d in graph.get(m, ()):
            if state.get(d) == 1:
                cycles.append(path[path.index(d):] + [d] if d in path else [m, d])
            elif d not in state:
                visit(d, path + [d])
        state[m] = 2

    for m in graph:
        if m not in state:
            visit(m, [m])
    assert not cycles, cycles[:3]


def test_no_private_name_imported_from_another_module():
    bad = [f"{name}: {mod}.{n}" for name, tree in modules().items() for mod, names in imports(tree, name)
           for n in names if n.startswith("_") and mod != name]
    assert not bad, bad


def test_no_file_over_300_lines():
    long = {str(f.relative_to(SRC)): n for f in SRC.rglob("*.py") if (n := len(f.read_text().splitlines())) > 300}
    assert not long, long


def test_only_the_store_names_run_files():
    """Run and experiment file names are spelled out in groklab/store alone: everyone else asks the store."""
    pattern = re.compile(r"""["'](%s)["']""" % "|".join(re.escape(f) for f in RUN_FILES))
    bad = [f"{f.relative_to(SRC)}:{i}" for f in SRC.rglob("*.py") if "store" not in f.relative_to(SRC).parts
           for i, line in enumerate(f.read_text().splitlines(), 1) if pattern.search(line)]
    assert not bad, bad


def test_ruff_is_clean():
    r = subprocess.run([sys.executable, "-m", "ruff", "check", "src", "tests", "benchmarks"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-2000:]


def test_every_module_has_one_row_in_the_concept_table():
    """docs/architecture.md's "where each concept lives": one file per row, and every module of the library in
    a row (a paper's studies and the number-line probe are one folder row each)."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    table = text[text.index("## Where each concept lives"):text.index("## The store's rules")]
    cells = [line.split("|")[2].strip() for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    files = [c.strip("`") for c in cells[1:]]  # without the header
    assert all(c.count("`") == 2 for c in cells[1:]), "one file per row"
    assert len(files) == len(set(files)), "a file in two rows"
    folders = tuple(f for f in files if f.endswith("/"))
    modules = {p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py") if p.name not in ("__init__.py", "__main__.py")}
    unlisted = sorted(m for m in modules if m not in files and not m.startswith(folders))
    assert not unlisted, f"not in docs/architecture.md's concept table: {unlisted}"
    gone = sorted(f for f in files if not (SRC / f).exists())
    assert not gone, f"rows naming files that do not exist: {gone}"
