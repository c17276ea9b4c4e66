"""Seed 003 Fig. 5 (sec. IV-B, RTT unfairness): a 220 ms flow alone on a 1 Gb/s bottleneck, then
beside a 30 ms one; plus a control run of XCP with 10 Gb/s access links, to show why its queue
spikes when the second flow joins. Base scenario `experiments/explicit/rtt-unfairness.toml`."""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce import checks
from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table
from fctlab.reproduce.series import (
    capacity,
    clears,
    first_below,
    first_reach,
    link_series,
    long_flows,
    settles,
    span,
    span_stat,
)
from fctlab_experiments.explicit.protocols import JETMAX_GAMMA, WIRE, long_flow_points, mss, quick, utilization
from fctlab_experiments.explicit.rates import flow_rates, port_series, protocols_in
from fctlab_experiments.explicit.report import paper_table, rate_queue_plot

#: Fig. 5's flows: x1 (220 ms) from 0, x2 (30 ms) from 30 s; the paper plots to 80 s.
FIG5_FLOWS = [("h1", "d1", 0.0, 80.0), ("h2", "d2", 30.0, 80.0)]
FIG5_END = 80.0
#: Fig. 5's control run: XCP with 10 Gb/s access links (topology links 1 and 2), to test why its
#: queue spikes when x2 joins.
FAST_ACCESS = {"topology.links.1.rate": "10Gbps", "topology.links.2.rate": "10Gbps"}
#: A queue counts as cleared below this many packets (1.2 ms at 1 Gb/s).
CLEAR_PKTS = 100
#: Fairness band: a flow has converged within this fraction of its share.
BAND = 0.10


def experiment() -> Experiment:
    """Fig. 5: a 220 ms flow alone, then beside a 30 ms flow; plus XCP with fast access links."""
    points = long_flow_points(["bottleneck"], FIG5_FLOWS, FIG5_END)
    points += [(f"{p}-fast-access", {**o, **FAST_ACCESS}) for p, o in points if p == "xcp"]
    return Experiment(
        name="fig5",
        title="Seed 003 Fig. 5: RTT unfairness, a 220 ms flow and a 30 ms flow on 1 Gb/s",
        base="rtt-unfairness.toml",
        points=points,
        seeds=1,
        analyze=analyze_fig5,
        quick=quick(),
    )


#: Seed 003 sec. IV-B: RCP takes "nearly 10 seconds" to bring x1 to its rate, and "over 5 seconds"
#: after x2 joins to clear the queue and give both flows their fair share.
PAPER_RCP_REACH_S = 10.0
PAPER_RCP_FAIR_S = 5.0


def _fig5_run(runs: Runs, p: str, seed: int) -> dict[str, Any]:
    (s1, _), (join, _) = long_flows(runs, p, seed)
    end = runs.window(p, seed)[1]
    link = port_series(runs, p, seed, "bottleneck")
    rates = flow_rates(runs, p, seed, [0, 1])
    target = utilization(p.removesuffix("-fast-access")) * capacity(runs, p, seed, "bottleneck")
    fair = [settles(rates, f"flow{i}", target / 2, join, end, BAND) for i in (0, 1)]
    a = (join + end) / 2
    return {
        "reach": first_reach(span(rates, s1, join), "flow0", 0.95 * target, s1),
        "alone": join - s1,
        "peak": span_stat(link, "queue_pkts", join, end, "max"),
        "clear": clears(link, "queue_pkts", CLEAR_PKTS, join, end),
        "fair": None if None in fair else max(f for f in fair if f is not None),
        "x1": span_stat(rates, "flow0", a, end),
        "x2": span_stat(rates, "flow1", a, end),
        "r_low": span_stat(link, "rcp_rate_bps", join, end, "min"),
        "cap": capacity(runs, p, seed, "bottleneck"),
        "join": join,
        "plot": (rates, link.select("time_s", "queue_pkts")),
    }


def _fig5_rows(got: dict[str, dict[str, Any]], ps: list[str]) -> list[tuple[str, str, dict[str, str]]]:
    def row(key: str, spec: str = ".1f", scale: float = 1.0) -> dict[str, str]:
        return {p: fmt(got[p][key], spec, scale) for p in ps}

    return [
        (
            "x1 alone: time to reach 95% of the target rate (s)",
            "XCP, JetMax: almost instantaneous; RCP: nearly 10 s; PIQI-RCP: faster than RCP",
            {
                p: fmt(got[p]["reach"], ".1f") if got[p]["reach"] is not None else f"not in {got[p]['alone']:.0f} s"
                for p in ps
            },
        ),
        ("peak queue after x2 joins (packets)", "RCP: builds a queue; XCP: x2 oscillates slightly", row("peak", ".0f")),
        (
            f"queue below {CLEAR_PKTS} packets for good, after the join (s)",
            "RCP: over 5 s to clear it and share fairly",
            row("clear"),
        ),
        (
            f"both flows within {BAND:.0%} of an equal share for good (s)",
            "XCP, JetMax: almost immediately; PIQI-RCP: almost instantaneously",
            row("fair"),
        ),
        (
            "x1 / x2, second half after the join (Mb/s)",
            "equal shares, whatever the RTT",
            {p: f"{fmt(got[p]['x1'], '.1f', 1e6)} / {fmt(got[p]['x2'], '.1f', 1e6)}" for p in ps},
        ),
    ]


def analyze_fig5(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    ps = protocols_in(runs)
    got = {p: _fig5_run(runs, p, seed) for p in ps}
    if "rcp" in got:
        r = got["rcp"]
        ctx.check("Fig. 5", "rcp: x1 alone, time to reach 95% of the target rate (s)", PAPER_RCP_REACH_S, r["reach"])
        ctx.check(
            "Fig. 5",
            f"rcp: both flows within {BAND:.0%} of an equal share, after the join (s)",
            (PAPER_RCP_FAIR_S, None),
            r["fair"],
        )
    for p in ps:
        x1_over_x2 = checks.ratio(got[p]["x1"], got[p]["x2"])
        ctx.check("Fig. 5", f"{p}: x1 / x2, second half after the join (equal shares)", 1.0, x1_over_x2)
    panels = {p: got[p]["plot"] for p in ps}
    rate_queue_plot(ctx, "fig5.png", panels, rate_max=1100)
    return (
        "A 1 Gb/s bottleneck with 15 ms of delay; x1's access link has 95 ms (round trip 220 ms), x2's none "
        "(30 ms). x1 starts at 0, x2 at 30 s (sec. IV-B). The target rate is C times the protocol's utilization "
        "target (JetMax's gamma); the rates are averaged over two of each flow's round trips.\n\n"
        + paper_table(_fig5_rows(got, ps), ps)
        + "\n\n![Fig. 5: sending rates of x1 (220 ms) and x2 (30 ms), and the bottleneck queue](fig5.png)\n\n"
        + "\n\n".join(n for n in (_fig5_rcp(got), _fig5_jetmax(got), _xcp_spike(runs, ctx, seed, got)) if n)
    )


def _fig5_rcp(got: dict[str, dict[str, Any]]) -> str:
    if "rcp" not in got:
        return ""
    r = got["rcp"]
    return (
        f"**RCP** brings x1 within 5% of C {fmt(r['reach'], '.1f')} s after it starts (the paper: nearly 10 s): from "
        "the ns-2 cold start R = 0.05 C, eq. 5 raises R by at most alpha (T / d) per 10 ms interval while the "
        f"link is underused. When x2 joins it is handed R = C at once, so the queue peaks at {fmt(r['peak'], '.0f')} "
        f"packets; the queue term then drives R down to {fmt(r['r_low'], '.0f', 1e6)} Mb/s, which empties the "
        f"queue in {fmt(r['clear'], '.1f')} s but leaves the link underused until R climbs back, and the two "
        f"flows share equally only {fmt(r['fair'], '.1f')} s after the join. The paper's \"over 5 seconds on "
        'clearing the built-up queue and giving both flows their fair share" matches the second number; its '
        "queue is not plotted, so how long it took to clear alone is unknown."
    )


def _fig5_jetmax(got: dict[str, dict[str, Any]]) -> str:
    if "jetmax" not in got or got["jetmax"]["peak"] is None:
        return ""
    j = got["jetmax"]
    admitted = JETMAX_GAMMA * j["cap"] / 2
    return (
        f"**JetMax** shares equally {fmt(j['fair'], '.1f')} s after x2 joins (the paper: almost immediately), "
        f"but its queue peaks at {fmt(j['peak'], '.0f')} packets. x2 is admitted at g = gamma C / 2 "
        f"on its SYN, while x1 "
        "keeps gamma C until the lower g reaches it: the peak is "
        f"{j['peak'] * WIRE * 8 / admitted * 1e3:.0f} ms of x2's rate, about x1's 220 ms round trip plus "
        "JetMax's 100 ms interval. Eq. 4 has no queue term, so the queue drains only at (1 - gamma) C = "
        f"{(1 - JETMAX_GAMMA) * j['cap'] / 1e6:.0f} Mb/s: {j['peak'] * WIRE * 8 / ((1 - JETMAX_GAMMA) * j['cap']):.1f} "
        f"s for that peak; it is below {CLEAR_PKTS} packets {fmt(j['clear'], '.1f')} s after the join. The paper "
        "shows no JetMax queue for this figure."
    )


def _xcp_state(runs: Runs, name: str, seed: int, join: float) -> dict[str, float | None]:
    """x1's window and its NIC's queue just before the join, and the router's queue peak after it."""
    series = runs.series(name, seed)
    cwnd = series.filter((pl.col("metric") == "cwnd_bytes") & (pl.col("target") == "flow0")).sort("time_s")
    cwnd = cwnd.select("time_s", cwnd_pkts=pl.col("value") / mss("xcp"))
    nic = link_series(series, "x1_access").with_columns(queue_pkts=pl.col("queue_bytes") / WIRE)
    router = port_series(runs, name, seed, "bottleneck")
    end = runs.window(name, seed)[1]
    rtt = float(runs.flows(name, seed)["rtt_prop_s"][0])
    return {
        "cwnd_max": span_stat(cwnd, "cwnd_pkts", 0.0, join, "max"),
        "ramp_peak": span_stat(router, "queue_pkts", 0.0, join, "max"),
        "cwnd": span_stat(cwnd, "cwnd_pkts", join - 1.0, join),
        "bdp": capacity(runs, name, seed, "bottleneck") * rtt / 8 / WIRE,
        "nic": span_stat(nic, "queue_pkts", join - 1.0, join),
        "router": span_stat(router, "queue_pkts", join - 1.0, join),
        "nic_empty": first_below(nic, "queue_pkts", 1.0, join),
        "peak": span_stat(router, "queue_pkts", join, end, "max"),
    }


def _xcp_spike(runs: Runs, ctx: Context, seed: int, got: dict[str, dict[str, Any]]) -> str:
    if "xcp" not in got or "xcp-fast-access" not in runs.names:
        return ""
    join = got["xcp"]["join"]
    slow, fast = (_xcp_state(runs, n, seed, join) for n in ("xcp", "xcp-fast-access"))
    rows = [
        ["x1's largest window while alone (packets)", fmt(slow["cwnd_max"], ".0f"), fmt(fast["cwnd_max"], ".0f")],
        [
            "bottleneck queue's peak while x1 is alone (packets)",
            fmt(slow["ramp_peak"], ".0f"),
            fmt(fast["ramp_peak"], ".0f"),
        ],
        ["x1's window in the second before x2 joins (packets)", fmt(slow["cwnd"], ".0f"), fmt(fast["cwnd"], ".0f")],
        ["x1's bandwidth-delay product, C x 220 ms (packets)", fmt(slow["bdp"], ".0f"), fmt(fast["bdp"], ".0f")],
        ["x1's NIC queue in that second (packets)", fmt(slow["nic"], ".0f"), fmt(fast["nic"], ".0f")],
        ["bottleneck queue in that second (packets)", fmt(slow["router"], ".0f"), fmt(fast["router"], ".0f")],
        [
            "x1's NIC queue first empty, after the join (s)",
            fmt(slow["nic_empty"], ".2f"),
            fmt(fast["nic_empty"], ".2f"),
        ],
        ["peak bottleneck queue after the join (packets)", fmt(slow["peak"], ".0f"), fmt(fast["peak"], ".0f")],
    ]
    _xcp_join_plot(runs, ctx, seed, join)
    x = got["xcp"]
    return (
        f"**XCP** brings x1 to 95% of C in {fmt(x['reach'], '.1f')} s, but when x2 joins its queue peaks at "
        f"{fmt(x['peak'], '.0f')} packets, is below {CLEAR_PKTS} packets "
        f"only {fmt(x['clear'], '.1f')} s later, and the "
        f"flows share equally after {fmt(x['fair'], '.1f')} s (the paper: fairness almost immediately, small "
        "oscillations of x2). The two XCP runs below differ only in the access links' rate, the paper's 1 Gb/s "
        "and 10 Gb/s:\n\n"
        + md_table(["quantity", "XCP, 1 Gb/s access (the paper's)", "XCP, 10 Gb/s access"], rows)
        + "\n\n![XCP around x2's join: bottleneck queue, x1's NIC queue, x1's window](fig5-xcp-join.png)\n\n"
        + _xcp_why(slow, fast)
    )


def _xcp_why(slow: dict[str, float | None], fast: dict[str, float | None]) -> str:
    ratio = None if slow["cwnd"] is None else slow["cwnd"] / float(slow["bdp"] or 1)
    return (
        "While x1 ramps up, XCP's positive feedback (computed from the spare bandwidth of the interval before) "
        f"overshoots the pipe: x1's window ends at {fmt(slow['cwnd'], '.0f')} packets, {fmt(ratio, '.2f')} times its "
        f"{fmt(slow['bdp'], '.0f')}-packet pipe. With a 1 Gb/s access link, no faster than the bottleneck, the "
        f"{fmt(slow['nic'], '.0f')} packets beyond the pipe wait in x1's own NIC: the router sees y = C and an empty "
        "queue, so eq. 1 gives phi = 0 and nothing trims the window. When x2 joins, the router's shuffling shrinks "
        "x1's window, but x1's NIC keeps feeding the bottleneck at 1 Gb/s until it is empty "
        f"({fmt(slow['nic_empty'], '.2f')} s after the join) while x2 adds its own packets: the backlog moves from "
        f"the NIC to the router, {fmt(slow['peak'], '.0f')} packets. With 10 Gb/s access links the ramp's overshoot "
        f"queues at the router instead ({fmt(fast['ramp_peak'], '.0f')} packets, x1's window up to "
        f"{fmt(fast['cwnd_max'], '.0f')}), where eq. 1's beta Q term removes it long before x2 arrives: x1's window is "
        f"its pipe ({fmt(fast['cwnd'], '.0f')} packets), its NIC holds {fmt(fast['nic'], '.0f')}, "
        f"and the join peaks at "
        f"{fmt(fast['peak'], '.0f')} packets. The paper's hosts had 1 Gb/s NICs too, but it reports no such spike; "
        "how its Linux XCP sender bounded the window (socket buffers, cwnd clamps) is not in the seed."
    )


def _xcp_join_plot(runs: Runs, ctx: Context, seed: int, join: float) -> None:
    with figure(ctx, "fig5-xcp-join.png", 2, 1, figsize=(8, 5), sharex=True) as (fig, axes):
        for name, style in (("xcp", "-"), ("xcp-fast-access", "--")):
            series = runs.series(name, seed)
            lo, hi = join - 2.0, join + 8.0
            for link, color in (("bottleneck", "C3"), ("x1_access", "C0")):
                q = link_series(series, link).filter((pl.col("time_s") > lo) & (pl.col("time_s") <= hi))
                axes[0].plot(
                    q["time_s"], q["queue_bytes"] / WIRE, style, color=color, lw=0.9, label=f"{name}: {link} queue"
                )
            w = series.filter((pl.col("metric") == "cwnd_bytes") & (pl.col("target") == "flow0"))
            w = w.filter((pl.col("time_s") > lo) & (pl.col("time_s") <= hi)).sort("time_s")
            axes[1].plot(w["time_s"], w["value"] / mss("xcp"), style, color="C2", lw=0.9, label=f"{name}: x1's window")
        axes[0].set_ylabel("packets")
        axes[1].set_ylabel("x1's cwnd (packets)")
        axes[1].set_xlabel("time (s)")
        for ax in axes:
            ax.legend(fontsize=7)
