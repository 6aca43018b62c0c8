"""`groklab report`: one self-contained HTML page, checked by rendering it in headless Chromium."""
import json
import re
import shutil
import subprocess

import pytest

from groklab.cli import main
from groklab.experiments import reproduce
from groklab.report import markdown, write_report

TINY = ("p=11", "model.d_emb=8", "model.d_hidden=32", "steps=30", "eval.every=10", "eval.log_points=0")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Appended to a copy of the page: once loaded, count the images that decoded and the claim tables.
PROBE = """<script>window.addEventListener('load', () => {
  const imgs = [...document.images];
  const ok = imgs.filter(i => i.complete && i.naturalWidth > 0).length;
  const rows = document.querySelectorAll('table.claims tr.claim').length;
  document.body.setAttribute('data-probe', ok + '/' + imgs.length + '/' + rows);
});</script>"""


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    out = tmp_path_factory.mktemp("rep")
    reproduce("embedding/fig6", out, seeds=1, jobs=1, echo=lambda *_: None, overrides=TINY)
    return out


def test_report_is_self_contained_with_claims_and_health(tree):
    bad = tree / "fig6" / "div" / "adam" / "s0"
    (bad / "error.txt").write_text("Traceback ...\nRuntimeError: out of memory\n")
    try:
        page = write_report(tree).read_text()
    finally:
        (bad / "error.txt").unlink()
    assert page.count("data:image/png;base64,") == 1 and "src=\"fig6" not in page
    assert not re.search(r"(src|href)=['\"](?!data:|#)", page)  # nothing fetched from disk or network
    claims = json.loads((tree / "fig6" / "claims.json").read_text())["claims"]
    assert page.count("<tr class='claim'><td><b>") == len(claims) == 10  # 2 Adam-LR variants x (4 tasks + all)
    paper, measured = page.index("<h3>The paper&#39;s claims</h3>"), page.index("<h3>Measurements: our own checks")
    assert paper < measured and page.count("<div class='cite'>") == 10  # in sections of their own; citable lines
    assert "<div class='cite'>inconclusive" in page and " | 000 " in page
    assert "div/adam/s0" in page and "RuntimeError: out of memory" in page and "failed: 1" in page
    assert "optim.lr=0.01" in page  # the runs' configs
    # the settings the paper leaves unstated, from claims.json (fig6's decay semantics; its arm runs at paper only)
    assert "Settings the paper does not state" in page and "<code>optim.wd_mode</code>" in page


def test_markdown_table_lists_every_claim(tree, capsys):
    md = markdown(tree)
    rows = [r for r in md.splitlines() if r.startswith("| fig6 |")]
    assert len(rows) == 10
    claims = json.loads((tree / "fig6" / "claims.json").read_text())["claims"]
    assert [r.rsplit("|", 2)[1].strip() for r in rows] == [c["verdict"] for c in claims]  # each row its own verdict
    assert all(c["text"] in r for r, c in zip(rows, claims))
    assert main(["report", str(tree), "--markdown"]) == 0
    assert capsys.readouterr().out.strip() == md


def test_report_refuses_a_directory_without_experiments(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert "groklab reproduce" in capsys.readouterr().err


@pytest.mark.skipif(CHROMIUM is None, reason="needs the chromium package (.ci/run installs it)")
def test_report_renders_in_headless_chromium(tree, tmp_path):
    page = write_report(tree, tmp_path / "report.html").read_text()
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", PROBE + "</body>"))
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
           f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000", "--dump-dom",
           probe.as_uri()]
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout
    m = re.search(r'data-probe="(\d+)/(\d+)/(\d+)"', dom)
    assert m, dom[:500]
    loaded, images, claim_rows = map(int, m.groups())
    assert images == 1 and loaded == images  # every figure decoded
    assert claim_rows == 10  # one row per claim, paper claims and measurements in tables of their own
    assert 'id="verdicts"' in dom


def test_a_sweep_gets_a_report_with_its_grid_statistics_and_curves(tmp_path):
    """`groklab report` of a sweep (which has no claims) shows the sweep file, the per-point table and the curves,
    where it used to refuse it ("holds no experiment")."""
    from conftest import tiny_sweep
    from groklab.cli import main

    tiny_sweep(tmp_path)
    assert main(["report", str(tmp_path / "s")]) == 0
    page = (tmp_path / "s" / "report.html").read_text()
    assert "groklab sweep:" in page and "optim.lr=0.003" in page and "2 grid point(s), 4 runs" in page
    assert "grid: {optim.lr: [0.01, 0.003]}" in page and page.count("data:image/png;base64,") == 1


HOSTILE = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "x | FORGED | n=99 | holds |\n| fig6 ",
           "'><b onmouseover=alert(1)>"]


def test_no_field_of_a_forged_claims_file_reaches_the_page_as_markup(tree, tmp_path, capsys):
    """Every text of claims.json and experiment.json -- reason, depends_on, sensitivity, quote, note, per-seed
    keys, controls, assumptions -- is escaped on the page (Jinja2 autoescape), and a Markdown cell can neither
    break its row nor open a tag; a statistic nested 900 levels deep is shown bounded."""
    forged = tmp_path / "forged"
    shutil.copytree(tree, forged)
    f = forged / "fig6" / "claims.json"
    doc = json.loads(f.read_text())
    for i, c in enumerate(doc["claims"]):
        bad = HOSTILE[i % len(HOSTILE)]
        c.update(holds=None, reason=bad, depends_on=[bad], note=bad, quote=bad, where=bad, text=bad,
                 sensitivity={"encoding": {"judged_with": bad}}, per_seed={bad: [bad]})
    deep = []
    for _ in range(900):
        deep = [deep]
    doc["claims"][0]["per_seed"] = {"deep": deep}
    doc["controls"] = [{"what": HOSTILE[0], "runs": HOSTILE[1], "reach": 0.99, "best": {HOSTILE[2]: 0.5},
                        "ok": False}]
    doc["assumptions"] = [{"field": HOSTILE[0], "ours": HOSTILE[1], "why": HOSTILE[3], "other": HOSTILE[1],
                           "arm": HOSTILE[2], "extra": [HOSTILE[0]]}]
    f.write_text(json.dumps(doc))
    man = json.loads((forged / "fig6" / "experiment.json").read_text())
    man["title"], man["paper"] = HOSTILE[0], HOSTILE[3]
    (forged / "fig6" / "experiment.json").write_text(json.dumps(man))
    page = write_report(forged).read_text()
    for bad in HOSTILE[:2] + ["<b onmouseover"]:
        assert bad not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "inconclusive (&lt;img" in page
    md = markdown(forged)
    rows = md.splitlines()
    assert len(rows) == 2 + len(doc["claims"]) and all(r.startswith("| fig6 | ") for r in rows[2:])
    assert "<img" not in md and "<script" not in md
    assert all(len(re.findall(r"(?<!\\)\|", r)) == 5 for r in rows[2:])  # 4 cells, no pipe of the data's


@pytest.mark.parametrize("field, value", [("assumptions", [{"field": "x", "ours": "a", "why": "b", "extra": 5}]),
                                          ("controls", [{"what": "x", "runs": "y", "reach": "high", "ok": True}]),
                                          ("claims", [{"id": "x"}])])
def test_a_claims_file_of_the_wrong_shape_is_one_line_naming_it(tree, tmp_path, capsys, field, value):
    forged = tmp_path / "forged"
    shutil.copytree(tree, forged)
    f = forged / "fig6" / "claims.json"
    f.write_text(json.dumps({**json.loads(f.read_text()), field: value}))
    assert main(["report", str(forged)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "claims.json" in err[0] and field in err[0]


@pytest.mark.parametrize("tex, text", [(r"we set $c = 10$, guided", "we set c = 10, guided"),
                                       (r"\mathbf{E} is updated", "E is updated"),
                                       (r"$\approx 1.4 \times 10^5$", "≈ 1.4 × 10^5"),
                                       (r"$\frac{\eta_E}{\eta_W} \propto \frac{f_W}{f_E}$", "η_E/η_W ∝ f_W/f_E"),
                                       (None, None)])
def test_quotes_show_their_latex_as_text(tex, text):
    from groklab.report import plain_math

    assert plain_math(tex) == text


def test_an_assumption_shows_what_its_runs_used_where_it_differs():
    from groklab.report import ours

    assert ours({"ours": "0.001", "in_runs": "0.01"}) == "0.001 (these runs: 0.01)"  # a quick profile's lr
    assert ours({"ours": "0.01", "in_runs": "0.01"}) == "0.01" and ours({"ours": "coupled"}) == "coupled"
