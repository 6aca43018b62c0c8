"""A population: M runs of one architecture trained by one call, one after another or stacked.

`sequential` runs each member through the solo loop (identical to solo runs by construction).
`stacked` trains the members together (StackedMLP: batched matmuls over [M, ...] parameters) with
per-member seed, split, sampler stream, lr, weight decay and Adam-LR c; each member still writes a
normal run directory whose checkpoint is its own solo state, so `--resume` and load_runs work.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import torch

from groklab.config import Config, flatten, validate
from groklab.data.encoding import encode
from groklab.data.sampling import EpochSampler, FullSampler, ReplacementSampler, _rng
from groklab.engine.loop import RunResult, _summary, _tracker, eval_schedule, train
from groklab.engine.setup import build, resolve_device
from groklab.engine.stacked import StackedMLP
from groklab.errors import ConfigError
from groklab.store import CKPT, RunStore, is_run, read_summary
from groklab.track import open_sinks

PACKINGS = ("auto", "sequential", "stacked")
FINISHED = ("completed", "early_stop", "diverged")
# Keys members may differ in; everything else the stacked packing knows must be equal across members.
PER_MEMBER = ("seed", "split.", "optim.lr", "optim.weight_decay", "optim.c", "optim.name", "steps", "eval.",
              "grok.", "stop.", "checkpoint_every", "progress", "model.emb_init_std", "model.freeze_emb",
              "track.")
SHARED = ("task.", "p", "encoding", "model.", "batch_size", "sampler", "device", "dtype", "flush_denormal",
          "optim.betas", "optim.eps", "optim.momentum")
STACKED_MODELS, STACKED_OPTIMS = ("mlp", "mlp_emb"), ("sgd", "adam", "adamw")


def _matches(key: str, patterns: Sequence[str]) -> bool:
    return any(key == p or (p.endswith(".") and key.startswith(p)) for p in patterns)


def check_stackable(cfgs: Sequence[Config]) -> None:
    """Raise a one-line ConfigError if the stacked packing cannot train these members together."""
    default = flatten(Config().to_dict())
    first = flatten(cfgs[0].to_dict())
    for i, cfg in enumerate(cfgs):
        if cfg.model.name not in STACKED_MODELS:
            raise ConfigError("model.name", cfg.model.name, f"packing=stacked supports {', '.join(STACKED_MODELS)}; "
                              "use packing=sequential")
        if cfg.optim.base not in STACKED_OPTIMS:
            raise ConfigError("optim.name", cfg.optim.name, "packing=stacked supports sgd, adam, adamw (+ _lr); "
                              "use packing=sequential")
        for key, value, ok in (("model.dropout", cfg.model.dropout, cfg.model.dropout == 0),
                               ("model.emb_init", cfg.model.emb_init, cfg.model.emb_init == "normal"),
                               ("sampler", cfg.sampler, cfg.sampler in ("epoch", "replacement", "full"))):
            if not ok:
                raise ConfigError(key, value, "not supported by packing=stacked; use packing=sequential")
        flat = flatten(cfg.to_dict())
        for key, value in flat.items():
            if _matches(key, PER_MEMBER) or (key == "optim.momentum" and cfg.optim.base != "sgd"):
                continue
            if not _matches(key, SHARED):  # an option the stacked engine does not implement
                if value != default.get(key):
                    raise ConfigError(key, value, "not supported by packing=stacked; use packing=sequential")
            elif value != first.get(key):
                raise ConfigError(key, value, f"stacked members must share {key} (member 0 has "
                                  f"{first.get(key)!r}); group runs by it or use packing=sequential")
        if cfg.optim.base != cfgs[0].optim.base:
            raise ConfigError("optim.name", cfg.optim.name, f"stacked members must share the optimizer "
                              f"(member 0 has {cfgs[0].optim.name!r}); use packing=sequential")


def choose_packing(cfgs: Sequence[Config], packing: str = "auto") -> str:
    """auto: stacked on a GPU when the members allow it, else sequential (CPU: stacking gains little)."""
    if packing not in PACKINGS:
        raise ConfigError("packing", packing, f"allowed: {', '.join(PACKINGS)}")
    if packing != "auto":
        return packing
    if len(cfgs) < 2 or resolve_device(cfgs[0].device).type != "cuda":
        return "sequential"
    try:
        check_stackable(cfgs)
    except ConfigError:
        return "sequential"
    return "stacked"


def train_population(configs: Sequence[Config | dict], out_dirs: Optional[Sequence] = None,
                     packing: str = "auto") -> list[RunResult]:
    """Train M members; a member whose out dir holds an unfinished run with a checkpoint resumes it."""
    cfgs = [c if isinstance(c, Config) else validate(dict(c)) for c in configs]
    outs = list(out_dirs) if out_dirs is not None else [None] * len(cfgs)
    if len(outs) != len(cfgs):
        raise ConfigError("out_dirs", len(outs), f"need one per config ({len(cfgs)})")
    if choose_packing(cfgs, packing) == "sequential":
        return [_solo(c, o) for c, o in zip(cfgs, outs)]
    return _train_stacked(cfgs, outs)


def _resumable(out) -> bool:
    return out is not None and is_run(out) and (Path(out) / CKPT).is_file()


def _solo(cfg: Config, out) -> RunResult:
    if _resumable(out):
        return train(resume=out)
    return train(cfg, out=out)


# -- the stacked packing -------------------------------------------------------------------------
def batch_block(sampler, start: int, K: int) -> np.ndarray:
    """Positions of the batches of steps [start, start+K) as one [K, B] array, equal to sampler.batch()."""
    if isinstance(sampler, EpochSampler):
        n, B = sampler.n, sampler.B
        s0, s1 = start * B, (start + K) * B
        e0, e1 = s0 // n, (s1 - 1) // n
        stream = np.concatenate([_rng(sampler.seed, e).permutation(n) for e in range(e0, e1 + 1)])
        return stream[s0 - e0 * n: s1 - e0 * n].reshape(K, B)
    if isinstance(sampler, ReplacementSampler):
        C = sampler.CHUNK
        c0, c1 = start // C, (start + K - 1) // C
        idx = np.concatenate([_rng(sampler.seed, c).integers(0, sampler.n, size=(C, sampler.B))
                              for c in range(c0, c1 + 1)])
        return idx[start - c0 * C: start - c0 * C + K]
    return np.stack([np.asarray(sampler.batch(s).cpu()) for s in range(start, start + K)])


class Batches:
    """Each member's batch rows for a step, [M, B], made on the host one block of steps at a time.

    The positions come from the members' own samplers (so they equal the solo runs'); one host-to-device
    copy per block keeps the per-step work on the device, with no host sync.
    """

    def __init__(self, samplers: list, rows: torch.Tensor, steps: int, block_steps: int = 64):
        self.samplers, self.rows, self.steps, self.K = samplers, rows, steps, block_steps  # rows: [M, n_max]
        self.full = isinstance(samplers[0], FullSampler)
        self.block, self.start = None, 0

    def idx(self, step: int) -> torch.Tensor:
        if self.full:
            return self.rows
        if self.block is None or not self.start <= step < self.start + len(self.block):
            K = max(1, min(self.K, self.steps - step))
            pos = torch.from_numpy(np.stack([batch_block(s, step, K) for s in self.samplers], 1))  # [K, M, B]
            if self.rows.is_cuda:  # pinned: the copy is asynchronous, the device queue does not drain
                pos = pos.pin_memory()
            self.block, self.start = pos.to(self.rows.device, non_blocking=True), step
        return self.rows.gather(1, self.block[step - self.start])


def stacked_step(stack: StackedMLP, X: torch.Tensor, y: torch.Tensor, idx: torch.Tensor) -> None:
    """One optimizer step of every member on its batch of table rows idx [M, B]."""
    stack.train_step(X, y, idx)


class _Member:
    """One member's run bookkeeping: store, tracker, schedule, last row."""

    def __init__(self, cfg: Config, exp, out):
        self.cfg, self.exp, self.schedule = cfg, exp, eval_schedule(cfg)
        self.tracker = _tracker(cfg)
        self.start, self.wall0, self.eval_s, self.last_eval, self.last = 0, 0.0, 0.0, -1, {}
        self.history, self.status, self.ckpt = [], "running", None
        self.store, self.out, self.sink, self.final_step = None, out, None, 0
        if _resumable(out):
            if read_summary(out).get("status") in FINISHED:
                raise ConfigError("out", str(out), "holds a finished run; nothing to train")
            self.store = RunStore.open(out)
            self.ckpt = self.store.load_checkpoint(map_location=exp.device)
            exp.model.load_state_dict(self.ckpt["model"])
            exp.optimizer.load_state_dict(self.ckpt["optimizer"])
            self.tracker.load_state_dict(self.ckpt["tracker"])
            self.start, self.wall0, self.eval_s, self.last_eval, self.last = (
                self.ckpt["step"], self.ckpt["wall_s"], self.ckpt["eval_s"], self.ckpt["last_eval"], self.ckpt["last"])
        elif out is not None and is_run(out):
            raise ConfigError("out", str(out), "already holds a run without a checkpoint; remove it or pick a new out")
        elif out is not None and Path(out).exists() and (not Path(out).is_dir() or any(Path(out).iterdir())):
            raise ConfigError("out", str(out), "exists and is not an empty directory")

    def open(self, start: int) -> None:
        """Create (or reopen) the run directory and sinks: only once every member has validated."""
        if self.ckpt is not None:
            self.store.truncate_after(start)
        elif self.out is not None:
            self.store = RunStore.create(self.out, self.cfg.to_dict())
        if self.store is not None:
            self.sink = open_sinks(self.cfg, self.store.path, start)

    def solo_state(self, stack: StackedMLP, i: int) -> dict:
        """Write member i's stacked state into its solo model and optimizer (torch's own formats)."""
        s, model, opt = stack.member(i), self.exp.model, self.exp.optimizer
        with torch.no_grad():
            for n, t in model.named_parameters():
                t.copy_(s["params"][n])
        names = {id(t): n for n, t in model.named_parameters()}
        for group in opt.param_groups:
            for t in group["params"]:
                st = {k: v[names[id(t)]] for k, v in s["state"].items()}
                if "exp_avg" in st:
                    st["step"] = torch.tensor(float(s["t"]), dtype=torch.float32, device=t.device)
                opt.state[t] = st
        return {"model": model.state_dict(), "optimizer": opt.state_dict()}


def _table_tensors(exp, device) -> tuple[torch.Tensor, torch.Tensor]:
    cfg, table = exp.cfg, exp.table
    raw = cfg.model.name == "mlp"
    X = encode(table.operands, cfg.p, cfg.encoding, raw=raw)
    if raw:
        X = X.to(getattr(torch, cfg.dtype))
    return X.to(device), table.y.to(device)


def _train_stacked(cfgs: list[Config], outs: list) -> list[RunResult]:
    check_stackable(cfgs)
    exps = [build(c) for c in cfgs]  # every member validated and built before anything is written
    device = exps[0].device
    n_train = [len(e.y_train) for e in exps]
    if cfgs[0].sampler == "full" and len(set(n_train)) > 1:
        raise ConfigError("sampler", "full", f"stacked full-batch members need equal train sizes (got "
                          f"{sorted(set(n_train))}); use packing=sequential")
    resumed = [_resumable(o) for o in outs]
    starts = {torch.load(Path(o) / CKPT, weights_only=True, map_location="cpu")["step"] if r else 0
              for o, r in zip(outs, resumed)}
    if len(starts) > 1:
        raise ConfigError("out_dirs", sorted(starts), "stacked members must start from the same step "
                          "(fresh, or checkpoints at one step); use packing=sequential")
    members = [_Member(c, e, o) for c, e, o in zip(cfgs, exps, outs)]
    start = members[0].start
    for m in members:
        m.open(start)
    stack = StackedMLP([e.model for e in exps], cfgs, device)
    for i, m in enumerate(members):
        if m.ckpt is not None:
            opt, names = m.exp.optimizer, {id(t): n for n, t in m.exp.model.named_parameters()}
            state = {}
            for t, st in opt.state.items():
                for k, v in st.items():
                    if k != "step" and v is not None:
                        state.setdefault(k, {})[names[id(t)]] = v
            stack.load_state(i, start, state)

    X_all, y_all = _table_tensors(exps[0], device)
    N = len(y_all)
    n_max = max(n_train)
    rows = torch.zeros(len(exps), n_max, dtype=torch.long)
    masks = torch.zeros(2, len(exps), N, dtype=torch.bool)
    for i, e in enumerate(exps):
        rows[i, :n_train[i]] = e.split.train
        masks[0, i, e.split.train] = True
        masks[1, i, e.split.test] = True
    rows, masks = rows.to(device), masks.to(device)
    active = list(range(len(members)))  # member index of each stack row
    masks_act = masks
    batches = Batches([m.exp.sampler for m in members], rows, max(m.cfg.steps for m in members))
    union = set().union(*(m.schedule for m in members))
    chunk = max(1, 4 * cfgs[0].eval.chunk // len(members))
    t0, step = time.perf_counter(), start

    def evaluate() -> np.ndarray:
        """[len(active), 4]: train loss, train acc, test loss, test acc of every stacked member."""
        sums = torch.zeros(2, stack.M, 2, dtype=torch.float64, device=device)  # [train/test, M, loss/correct]
        for a in range(0, N, chunk):
            loss, correct = stack.row_losses(X_all[a:a + chunk], y_all[a:a + chunk])
            mk = masks_act[..., a:a + chunk]
            sums[..., 0] += (loss.double() * mk).sum(-1)
            sums[..., 1] += (correct & mk).sum(-1).double()
        counts = masks_act.sum(-1).clamp(min=1).double().unsqueeze(-1)
        return (sums / counts).permute(1, 0, 2).reshape(stack.M, 4).cpu().numpy()

    def save(m: _Member, i: int) -> None:
        m.store.save_checkpoint({"step": step, **m.solo_state(stack, i), "tracker": m.tracker.state_dict(),
                                 "wall_s": time.perf_counter() - t0 + m.wall0, "eval_s": m.eval_s,
                                 "last_eval": m.last_eval, "last": m.last})
        m.store.write_summary(_member_summary(m, "running", step, t0, len(members)))

    def finish(m: _Member, i: int, status: str) -> None:
        m.status, m.final_step = status, step
        m.solo_state(stack, i)  # the member's model holds its final parameters
        if m.store is not None:
            if status in ("completed", "early_stop"):
                save(m, i)
            m.store.write_summary(_member_summary(m, status, step, t0, len(members)))
            m.store.close()
        if m.sink is not None:
            m.sink.close()

    try:
        while active:
            if step in union:
                te = time.perf_counter()
                vals = evaluate()
                dt = time.perf_counter() - te
                for i, k in enumerate(active):
                    m = members[k]
                    if step not in m.schedule or step == m.last_eval:
                        continue
                    m.eval_s += dt
                    m.last_eval = step
                    m.last = {"step": step, "train/loss": float(vals[i, 0]), "train/acc": float(vals[i, 1]),
                              "test/loss": float(vals[i, 2]), "test/acc": float(vals[i, 3]),
                              "time/wall_s": round(time.perf_counter() - t0 + m.wall0, 4)}
                    m.history.append(m.last)
                    if m.store is not None:
                        m.store.append(m.last)
                    if m.sink is not None:
                        m.sink.log(m.last)
                    m.tracker.update(step, m.last["train/acc"], m.last["test/acc"])
                    if not np.isfinite(vals[i, [0, 2]]).all():
                        m.status = "diverged"
                    elif m.tracker.should_stop(step):
                        m.status = "early_stop"
            for i, k in enumerate(active):
                m = members[k]
                if m.status == "running" and step >= m.cfg.steps:
                    m.status = "completed"
                if m.status != "running":
                    finish(m, i, m.status)
                elif m.store is not None and m.cfg.checkpoint_every and step % m.cfg.checkpoint_every == 0 \
                        and step > start:
                    save(m, i)
            keep = [i for i, k in enumerate(active) if members[k].status == "running"]
            if len(keep) < len(active):
                active = [active[i] for i in keep]
                if not active:
                    break
                stack.keep(keep)
                sel = torch.tensor(active, device=device)
                masks_act = masks.index_select(1, sel)
                batches = Batches([members[k].exp.sampler for k in active], rows.index_select(0, sel),
                                  max(members[k].cfg.steps for k in active))
            # -- one optimizer step for every active member
            stacked_step(stack, X_all, y_all, batches.idx(step))
            step += 1
    except KeyboardInterrupt:
        for k in active:
            m = members[k]
            if m.store is not None:
                m.store.write_summary(_member_summary(m, "interrupted", step, t0, len(members)))
                m.store.close()
        raise
    return [RunResult(_member_summary(m, m.status, m.final_step, t0, len(members)), m.history,
                      m.store.path if m.store else None, m.exp.model) for m in members]


def _member_summary(m: _Member, status: str, step: int, t0: float, size: int) -> dict:
    s = _summary(status, step, time.perf_counter() - t0 + m.wall0, m.eval_s, m.tracker, m.last, m.exp)
    return {**s, "population/size": size, "population/packing": "stacked"}
