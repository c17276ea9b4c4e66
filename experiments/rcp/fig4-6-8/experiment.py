"""The RCP thesis, Figs. 4.6 - 4.8 (sec. 4.2.3): AFCT against flow size for uniform, exponential and
Pareto (shape 1.8) sizes of mean 30 packets (2.4 Gb/s, RTPD 100 ms, load 0.8), and the number of
active flows under each protocol.

Every configuration runs RCP, TCP and XCP on the same flows (`dumbbell.three`); PS is the exact
max-min fluid of each run's own flows + 1.5 RTPD. Paper numbers come from the thesis's text; where
it gives none, the report compares shapes and says so.
"""

from __future__ import annotations

from fctlab.reproduce.framework import Context, Experiment, Runs
from fctlab_experiments.rcp import reports as rr
from fctlab_experiments.rcp.dumbbell import PKT, bdp, dumbbell, pareto, quick_scale, three
from fctlab_experiments.rcp.reports import CLOSE_TO_PS, Setup

DISTS = [
    ("uniform", {"kind": "uniform", "min": 1, "max": 59 * PKT}, "Fig. 4.6: uniform sizes on [1, 59] packets"),
    (
        "exponential",
        {"kind": "exponential", "mean": 30 * PKT, "round_to": PKT},
        "Fig. 4.7: exponential sizes, mean 30 packets",
    ),
    ("pareto18", pareto(30, 1.8), "Fig. 4.8: Pareto sizes, mean 30 packets, shape 1.8"),
]


def experiment() -> Experiment:
    s = Setup(2.4e9, 0.1, 0.8)
    pts = []
    for name, sizes, _ in DISTS:
        pts += three(name, dumbbell(s, sizes, 20.0, 5.0), bdp(s), s.rtpd)
    intro = (
        "Mean flow size 30 packets, C = 2.4 Gb/s, RTPD 100 ms, load 0.8 (the captions of Figs. 4.6 and 4.7 "
        "are partly lost; their surviving part gives RTPD 0.1 s and rho 0.8, Fig. 4.8 gives E[L] = 30 and "
        "shape 1.8; C = 2.4 Gb/s and uniform on [1, 59] packets are assumptions). Arrivals for 20 s, 5 s "
        "warm-up. Thesis sec. 4.2.3: RCP follows PS whatever the distribution; with the mean small against "
        "C x RTPD, XCP keeps many active flows and an AFCT above TCP's. No numbers in the text."
    )

    def analyze(runs: Runs, ctx: Context) -> str:
        parts = [intro]
        for name, _, heading in DISTS:
            claim = rr.SizeClaim(heading.split(":")[0], "RCP", "PS", 1, 2000, CLOSE_TO_PS)
            parts.append(rr.size_section(runs, ctx, name, s, heading, "", f"sizes-{name}.png", claims=[claim]))
        parts.append(rr.active_section(runs, ctx, [(n, s, h) for n, _, h in DISTS], (5.0, 20.0), "active.png"))
        return "\n\n".join(parts)

    return Experiment(
        "fig4-6-8",
        "RCP thesis Figs. 4.6 - 4.8: uniform, exponential and Pareto sizes",
        "ch4-setup1.toml",
        pts,
        1,
        analyze,
        quick=quick_scale(0.3),
    )
