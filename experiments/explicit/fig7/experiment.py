"""Seed 003 Fig. 7 (sec. IV-F): mice beside a long flow on a 1 Gb/s bottleneck; the router's
input rate and utilization, the long flow's rate and the queue once the mice run. Base scenario
`experiments/explicit/mice.toml`."""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.quantity import parse_time
from fctlab.reproduce.framework import Context, Experiment, Runs, fmt
from fctlab.reproduce.series import drops, span_stat
from fctlab_experiments.explicit.protocols import PROTOCOLS, long_lived, mss, protocol_overrides, quick
from fctlab_experiments.explicit.rates import bottleneck_input, flow_rates, port_series, protocols_in
from fctlab_experiments.explicit.report import paper_table, rate_queue_plot

#: Fig. 7: the long flow (source, destination, start, stop), the mice's first arrival, the end.
FIG7_LONG = [("l0", "r0", 0.0, 90.0)]
FIG7_MICE_START = 30.0
FIG7_END = 90.0
#: Fig. 7's mice: Poisson arrivals every 0.2 s, Pareto sizes of shape 1.4, mean 100 packets.
MICE_SHAPE = 1.4
MICE_MEAN_PKTS = 100


def _mice(p: str) -> dict[str, Any]:
    return {"kind": "pareto", "shape": MICE_SHAPE, "mean": MICE_MEAN_PKTS * mss(p), "round_to": mss(p)}


def experiment() -> Experiment:
    """Fig. 7: the router's input rate when mice join a long flow."""
    points = [
        (
            p,
            {
                **protocol_overrides(p, ["bottleneck"]),
                "duration": FIG7_END,
                "workload.0.flows": long_lived(FIG7_LONG),
                "workload.1.start": FIG7_MICE_START,
                "workload.1.stop": FIG7_END,
                "workload.1.sizes": _mice(p),
            },
        )
        for p in PROTOCOLS
    ]
    return Experiment(
        name="fig7",
        title="Seed 003 Fig. 7: mice beside a long flow on a 1 Gb/s bottleneck",
        base="mice.toml",
        points=points,
        seeds=1,
        analyze=analyze_fig7,
        quick=quick(),
    )


def _fig7_run(runs: Runs, p: str, seed: int) -> dict[str, Any]:
    at = parse_time(runs.scenario(p, seed)["workload"][1]["start"], "start")
    end = runs.window(p, seed)[1]
    inp, link = bottleneck_input(runs, p, seed), port_series(runs, p, seed, "bottleneck")
    long = flow_rates(runs, p, seed, [0])
    mice = runs.flows(p, seed).filter((pl.col("workload") == "mice") & (pl.col("start_s") < end))
    with_mice = link.filter(pl.col("time_s") > at)["active_flows"]
    return {
        "busy": float((with_mice > 1).mean()) if len(with_mice) else None,
        "fct": float(mice["fct_s"].mean()) if mice["fct_s"].is_not_null().any() else None,
        "rtt": float(runs.flows(p, seed)["rtt_prop_s"][0]),
        "before": span_stat(link, "util", at / 2, at),
        "q05": span_stat(inp, "input_bps", at, end, "q05"),
        "q95": span_stat(inp, "input_bps", at, end, "q95"),
        "max": span_stat(inp, "input_bps", at, end, "max"),
        "after": span_stat(link, "util", at, end),
        "peak": span_stat(link, "queue_pkts", at, end, "max"),
        "long": span_stat(long, "flow0", at, end),
        "mice": (mice.height, mice["fct_s"].is_not_null().sum(), mice["size_bytes"].sum() * 8 / max(end - at, 1e-9)),
        "drops": drops(runs, p, seed, "bottleneck"),
        "plot": (inp.join(long, on="time_s", how="left").rename({"flow0": "long flow"}), link),
    }


#: Seed 003 sec. IV-F: with the mice, XCP's input "fluctuates between 800 and 970" Mb/s, and JetMax
#: uses only 10-20% of C.
PAPER_XCP_INPUT_BPS = (800e6, 970e6)
PAPER_JETMAX_UTIL = (0.10, 0.20)


def _fig7_checks(ctx: Context, got: dict[str, dict[str, Any]], ps: list[str]) -> None:
    """The paper's numbers of Fig. 7: XCP's and RCP's utilization alone ("close to 100%", "around
    C": 1), XCP's input range with the mice (its 5th and 95th percentiles), JetMax's utilization with
    the mice, and no drops."""
    for p, says in (("xcp", "close to 100%"), ("rcp", "around C")):
        if p in got:
            ctx.check("Fig. 7", f"{p}: utilization, long flow alone ({says})", 1.0, got[p]["before"])
    if "xcp" in got:
        low, high = PAPER_XCP_INPUT_BPS
        for key, pct in (("q05", "5th"), ("q95", "95th")):
            v = got["xcp"][key]
            ctx.check(
                "Fig. 7",
                f"xcp: input with mice, {pct} percentile of 100 ms means (Mb/s)",
                (low / 1e6, high / 1e6),
                None if v is None else v / 1e6,
            )
    if "jetmax" in got:
        ctx.check("Fig. 7", "jetmax: utilization with mice (mean)", PAPER_JETMAX_UTIL, got["jetmax"]["after"])
    for p in ps:
        ctx.check("sec. IV", f"{p}: packets dropped at the bottleneck", 0.0, got[p]["drops"])


def _fig7_rows(got: dict[str, dict[str, Any]], ps: list[str]) -> list[tuple[str, str, dict[str, str]]]:
    def row(key: str, spec: str = ".0f", scale: float = 1e6) -> dict[str, str]:
        return {p: fmt(got[p][key], spec, scale) for p in ps}

    return [
        (
            "utilization, long flow alone (second half before the mice)",
            "XCP: close to 100%; RCP: around C; JetMax: high",
            row("before", ".3f", 1.0),
        ),
        (
            "input with mice, 5th-95th percentile of 100 ms means (Mb/s)",
            "XCP: fluctuates between 800 and 970; JetMax: 10-20% of C",
            {p: f"{fmt(got[p]['q05'], '.0f', 1e6)}-{fmt(got[p]['q95'], '.0f', 1e6)}" for p in ps},
        ),
        ("utilization with mice (mean)", "XCP, RCP, PIQI-RCP: high; JetMax: 10-20%", row("after", ".3f", 1.0)),
        (
            "highest input with mice, 100 ms mean (Mb/s)",
            "RCP: overshoots C by huge margins; PIQI-RCP: very close to gamma C, no big overshoot",
            row("max"),
        ),
        ("peak queue with mice (packets)", "RCP: high queue levels (large buffers needed)", row("peak", ".0f", 1.0)),
        ("long flow's mean rate with mice (Mb/s)", "JetMax: the long flow is penalized", row("long")),
        (
            "mice started / completed; their offered load (Mb/s)",
            "one per 0.2 s, mean 100 packets (about 6 Mb/s)",
            {p: f"{got[p]['mice'][0]} / {got[p]['mice'][1]}; {fmt(got[p]['mice'][2], '.1f', 1e6)}" for p in ps},
        ),
        ("packets dropped at the bottleneck", "none in any experiment", {p: str(got[p]["drops"]) for p in ps}),
    ]


def analyze_fig7(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    ps = protocols_in(runs)
    got = {p: _fig7_run(runs, p, seed) for p in ps}
    _fig7_checks(ctx, got, ps)
    panels = {p: (got[p]["plot"][0], got[p]["plot"][1].select("time_s", "queue_pkts")) for p in ps}
    rate_queue_plot(ctx, "fig7.png", panels, rate_label="rate", rate_max=1300)
    return (
        f"A long flow from t = 0 through a 1 Gb/s bottleneck (50 ms round trip); from {FIG7_MICE_START:.0f} s at full "
        "scale a second sender starts mice: Poisson arrivals every 0.2 s, Pareto sizes of shape 1.4 and mean 100 "
        "packets (sec. IV-F). The input is what reaches the bottleneck's queue, in 100 ms means; the utilization "
        "is its departures over C.\n\n"
        + paper_table(_fig7_rows(got, ps), ps)
        + "\n\n![Fig. 7: the bottleneck's input rate and the long flow's rate, and the queue](fig7.png)\n\n"
        + "\n\n".join(n for n in (_fig7_xcp(got), _fig7_rcp(got), _fig7_jetmax(got)) if n)
    )


def _fig7_xcp(got: dict[str, dict[str, Any]]) -> str:
    if "xcp" not in got or got["xcp"]["after"] is None:
        return ""
    x = got["xcp"]
    return (
        f"**XCP** keeps {x['after']:.1%} of the link on average once the mice run, its input between "
        f"{fmt(x['q05'], '.0f', 1e6)} and {fmt(x['q95'], '.0f', 1e6)} Mb/s (5th-95th percentile): less of a loss "
        "than the paper's 800-970 Mb/s (82-100% of its 970 Mb/s). The paper blames feedback handed to mice that "
        "leave before using it; how much that costs depends on how its mice were sent (initial window, slow "
        "start), which the seed does not give, so the gap is not explained here."
    )


def _fig7_rcp(got: dict[str, dict[str, Any]]) -> str:
    if "rcp" not in got or got["rcp"]["max"] is None:
        return ""
    r = got["rcp"]
    return (
        f"**RCP**'s input reaches {fmt(r['max'], '.0f', 1e6)} Mb/s in a 100 ms mean and dips to "
        f"{fmt(r['q05'], '.0f', 1e6)} Mb/s (5th percentile); its queue peaks at {fmt(r['peak'], '.0f')} packets: every "
        "mouse is handed the current R, close to C, on its SYN-ACK, the queue that builds drives R down, and the "
        "link is underused until R climbs back, the overshoot-then-drop the paper shows at 55 s, here at a "
        'smaller scale than its "huge margins".'
    )


def _fig7_jetmax(got: dict[str, dict[str, Any]]) -> str:
    if "jetmax" not in got or got["jetmax"]["after"] is None:
        return ""
    j = got["jetmax"]
    return (
        f"**JetMax** loses the most, as the paper says, but far less: {j['after']:.1%} utilization on average "
        f"(5th percentile {fmt(j['q05'], '.0f', 1e6)} Mb/s) against the paper's 10-20%. A mouse is active "
        f"{fmt(j['busy'], '.0%')} of the time (its mean FCT is {fmt(j['fct'], '.0f', 1e-3)} ms, "
        f"{fmt(None if j['fct'] is None else j['fct'] / j['rtt'], '.1f')} round trips, handshake included); while "
        "it is counted in N_l the router offers the long flow half of gamma C, and the long flow needs a few "
        "round trips (tau = 0.6 per RTT) to climb back after the mouse leaves. fctlab counts a flow in N_l from "
        "the inter-packet intervals of the packets it sends in an interval; the paper's 10-20% needs N_l of "
        "about 5-10 on average, i.e. each mouse counted long after it ends, or many at once. The seed does not "
        "say how its routers aged that estimate."
    )
