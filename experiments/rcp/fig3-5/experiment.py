"""The RCP thesis (Dukkipati), Fig. 3.5 (sec. 3.2.1): one long-lived flow and four 125-packet flows
every round trip on a pipe of 1000 packets; R/C goes to 0.5 (the long flow's max-min share).

Base scenario `experiments/rcp/ch3-fig3-5.toml` (1000-byte packets, the thesis's gains alpha = 0.1,
beta = 1, the ns-2 code's starting state R = 0.05 C, d = 0.2 s). The thesis gives this figure as
a plot: where its text gives a number the README sets it beside fctlab's; elsewhere it states the
expected shape and checks it with numbers measured here.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, md_table
from fctlab.reproduce.series import link_series, settle_time, window_mean
from fctlab_experiments.rcp.analysis import MSS

RTT = 0.1
SHORT_PKTS = 125


def _fig35_short_flows(duration: float, spread: bool) -> list[dict[str, Any]]:
    """Four 125-packet flows every round trip: at its start (the caption), or a quarter apart."""
    out = []
    k = 0
    while k * RTT < duration:
        for j in range(4):
            start = k * RTT + (j * RTT / 4 if spread else 0.0)
            out.append({"src": f"l{j + 1}", "dst": f"r{j + 1}", "start": round(start, 9), "size": SHORT_PKTS * MSS})
        k += 1
    return out


FIG35_DURATION = 30.0
FIG35_QUICK = 20.0


def analyze_fig35(runs: Runs, ctx: Context) -> str:
    duration = runs.window("spread", runs.seeds_of("spread")[0])[1]
    rows = []
    labels = {"together": "four at the start of each RTT (the caption)", "spread": "a quarter RTT apart"}
    found: dict[str, tuple[float, float]] = {}
    with figure(ctx, "fig3-5.png", figsize=(7, 3.5), dpi=120) as (fig, ax):
        for name, label in labels.items():
            seed = runs.seeds_of(name)[0]
            series = runs.series(name, seed)
            capacity = float(runs.links(name, seed).filter(pl.col("name") == "bottleneck")["rate_bps"].item())
            b = link_series(series, "bottleneck").with_columns(
                r_over_c=pl.col("rcp_rate_bps") / capacity, utilization=pl.col("throughput_bps") / capacity
            )
            long = link_series(series, "l0->rl").select("time_s", long=pl.col("throughput_bps") / capacity)
            b = b.join(long, on="time_s").filter(pl.col("time_s") <= duration)
            tail = duration * 2 / 3
            short = runs.flows(name, seed).filter(
                (pl.col("size_bytes") > 0) & pl.col("fct_s").is_not_null() & (pl.col("start_s") > tail)
            )
            settled = settle_time(b["time_s"].to_list(), b["r_over_c"].to_list(), 0.5, 0.0, duration)
            found[name] = (window_mean(b, "r_over_c", tail, duration), window_mean(b, "utilization", tail, duration))
            ctx.check("Fig. 3.5", f"R/C in the last third, short flows {label}", 0.5, found[name][0])
            rows.append(
                [
                    label,
                    "0.5",
                    f"{window_mean(b, 'r_over_c', tail, duration):.3f}",
                    f"{window_mean(b, 'long', tail, duration):.3f}",
                    f"{window_mean(b, 'utilization', tail, duration):.3f}",
                    f"{window_mean(b, 'queue_bytes', tail, duration) / 1000:.1f}",
                    f"{float(short['fct_s'].mean()) * 1e3:.0f}",
                    "never" if settled is None else f"{settled:.1f}",
                ]
            )
            ax.plot(b["time_s"].to_list(), b["r_over_c"].to_list(), label=label)
        ax.axhline(0.5, color="k", ls="--", lw=0.8, label="max-min: R/C = 0.5")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("R(t) / C")
        ax.set_ylim(0, 1)
        ax.legend(fontsize=8)
    return (
        "A pipe of 1000 packets (80 Mb/s, 100 ms round trip, 1000-byte packets), one long-lived flow, and four "
        "short flows of 125 packets arriving every round trip. The thesis (sec. 3.2.1) says R/C converges to "
        "0.5: the short flows need half the pipe, max-min gives the long flow the other half (R = (C RTT - sum "
        "S(f)) / (n_B RTT)). The caption has the four short flows arrive at the start of every round trip; the "
        "second run spreads them a quarter of a round trip apart. Values over the last third of the run (from "
        f'{duration * 2 / 3:.0f} s); "reaches" is the time after which R/C stays within 10% of 0.5.\n\n'
        + md_table(
            [
                "short flows arrive",
                "thesis R/C",
                "fctlab R/C",
                "long flow's share of C",
                "utilization",
                "mean queue (kB)",
                "short flows' mean FCT (ms)",
                "reaches 0.5 ± 10% after (s)",
            ],
            rows,
        )
        + f"\n\nWith the arrivals spread over the round trip, R/C settles at {found['spread'][0]:.2f}, a few percent "
        "below 0.5 (the standing queue of Fig. 3.2). Arriving together, as the caption has it, the four short "
        "flows learn R from their SYN-ACKs and all send at R together with the long flow: at R = C/2 five flows "
        "would offer 2.5 C for the first quarter of each round trip, so a queue builds every round trip and eq. "
        f"3.3's queue term balances the spare capacity at a lower R: R/C settles at {found['together'][0]:.2f} and "
        f"the link runs at {found['together'][1]:.0%}. The thesis's 0.5 is reached only when the short flows do not "
        "all transmit at once.\n\n![Fig. 3.5](fig3-5.png)"
    )


def experiment() -> Experiment:
    """Fig. 3.5: the short flows arriving together (the caption) and a quarter RTT apart."""
    # The short flows are listed for the full run; a quick run just stops earlier.
    return Experiment(
        name="fig3-5",
        title="RCP thesis Fig. 3.5: short flows beside a long flow, R/C goes to 0.5",
        base="ch3-fig3-5.toml",
        points=[
            (
                name,
                {
                    "duration": FIG35_DURATION,
                    "workload.1.flows": _fig35_short_flows(FIG35_DURATION, name == "spread"),
                },
            )
            for name in ("together", "spread")
        ],
        seeds=1,
        analyze=analyze_fig35,
        quick={"duration": FIG35_QUICK, "drain": False},
    )
