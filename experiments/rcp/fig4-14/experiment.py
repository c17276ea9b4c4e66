"""The RCP thesis, Fig. 4.14 (sec. 4.3.2): AFCT of short and long flows against the round-trip
propagation delay (10 ms to 1.6 s; 150 Mb/s, load 0.9, Pareto sizes of mean 25 packets). Why RCP
misses PS at 10 ms is `fig4-14-10ms`.

Every configuration runs RCP, TCP and XCP on the same flows (`dumbbell.three`); PS is the exact
max-min fluid of each run's own flows + 1.5 RTPD. Paper numbers come from the thesis's text; where
it gives none, the report compares shapes and says so.
"""

from __future__ import annotations

from fctlab.reproduce.framework import Experiment
from fctlab_experiments.rcp import reports as rr
from fctlab_experiments.rcp.dumbbell import dumbbell_sweep
from fctlab_experiments.rcp.reports import CLOSE_TO_PS, Setup

RTPDS = [(0.01, 60.0, 10.0), (0.1, 80.0, 20.0), (0.4, 120.0, 30.0), (1.6, 300.0, 60.0)]


def experiment() -> Experiment:
    cases = [
        (f"rtpd{rtpd:g}", rtpd, Setup(150e6, rtpd, 0.9), {"duration": dur, "warmup": warm, "max_time": dur + 200.0})
        for rtpd, dur, warm in RTPDS
    ]
    intro = (
        "C = 150 Mb/s, load 0.9, Pareto sizes (mean 25 packets, shape 1.2), RTPD 10 ms to 1.6 s, buffers "
        "C x RTPD; arrivals for 60 to 300 s. Thesis sec. 4.3.2: flows < 500 packets last about 2.5 times "
        "longer with TCP and XCP than with RCP; flows >= 500 packets 4 times longer with TCP and 13 times "
        "with XCP; RCP's AFCT grows as 1.5 RTPD like PS. Why RCP misses PS at 10 ms: [fig4-14-10ms](../fig4-14-10ms/)."
    )
    claims = (rr.SweepClaim("Fig. 4.14", "RCP", "PS", "small", CLOSE_TO_PS),) + tuple(
        rr.SweepClaim("Fig. 4.14", p, "RCP", side, v)
        for p, side, v in (("TCP", "small", 2.5), ("XCP", "small", 2.5), ("TCP", "large", 4.0), ("XCP", "large", 13.0))
    )
    return dumbbell_sweep(
        "fig4-14", "RCP thesis Fig. 4.14: round-trip propagation delay", "RTPD (s)", cases, intro, claims
    )
