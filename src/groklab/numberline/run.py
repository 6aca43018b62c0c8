"""One number-line analysis: validate, load (HF model or groklab run), extract, analyse, write CSV/JSON/figures."""
from __future__ import annotations

import csv
import io
import time
from pathlib import Path

import numpy as np

from groklab.errors import ConfigError
from groklab.numberline.fourier import fourier_geometry, is_consecutive
from groklab.numberline.numbers import numeral, parse_numbers
from groklab.numberline.probe import direction, fit_x, layer_rows, orient
from groklab.numberline.spec import NumberlineSpec, check_folds, parse_layers
from groklab.store import atomic_write, check_out, clean, make_out, write_json


def run_embedding(run_dir: str | Path) -> tuple[np.ndarray, int, str]:
    """Operand embeddings E[0..p-1] [p, d_emb] of a groklab run's checkpoint, p and the model's name: any model
    with a token embedding (blocks()["E"][0]), rebuilt from the run's config and loaded from its checkpoint."""
    from groklab.config import make_config
    from groklab.data.task import make_task
    from groklab.models import build_model
    from groklab.store import RunStore, is_run

    if not is_run(run_dir):
        raise ConfigError("run", str(run_dir), "not a groklab run directory (no config.yaml)")
    store = RunStore(run_dir)
    cfg = make_config(base=store.config())
    if cfg.task.name == "shapes" or cfg.model.name == "mlp" or cfg.model.input == "value":
        raise ConfigError("run", str(run_dir), f"model={cfg.model.name} (task={cfg.task.name}) has no token "
                          "embedding; needs model=mlp_emb, transformer, lstm or birnn on tokens")
    if not store.has_checkpoint():
        raise ConfigError("run", str(run_dir), "has no checkpoint yet")
    model = build_model(cfg, make_task(cfg))
    try:
        model.load_state_dict(store.load_checkpoint()["model"])
    except (RuntimeError, KeyError) as err:
        raise ConfigError("run", str(run_dir), f"checkpoint does not match its config.yaml ({str(err)[:80]})")
    E = model.blocks()["E"]
    if not E or E[0].shape[0] < cfg.p:
        raise ConfigError("run", str(run_dir), f"model={cfg.model.name} has no token embedding of p={cfg.p} rows")
    return E[0][: cfg.p].detach().double().cpu().numpy(), cfg.p, cfg.model.name


def analyze(H: dict, n: np.ndarray, spec: NumberlineSpec) -> tuple[list[dict], dict, dict]:
    """Statistics rows, oriented projections Z[layer][method] and Fourier geometry per layer."""
    rows, Z, geo = [], {}, {}
    consecutive = is_consecutive(n)
    for layer, X in H.items():
        r, Z[layer] = layer_rows(X, n, layer, spec.methods, spec.dims, spec.folds, spec.pls_target,
                                 spec.bootstrap, spec.seed)
        if consecutive:
            g = fourier_geometry(X)
            geo[layer] = g
            for row in r:
                row.update(circularity=g["circularity"], fourier_top2=g["fourier_top"])
        rows += r
    return rows, Z, geo


def _scatter_layers(spec: NumberlineSpec, layers: list, n_layers: int | None) -> list:
    if n_layers is None:
        return layers
    if spec.scatter:
        return parse_layers(spec.scatter, n_layers)
    return list(dict.fromkeys([layers[0], layers[len(layers) // 2], layers[-1]]))


def write_csv(path: Path, rows: list[dict]) -> None:
    keys = list(dict.fromkeys(k for r in rows for k in r))
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=keys)
    w.writeheader()
    w.writerows(rows)
    atomic_write(path, buf.getvalue())


def _csv_text(rows: list[list]) -> str:
    buf = io.StringIO(newline="")
    csv.writer(buf).writerows(rows)
    return buf.getvalue()


def run_numberline(spec: NumberlineSpec, out: str | Path) -> dict:
    """Everything is validated and loaded before the first file is written to `out`."""
    from groklab.engine.setup import resolve_device

    out = check_out(out)
    t0 = time.perf_counter()
    meta: dict = {"spec": spec.model_dump()}
    lm = enc = None
    if spec.run is not None:
        for key, value, unset in (("layers", spec.layers, "all"), ("numbers", spec.numbers, None),
                                  ("template", spec.template, "{n}"), ("intervene", spec.intervene, None),
                                  ("scatter", spec.scatter, None)):
            if value != unset:  # a run's only "layer" is its embedding of the numbers 0..p-1
                raise ConfigError(key, value, "only with --model; --run reads the embedding rows of 0..p-1")
        E, p, model = run_embedding(spec.run)
        n = np.arange(p, dtype=np.float64)
        check_folds(spec, len(n))
        H, layers, n_layers = {"E": E}, ["E"], None
        meta["source"] = {"run": str(spec.run), "p": p, "d_emb": E.shape[1], "model": model}
    else:
        from groklab.numberline import hf

        hf.check_model_dir(spec.model)
        n = parse_numbers(spec.numbers or "1:1000")
        check_folds(spec, len(n))  # before the model is loaded
        hf.split_template(spec.template)
        lm = hf.load(spec.model, resolve_device(spec.device), spec.dtype)
        n_layers = lm.n_layers
        layers = parse_layers(spec.layers, n_layers)
        if spec.intervene is not None:
            if not lm.causal:
                raise ConfigError("intervene", spec.intervene, "needs a causal LM (*ForCausalLM / *LMHeadModel)")
            if not 0 <= spec.intervene < n_layers:
                raise ConfigError("intervene", spec.intervene, f"must be a block input, 0..{n_layers - 1}")
        if spec.scatter:
            parse_layers(spec.scatter, n_layers)
        enc = hf.encode(lm.tokenizer, [numeral(x) for x in n], spec.template)
        extra = [spec.intervene] if spec.intervene is not None and spec.intervene not in layers else []
        H = hf.hidden_states(lm, enc, layers + extra, spec.batch_size)
        H_int = H.pop(extra[0]) if extra else None
        meta["source"] = {"model": str(spec.model), "class": type(lm.model).__name__, "n_layers": n_layers,
                          "d_model": int(next(iter(H.values())).shape[1]), "causal": lm.causal}
        meta["tokenization"] = {"mean_subtokens": float(enc.n_sub.mean()), "max_subtokens": int(enc.n_sub.max()),
                                "frac_clean_boundary": float(enc.clean.mean())}
    rows, Z, geo = analyze(H, n, spec)
    out = make_out(out)  # each file below is written whole or not at all (a re-run replaces them)
    write_csv(out / "results.csv", [clean(r) for r in rows])
    proj = [["layer", "method", "n"] + [f"z{j + 1}" for j in range(spec.dims)]]
    for layer, by_method in Z.items():
        for method, z in by_method.items():
            proj += [[layer, method, numeral(x), *(f"{v:.6g}" for v in z[i])] for i, x in enumerate(n)]
    atomic_write(out / "projections.csv", _csv_text(proj))
    meta["numbers"] = {"count": len(n), "min": float(n.min()), "max": float(n.max())}
    meta["layers"] = rows
    if geo:
        meta["fourier"] = {str(k): {"top_freqs": g["top_freqs"], "fourier_top2": g["fourier_top"],
                                    "circularity": g["circularity"]} for k, g in geo.items()}
    from groklab.plots.numberline import plot_layers, plot_scatter

    title = Path(spec.model or spec.run).name
    plot_layers(rows, out / "layers.png", title=title)
    shown = {layer: {m: z if z.shape[1] > 1 else orient(z[:, 0], n)[:, None] for m, z in Z[layer].items()}
             for layer in _scatter_layers(spec, layers, n_layers)}
    plot_scatter(shown, n, fit_x(n), list(shown), out / "scatter.png", title=title)
    if spec.intervene is not None:
        from groklab.numberline.intervene import steer, summarize

        X = H[spec.intervene] if H_int is None else H_int
        u = direction(X, n, "pls" if "pls" in spec.methods else "pca", spec.pls_target)
        a = spec.alpha
        irows = steer(lm, enc, spec.intervene, u, [-a, 0.0, a], spec.batch_size)
        for r in irows:
            r["n"] = numeral(n[r["row"]])
        write_csv(out / "intervention.csv", irows)
        meta["intervention"] = {"layer": spec.intervene, **summarize(irows, n, a),
                                "sd_along_u": float(((X - X.mean(0)) @ u).std())}
    meta["wall_s"] = round(time.perf_counter() - t0, 3)
    write_json(out / "results.json", meta)
    return meta
