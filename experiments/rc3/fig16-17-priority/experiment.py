"""RC3 paper Figs. 16 and 17 (sec. 5.2): strict priority at a host NIC and at a router, two TCP
bulk flows at priorities 0 and 1 (the runs are `common.points_priority`, which the emulated paper
runs too)."""

from __future__ import annotations

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, plt
from fctlab_experiments.rc3.common import points_priority

#: The rate of Figs. 16 and 17's bottleneck (the sender's NIC, the router's port), bit/s.
PRIORITY_BOTTLENECK_BPS = 1e9


def analyze(runs: Runs, ctx: Context) -> str:
    pyplot = plt()
    fig, axes = pyplot.subplots(2, 2, figsize=(9, 6), sharex=True)
    rows = []
    for ax, name in zip(axes.flat, ("nic-high-first", "nic-low-first", "router-high-first", "router-low-first")):
        s = runs.series(name, runs.seeds[0]).filter(pl.col("metric") == "throughput_bps")
        for link, label in (("to_d0", "high priority"), ("to_d1", "low priority")):
            d = s.filter(pl.col("target") == link)
            ax.plot(d["time_s"].to_list(), (d["value"] / 1e6).to_list(), label=label)
            mid = d.filter((pl.col("time_s") > 1.2) & (pl.col("time_s") <= 1.9))["value"].mean()
            after = d.filter((pl.col("time_s") > 2.2) & (pl.col("time_s") <= 2.9))["value"].mean()
            before = d.filter((pl.col("time_s") > 0.3) & (pl.col("time_s") <= 0.9))["value"].mean()
            rows.append([name, label] + [f"{(x or 0) / 1e6:.0f}" for x in (before, mid, after)])
            # The figures show the high-priority flow taking the whole link while both run, and the
            # low-priority one taking it back once it ends: a share of the link of 1.
            figure = "Fig. 16" if name.startswith("nic") else "Fig. 17"
            if label == "high priority":
                share = None if mid is None else float(mid) / PRIORITY_BOTTLENECK_BPS  # type: ignore[arg-type]
                ctx.check(figure, f"{name}: high-priority flow's share of the link, 1.2 - 1.9 s", 1.0, share)
            elif name.endswith("low-first"):
                share = None if after is None else float(after) / PRIORITY_BOTTLENECK_BPS  # type: ignore[arg-type]
                ctx.check(figure, f"{name}: low-priority flow's share of the link after, 2.2 - 2.9 s", 1.0, share)
        ax.set_title(name)
        ax.set_ylabel("Mb/s")
        ax.legend(fontsize=8)
    for ax in axes[1]:
        ax.set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(ctx.out / "fig16-17.png", dpi=120)
    return (
        "Two TCP bulk flows, one at priority 0 and one at priority 1, sharing a 1 Gb/s bottleneck: the sender's "
        "NIC (Fig. 16: one host sends both) or a router's output port (Fig. 17: two hosts). One flow runs from "
        "0 to 3 s, the other from 1 to 2 s, in both orders; the NIC holds 512 packets, as in the paper's test. "
        "Expected (the paper's Linux and switch tests): the "
        "high-priority flow takes the link at once and gives it back when it ends. Mean throughput (Mb/s) "
        "before, during and after the overlap:\n\n"
        + md_table(["setup", "flow", "0.3-0.9 s", "1.2-1.9 s", "2.2-2.9 s"], rows)
        + "\n\n![Figs. 16 and 17](fig16-17.png)"
    )


def experiment() -> Experiment:
    return Experiment(
        name="fig16-17-priority",
        title="RC3 paper Figs. 16 and 17: strict priority at a NIC and at a router",
        base="internet2.toml",
        points=points_priority(),
        seeds=1,
        analyze=analyze,
    )
