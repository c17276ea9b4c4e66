"""The RCP thesis, Figs. 4.17 - 4.21 (sec. 4.3.4): a congested reverse path (`experiments/rcp/
ch4-reverse.toml`, 2.4 Gb/s, RTPD 200 ms, forward and reverse loads 0.2 to 0.95): AFCT against
flow size of the forward (and, Fig. 4.21, the reverse) flows, and the active forward flows.

Every configuration runs RCP, TCP and XCP on the same flows (`dumbbell.three`); PS is the exact
max-min fluid of each run's own flows + 1.5 RTPD. Paper numbers come from the thesis's text; where
it gives none, the report compares shapes and says so.
"""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.framework import Context, Experiment, Runs
from fctlab_experiments.rcp import reports as rr
from fctlab_experiments.rcp.dumbbell import pareto, quick_scale, three
from fctlab_experiments.rcp.reports import Setup

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
        "widely, and on the lightly loaded reverse link XCP beats TCP. No numbers in the text."
    )

    def analyze(runs: Runs, ctx: Context) -> str:
        parts = [intro]
        for name, f, _, heading in REVERSE:
            parts.append(
                rr.size_section(runs, ctx, name, Setup(2.4e9, 0.2, f), heading, "", f"sizes-{name}.png", workload="fwd")
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
