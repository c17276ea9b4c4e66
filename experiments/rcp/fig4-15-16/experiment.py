"""The RCP thesis, Figs. 4.15 and 4.16 (sec. 4.3.3): ten groups of flows of round-trip propagation
delays 20 to 200 ms on one 640 Mb/s bottleneck (`experiments/rcp/ch4-rtt-groups.toml`): AFCT per
group, and against flow size for the 20 ms and the 200 ms group.

Every configuration runs RCP, TCP and XCP on the same flows (`dumbbell.three`); PS is the exact
max-min fluid of each run's own flows + 1.5 RTPD. Paper numbers come from the thesis's text; where
it gives none, the report compares shapes and says so.
"""

from __future__ import annotations

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table
from fctlab_experiments.rcp import analysis as ra
from fctlab_experiments.rcp import reports as rr
from fctlab_experiments.rcp.dumbbell import protocol, quick_scale
from fctlab_experiments.rcp.reports import CLOSE_TO_PS, Setup

#: The ten groups' round-trip propagation delays (s), g0 to g9 of ch4-rtt-groups.toml.
GROUPS = [0.02 * (k + 1) for k in range(10)]


def experiment() -> Experiment:
    s = Setup(640e6, 0.1, 0.9)
    base = {"duration": 40.0, "measure_from": 5.0}
    intro = (
        "Ten groups of flows, RTPD 20, 40, ..., 200 ms, share a 640 Mb/s bottleneck (its own round trip "
        "10 ms), equal arrival rates, total load 0.9, Pareto sizes (mean 25 packets, shape 1.2), buffer 16 MB "
        "(C x 200 ms); arrivals for 40 s, 5 s warm-up. Thesis sec. 4.3.3: for every RTPD RCP is close to PS, "
        "not biased towards short round trips, and close to the minimum AFCT of each group. No numbers in "
        "the text. The eq. 4.1 column uses each flow's own RTPD."
    )

    def analyze(runs: Runs, ctx: Context) -> str:
        tables = {p: ra.pooled(runs, rr.run_name("groups", p), s.capacity, s.load) for p in rr.PROTOCOLS}
        rows = []
        series: dict[str, list[float]] = {p: [] for p in rr.PROTOCOLS + ("PS",)}
        for k, rtpd in enumerate(GROUPS):
            row = [f"{rtpd * 1e3:.0f}"]
            for i, p in enumerate(rr.PROTOCOLS):
                g = tables[p].filter(pl.col("workload") == f"g{k}")
                if i == 0:
                    ps = float(g["ps_fct_s"].mean())
                    row += [str(g.height), fmt(ps, ".3f"), fmt(float(g["ps_curve_s"].mean()), ".3f")]
                    series["PS"].append(ps)
                a = float(g["fct_s"].mean())
                series[p].append(a)
                if p == "RCP":
                    ctx.check("Fig. 4.15", f"RCP AFCT / PS, group of RTPD {rtpd * 1e3:.0f} ms", CLOSE_TO_PS, a / ps)
                row += [fmt(a, ".3f"), fmt(a / ps, ".2f")]
            rows.append(row)
        with figure(ctx, "groups.png", figsize=(6, 4)) as (fig, ax):
            for p in rr.PROTOCOLS + ("PS",):
                ax.plot([g * 1e3 for g in GROUPS], series[p], "k--" if p == "PS" else rr.STYLE[p], label=p)
            ax.set_xlabel("group RTPD (ms)")
            ax.set_ylabel("AFCT (s)")
            ax.set_yscale("log")
            ax.legend(fontsize=7)
        header = ["RTPD (ms)", "flows", "PS (s)", "eq. 4.1 (s)"]
        for p in rr.PROTOCOLS:
            header += [f"{p} (s)", f"{p}/PS"]
        return "\n\n".join(
            [
                intro,
                "## Fig. 4.15: AFCT per group\n\n" + md_table(header, rows) + "\n\n![groups](groups.png)",
                rr.size_section(
                    runs, ctx, "groups", s, "Fig. 4.16: the 20 ms group", "", "sizes-20ms.png", workload="g0"
                ),
                rr.size_section(
                    runs, ctx, "groups", s, "Fig. 4.16: the 200 ms group", "", "sizes-200ms.png", workload="g9"
                ),
            ]
        )

    pts = [(rr.run_name("groups", p), {**base, **protocol(p.lower(), 16e6, 0.1)}) for p in rr.PROTOCOLS]
    return Experiment(
        "fig4-15-16",
        "RCP thesis Figs. 4.15, 4.16: flows of ten RTPDs on one bottleneck",
        "ch4-rtt-groups.toml",
        pts,
        1,
        analyze,
        quick=quick_scale(0.3),
    )
