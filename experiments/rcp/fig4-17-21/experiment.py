"""The RCP thesis, Figs. 4.17 - 4.21 (sec. 4.3.4): a congested reverse path (`experiments/rcp/
ch4-reverse.toml`, 2.4 Gb/s, RTPD 200 ms, forward and reverse loads 0.2 to 0.95): AFCT against
flow size of the forward (and, Fig. 4.21, the reverse) flows, and the active forward flows.

Every configuration runs RCP, TCP and XCP on the same flows (`dumbbell.three`); PS is the exact
max-min fluid of each run's own flows + 1.5 RTPD. Paper numbers come from the thesis's text; where
it gives none, the report compares shapes and says so.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce.checks import ratio
from fctlab.reproduce.framework import Context, Experiment, Runs
from fctlab_experiments.rcp import analysis as ra
from fctlab_experiments.rcp import reports as rr
from fctlab_experiments.rcp.dumbbell import pareto, quick_scale, three
from fctlab_experiments.rcp.reports import CLOSE_TO_PS, Setup

REVERSE = [
    ("f75r75", 0.75, 0.75, "Fig. 4.17: forward and reverse load 0.75"),
    ("f75", 0.75, None, "Fig. 4.18: forward load 0.75, no reverse traffic"),
    ("f95r95", 0.95, 0.95, "Fig. 4.19: forward and reverse load 0.95"),
    ("f95r20", 0.95, 0.2, "Fig. 4.20: forward load 0.95, reverse 0.2 (forward flows)"),
]
FWD = {
    "kind": "poisson",
    "label": "fwd",
    "load_on": "bottleneck",
    "sizes": pareto(46),
    "pairs": {"kind": "uniform", "src": "left", "dst": "right"},
}


#: Sec. 4.3.4, per configuration: at 0.95 both ways "in case of RCP, the performance is slightly
#: worse than PS, nevertheless comparable to PS" (Fig. 4.19), with 0.95 forward "RCP's
#: performance is comparable to PS" (Fig. 4.20), and on the lightly loaded reverse link "XCP
#: performs better than TCP, while RCP is close to PS" (Fig. 4.21): "comparable" and "close"
#: read as `reports.CLOSE_TO_PS`, "better" as XCP's AFCT at most TCP's, flows under 2,000 packets.
CLAIMS = {
    "f95r95": (rr.SizeClaim("Fig. 4.19", "RCP", "PS", 1, 2000, CLOSE_TO_PS),),
    "f95r20": (rr.SizeClaim("Fig. 4.20", "RCP", "PS", 1, 2000, CLOSE_TO_PS),),
    "rev": (
        rr.SizeClaim("Fig. 4.21", "XCP", "TCP", 1, 2000, (None, 1.0)),
        rr.SizeClaim("Fig. 4.21", "RCP", "PS", 1, 2000, CLOSE_TO_PS),
    ),
}
#: Figs. 4.17 against 4.18: reverse congestion has "little or no effect" on RCP and XCP (their
#: AFCT / PS with the reverse traffic over without it, 1), while TCP's delayed and dropped ACKs
#: increase its flow completion times (the same ratio, at least 1).
REVERSE_EFFECT = {"RCP": 1.0, "XCP": 1.0, "TCP": (1.0, None)}


def check_reverse(ctx: Context, loaded: dict[str, pl.DataFrame], alone: dict[str, pl.DataFrame]) -> None:
    """Each protocol's AFCT / PS of the forward flows under 2,000 packets with reverse traffic
    (Fig. 4.17) over without it (Fig. 4.18), from the two configurations' `size_tables`."""
    for p, paper in REVERSE_EFFECT.items():
        ctx.check(
            "Figs. 4.17 - 4.18",
            f"{p} AFCT / PS, flows < 2,000 packets, reverse load 0.75 over none",
            paper,
            ratio(ra.window_ratio(loaded[p], 1, 2000)[1], ra.window_ratio(alone[p], 1, 2000)[1]),
        )


def experiment() -> Experiment:
    pts = []
    for name, f, r, _ in REVERSE:
        o: dict[str, Any] = {"duration": 20.0, "measure_from": 5.0, "workload.0.load": f}
        if r is None:
            o["workload"] = [{**FWD, "load": f}]
        else:
            o["workload.1.load"] = r
        pts += three(name, o, 60e6, 0.2)
    intro = (
        "A 2.4 Gb/s dumbbell of 200 ms RTPD, Pareto sizes (mean 46 packets, shape 1.2) offered on the forward "
        "link and on the reverse link, buffers 60 MB; arrivals for 20 s, 5 s warm-up, runs stopped 100 s after "
        "the arrivals. Thesis sec. 4.3.4: reverse congestion leaves RCP and XCP unaffected (their queues are "
        "driven to zero) while TCP's delayed and dropped ACKs add timeouts and variance; at 0.95 both ways TCP "
        "and XCP look stochastically unstable (active flows keep growing), RCP slightly above PS but stable; "
        "with 0.95 forward and 0.2 reverse, XCP's active flows grow on the forward link, TCP's FCTs vary "
        "widely, and on the lightly loaded reverse link XCP beats TCP. No numbers in the text: the checks read "
        "these as ratios of AFCTs over the flows under 2,000 packets."
    )

    def analyze(runs: Runs, ctx: Context) -> str:
        parts = [intro]
        tables = {name: rr.size_tables(runs, name, Setup(2.4e9, 0.2, f), workload="fwd") for name, f, _, _ in REVERSE}
        check_reverse(ctx, tables["f75r75"], tables["f75"])
        for name, f, _, heading in REVERSE:
            parts.append(
                rr.size_section(
                    runs,
                    ctx,
                    name,
                    Setup(2.4e9, 0.2, f),
                    heading,
                    "",
                    f"sizes-{name}.png",
                    workload="fwd",
                    claims=CLAIMS.get(name, ()),
                    tables=tables[name],
                )
            )
        parts.append(
            rr.size_section(
                runs,
                ctx,
                "f95r20",
                Setup(2.4e9, 0.2, 0.2),
                "Fig. 4.21: forward load 0.95, reverse 0.2 (reverse flows)",
                "",
                "sizes-f95r20-rev.png",
                workload="rev",
                claims=CLAIMS["rev"],
            )
        )
        parts.append(
            "## Active forward flows\n\n"
            + rr.active_section(
                runs,
                ctx,
                [(n, Setup(2.4e9, 0.2, f), h.split(":")[0]) for n, f, _, h in REVERSE],
                (5.0, 20.0),
                "active.png",
                workload="fwd",
            )
        )
        return "\n\n".join(parts)

    return Experiment(
        "fig4-17-21",
        "RCP thesis Figs. 4.17 - 4.21: congested reverse path",
        "ch4-reverse.toml",
        pts,
        1,
        analyze,
        quick=quick_scale(0.3),
    )
