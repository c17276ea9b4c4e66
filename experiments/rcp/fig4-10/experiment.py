"""The RCP thesis, Fig. 4.10 (sec. 4.2.5): AFCT of short and long flows against the offered load
(0.2 to 0.9; 150 Mb/s, RTPD 100 ms, Pareto sizes of mean 25 packets).

Every configuration runs RCP, TCP and XCP on the same flows (`dumbbell.three`); PS is the exact
max-min fluid of each run's own flows + 1.5 RTPD. Paper numbers come from the thesis's text; where
it gives none, the report compares shapes and says so.
"""

from __future__ import annotations

from fctlab.reproduce.checks import ratio
from fctlab.reproduce.framework import Context, Experiment
from fctlab_experiments.rcp import reports as rr
from fctlab_experiments.rcp.dumbbell import dumbbell_sweep
from fctlab_experiments.rcp.reports import CLOSE_TO_PS, Setup

LOADS = [0.2, 0.4, 0.6, 0.8, 0.9]
#: "The AFCT of RCP follows that of PS closely", at every load, for both plots (flows below and at
#: or above 500 packets).
FIG410_CLAIMS = tuple(rr.SweepClaim("Fig. 4.10", "RCP", "PS", side, CLOSE_TO_PS) for side in ("small", "large"))
#: "Under low loads and for large flows, TCP's AFCT is as much as fourteen times higher than PS".
TCP_LARGE_OVER_PS = 14.0


def _over_ps(split: dict[str, float | None], side: str) -> float | None:
    return ratio(split[f"{side}_afct"], split[f"{side}_ps"])


def check_loads(ctx: Context, splits: dict[float, dict[str, dict[str, float | None]]]) -> None:
    """Sec. 4.2.5's statements across loads (`reports.sweep_figure`'s splits by load): TCP's large
    flows up to 14 times PS (the largest ratio over the loads), improving as the load grows (the
    ratio at the highest load over the lowest's, at most 1); XCP getting worse as the load grows
    (its ratio to PS at the highest load over the lowest's, at least 1, both sides)."""
    lo, hi = min(splits), max(splits)
    tcp = [r for x in splits if (r := _over_ps(splits[x]["TCP"], "large")) is not None]
    ctx.check(
        "Fig. 4.10",
        "TCP AFCT / PS, flows >= 500 packets, largest over the loads",
        TCP_LARGE_OVER_PS,
        max(tcp) if tcp else None,
    )
    ctx.check(
        "Fig. 4.10",
        f"TCP AFCT / PS, flows >= 500 packets, load {hi:g} over load {lo:g} (improves with load)",
        (None, 1.0),
        ratio(_over_ps(splits[hi]["TCP"], "large"), _over_ps(splits[lo]["TCP"], "large")),
    )
    for side, sizes in (("small", "< 500"), ("large", ">= 500")):
        ctx.check(
            "Fig. 4.10",
            f"XCP AFCT / PS, flows {sizes} packets, load {hi:g} over load {lo:g} (worse with load)",
            (1.0, None),
            ratio(_over_ps(splits[hi]["XCP"], side), _over_ps(splits[lo]["XCP"], side)),
        )


def experiment() -> Experiment:
    cases = [(f"load{load}", load, Setup(150e6, 0.1, load), {"duration": 120.0, "warmup": 20.0}) for load in LOADS]
    intro = (
        "C = 150 Mb/s, RTPD 100 ms, Pareto sizes (mean 25 packets, shape 1.2), offered load 0.2 to 0.9; "
        "arrivals for 120 s, 20 s warm-up. The caption is partly lost: flows are split at 500 packets here "
        "(as in Figs. 4.13, 4.14). Thesis sec. 4.2.5: RCP follows PS; under low loads TCP's AFCT for large "
        "flows is up to 14 times PS and improves with load; XCP gets worse as the load grows."
    )
    return dumbbell_sweep(
        "fig4-10",
        "RCP thesis Fig. 4.10: offered load (150 Mb/s, 100 ms)",
        "offered load",
        cases,
        intro,
        FIG410_CLAIMS,
        across=check_loads,
    )
