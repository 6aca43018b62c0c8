"""Config rules across sections (a transformer's heads divide d_emb, shapes train a ResNet, ...).

Each rule raises a one-line ConfigError naming the field, the value and what is allowed.
"""
from __future__ import annotations

import math

from groklab.errors import ConfigError

MAX_GRIDS = 200_000  # images rendered whole, in memory: entries ** (cells ** 2) must stay below this
MAX_PIXELS = 2 ** 31  # N * side ** 2 bytes of uint8 images


def image_rules(cells, entries, side, weight: str, mod) -> None:
    """The image task's sizes against each other (grids, pixels, the label modulus): the one place these rules
    live, used by the config and by data.make_image_task."""
    if not isinstance(cells, int) or isinstance(cells, bool) or not 1 <= cells <= 4:
        raise ConfigError("task.cells", cells, "must be an integer in [1, 4] (cells per side of the grid)")
    if not isinstance(entries, int) or isinstance(entries, bool) or not 2 <= entries <= 16:
        raise ConfigError("task.entries", entries, "must be an integer in [2, 16] (pictures in the dictionary)")
    n = entries ** (cells * cells)
    if n > MAX_GRIDS:
        raise ConfigError("task.entries", entries, f"entries ** (cells ** 2) = {entries}^{cells * cells} grids exceeds "
                          f"{MAX_GRIDS}; use fewer entries or cells")
    if not isinstance(side, int) or isinstance(side, bool) or side < 4 * cells or side % cells:
        raise ConfigError("task.image", side, f"must be a multiple of task.cells={cells}, at least {4 * cells} pixels")
    if n * side * side > MAX_PIXELS:
        raise ConfigError("task.image", side, f"{n} images of {side}x{side} need {n * side * side / 2**30:.1f} GiB; "
                          f"at most {MAX_PIXELS / 2**30:.0f} GiB")
    if weight == "mod" and (not isinstance(mod, int) or isinstance(mod, bool) or mod < 2):
        raise ConfigError("task.mod", mod, "must be an integer >= 2 with task.weight=mod")


def _image_rules(cfg) -> None:
    """task=shapes / model=resnet18: the task's sizes; no token embedding, nothing that reads one."""
    o, ms, t = cfg.optim, cfg.measures, cfg.task
    image_rules(t.cells, t.entries, t.image, t.weight, t.mod)
    if cfg.split.name != "random":
        raise ConfigError("split.name", cfg.split.name, "task=shapes takes split=random")
    if cfg.sampler not in ("epoch", "replacement", "full"):
        raise ConfigError("sampler", cfg.sampler, "task=shapes takes epoch, replacement or full")
    if o.c != 1.0 or o.c_mode != "fixed":
        raise ConfigError("optim.c", o.c, "model=resnet18 has no token embedding to scale; use optim.c=1")
    for name in ("spectra", "token_grads"):
        if getattr(ms, name).every:
            raise ConfigError(f"measures.{name}.every", getattr(ms, name).every,
                              "reads a token embedding; model=resnet18 has none (use 0)")
    for name in ("hessian", "landscape"):
        if getattr(ms, name).every and "E" in getattr(ms, name).blocks:
            raise ConfigError(f"measures.{name}.blocks", getattr(ms, name).blocks,
                              "model=resnet18 has no embedding block E; use W, last, rest or all")


MAX_ROWS = 2_000_000  # rows of an operation table
MAX_POLY_WORK = 10**9  # elementwise operations to evaluate a polynomial table: ~5 s on one CPU core
BINARY = ("add", "sub", "mul", "div", "poly", "dihedral", "perm")
MANY = ("sum", "parity")  # tasks of K operands


def is_prime(n: int) -> bool:
    """Trial division; tables stay below ~1500 values per operand, so this is instant."""
    if n < 2:
        return False
    return all(n % d for d in range(2, int(n ** 0.5) + 1))


def task_rules(name, p, expr, K, max_rows: int = MAX_ROWS, poly_cost: int | None = None, known: tuple = (),
               support: int = 3) -> None:
    """A task's arguments against each other: the one place these rules live, used by the config and by
    data.make_table (which passes `poly_cost`, the elementwise operations per row of the parsed expression, and
    `known`, the task names: the config's schema checks the name itself)."""
    if known and name not in known:
        raise ConfigError("task.name", name, f"must be one of {', '.join(known)}")
    if not isinstance(p, int) or isinstance(p, bool) or p < 2:
        raise ConfigError("p", p, "must be an integer ≥ 2")
    if name in BINARY and p * p > max_rows:
        raise ConfigError("p", p, f"p**2 = {p * p} rows exceeds the limit of {max_rows}; use a smaller p")
    if name == "div" and not is_prime(p):
        raise ConfigError("p", p, "must be prime for task=div (inverses mod p)")
    if name == "dihedral" and (p % 2 or p < 6):
        raise ConfigError("p", p, "task=dihedral takes the group's order 2n, even and ≥ 6 (D_3 is the smallest "
                                  "non-abelian one)")
    if name == "perm" and (p < 6 or factorial_root(p) is None):
        raise ConfigError("p", p, "task=perm takes the group's order m!: 6, 24, 120 (S_5) or 720")
    if name == "parity" and p != 2:
        raise ConfigError("p", p, "task=parity takes p=2 (bits)")
    if name == "poly" and not expr:
        raise ConfigError("task.expr", expr, "task=poly needs an expression in a and b, e.g. task.expr='a^2+b'")
    if name != "poly" and expr is not None:
        raise ConfigError("task.expr", expr, f"only used with task=poly (task is '{name}')")
    if name == "poly" and poly_cost is not None and poly_cost * p * p > MAX_POLY_WORK:
        raise ConfigError("task.expr", expr, f"evaluating it over the p**2 = {p * p} rows takes "
                                             f"{poly_cost * p * p:.1e} elementwise operations, above the limit "
                                             f"{MAX_POLY_WORK:.0e} (a few seconds); use lower powers or a smaller p")
    if name not in MANY and K != 2:
        raise ConfigError("task.K", K, f"only used with task=sum or parity (task is '{name}', which has 2 operands)")
    if name != "parity" and support != 3:
        raise ConfigError("task.support", support, f"only used with task=parity (task is '{name}')")
    if name in MANY:
        if not isinstance(K, int) or isinstance(K, bool) or K < 2:
            raise ConfigError("task.K", K, f"must be an integer ≥ 2 for task={name}")
        if K * math.log10(p) > math.log10(max_rows):  # arithmetic on logs: p**K itself may have 10^9 digits
            raise ConfigError("task.K", K, f"p**K = {p}**{K} ~ 10^{K * math.log10(p):.1f} rows exceeds the limit of "
                                           f"{max_rows}; use a smaller K or p")
    if name == "parity" and (not isinstance(support, int) or isinstance(support, bool) or not 1 <= support <= K):
        raise ConfigError("task.support", support, f"must be an integer in [1, task.K={K}] (the bits the label reads)")


def factorial_root(n: int) -> int | None:
    """m with m! == n (m >= 1), else None: the symmetric group S_m has order n."""
    m, f = 1, 1
    while f < n:
        m += 1
        f *= m
    return m if f == n else None


def split_rules(name, p: int, n_operands: int, frac_train, test_reserve, skew, k) -> None:
    """A split's arguments against each other and the table (p, operands): the one place these rules live,
    used by the config and by data.make_split (the name itself is the schema's Literal)."""
    if not isinstance(frac_train, (int, float)) or isinstance(frac_train, bool) or not 0 < frac_train < 1:
        raise ConfigError("split.frac_train", frac_train, "must be a number in the open interval (0, 1)")
    if test_reserve is not None:
        if name in ("square", "strip"):
            raise ConfigError("split.test_reserve", test_reserve, f"not used with split={name}; leave it unset")
        if not isinstance(test_reserve, (int, float)) or isinstance(test_reserve, bool) or not 0 < test_reserve < 1:
            raise ConfigError("split.test_reserve", test_reserve, "must be a number in the open interval (0, 1)")
        if frac_train + test_reserve > 1 + 1e-12:
            raise ConfigError("split.frac_train", frac_train,
                              f"frac_train + test_reserve = {frac_train + test_reserve:g} must be ≤ 1")
    if not isinstance(skew, (int, float)) or isinstance(skew, bool) or not skew >= 0:
        raise ConfigError("split.skew", skew, "must be a number ≥ 0 (0 = uniform at random)")
    if name in ("uniform", "square") and n_operands != 2:
        raise ConfigError("split.name", name, "needs a 2-operand task")
    if name in ("square", "strip"):
        if k is None:
            raise ConfigError("split.k", k, f"split '{name}' needs k, the holdout size (a ≤ k)")
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= p - 2:
            raise ConfigError("split.k", k, f"must be an integer in [0, p-2] = [0, {p - 2}] for p={p}")


def cross_field_rules(cfg) -> None:
    """Rules across sections that a single field's type cannot express; each raises a one-line ConfigError."""
    t, s, m, o = cfg.task, cfg.split, cfg.model, cfg.optim
    images, resnet = t.name == "shapes", m.name == "resnet18"
    if images != resnet:  # one-line error naming the field that does not fit the other
        raise ConfigError("model.name" if images else "task.name", m.name if images else t.name,
                          "task=shapes trains model=resnet18, and model=resnet18 trains task=shapes")
    if images:
        _image_rules(cfg)
    tf = m.name == "transformer"
    only = [("model.width", m.width, not resnet and m.width != 64, "model=resnet18"),  # key, value, set, for
            ("model.tied", m.tied, m.tied and m.name not in ("mlp", "mlp_emb"), "model=mlp or mlp_emb"),
            ("model.input", m.input, m.input != "embed" and m.name not in ("lstm", "birnn"), "model=lstm or birnn"),
            ("model.bias", m.bias, not tf and not m.bias, "model=transformer"),
            ("model.init", m.init, not tf and m.init == "scaled", "model=transformer"),
            ("model.init", m.init, m.init == "kaiming" and m.name not in ("mlp", "mlp_emb"), "model=mlp or mlp_emb")]
    for key, value, on, allowed in only:
        if on:
            raise ConfigError(key, value, f"only for {allowed}")
    for name in ("hessian", "landscape"):
        if not resnet and "last" in getattr(cfg.measures, name).blocks:
            raise ConfigError(f"measures.{name}.blocks", "last", "block 'last' is model=resnet18's; "
                              "use E, W, rest or all")
    if not images:
        task_rules(t.name, cfg.p, t.expr, t.K, support=t.support)
    if not images:  # the image task has its own split of pictures
        split_rules(s.name, cfg.p, t.K if t.name in MANY else 2, s.frac_train, s.test_reserve, s.skew, s.k)
    if cfg.amp != "off" and cfg.dtype != "float32":
        raise ConfigError("amp", cfg.amp, f"autocasts float32 work; dtype={cfg.dtype} has none (use dtype=float32)")
    if m.name == "transformer" and m.d_emb % m.n_heads:
        raise ConfigError("model.n_heads", m.n_heads, f"must divide model.d_emb={m.d_emb}")
    if m.input == "value" and cfg.encoding != "no_op":
        raise ConfigError("encoding", cfg.encoding, "model.input=value reads token ids as numbers; use no_op")
    if m.name == "mlp" or m.input == "value":  # raw values: no embedding to scale, sample by or initialise
        for key, value, on in (("optim.c", o.c, o.c != 1.0), ("optim.c_mode", o.c_mode, o.c_mode == "adaptive"),
                               ("sampler", cfg.sampler, cfg.sampler == "entropy"),
                               ("model.emb_init", m.emb_init, m.emb_init != "normal")):
            if on:
                raise ConfigError(key, value, "needs a model with an embedding (this one reads raw values)")
    if o.c_mode == "adaptive" and m.freeze_emb:
        raise ConfigError("optim.c_mode", "adaptive", "a frozen embedding has no learning rate to adapt")
    if s.frac_of == "remainder" and s.name not in ("square", "strip"):
        raise ConfigError("split.frac_of", "remainder", "only with split=square or strip (what their holdout "
                          "leaves); other splits take frac_train of the table")
    if cfg.encoding_offset is not None and cfg.encoding != "offset":
        raise ConfigError("encoding_offset", cfg.encoding_offset, "only with encoding=offset")
    if cfg.sampler == "entropy" and cfg.encoding in ("sep", "offset"):
        raise ConfigError("sampler", "entropy", "reads one shared operand table; use encoding=op or no_op")
    if cfg.sampler == "entropy" and m.freeze_emb:
        raise ConfigError("sampler", "entropy", "needs embedding gradients; the embedding is frozen")
    if cfg.sampler == "balanced" and t.name in MANY and t.K != 2:
        raise ConfigError("sampler", "balanced", f"needs 2 operands (task.K={t.K})")
