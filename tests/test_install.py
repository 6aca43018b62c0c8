"""The README's install is what CI runs: one constraints file holds the pins, every extra is installed."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSTALL = 'pip install -c constraints.txt -e ".[dev,vision]"'


def test_readme_and_ci_install_with_the_same_constraints_and_every_extra():
    readme, ci = (ROOT / "README.md").read_text(), (ROOT / ".ci" / "run").read_text()
    assert f"{INSTALL} && groklab demo\npytest\n" in readme  # the quickstart: two commands
    assert INSTALL.replace("pip install", "python3 -m pip install --quiet") in ci and ci.rstrip().endswith("pytest")
    project = (ROOT / "pyproject.toml").read_text()
    extras = re.search(r'^dev = \[(.*)\]', project, re.M)[1]
    declared = set(re.findall(r"^(\w+) = \[", project.split("[project.optional-dependencies]")[1].split("\n[")[0],
                              re.M))
    pulled = set(re.search(r"groklab\[([\w,]+)\]", extras)[1].split(","))
    assert pulled == declared - {"dev", "vision"} and "tune" in pulled  # with vision: every extra the tests exercise


def test_constraints_pin_a_matching_torch_pair():
    pins = dict(line.split("==") for line in (ROOT / "constraints.txt").read_text().splitlines()
                if line and not line.startswith("#"))
    assert set(pins) >= {"torch", "torchvision"}
    major, minor = map(int, pins["torch"].split(".")[:2])
    assert pins["torchvision"].startswith(f"0.{minor + 15}.")  # torchvision 0.(m+15) is built for torch 2.m
