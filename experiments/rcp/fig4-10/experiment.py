"""The RCP thesis, Fig. 4.10 (sec. 4.2.5): AFCT of short and long flows against the offered load
(0.2 to 0.9; 150 Mb/s, RTPD 100 ms, Pareto sizes of mean 25 packets).

Every configuration runs RCP, TCP and XCP on the same flows (`dumbbell.three`); PS is the exact
max-min fluid of each run's own flows + 1.5 RTPD. Paper numbers come from the thesis's text; where
it gives none, the report compares shapes and says so.
"""

from __future__ import annotations

from fctlab.reproduce.framework import Experiment
from fctlab_experiments.rcp.dumbbell import dumbbell_sweep
from fctlab_experiments.rcp.reports import Setup

LOADS = [0.2, 0.4, 0.6, 0.8, 0.9]


def experiment() -> Experiment:
    cases = [(f"load{load}", load, Setup(150e6, 0.1, load), {"duration": 120.0, "warmup": 20.0}) for load in LOADS]
    intro = (
        "C = 150 Mb/s, RTPD 100 ms, Pareto sizes (mean 25 packets, shape 1.2), offered load 0.2 to 0.9; "
        "arrivals for 120 s, 20 s warm-up. The caption is partly lost: flows are split at 500 packets here "
        "(as in Figs. 4.13, 4.14). Thesis sec. 4.2.5: RCP follows PS; under low loads TCP's AFCT for large "
        "flows is up to 14 times PS and improves with load; XCP gets worse as the load grows."
    )
    return dumbbell_sweep(
        "fig4-10", "RCP thesis Fig. 4.10: offered load (150 Mb/s, 100 ms)", "offered load", cases, intro
    )
