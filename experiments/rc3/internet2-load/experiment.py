"""RC3 paper Figs. 7, 8, 10 and 13 (sec. 5.1.1): the Internet-2 baseline at 10, 30 and 50% load,
TCP against RC3; the reduction per flow size beside the model, the FCT distributions of two flow
sizes, and the throughput per flow size."""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, md_table, reduction
from fctlab_experiments.rc3.common import FIG8, QUICK, RC3, SEG, TCP, merged
from fctlab_experiments.rc3.comparison import cut_table, mean_rtt, per_size, size_table, two_way_table
from fctlab_experiments.rc3.models import rc3_model_reduction

#: Fig. 7 (sec. 5.1.1): "for all but the smallest flows, we see gains of 40-75%" (%).
FIG7_GAINS = (40.0, 75.0)
#: TCP's initial window (segments): the paper's "smallest flows", "four packets or fewer", fit in it.
IW = 4


def points() -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{p}-{load}", merged(proto, {"workload.0.load": load / 100}))
        for load in (10, 30, 50)
        for p, proto in (("tcp", TCP), ("rc3", RC3))
    ]


def analyze(runs: Runs, ctx: Context) -> str:
    return "\n\n".join([_fig8(runs, ctx), _fig7(runs, ctx), _fig10(runs, ctx), _fig13(runs)])


def _fig8(runs: Runs, ctx: Context) -> str:
    """Fig. 8: mean FCTs and reductions at each load, checked; then the authors' cut of late flows."""
    return (
        "Internet-2, RTT x BW = 5 MB, TCP (NewReno, SACK, IW 4) against RC3 at 10, 30 and 50% load. "
        "Mean over seeds ± standard deviation across seeds. Flows starting in [2 s, 5 s) are measured; "
        "fctlab drains the network so every measured flow completes (the authors' script cut RC3 flows at 5 s "
        "and TCP flows at 10 s, which drops the slowest late flows from their averages).\n\n"
        "## Fig. 8: load\n\n"
        "fctlab's reductions are above the paper's, most at 50% load; "
        "[authors-code](../authors-code/) takes that gap apart against the authors' ns-3 code.\n\n"
        + two_way_table(
            runs,
            [(f"{load}% load", f"tcp-{load}", f"rc3-{load}", FIG8[load]) for load in (10, 30, 50)],
            ctx,
            "Fig. 8",
        )
        + "\n\n"
        + cut_table([(f"{load}%", f"tcp-{load}", f"rc3-{load}", FIG8[load]) for load in (10, 30, 50)], runs)
    )


def _fig7(runs: Runs, ctx: Context) -> str:
    """Fig. 7: the reduction per flow size at 30% load against the model, checked against the text."""
    df = per_size(runs, "tcp-30", "rc3-30")
    sizes, means, stds = size_table(df)
    rtt = mean_rtt(runs, "tcp-30")
    model = [rc3_model_reduction(s / SEG, 1e9, 0.3, rtt, 4) for s in sizes]
    # Fig. 7 has no numbers per size; its text gives two: gains of 40 - 75% for every size above the
    # initial window (its lowest and highest gain against that range), and for flows of <= 4
    # segments results *better* than the model, whose gain there is 0 (a range from 0: a size that
    # RC3 makes slower misses, whatever the tolerance).
    above = [m for s, m in zip(sizes, means, strict=True) if s > IW * SEG]
    within = [m for s, m in zip(sizes, means, strict=True) if s <= IW * SEG]
    ctx.check("Fig. 7", f"lowest FCT reduction of the flow sizes above {IW} segments (%)", FIG7_GAINS, min(above))
    ctx.check("Fig. 7", f"highest FCT reduction of the flow sizes above {IW} segments (%)", FIG7_GAINS, max(above))
    ctx.check(
        "Fig. 7", f"flows of <= {IW} segments: lowest FCT reduction, above the model's 0 (%)", (0.0, None), min(within)
    )
    rows = [
        [f"{s // SEG}", f"{s}", f"{mo:.1f}", f"{m:.1f} ± {sd:.1f}"] for s, mo, m, sd in zip(sizes, model, means, stds)
    ]
    with figure(ctx, "fig7.png", figsize=(6, 3.5), dpi=120) as (fig, ax):
        segs = [s / SEG for s in sizes]
        ax.errorbar(segs, means, yerr=stds, fmt="o-", capsize=3, label="fctlab simulation")
        ax.plot(segs, model, "s--", label=f"model (u = 0.3, RTT = {rtt * 1e3:.1f} ms)")
        ax.set_xscale("log")
        ax.set_xlabel("flow size (segments)")
        ax.set_ylabel("FCT reduction (%)")
        ax.legend()
    return (
        "## Fig. 7: reduction per flow size, model against simulation (30% load)\n\n"
        f"The model uses the measured flows' mean round-trip propagation ({rtt * 1e3:.1f} ms). The paper reports "
        "no gain up to the initial window (4 segments) and 40 - 75% for larger flows, simulation tracking the "
        "model, slightly below it for large flows (queueing) and above it for flows of <= 4 segments.\n\n"
        + md_table(["segments", "bytes", "model (%)", "fctlab (%)"], rows)
        + "\n\n![Fig. 7](fig7.png)"
    )


def _fig10(runs: Runs, ctx: Context) -> str:
    """Fig. 10: the FCT distributions of the 7.3 KB and 1.7 MB flows at 30% load, every percentile checked."""
    prow = []
    with figure(ctx, "fig10.png", 1, 2, figsize=(9, 3.5), dpi=120) as (fig, axes):
        for ax, size, label in ((axes[0], 7300, "7.3 KB"), (axes[1], 1733020, "1.7 MB")):
            pct = {}
            for name, style in (("tcp-30", "-"), ("rc3-30", "--")):
                fct = (
                    pl.concat([runs.sample(name, s) for s in runs.seeds_of(name)])
                    .filter(pl.col("size_bytes") == size)["fct_s"]
                    .sort()
                )
                n = len(fct)
                ax.plot(fct.to_list(), [(i + 1) / n for i in range(n)], style, label=name.split("-")[0].upper())
                q = [fct.quantile(p, "linear") for p in (0.01, 0.5, 0.99)]
                prow.append([label, name.split("-")[0].upper(), n] + [f"{x * 1e3:.1f}" for x in q])
                pct[name] = [fct.quantile(k / 100, "linear") for k in range(1, 100)] if n else []
            # Fig. 10 has no numbers; its text: RC3 improves every percentile, "even the 1st and
            # 99th" (a range from 0: one percentile where RC3 is slower misses, whatever the tolerance).
            worst = min((reduction(t, r) for t, r in zip(pct["tcp-30"], pct["rc3-30"], strict=True) if t), default=None)
            ctx.check(
                "Fig. 10",
                f"{label} flows: lowest FCT reduction over the 1st - 99th percentiles (%)",
                (0.0, None),
                worst,
            )
            ax.set_title(label)
            ax.set_xlabel("FCT (s)")
            ax.set_ylabel("CDF")
            ax.legend()
    return (
        "## Fig. 10: FCT distribution of the 7.3 KB and 1.7 MB flows (30% load)\n\n"
        "The paper shows the CDFs without numbers: RC3 improves every percentile, 1st to 99th, with steps at "
        "multiples of the path RTTs. fctlab's percentiles (ms, all seeds pooled):\n\n"
        + md_table(["flow size", "protocol", "flows", "p1", "p50", "p99"], prow)
        + "\n\n![Fig. 10](fig10.png)"
    )


def _fig13(runs: Runs) -> str:
    """Fig. 13: the median throughput per flow size at 30% load (no numbers in the paper: no check)."""
    sizes, _, _ = size_table(per_size(runs, "tcp-30", "rc3-30"))
    trow = []
    for size in sizes:
        vals = []
        for name in ("tcp-30", "rc3-30"):
            f = pl.concat([runs.sample(name, s) for s in runs.seeds_of(name)]).filter(pl.col("size_bytes") == size)
            vals.append(float((f["size_bytes"] * 8 / f["fct_s"]).median()) / 1e6)
        trow.append([f"{size // SEG}", f"{vals[0]:.2f}", f"{vals[1]:.2f}"])
    return (
        "## Fig. 13: median flow throughput (size / FCT, Mb/s) per flow size (30% load)\n\n"
        "The paper (no numbers in the text, so no check): TCP's throughput is near-optimal up to 4 segments, very "
        "low for medium flows and only slightly higher for the largest; RC3 keeps it high for every size, with a "
        "slight bias towards medium flows.\n\n" + md_table(["segments", "TCP (Mb/s)", "RC3 (Mb/s)"], trow)
    )


def experiment() -> Experiment:
    return Experiment(
        name="internet2-load",
        title="RC3 paper Figs. 7, 8, 10, 13: Internet-2 at 10, 30 and 50% load",
        base="internet2.toml",
        points=points(),
        seeds=3,
        analyze=analyze,
        quick=QUICK,
        point_seeds={"tcp-30": 10, "rc3-30": 10},
    )
