"""§4.3 of paper 000: embedding initialization -- default init vs frozen embeddings vs small initial embeddings.

The paper reports, without a figure: "frozen embeddings, which led to slow convergence due to limited
representational flexibility; and small initial embeddings, which improved convergence by allowing stronger
early gradients". "Convergence" is judged on t_test (generalization, what the paper's runs converge to);
t_train is reported beside it.
"""
from __future__ import annotations

from pathlib import Path

from groklab.experiments.assumptions import Assumption
from groklab.experiments.choices import weigh
from groklab.experiments.claims import at_floor, event_times, shown, time_claim
from groklab.experiments.controls import Control
from groklab.experiments.embedding.profile import WD_MODE, base_overrides, batch, lr, task
from groklab.experiments.spec import Claim, RunSpec, grid_runs
from groklab.experiments.stats import run_table
from groklab.plots.curves import acc_grid

NAME = "init43"
TITLE = "§4.3: embedding init on mul (Adam, batch 512): default, frozen, small (std / 10)"
PAPER = ("Frozen embeddings converge slowly (limited representational flexibility); small initial embeddings "
         "improve convergence (stronger early gradients).")
DEFAULT_STD = 1.0  # ModelConfig.emb_init_std's default: torch's nn.Embedding N(0, 1)
# small: 10x below the default. §4.3's bound T >= ln(C / eps) / lambda has the init magnitude C inside a log, so
# a factor of 10 is a clear step in it; a far smaller E (1e-3) would start the bilinear E W near its saddle at
# E = 0, where W's gradient (its input is E) vanishes too -- the coupling §4.3 warns of, a different effect.
SMALL_STD = 0.1
ARMS = {"default": [f"model.emb_init_std={DEFAULT_STD}"],
        "frozen": [f"model.emb_init_std={DEFAULT_STD}", "model.freeze_emb=true"],
        "small": [f"model.emb_init_std={SMALL_STD}"]}
# quick: the profile's mul groks in 400-700 steps at batch 512; 3000 steps leave a frozen run 4x that to
# generalize. The default early stop ends every run that does.
QUICK = ["task=mul", "optim=adam", "batch_size=512", "steps=3000"]
# "converge slowly" / "faster" compare with a default that converges: every default run must reach test accuracy
# 0.99 (declared 2026-12-07, after the data, at the project's bar; every archived default run passes)
CONTROLS = [Control("default/*", "the default initialization (frozen and small are compared with it)", 0.99)]
PAPER_SIZES = ["task=mul", "optim=adam", "optim.lr=0.01", "batch_size=512", "steps=20000"]
ASSUMPTIONS = [
    task("mul", "§4.3 names no task"), lr("0.01", "not stated; Fig. 6's"), batch("512", "not stated; Fig. 6's"),
    Assumption("small", "model.emb_init_std", "0.1", "'small initial embeddings' with no scale: a tenth of torch's "
               "N(0, 1)"), WD_MODE,
]


def runs(profile: str, seeds: int) -> list[RunSpec]:
    return grid_runs(ARMS, base_overrides(profile, QUICK, PAPER_SIZES), seeds)


def analyze(df, out: Path, profile: str = "quick") -> tuple[list[Path], list[Claim]]:
    figs = []
    if not df.empty:
        df = df.assign(arm=df["run"].str.split("/").str[0])
        figs = acc_grid(df, out / "init43", rows=None, cols="task.name", line="arm",
                        title="§4.3: embedding init (mul)", order={"arm": list(ARMS)})
    return figs, claims(run_table(df), run_table(df, test_thr=0.95))


def _arm(t, arm: str, col: str) -> list:
    if t is None or not len(t):
        return []
    return event_times(t.assign(arm=t["run"].str.split("/").str[0]), col, arm=arm)


def claims(t, t95=None) -> list[Claim]:
    """Frozen embeddings reach 99% test accuracy after trained ones; small ones before the default (censored
    times; judged again at 95%). t_train is shown beside, not judged."""
    event = "t_test = first eval step with test acc >= 0.99"

    def claim(id, text, a, b):
        c = time_claim(id, text, {"mul": (_arm(t, a, "t_test"), _arm(t, b, "t_test"))}, (a, b), event,
                       {"test acc 0.95": {"mul": (_arm(t95, a, "t_test"), _arm(t95, b, "t_test"))}}
                       if t95 is not None else None)
        c.per_seed.update({f"{x} t_train": shown(_arm(t, x, "t_train")) for x in (a, b)})
        # "converge" may mean fitting the training set: that reading of the same runs is weighed beside
        fit = time_claim(id, text, {"mul": (_arm(t, a, "t_train"), _arm(t, b, "t_train"))}, (a, b),
                         "t_train = first eval step with train acc >= 0.99")
        out = weigh(at_floor(c), "reading of 'converge'", "test acc 0.99", {"train acc 0.99": fit})
        return _leans(out, fit, a, b)

    return [_levels_off(claim("frozen_converges_slower", "Frozen embeddings converge more slowly than trained ones "
                              "(default init).", "default", "frozen"), t),
            claim("small_init_converges_faster", f"Small initial embeddings (std {SMALL_STD:g} vs {DEFAULT_STD:g}) "
                  "converge faster than the default.", "small", "default")]


def _leans(c: Claim, fit: Claim, a: str, b: str) -> Claim:
    """Where the fitting reading of 'converge' is undecided but leans against the sentence, say so by its direction
    (a fresh read, 2026-12-07: 'underpowered' suggested more seeds might confirm it): a verdict that holds then rests
    on the generalization reading alone."""
    agg = fit.aggregate.get("mul", {})
    P = agg.get(f"P({a} first)")
    if c.holds is None and fit.holds is False:  # the decided reading leads the note (a fresh read, 2026-12-07)
        ma, mb = (agg.get(f"median {x}", [None])[0] for x in (a, b))  # [median, CI low, CI high]
        lead = (f"by the fitting reading of 'converge' (train acc 0.99) it does not hold: {a} fits after {b} "
                f"(P({a} first) = {P:.2f}" + (f"; median t_train {ma:.0f} against {mb:.0f} steps" if None not in
                                               (ma, mb) else "") + f"); by ours (test acc 0.99) {c.reason}")
        c.note = "; ".join(filter(None, [lead, c.note]))
        return c
    if c.holds is not True or fit.holds is not None or P is None or P >= 0.5:
        return c
    c.note = "; ".join(filter(None, [c.note, f"by the fitting reading {b} is not slower: P({a} first) = {P:.2f}, "
                                     f"the runs lean the other way (ties at the eval grid counted 1/2), so 'holds' "
                                     "rests on the generalization reading alone"]))
    return c


def _levels_off(c: Claim, t) -> Claim:
    """Where frozen runs never reach 0.99, whether they were slow or stopped short: their final test accuracy and
    whether it was still rising at the horizon (a fresh read, 2026-12-06: they level off well below it)."""
    if t is None or not len(t):
        return c
    frozen = t[t["run"].str.startswith("frozen/")]
    short = frozen[frozen["t_test"].isna()]
    if len(short):
        fin, up = short["final_test"], int(short["rising_test"].sum())
        said = (f"{len(short)} of {len(frozen)} frozen runs never reach 0.99: they end at test {fin.min():.2f}-"
                f"{fin.max():.2f}, {up} still rising at the horizon")
        if up < len(short):
            said += " (the rest level off: slower, or not converging at all)"
        c.note = "; ".join(filter(None, [c.note, said]))
    return c
