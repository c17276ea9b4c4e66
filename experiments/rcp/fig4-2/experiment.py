"""The RCP thesis, Fig. 4.2 (sec. 4.2.1): AFCT and maximum FCT against flow size for RCP, TCP and
XCP beside PS, setup 2 (150 Mb/s, RTPD 1.6 s, load 0.9, Pareto sizes of mean 25 packets). Why
TCP's large flows take 30-40 times PS here is `fig4-2-tcp`.

Every configuration runs RCP, TCP and XCP on the same flows (`dumbbell.three`); PS is the exact
max-min fluid of each run's own flows + 1.5 RTPD. Paper numbers come from the thesis's text; where
it gives none, the report compares shapes and says so.
"""

from __future__ import annotations

from fctlab.reproduce.framework import Experiment
from fctlab_experiments.rcp import analysis as ra
from fctlab_experiments.rcp import reports as rr
from fctlab_experiments.rcp.dumbbell import SETUP2, bdp, dumbbell, pareto, quick_scale, three
from fctlab_experiments.rcp.reports import CLOSE_TO_PS

FIG42 = (
    "Thesis sec. 4.2.1, setup 2: RCP close to PS for all sizes; TCP about five times RCP, XCP 20 times; "
    "TCP has the highest variance, RCP's mean and maximum are close."
)
FIG42_CLAIMS = (
    rr.SizeClaim("Fig. 4.2", "RCP", "PS", 1, 2000, CLOSE_TO_PS),
    rr.SizeClaim("Fig. 4.2", "TCP", "RCP", *ra.NEAR_2000, 5.0),
    rr.SizeClaim("Fig. 4.2", "XCP", "RCP", *ra.NEAR_2000, 20.0),
)


def experiment() -> Experiment:
    base = dumbbell(SETUP2, pareto(25), 300.0, 40.0, max_time=600.0)
    intro = (
        "Setup 2: one bottleneck of 150 Mb/s, RTPD 1.6 s, load 0.9, Pareto sizes (mean 25 packets, shape "
        "1.2), buffer 30 MB; arrivals for 300 s, the first 40 s warm-up. Why TCP's large flows take 30-40 "
        "times PS here (spurious retransmission timeouts): [fig4-2-tcp](../fig4-2-tcp/)."
    )
    return Experiment(
        "fig4-2",
        "RCP thesis Fig. 4.2: AFCT against flow size, setup 2 (150 Mb/s, 1.6 s, load 0.9)",
        "ch4-setup1.toml",
        three("setup2", base, bdp(SETUP2), SETUP2.rtpd),
        1,
        rr.size_figure([("setup2", SETUP2, "Setup 2", FIG42)], intro, {"setup2": FIG42_CLAIMS}),
        quick=quick_scale(0.3),
    )
