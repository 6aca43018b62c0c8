"""groklab cite: a study's verdicts as citable lines with BibTeX; a claim alone; one-line errors."""
import re
from pathlib import Path

from conftest import answers_in_one_line
from groklab.cli import main

FIG6 = Path(__file__).resolve().parents[2] / "results" / "embedding-paper" / "fig6"


def test_cite_prints_every_verdict_then_bibtex(capsys):
    assert main(["cite", str(FIG6)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    verdicts = [x for x in lines if " | 000 " in x]
    plain = [re.sub(r" \(post hoc[^)]*\)", "", x.split(" | ")[0]) for x in verdicts]  # the post hoc mark aside
    assert len(verdicts) == 10 and all(v in ("holds", "does not hold", "holds (measurement)")
                                       or v.startswith("inconclusive") for v in plain)
    assert not any("(measurement)" in a and "(measurement)" not in b for a, b in zip(verdicts, verdicts[1:]))
    assert "@software{groklab," in out and "note = {commit " in out
    assert "@article{alquabeh2025embedding," in out and "eprint = {2505.15624}" in out
    assert not re.search(r"\d\.\d{8,}", out)


def test_cite_one_claim_and_its_misspelling(capsys):
    assert main(["cite", str(FIG6 / "adam_lr_faster_mul")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("holds (post hoc since 2026-11-26; under the replaced rule: holds) | 000 §5.2, Fig. 6 | "
                          "Adam-LR (c = 10) groks mul faster than Adam. | mul: P(")
    assert answers_in_one_line(["cite", str(FIG6 / "adam_lr_faster_mull")], capsys) == 2
    assert main(["cite", str(FIG6 / "adam_lr_faster_mull")]) == 2
    assert "did you mean adam_lr_faster_mul?" in capsys.readouterr().err


def test_cite_refuses_a_whole_archive_and_a_folder_without_verdicts(tmp_path, capsys):
    assert answers_in_one_line(["cite", str(FIG6.parent)], capsys) == 2
    assert main(["cite", str(FIG6.parent)]) == 2
    assert "cite one study of it: adaptive" in capsys.readouterr().err
    assert answers_in_one_line(["cite", str(tmp_path)], capsys) == 2
    assert not list(tmp_path.iterdir())  # nothing written


HOSTILE = ["\x1b[2J\x1b[1;1Hholds | verified claim\x1b[8m",  # clears a terminal, hides what follows
           "x\n\n@misc{forged, title={Grokking solved}, author={Nobody}}\n",  # a BibTeX entry of its own
           "abc\u202edlrow",  # a bidi override reorders what the terminal shows
           "y" * 3_000_000]  # a size bomb, printed whole on one line before


def test_cite_prints_a_hostile_claims_file_escaped_on_one_line_each(tmp_path, capsys):
    """Reliability V: a claims.json from someone else's archive cannot clear the terminal, forge a BibTeX entry or
    flood the output: every field one printable line, cut to a bound."""
    import json
    import shutil

    study = tmp_path / "fig6"
    shutil.copytree(FIG6, study, ignore=shutil.ignore_patterns("*.gz", "*.npz", "*.png", "*.pdf"))
    doc = json.loads((study / "claims.json").read_text())
    doc["profile"] = "quick\n@misc{forged, title={x}}"
    for c, text in zip(doc["claims"], HOSTILE):
        c["text"] = text
    (study / "claims.json").write_text(json.dumps(doc))
    assert main(["cite", str(study)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "\\x1b[2J" in out and "\\u202e" in out
    assert not any(x.startswith("@misc") for x in out.splitlines())  # no forged entry on a line of its own
    assert len(out) < 100_000 and max(map(len, out.splitlines())) < 20_000
