"""The RCP thesis (Dukkipati), chapter 6: RCP where not every router runs it.

Fig. 6.17 (sec. 6.2.2): an R-TCP flow whose path crosses a non-RCP bottleneck must notice and
fall back to TCP ("within 10 RTTs", "no false positives"). The base scenario is
`experiments/rcp/ch6-fig6-17.toml`; the runs are the fallback as fctlab has it by default, the
same without it (the control), a drop-tail buffer of a tenth of the bandwidth-delay product
(losses before the RTT doubles) and an all-RCP path where the joiner is another R-TCP flow (the
false-positive check).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table, window_stat

#: When the second flow joins and when the run ends, full scale (s).
JOIN, END = 150.0, 200.0
#: Quick mode runs this fraction of the schedule.
QUICK_SCALE = 0.1
#: A switch shows as the R-TCP flow's sending rate falling below this fraction of its rate
#: before the join (a switch on a doubled RTT halves the window).
SWITCH_DROP = 0.75
#: Link capacity (bit/s) of both links of the base scenario.
CAPACITY = 100e6

POINTS: list[tuple[str, dict[str, Any]]] = [
    ("fallback", {}),
    ("no-fallback", {"transport.fallback": False}),
    ("small-buffer", {"queues.router.limit": "50KB"}),
    (
        "all-rcp",
        {
            "queues.links.l_tail": {"kind": "rcp", "limit": "2MB", "initial_rate": 1.0},
            "transports.tcp.protocol": "rtcp",
        },
    ),
]


def _schedule(scale: float) -> dict[str, Any]:
    return {
        "duration": END * scale,
        "workload.1.flows": [{"src": "s1", "dst": "d1", "start": JOIN * scale}],
    }


def _run(runs: Runs, name: str, seed: int) -> dict[str, Any]:
    w = runs.wide_series(name, seed)
    join = float(runs.scenario(name, seed)["workload"][1]["flows"][0]["start"])
    end = runs.window(name, seed)[1]
    rtt, rtt_joiner = (float(x) for x in runs.flows(name, seed)["rtt_prop_s"][:2])
    before = window_stat(w, "flow0_send_rate_bps", join - 10 * rtt, join)
    after = w.filter((pl.col("time_s") > join) & (pl.col("flow0_send_rate_bps") < SWITCH_DROP * (before or 0)))
    switch = float(after["time_s"][0]) - join if after.height else None
    steady = (join + end) / 2
    links = runs.links(name, seed)
    return {
        "rtt": rtt,
        "rtt_joiner": rtt_joiner,
        "before": before,
        "switch": switch,
        "rtcp": window_stat(w, "s0->a_throughput_bps", steady, end),
        "joiner": window_stat(w, "s1->b_throughput_bps", steady, end),
        "queue": window_stat(w, "l_tail_queue_bytes", steady, end),
        "r": window_stat(w, "l_rcp_rcp_rate_bps", steady, end),
        "r_tail": window_stat(w, "l_tail_rcp_rate_bps", steady, end),
        "drops": int(links.filter(pl.col("name") == "l_tail")["drops_pkts"].item()),
        "plot": w.filter(pl.col("time_s") > join - 20 * rtt).filter(pl.col("time_s") <= join + 100 * rtt),
        "join": join,
    }


def analyze_fig6_17(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    got = {n: _run(runs, n, seed) for n, _ in POINTS}
    rows = []
    for n, _ in POINTS:
        g = got[n]
        in_rtts = None if g["switch"] is None else g["switch"] / g["rtt"]
        rows.append(
            [
                n,
                fmt(g["before"], ".1f", 1e6),
                "n/a (R halves)"
                if n == "all-rcp"
                else "none"
                if g["switch"] is None
                else f"{g['switch']:.2f} s = {in_rtts:.1f} RTTs",
                fmt(g["rtcp"], ".1f", 1e6),
                fmt(g["joiner"], ".1f", 1e6),
                fmt(g["queue"], ".0f", 1500),
                str(g["drops"]),
            ]
        )
    _plot(ctx, got)
    fb, small, no, allrcp = (got[n] for n in ("fallback", "small-buffer", "no-fallback", "all-rcp"))
    ok = [n for n in ("fallback", "small-buffer") if (got[n]["switch"] or 1e9) <= 10 * got[n]["rtt"]]
    for n in ("fallback", "small-buffer"):
        g = got[n]
        rtts = None if g["switch"] is None else g["switch"] / g["rtt"]
        ctx.check("sec. 6.2.2", f"RTTs from the bottleneck moving to the switch to TCP, {n}", (None, 10.0), rtts)
    return (
        "An R-TCP flow crosses an RCP link (its bottleneck: R = C) and then a drop-tail link of the same 100 Mb/s, "
        f"10 ms each way (round trip {fb['rtt'] * 1e3:.0f} ms). A TCP flow joins at the drop-tail router at "
        f"{fb['join']:.0f} s (full scale: 150 s, as the thesis) and makes it the bottleneck; the RCP link, which the "
        "TCP flow does not cross, keeps giving C. Runs: fctlab's default (the fallback of sec. 6.2.2: switch to TCP "
        "on a doubled RTT or a loss without a matching drop of the RCP rate), the same without the fallback, a "
        "drop-tail buffer of a tenth of the bandwidth-delay product (a loss comes before the RTT doubles), and an "
        "all-RCP path whose joiner is another R-TCP flow. A switch shows as the R-TCP flow's sending rate falling "
        f"below {SWITCH_DROP:.0%} of its rate before the join (a switch on the RTT halves its window); rates and "
        "queue are means over the second half after the join.\n\n"
        + md_table(
            [
                "run",
                "R-TCP before the join (Mb/s)",
                "switch after the join",
                "R-TCP after (Mb/s)",
                "joiner after (Mb/s)",
                "drop-tail queue (packets)",
                "drops",
            ],
            rows,
        )
        + "\n\n| thesis (sec. 6.2.2) | fctlab |\n|---|---|\n"
        + f"| switches to TCP within 10 RTTs of the bottleneck moving | {', '.join(ok) or 'no run'} within 10 RTTs "
        f"({fmt(fb['switch'], '.2f')} s and {fmt(small['switch'], '.2f')} s) |\n"
        + f"| no false positives | all-RCP path: the first R-TCP flow sends {fmt(allrcp['rtcp'], '.1f', 1e6)} Mb/s "
        f"and the joiner {fmt(allrcp['joiner'], '.1f', 1e6)} Mb/s on the wire against the bottleneck's R = "
        f"{fmt(allrcp['r_tail'], '.1f', 1e6)} Mb/s: both keep RCP's rate (fallen back to TCP, they would not "
        f"hold it with an empty queue: {fmt(allrcp['queue'], '.0f', 1500)} packets) |\n"
        + f"| (without the heuristic RCP would overwhelm the non-RCP link) | no fallback: R-TCP "
        f"{fmt(no['rtcp'], '.1f', 1e6)} Mb/s, TCP {fmt(no['joiner'], '.1f', 1e6)} Mb/s, {no['drops']} drops |\n"
        + f"\nAfter the switch both flows run TCP and share the drop-tail link as TCP flows do: the joiner's round "
        f"trip is {fb['rtt_joiner'] * 1e3:.0f} ms against the R-TCP flow's {fb['rtt'] * 1e3:.0f} ms, and it takes the "
        "larger share.\n"
        + "\n![Fig. 6.17: the R-TCP flow's sending rate and the RCP link's rate (left), the drop-tail "
        "link's queueing delay (right), around the join](fig6-17.png)\n"
    )


def _plot(ctx: Context, got: dict[str, dict[str, Any]]) -> None:
    with figure(ctx, "fig6-17.png", 1, 2, figsize=(10, 3.5)) as (fig, axes):
        for n, style in (("fallback", "-"), ("no-fallback", ":")):
            w = got[n]["plot"]
            t = w["time_s"] - got[n]["join"]
            axes[0].plot(t, w["flow0_send_rate_bps"] / 1e6, style, label=f"R-TCP, {n}")
            if "l_rcp_rcp_rate_bps" in w.columns and n == "fallback":
                axes[0].plot(t, w["l_rcp_rcp_rate_bps"] / 1e6, "--", label="RCP link's R")
            axes[1].plot(t, w["l_tail_queue_bytes"] * 8 / CAPACITY * 1e3, style, label=n)
        axes[0].set(xlabel="time after the join (s)", ylabel="Mb/s")
        axes[1].set(xlabel="time after the join (s)", ylabel="drop-tail queueing delay (ms)")
        for a in axes:
            a.legend(fontsize=7)


def experiment() -> Experiment:
    """Fig. 6.17: the switch to TCP when the bottleneck moves to a non-RCP router."""
    return Experiment(
        name="fig6-17",
        title="RCP thesis Fig. 6.17: falling back to TCP at a non-RCP bottleneck",
        base="ch6-fig6-17.toml",
        points=[(n, {**o, **_schedule(1.0)}) for n, o in POINTS],
        seeds=1,
        analyze=analyze_fig6_17,
        quick=lambda n, o: _schedule(QUICK_SCALE),
    )
