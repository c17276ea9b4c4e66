"""The RCP thesis, Fig. 4.9 (sec. 4.2.4): Pareto flow arrivals (and Pareto sizes; 2.4 Gb/s, RTPD
0.5 s, load 0.9): AFCT against the lower bound 1.5 RTPD + L / C and against flow size, and the
number of active flows.

Every configuration runs RCP, TCP and XCP on the same flows (`dumbbell.three`); PS is the exact
max-min fluid of each run's own flows + 1.5 RTPD. Paper numbers come from the thesis's text; where
it gives none, the report compares shapes and says so.
"""

from __future__ import annotations

import polars as pl

from fctlab.reproduce.checks import ratio
from fctlab.reproduce.framework import Context, Experiment, Runs, fmt, md_table
from fctlab_experiments.rcp import analysis as ra
from fctlab_experiments.rcp import reports as rr
from fctlab_experiments.rcp.dumbbell import bdp, dumbbell, pareto, quick_scale, three
from fctlab_experiments.rcp.reports import CLOSE_TO_PS, Setup

#: Sec. 4.2.4: with Pareto arrivals the results are "qualitatively the same" as with Poisson
#: ones: RCP close to PS (Fig. 4.1's reading, flows under 2,000 packets).
FIG49_CLAIMS = (rr.SizeClaim("Fig. 4.9", "RCP", "PS", 1, 2000, CLOSE_TO_PS),)


def check_lower_bound(ctx: Context, table: pl.DataFrame) -> None:
    """Sec. 4.2.4: "RCP compares well with the lower bound" 1.5 RTPD + L / C, read as "close to"
    (`reports.CLOSE_TO_PS`): RCP's AFCT over the mean lower bound of its measured flows."""
    ctx.check(
        "Fig. 4.9",
        "RCP AFCT / lower bound 1.5 RTPD + L / C, all flows",
        CLOSE_TO_PS,
        ratio(float(table["fct_s"].mean()), float(table["lower_bound_s"].mean())) if table.height else None,
    )


def experiment() -> Experiment:
    s = Setup(2.4e9, 0.5, 0.9)
    base = dumbbell(s, pareto(30), 40.0, 10.0, **{"workload.0.kind": "pareto", "workload.0.shape": 1.2})
    intro = (
        "Pareto inter-arrival times (shape 1.2), Pareto sizes (mean 30 packets, shape 1.2), C = 2.4 Gb/s, "
        "RTPD 0.5 s, load 0.9, buffer 150 MB; arrivals for 40 s, 10 s warm-up. The thesis compares with the "
        "lower bound 1.5 RTPD + L/C (no PS formula for G/G/1); the exact PS fluid of the same flows needs no "
        "Poisson assumption and is given instead (the eq. 4.1 column is then only indicative). Thesis sec. "
        "4.2.4: qualitatively the same as with Poisson arrivals; RCP compares well with the lower bound. "
        "No numbers in the text: both statements are checked as RCP within 15% of the bound and of PS."
    )

    def analyze(runs: Runs, ctx: Context) -> str:
        lb = []
        for p in rr.PROTOCOLS:
            t = ra.pooled(runs, rr.run_name("pareto-arrivals", p), s.capacity, s.load)
            if p == "RCP":
                check_lower_bound(ctx, t)
            lb.append(
                [
                    p,
                    fmt(float(t["fct_s"].mean()), ".3f"),
                    fmt(float(t["lower_bound_s"].mean()), ".3f"),
                    fmt(float(t["fct_s"].mean() / t["lower_bound_s"].mean()), ".2f"),
                ]
            )
        return "\n\n".join(
            [
                intro,
                "AFCT over all measured flows against the lower bound:\n\n"
                + md_table(["protocol", "AFCT (s)", "lower bound (s)", "ratio"], lb),
                rr.size_section(
                    runs, ctx, "pareto-arrivals", s, "Fig. 4.9: Pareto arrivals", "", "sizes.png", claims=FIG49_CLAIMS
                ),
                rr.active_section(runs, ctx, [("pareto-arrivals", s, "Pareto arrivals")], (10.0, 40.0), "active.png"),
            ]
        )

    return Experiment(
        "fig4-9",
        "RCP thesis Fig. 4.9: Pareto flow arrivals",
        "ch4-setup1.toml",
        three("pareto-arrivals", base, bdp(s), s.rtpd),
        1,
        analyze,
        quick=quick_scale(0.3),
    )
