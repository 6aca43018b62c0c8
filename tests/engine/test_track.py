"""Tracking sinks: read back what TensorBoard and W&B (offline) received; off means no files at all."""
import json
import time

import pytest

from conftest import tiny
from groklab import make_config, train
from groklab.engine.population import train_population


def test_no_sink_files_when_off(tmp_path):
    train(make_config(tiny()), out=tmp_path / "r")
    assert not (tmp_path / "r" / "tb").exists() and not (tmp_path / "r" / "wandb").exists()


def test_tensorboard_events_equal_the_metrics(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    for name, run in (("solo", lambda c, o: train(c, out=o)),
                      ("stacked", lambda c, o: train_population([c, c.model_copy(update={"seed": 1})],
                                                                [o, tmp_path / "other"], packing="stacked"))):
        out = tmp_path / name
        run(make_config(tiny(**{"track.tensorboard": "true"})), out)
        ev = EventAccumulator(str(out / "tb"))
        ev.Reload()
        rows = [json.loads(x) for x in open(out / "metrics.jsonl")]
        got = ev.Scalars("test/acc")
        assert [e.step for e in got] == [r["step"] for r in rows]
        assert [e.value for e in got] == pytest.approx([r["test/acc"] for r in rows])


def _wandb_history(path) -> list[dict]:
    """History rows of an offline .wandb file: a LevelDB-style log (7-byte header, 32 KiB blocks of
    records [crc32:4, length:2, type:1, data]) of protobuf Records; read here independently of wandb's API."""
    from wandb.proto import wandb_internal_pb2 as pb

    data, pos, rows, buf = path.read_bytes(), 7, [], b""
    assert data[:4] == b":W&B"
    while pos + 7 <= len(data):
        if 32768 - pos % 32768 < 7:  # block trailer padding
            pos += 32768 - pos % 32768
            continue
        n, kind = int.from_bytes(data[pos + 4:pos + 6], "little"), data[pos + 6]
        buf += data[pos + 7:pos + 7 + n]
        pos += 7 + n
        if kind in (1, 4):  # full or last fragment
            rec = pb.Record()
            rec.ParseFromString(buf)
            buf = b""
            if rec.WhichOneof("record_type") == "history":
                rows.append({i.key or "/".join(i.nested_key): json.loads(i.value_json) for i in rec.history.item})
    return rows


def test_wandb_offline_run_files(tmp_path, monkeypatch):
    pytest.importorskip("wandb")
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    out = tmp_path / "r"
    res = train(make_config(tiny(**{"track.wandb": "true"})), out=out)
    runs = list((out / "wandb").glob("offline-run-*"))
    assert len(runs) == 1
    log, deadline = next(runs[0].glob("*.wandb")), time.time() + 30
    rows = _wandb_history(log)  # the offline log, `wandb sync` uploads it later
    while len(rows) < len(res.history) and time.time() < deadline:  # wandb-core flushes it asynchronously
        time.sleep(0.2)
        rows = _wandb_history(log)
    assert [r["_step"] for r in rows] == [r["step"] for r in res.history]
    assert [r["test/acc"] for r in rows] == pytest.approx([r["test/acc"] for r in res.history])
    assert [r["train/loss"] for r in rows] == pytest.approx([r["train/loss"] for r in res.history])


def test_wandb_that_cannot_start_is_one_line_and_leaves_no_stub(tmp_path, monkeypatch):
    """No key and no offline mode: a one-line error naming track.wandb, and the run folder gone again so the
    same command runs once the user has logged in (before: W&B's traceback and a folder that blocked it)."""
    wandb = pytest.importorskip("wandb")
    from groklab.errors import ConfigError

    def refuse(**kw):
        raise RuntimeError("No API key configured. Use `wandb login` to log in.\nmore lines of traceback")

    monkeypatch.setattr(wandb, "init", refuse)
    cfg = make_config(tiny(**{"track.wandb": "true"}))
    for out in (tmp_path / "new" / "r", tmp_path / "empty"):  # a folder it makes, and one that was there empty
        if out.name == "empty":
            out.mkdir()
        with pytest.raises(ConfigError) as err:
            train(cfg, out=out)
        assert str(err.value).startswith("track.wandb=True: W&B did not start (No API key configured.")
        assert "\n" not in str(err.value) and "WANDB_MODE=offline" in str(err.value)
        assert not (tmp_path / "new").exists() if out.name == "r" else list(out.iterdir()) == []
    assert train(make_config(tiny()), out=tmp_path / "empty").history  # the rerun is not blocked
