"""The RCP thesis, Figs. 4.23 and 4.24 (sec. 4.3.5): a parking lot of 1, 2, 4 and 8 bottlenecks of
640 Mb/s (`experiments/rcp/ch4-parking-lot.toml`): AFCT of the flows crossing all of them (group 0)
against the number of bottlenecks, and against flow size.

Every configuration runs RCP, TCP and XCP on the same flows (`dumbbell.three`); PS is the exact
max-min fluid of each run's own flows + 1.5 RTPD. Paper numbers come from the thesis's text; where
it gives none, the report compares shapes and says so.
"""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.checks import ratio
from fctlab.reproduce.framework import Context, Experiment
from fctlab_experiments.rcp import reports as rr
from fctlab_experiments.rcp.dumbbell import pareto, quick_scale, three
from fctlab_experiments.rcp.reports import CLOSE_TO_PS, Setup, combine

HOPS = [1, 2, 4, 8]


def _parking_lot(n: int) -> dict[str, Any]:
    sizes = pareto(25)
    wl = [
        {
            "kind": "poisson",
            "label": "g0",
            "load": 0.45,
            "load_on": "hop0",
            "sizes": sizes,
            "pairs": {"kind": "uniform", "src": "long_src", "dst": "long_dst"},
        }
    ]
    wl += [
        {
            "kind": "poisson",
            "label": f"g{i + 1}",
            "load": 0.45,
            "load_on": f"hop{i}",
            "sizes": sizes,
            "pairs": {"kind": "uniform", "src": f"cross{i}_src", "dst": f"cross{i}_dst"},
        }
        for i in range(n)
    ]
    return {
        "topology.bottlenecks": n,
        "topology.delay": 0.05 / n,
        "workload": wl,
        "duration": 30.0,
        "measure_from": 5.0,
    }


#: "RCP always achieves a delay close to the lower bound irrespective of the number of hops", read
#: as close to the exact PS of group 0 (`reports.CLOSE_TO_PS`; PS is at least the lower bound), both
#: plots of Fig. 4.23.
FIG423_CLAIMS = tuple(rr.SweepClaim("Fig. 4.23", "RCP", "PS", side, CLOSE_TO_PS) for side in ("small", "large"))
#: "With multiple bottlenecks, flows complete an order of magnitude faster with RCP than with TCP
#: or XCP": their AFCT at least ten times RCP's, at every n > 1.
ORDER_OF_MAGNITUDE = (10.0, None)
SIDES = (("small", "< 500"), ("large", ">= 500"))


def check_hops(ctx: Context, splits: dict[float, dict[str, dict[str, float | None]]]) -> None:
    """Sec. 4.3.5's statements across the number of bottlenecks (`reports.sweep_figure`'s splits
    of group 0 by n): TCP and XCP an order of magnitude slower than RCP with more than one
    bottleneck; TCP degrading as n grows (its AFCT / PS at the largest n over at one, at least 1)."""
    for n, split in sorted(splits.items()):
        if n <= 1:
            continue
        for p in ("TCP", "XCP"):
            for side, sizes in SIDES:
                ctx.check(
                    "Fig. 4.24",
                    f"{p} AFCT / RCP, flows {sizes} packets, {n:g} bottlenecks",
                    ORDER_OF_MAGNITUDE,
                    ratio(split[p][f"{side}_afct"], split["RCP"][f"{side}_afct"]),
                )
    lo, hi = min(splits), max(splits)
    for side, sizes in SIDES:
        tcp = {n: ratio(splits[n]["TCP"][f"{side}_afct"], splits[n]["TCP"][f"{side}_ps"]) for n in (lo, hi)}
        ctx.check(
            "Fig. 4.23",
            f"TCP AFCT / PS, flows {sizes} packets, {hi:g} bottlenecks over {lo:g} (degrades)",
            (1.0, None),
            ratio(tcp[hi], tcp[lo]),
        )


def experiment() -> Experiment:
    s = Setup(640e6, 0.1, 0.9)
    pts = []
    for n in HOPS:
        pts += three(f"hops{n}", _parking_lot(n), 8e6, 0.1)
    intro = (
        "A parking lot of n = 1, 2, 4, 8 bottlenecks of 640 Mb/s; group 0 crosses all of them with RTPD 100 ms "
        "(the caption's value; the text says 0.2 s), one cross group per bottleneck with the same arrival "
        "rate, each bottleneck loaded 0.9; Pareto sizes (mean 25 packets, shape 1.2), 8 MB buffers; arrivals "
        "for 30 s, 5 s warm-up. Only group 0 is reported. PS is the exact max-min fluid over the whole "
        "network (the eq. 4.1 column treats group 0 as alone on one link at 0.9). Thesis sec. 4.3.5: RCP stays "
        "close to the lower bound whatever n; TCP degrades as n grows (more losses, more AIMD); with several "
        "bottlenecks flows finish an order of magnitude faster with RCP than with TCP or XCP."
    )
    sweep = rr.sweep_figure(
        "bottlenecks",
        [(f"hops{n}", float(n), s) for n in HOPS],
        500,
        intro,
        link="hop0",
        workload="g0",
        claims=FIG423_CLAIMS,
        across=check_hops,
    )
    sizes = lambda runs, ctx: "\n\n".join(
        rr.size_section(
            runs, ctx, f"hops{n}", s, f"Fig. 4.24: group 0, {n} bottleneck(s)", "", f"sizes-{n}.png", workload="g0"
        )
        for n in HOPS
    )
    return Experiment(
        "fig4-23-24",
        "RCP thesis Figs. 4.23, 4.24: 1, 2, 4 and 8 bottlenecks",
        "ch4-parking-lot.toml",
        pts,
        1,
        combine(sweep, sizes),
        quick=quick_scale(0.3),
    )
