"""torch's update rules on stacked blocks: M members' copies of one parameter as th [M, k], each member's lr and
weight decay an [M, 1] column. The formulas and their order follow torch's own (foreach / fused) steps, so a
stacked member equals its solo run in float64; the rule is read off the member's own torch optimizer.
"""
from __future__ import annotations

import torch

# per-parameter state, by rule, in the names torch's optimizers use (so a member's state is its solo state)
STATE = {"adam": ("exp_avg", "exp_avg_sq"), "adamw": ("exp_avg", "exp_avg_sq"),
         "nadam": ("exp_avg", "exp_avg_sq"), "rmsprop": ("square_avg",), "sgd": ("momentum_buffer",)}


def rule_of(opt: torch.optim.Optimizer) -> dict:
    """The update rule of a torch optimizer and its shared hyper-parameters; refuses options no rule here has."""
    name, d = type(opt).__name__.lower(), opt.defaults
    if name not in STATE:
        raise ValueError(f"no stacked rule for {type(opt).__name__}")
    for flag in ("amsgrad", "nesterov", "centered", "maximize"):
        if d.get(flag):
            raise ValueError(f"no stacked rule for {type(opt).__name__}({flag}=True)")
    if name == "sgd" and d.get("dampening"):
        raise ValueError("no stacked rule for SGD with dampening")
    rule = {"name": name, "eps": d.get("eps"), "betas": tuple(d.get("betas", (0.0, 0.0)))}
    rule["decoupled"] = name == "adamw" or bool(d.get("decoupled_weight_decay"))
    rule["momentum"] = d.get("momentum", 0.0)  # sgd's; rmsprop's too (groklab leaves it 0)
    rule["alpha"], rule["momentum_decay"] = d.get("alpha"), d.get("momentum_decay")
    if name == "rmsprop" and rule["momentum"]:
        raise ValueError("no stacked rule for RMSprop with momentum")
    return rule


def kinds(rule: dict) -> tuple[str, ...]:
    """The per-parameter state the rule keeps (SGD without momentum keeps none)."""
    return () if rule["name"] == "sgd" and not rule["momentum"] else STATE[rule["name"]]


def adam_(th, g, m, v, lr, wd, t, b1: float, b2: float, eps: float, decoupled: bool):
    """Adam / AdamW on one block in one pass (torch's fused Adam); compiled into one kernel on CUDA."""
    if decoupled:
        th.mul_(1 - lr * wd)
    else:
        g = g + wd * th
    m.lerp_(g, 1 - b1)
    v.mul_(b2).addcmul_(g, g, value=1 - b2)
    bc1, bc2_sqrt = (1 - b1 ** t).to(th.dtype), torch.sqrt(1 - b2 ** t).to(th.dtype)  # t is float64, as torch's
    denom = v.sqrt() / bc2_sqrt + eps
    th.sub_(lr / bc1 * m / denom)


def nadam_scalars(rule: dict, t: int, mu_product: torch.Tensor) -> dict:
    """NAdam's per-step numbers, as torch computes them on the host: mu_t, mu_{t+1} from Python floats, the
    running product of the mu's in torch's scalar dtype (float32 unless the default dtype is float64)."""
    b1, b2, psi = rule["betas"][0], rule["betas"][1], rule["momentum_decay"]
    mu = b1 * (1.0 - 0.5 * (0.96 ** (t * psi)))
    mu_next = b1 * (1.0 - 0.5 * (0.96 ** ((t + 1) * psi)))
    mu_product.mul_(mu)
    prod = mu_product.item()
    return {"bc2_sqrt": (1 - b2 ** t) ** 0.5, "grad": -(1.0 - mu) / (1.0 - prod),
            "avg": -mu_next / (1.0 - prod * mu_next)}


def nadam_(th, g, m, v, lr, wd, rule: dict, s: dict):
    """torch's NAdam (foreach path): weight decay coupled or decoupled, then the Nesterov-corrected step."""
    b1, b2 = rule["betas"]
    if rule["decoupled"]:
        th.mul_(1 - lr * wd)
    else:
        g = g + wd * th
    m.lerp_(g, 1 - b1)
    v.mul_(b2).addcmul_(g, g, value=1 - b2)
    denom = v.sqrt().div_(s["bc2_sqrt"]).add_(rule["eps"])
    th.addcdiv_(g * (lr * s["grad"]), denom)
    th.addcdiv_(m * (lr * s["avg"]), denom)


def rmsprop_(th, g, sq, lr, wd, rule: dict):
    """torch's RMSprop (not centered, no momentum): coupled weight decay, square average, scaled step."""
    g = g + wd * th
    sq.mul_(rule["alpha"]).addcmul_(g, g, value=1 - rule["alpha"])
    th.addcdiv_(g * -lr, sq.sqrt().add_(rule["eps"]))


def sgd_(th, g, buf, lr, wd, momentum: float, first: bool):
    """torch's SGD: coupled weight decay, heavy-ball momentum (the buffer starts at the first gradient)."""
    g = g + wd * th
    if buf is not None:
        if first:
            buf.copy_(g)
        else:
            buf.mul_(momentum).add_(g)
        g = buf
    th.addcmul_(g, -lr)


def scalar_dtype() -> torch.dtype:
    """The dtype torch's optimizers keep their step counts and NAdam's mu product in (float32, or float64 when
    that is the default dtype): stacked numbers must round as the solo optimizer's do."""
    return torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32
