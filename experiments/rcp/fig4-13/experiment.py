"""The RCP thesis, Fig. 4.13 (sec. 4.3.1): AFCT of short and long flows and the bottleneck's queue
against the link capacity (0.1 to 9.6 Gb/s; RTPD 100 ms, load 0.9, Pareto sizes of mean 25
packets).

Every configuration runs RCP, TCP and XCP on the same flows (`dumbbell.three`); PS is the exact
max-min fluid of each run's own flows + 1.5 RTPD. Paper numbers come from the thesis's text; where
it gives none, the report compares shapes and says so.
"""

from __future__ import annotations

from fctlab.reproduce.framework import Experiment
from fctlab_experiments.rcp import reports as rr
from fctlab_experiments.rcp.dumbbell import dumbbell_sweep
from fctlab_experiments.rcp.reports import Setup

CAPACITIES = [(0.1e9, 100.0, 20.0), (0.6e9, 40.0, 8.0), (2.4e9, 20.0, 5.0), (9.6e9, 8.0, 3.0)]


def experiment() -> Experiment:
    cases = [
        (f"c{c / 1e9:g}G", c / 1e9, Setup(c, 0.1, 0.9), {"duration": dur, "warmup": warm})
        for c, dur, warm in CAPACITIES
    ]
    intro = (
        "RTPD 100 ms, load 0.9, Pareto sizes (mean 25 packets, shape 1.2), C from 0.1 to 9.6 Gb/s; arrivals "
        "for 100, 40, 20 and 8 s (warm-up 20, 8, 5, 3 s). Thesis sec. 4.3.1: for flows < 500 packets XCP "
        "lasts 3 times and TCP 2 times as long as RCP; for flows >= 500 packets XCP 30 times and TCP 6 times; "
        "RCP's mean queue is 2% of C x RTPD at every capacity, XCP's very small."
    )
    claims = tuple(
        rr.SweepClaim("Fig. 4.13", p, "RCP", side, v)
        for p, side, v in (("XCP", "small", 3.0), ("TCP", "small", 2.0), ("XCP", "large", 30.0), ("TCP", "large", 6.0))
    )
    return dumbbell_sweep("fig4-13", "RCP thesis Fig. 4.13: link capacity", "capacity (Gb/s)", cases, intro, claims)
