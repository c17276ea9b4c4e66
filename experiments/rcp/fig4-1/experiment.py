"""The RCP thesis, Fig. 4.1 (sec. 4.2.1): AFCT and maximum FCT against flow size for RCP, TCP and
XCP beside PS, setup 1 (2.4 Gb/s, RTPD 100 ms, load 0.9, Pareto sizes of mean 25 packets), and
the bottleneck's drops, queue and utilization (sec. 4.3.1: RCP's queue near 2% of C x RTPD).

Every configuration runs RCP, TCP and XCP on the same flows (`dumbbell.three`); PS is the exact
max-min fluid of each run's own flows + 1.5 RTPD. Paper numbers come from the thesis's text; where
it gives none, the report compares shapes and says so.
"""

from __future__ import annotations

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, md_table
from fctlab_experiments.rcp import analysis as ra
from fctlab_experiments.rcp import reports as rr
from fctlab_experiments.rcp.dumbbell import SETUP1, bdp, dumbbell, pareto, quick_scale, three
from fctlab_experiments.rcp.reports import CLOSE_TO_PS, combine

FIG41 = (
    "Thesis sec. 4.2.1: RCP's AFCT is close to PS and always below TCP and XCP; for flows up to 2000 "
    "packets TCP's delay is 4 times RCP's and XCP's as much as 30 times near 2000 packets; beyond 2000 "
    "packets XCP stays about 30 times RCP while TCP and RCP are similar; TCP follows the slow-start curve "
    "for most flows; RCP's maximum FCT is close to the PS mean; TCP's delays vary, often ten times the mean."
)
#: The numbers of sec. 4.2.1; "near 2,000 packets" is the reports' window of 1,000 - 2,999 packets.
FIG41_CLAIMS = (
    rr.SizeClaim("Fig. 4.1", "RCP", "PS", 1, 2000, CLOSE_TO_PS),
    rr.SizeClaim("Fig. 4.1", "TCP", "RCP", 1, 2000, 4.0),
    rr.SizeClaim("Fig. 4.1", "XCP", "RCP", *ra.NEAR_2000, 30.0),
)


def _bottleneck_state(runs: Runs, ctx: Context) -> str:
    """The bottleneck of each setup-1 run: drops, mean queue against C x RTPD, utilization."""
    rows = []
    for p in rr.PROTOCOLS:
        name = rr.run_name("setup1", p)
        for sd in runs.seeds_of(name):
            lk = runs.links(name, sd).filter(pl.col("name") == "bottleneck").row(0, named=True)
            share = lk["queue_avg_bytes"] * 8 / (SETUP1.capacity * SETUP1.rtpd) * 100
            if p == "RCP":
                ctx.check("sec. 4.3.1", f"RCP's mean queue, % of C x RTPD (seed {sd})", 2.0, share)
            rows.append(
                [
                    p,
                    str(sd),
                    str(lk["drops_pkts"]),
                    f"{lk['queue_avg_bytes'] / 1e6:.2f}",
                    f"{share:.1f}",
                    f"{lk['utilization']:.3f}",
                ]
            )
    return (
        "## The bottleneck\n\nOver the whole run (drain included, so utilization is below the offered 0.9); the "
        "thesis reports RCP's mean queue near 2% of C x RTPD (sec. 4.3.1):\n\n"
        + md_table(["protocol", "seed", "drops", "mean queue (MB)", "% of C x RTPD", "utilization"], rows)
    )


def experiment() -> Experiment:
    base = dumbbell(SETUP1, pareto(25), 30.0, 5.0)
    intro = (
        "Setup 1: one bottleneck of 2.4 Gb/s, RTPD 100 ms, load 0.9, Poisson arrivals, Pareto sizes "
        "(mean 25 packets, shape 1.2), 1000-byte packets, buffer 30 MB; arrivals for 30 s, the first 5 s "
        "warm-up, then the network drains. PS is the exact max-min fluid of the same flows + 1.5 RTPD "
        "(`fctlab.reference.ps_fct`); eq. 4.1 is the thesis's M/G/1-PS curve at rho = 0.9. Fig. 4.3 (the "
        "sequence-number traces of single flows in this setup) is [fig4-3](../fig4-3/)."
    )
    return Experiment(
        "fig4-1",
        "RCP thesis Fig. 4.1: AFCT against flow size, setup 1 (2.4 Gb/s, 100 ms, load 0.9)",
        "ch4-setup1.toml",
        three("setup1", base, bdp(SETUP1), SETUP1.rtpd),
        2,
        combine(
            rr.size_figure([("setup1", SETUP1, "Setup 1", FIG41)], intro, {"setup1": FIG41_CLAIMS}), _bottleneck_state
        ),
        quick=quick_scale(0.3),
    )
