"""The RCP thesis, Figs. 4.4 and 4.5 (sec. 4.2.2): AFCT of short and long flows against the mean
flow size (Pareto, 30 to 30,000 packets; 2.4 Gb/s, RTPD 100 ms, load 0.8), and AFCT against
flow size at the smallest and largest mean.

Every configuration runs RCP, TCP and XCP on the same flows (`dumbbell.three`); PS is the exact
max-min fluid of each run's own flows + 1.5 RTPD. Paper numbers come from the thesis's text; where
it gives none, the report compares shapes and says so.
"""

from __future__ import annotations

from fctlab.reproduce.framework import Experiment
from fctlab_experiments.rcp import reports as rr
from fctlab_experiments.rcp.dumbbell import bdp, dumbbell, pareto, quick_scale, three
from fctlab_experiments.rcp.reports import CLOSE_TO_PS, Setup, combine

MEANS = [(30, 20.0), (300, 20.0), (3000, 40.0), (30000, 60.0)]


def experiment() -> Experiment:
    s = Setup(2.4e9, 0.1, 0.8)
    pts = []
    for mean, dur in MEANS:
        pts += three(f"mean{mean}", dumbbell(s, pareto(mean), dur, 5.0, max_time=dur + 60.0), bdp(s), s.rtpd)
    sweep = rr.sweep_figure(
        "mean flow size (pkts)",
        [(f"mean{m}", float(m), s) for m, _ in MEANS],
        7000,
        (
            "C = 2.4 Gb/s, RTPD 100 ms, load 0.8, Pareto sizes of shape 1.2 and mean 30 to 30,000 packets; arrivals "
            "for 20 s (means 30 and 300), 40 s (3000) and 60 s (30,000), 5 s warm-up, runs stopped 60 s after the "
            "arrivals (flows still open then are counted as unfinished and left out of the means). Thesis sec. 4.2.2: "
            "RCP's AFCT is close to PS whatever the mean; XCP is far worse than TCP for small means and gets close "
            "to PS as flows get longer, while TCP deviates further (more than an order of magnitude above PS for "
            "E[L] = 30,000, Fig. 4.5). No numbers in the text; compare shapes. Flows split at 7,000 packets as in "
            "the thesis."
        ),
        claims=[rr.SweepClaim("Fig. 4.4", "RCP", "PS", side, CLOSE_TO_PS) for side in ("small", "large")],
    )
    sizes = lambda runs, ctx: "\n\n".join(
        rr.size_section(runs, ctx, f"mean{m}", s, f"Fig. 4.5: E[L] = {m} packets", "", f"fig45-{m}.png")
        for m in (30, 30000)
    )
    return Experiment(
        "fig4-4-5",
        "RCP thesis Figs. 4.4, 4.5: mean flow size",
        "ch4-setup1.toml",
        pts,
        1,
        combine(sweep, sizes),
        quick=quick_scale(0.3),
    )
