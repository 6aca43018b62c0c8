"""The number-line probe on groklab's own token embeddings (operands 0..p-1 of a run's checkpoint)."""
import json

import numpy as np
import pytest
import torch

from conftest import tiny
from groklab.cli import main

pytest.importorskip("sklearn")


def test_run_embeddings_end_to_end(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["train", "--out", str(run), *tiny()]) == 0
    out = tmp_path / "nl"
    assert main(["numberline", "--run", str(run), "--out", str(out), "--dims", "2"]) == 0
    meta = json.loads((out / "results.json").read_text())
    assert meta["source"]["p"] == 11 and meta["source"]["d_emb"] == 8
    assert [r["layer"] for r in meta["layers"]] == ["E"] * 4  # pca, pls x 2 components
    assert 0 <= meta["fourier"]["E"]["circularity"] <= 1 and len(meta["fourier"]["E"]["top_freqs"]) == 2
    # an independent reference: rho of PCA-1 of the checkpoint's E[0..p-1] rows against 0..p-1
    from scipy.stats import spearmanr
    from sklearn.decomposition import PCA

    E = torch.load(run / "ckpt.pt", weights_only=True)["model"]["E.weight"][:11].double().numpy()
    z = PCA(1).fit_transform(E)[:, 0]
    rho = abs(spearmanr(z, np.arange(11)).statistic)
    row = next(r for r in meta["layers"] if r["method"] == "pca" and r["component"] == 1)
    assert row["rho"] == pytest.approx(rho, abs=1e-9)
    for f in ("results.csv", "projections.csv", "layers.png", "scatter.png"):
        assert (out / f).is_file()
    first = (out / "results.csv").read_text()
    assert main(["numberline", "--run", str(run), "--out", str(out), "--dims", "2"]) == 0  # its own folder: again
    assert (out / "results.csv").read_text() == first


def test_a_failed_write_leaves_the_previous_outputs_whole(tmp_path, monkeypatch):
    run, out = tmp_path / "run", tmp_path / "nl"
    assert main(["train", "--out", str(run), *tiny()]) == 0
    assert main(["numberline", "--run", str(run), "--out", str(out)]) == 0
    before = {f.name: f.read_bytes() for f in out.iterdir()}
    real = __import__("os").replace

    def full(src, dst):
        if str(dst).endswith("projections.csv"):
            raise OSError(28, "No space left on device", str(dst))
        return real(src, dst)

    monkeypatch.setattr("groklab.store.files.os.replace", full)
    assert main(["numberline", "--run", str(run), "--out", str(out), "--method", "pca"]) == 2
    assert {f.name: f.read_bytes() for f in out.iterdir()}.keys() == before.keys()  # no temp file left
    assert (out / "projections.csv").read_bytes() == before["projections.csv"]


def test_numberline_refuses_a_folder_of_the_users_files(tmp_path, capsys):
    run, out = tmp_path / "run", tmp_path / "mine"
    assert main(["train", "--out", str(run), *tiny(steps=1)]) == 0
    out.mkdir()
    (out / "paper.tex").write_text("mine")
    assert main(["numberline", "--run", str(run), "--out", str(out)]) == 2
    assert "groklab did not write" in capsys.readouterr().err
    assert [f.name for f in out.iterdir()] == ["paper.tex"]


@pytest.mark.parametrize("extra, field", [(["--numbers", "1:10"], "numbers="), (["--intervene", "0"], "intervene="),
                                          (["--template", "x {n}"], "template=")])
def test_run_mode_refuses_model_only_options(tmp_path, capsys, extra, field):
    run = tmp_path / "run"
    assert main(["train", "--out", str(run), *tiny(steps=1)]) == 0
    capsys.readouterr()
    rc = main(["numberline", "--run", str(run), "--out", str(tmp_path / "nl"), *extra])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and field in err and "\n" not in err and not (tmp_path / "nl").exists()


def test_bad_run_directories(tmp_path, capsys):
    rc = main(["numberline", "--run", str(tmp_path / "nope"), "--out", str(tmp_path / "nl")])
    assert rc == 2 and "not a groklab run" in capsys.readouterr().err
    run = tmp_path / "raw"
    assert main(["train", "--out", str(run), *tiny(model="mlp", steps=1)]) == 0
    capsys.readouterr()
    rc = main(["numberline", "--run", str(run), "--out", str(tmp_path / "nl")])
    assert rc == 2 and "no token embedding" in capsys.readouterr().err and not (tmp_path / "nl").exists()
    out = tmp_path / "full"
    out.mkdir()
    (out / "x").write_text("keep")
    rc = main(["numberline", "--run", str(tmp_path / "raw"), "--out", str(out)])
    assert rc == 2 and (out / "x").read_text() == "keep"


@pytest.mark.parametrize("model", [["model=transformer", "model.depth=1", "model.n_heads=2"],
                                   ["model=lstm", "encoding=no_op"]])
def test_run_mode_reads_the_embedding_of_every_token_model(tmp_path, capsys, model):
    run = tmp_path / "run"
    assert main(["train", "--out", str(run), *tiny(steps=5), *model]) == 0
    out = tmp_path / "nl"
    assert main(["numberline", "--run", str(run), "--out", str(out)]) == 0
    meta = json.loads((out / "results.json").read_text())
    assert meta["source"]["p"] == 11 and meta["source"]["model"] == model[0].split("=")[1]
    from scipy.stats import spearmanr
    from sklearn.decomposition import PCA

    E = torch.load(run / "ckpt.pt", weights_only=True)["model"]["E.weight"]
    z = PCA(1).fit_transform(E[:11].double().numpy())[:, 0]
    row = next(r for r in meta["layers"] if r["method"] == "pca" and r["component"] == 1)
    assert row["rho"] == pytest.approx(abs(spearmanr(z, np.arange(11)).statistic), abs=1e-9)
