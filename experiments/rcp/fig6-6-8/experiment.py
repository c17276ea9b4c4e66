"""The RCP thesis (Dukkipati), sec. 6.1.2: the Linux validation testbed (Figs. 6.6 - 6.8), simulated.

The testbed (004:2910-2970): hosts A1 - A4 behind a software RCP router whose 10 Mb/s TX queue
(eth1) is the bottleneck, eta = 0.9, netem adding 50 ms end to end; A1 - A4 start 100 s iperf
flows at 0, 20, 40 and 60 s. The thesis shows (Fig. 6.7) C/R(t) beside the true N, the
aggregate input rate and the TX queue, and (Fig. 6.8) the per-flow and aggregate throughput and
A1's congestion window; it states that each join makes a sudden backlog, R roughly halves, and
R = C/N holds; iperf's maximum on the link is about 7.5 Mb/s.

Here: `experiments/rcp/ch6-testbed.toml`, R-TCP hosts (the thesis's Linux end host) and the
router of the thesis's Appendix F (`variant = "appendix-f"`, its Linux router). One run: the
system is deterministic, as the thesis says, so one seed is the experiment.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table, window_stat

#: (start, stop) of A1 - A4's flows, s.
FLOWS = ((0.0, 100.0), (20.0, 120.0), (40.0, 140.0), (60.0, 160.0))
END = 160.0
#: Quick mode runs the schedule this many times faster.
QUICK_SCALE = 0.1
#: Bottleneck rate (bit/s) and target utilization of the base scenario.
CAPACITY, ETA = 10e6, 0.9
#: The thesis's iperf maximum on the link (Mb/s).
IPERF_MAX = 7.5


def _schedule(scale: float) -> dict[str, Any]:
    return {
        "duration": END * scale,
        "workload.0.flows": [
            {"src": f"l{i}", "dst": f"r{i}", "start": a * scale, "stop": b * scale} for i, (a, b) in enumerate(FLOWS)
        ],
    }


def phases(flows: tuple[tuple[float, float], ...], end: float) -> list[tuple[float, float, int]]:
    """(start, end, N) of each span between consecutive joins and departures."""
    edges = sorted({0.0, end, *(t for f in flows for t in f if t <= end)})
    return [(a, b, sum(1 for s, e in flows if s <= a < e)) for a, b in zip(edges, edges[1:])]


#: "RCP reduces R(t) to about half the bottleneck rate" when A2 joins at 20 s: R's lowest value after
#: the join over its mean before.
HALF = 0.5


def _spans(
    w: pl.DataFrame, flows: tuple[tuple[float, float], ...], end: float, payload: float
) -> tuple[list[list[str]], list[float], list[tuple[str, int, float | None]]]:
    """Per span between joins and departures, its table row; with R / (eta C / N) of each span
    with flows, and (span, N, eta C / R) of each."""
    rows, ratios, estimates = [], [], []
    for a, b, n in phases(flows, end):
        # The second half of each phase: R has settled after the join or departure.
        mid = (a + b) / 2
        r = window_stat(w, "bottleneck_rcp_rate_bps", mid, b)
        agg = window_stat(w, "bottleneck_throughput_bps", mid, b)
        per = [window_stat(w, f"flow{i}_send_rate_bps", mid, b) for i, (s, e) in enumerate(flows) if s <= a < e]
        if r and n:
            ratios.append(r / (ETA * CAPACITY / n))
        if n:
            estimates.append((f"{a:.0f} - {b:.0f} s", n, None if not r else ETA * CAPACITY / r))
        rows.append(
            [
                f"{a:.0f} - {b:.0f} s",
                str(n),
                fmt(r, ".2f", 1e6),
                fmt(None if r is None or n == 0 else ETA * CAPACITY / n, ".2f", 1e6),
                fmt(None if not r else CAPACITY / r, ".2f"),
                fmt(None if not r else ETA * CAPACITY / r, ".2f"),
                ", ".join(fmt(p, ".2f", 1e6) for p in per) or "-",
                fmt(agg, ".2f", 1e6),
                fmt(None if agg is None else agg * payload, ".2f", 1e6),
            ]
        )
    return rows, ratios, estimates


def _joins(
    w: pl.DataFrame, flows: tuple[tuple[float, float], ...], packet: int
) -> tuple[list[list[str]], list[float | None]]:
    """Per join after the first flow, a row: the TX queue's largest backlog (packets of `packet`
    bytes) in the 5 s before and after it, R's mean before and lowest value after, and their
    ratio; with the ratios."""
    joins, drops = [], []
    for k, (s, _) in enumerate(flows[1:], start=2):
        before = window_stat(w, "bottleneck_rcp_rate_bps", s - 5, s)
        low = window_stat(w, "bottleneck_rcp_rate_bps", s, s + 5, "min")
        q = window_stat(w, "bottleneck_queue_bytes", s, s + 5, "max")
        q_before = window_stat(w, "bottleneck_queue_bytes", s - 5, s, "max")
        drops.append(None if not before or low is None else low / before)
        joins.append(
            [
                f"A{k} at {s:.0f} s",
                fmt(q_before, ".0f", packet),
                fmt(q, ".0f", packet),
                fmt(before, ".2f", 1e6),
                fmt(low, ".2f", 1e6),
                fmt(drops[-1], ".2f"),
            ]
        )
    return joins, drops


def _aggregate(w: pl.DataFrame, flows: tuple[tuple[float, float], ...], end: float) -> float | None:
    """The bottleneck's mean throughput on the wire over the second halves of the spans with flows."""
    busy = [(a, b) for a, b, n in phases(flows, end) if n > 0]
    agg_all = [window_stat(w, "bottleneck_throughput_bps", (a + b) / 2, b) for a, b in busy]
    agg_all = [x for x in agg_all if x is not None]
    return sum(agg_all) / len(agg_all) if agg_all else None


def check_testbed(
    ctx: Context,
    estimates: list[tuple[str, int, float | None]],
    halving: float | None,
    goodput: float | None,
) -> None:
    """Sec. 6.1.2 (Figs. 6.7 - 6.8): C/R estimates the true N (with eta, eta C / R against N, per
    span: `estimates` as (span, N, eta C / R)); R about halves when A2 joins (`halving`, R's lowest
    after over its mean before); iperf's maximum about 7.5 Mb/s (`goodput`, the aggregate payload
    rate in bit/s: the simulated hosts have none of the testbed's protocol and application overheads)."""
    for span, n, est in estimates:
        ctx.check("Fig. 6.7", f"eta C / R, {span} (the true N = {n})", float(n), est)
    ctx.check("sec. 6.1.2", "R's lowest value after A2 joins / its mean before (about half)", HALF, halving)
    ctx.check(
        "Fig. 6.8",
        "aggregate payload throughput, Mb/s (iperf's maximum)",
        IPERF_MAX,
        None if goodput is None else goodput / 1e6,
    )


def analyze(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    w = runs.wide_series("testbed", seed)
    sc = runs.scenario("testbed", seed)
    end = runs.window("testbed", seed)[1]
    flows = tuple((float(f["start"]), float(f["stop"])) for f in sc["workload"][0]["flows"])
    mss, header = int(sc["transport"]["mss"]), int(sc["transport"]["header"])
    payload = mss / (mss + header)
    rows, ratios, estimates = _spans(w, flows, end, payload)
    joins, drops = _joins(w, flows, mss + header)
    agg_mean = _aggregate(w, flows, end)
    goodput = None if agg_mean is None else agg_mean * payload
    _plot(ctx, w, flows)
    check_testbed(ctx, estimates, drops[0] if drops else None, goodput)
    return (
        "A simulated copy of the thesis's testbed (Fig. 6.6): four R-TCP hosts (A1 - A4) on 100 Mb/s send through "
        f"an RCP router's {CAPACITY / 1e6:.0f} Mb/s queue, eta = {ETA}, 25 ms each way on the bottleneck (the "
        "thesis's netem 50 ms end to end as the round trip), 1500-byte packets, a 1000-packet TX queue (Linux's "
        'default). The router is the thesis\'s Appendix F specification (`variant = "appendix-f"`, the Linux '
        "router's), with (alpha, beta) = (0.4, 0.5) inside App. F's recommended ranges: the thesis does not give "
        "the testbed's gains. A1 - A4 start 100 s flows at 0, 20, 40, 60 s (in the quick mode ten times faster). "
        "The SYN asks for an unlimited rate here (the thesis's hosts asked for the interface's 100 Mb/s); the "
        "router overwrites it either way. Rates are means over the second half of each span between joins and "
        "departures; R = eta C / N is the fair rate eq. 3.3 aims at (R holds eta C out over N flows, so C/R "
        "converges to N / eta and eta C / R to N).\n\n"
        + md_table(
            [
                "span",
                "true N",
                "R (Mb/s)",
                "eta C / N (Mb/s)",
                "C / R",
                "eta C / R",
                "per-flow sending rates (Mb/s)",
                "aggregate on the wire (Mb/s)",
                "aggregate payload (Mb/s)",
            ],
            rows,
        )
        + "\n\nAt each join (the TX queue's largest backlog in the 5 s before and after it, and R's lowest value after "
        "it against its mean before):\n\n"
        + md_table(
            [
                "join",
                "max queue before (packets)",
                "max queue after (packets)",
                "R before (Mb/s)",
                "R min after",
                "ratio",
            ],
            joins,
        )
        + "\n\n| thesis (sec. 6.1.2, Figs. 6.7 - 6.8) | fctlab |\n|---|---|\n"
        + "| a sudden backlog on the TX queue at each join | "
        + "; ".join(f"{j[0]}: {j[2]} packets (before: {j[1]})" for j in joins)
        + " |\n"
        + "| R(t) falls to about half at the second flow's join, similarly at the later joins | "
        + "; ".join(f"{j[0]}: x{j[5]}" for j in joins)
        + " (a halving is x0.50, then x0.67 and x0.75 for the third and fourth flows) |\n"
        + "| R = C/N holds (with eta: R = eta C / N); flows share equally | R / (eta C / N) = "
        + (f"{min(ratios):.3f} - {max(ratios):.3f}" if ratios else "-")
        + " over the spans; the per-flow rates are equal (table). R settles a little above eta C / N because an "
        "R-TCP window is a whole number of packets from SRTT and runs slightly below the stamped rate (docs/"
        "scenario.md), so eq. 3.3 raises R until the input reaches eta C |\n"
        + f"| iperf's maximum about {IPERF_MAX} Mb/s (on a 9 Mb/s advertised maximum) | aggregate "
        f"{fmt(agg_mean, '.2f', 1e6)} Mb/s on the wire, {fmt(goodput, '.2f', 1e6)}"
        " Mb/s of payload: a simulated host has none of the testbed's protocol and application overheads, "
        "so it gets closer to eta C |\n"
        + "\n![Fig. 6.7: eta C / R(t) and the true N (left), the aggregate input rate at the bottleneck (middle), "
        "the TX queue (right)](fig6-7.png)\n"
        + "\n![Fig. 6.8: per-flow and aggregate throughput (left), A1's congestion window (right)](fig6-8.png)\n"
    )


def _plot(ctx: Context, w: pl.DataFrame, flows: tuple[tuple[float, float], ...]) -> None:
    t = w["time_s"]
    n_true = [sum(1 for s, e in flows if s <= x < e) for x in t.to_list()]
    with figure(ctx, "fig6-7.png", 1, 3, figsize=(13, 3.5), dpi=110) as (_fig, axes):
        if "bottleneck_rcp_rate_bps" in w.columns:
            axes[0].plot(t, ETA * CAPACITY / w["bottleneck_rcp_rate_bps"], label="eta C / R(t)")
        axes[0].plot(t, n_true, "--", label="true N")
        axes[0].set(xlabel="time (s)", ylabel="flows")
        axes[1].plot(t, w["bottleneck_input_bps"] / 1e6, label="aggregate input")
        axes[1].set(xlabel="time (s)", ylabel="Mb/s")
        axes[2].plot(t, w["bottleneck_queue_bytes"] / 1e3)
        axes[2].set(xlabel="time (s)", ylabel="TX queue (KB)")
        for a in axes[:2]:
            a.legend(fontsize=7)

    with figure(ctx, "fig6-8.png", 1, 2, figsize=(10, 3.5), dpi=110) as (_fig, axes):
        for i, (s, e) in enumerate(flows):
            col = f"flow{i}_send_rate_bps"
            if col in w.columns:
                part = w.filter((pl.col("time_s") >= s) & (pl.col("time_s") < e))
                axes[0].plot(part["time_s"], part[col] / 1e6, label=f"A{i + 1}")
        axes[0].plot(t, w["bottleneck_throughput_bps"] / 1e6, "k", lw=0.8, label="aggregate (bottleneck)")
        axes[0].set(xlabel="time (s)", ylabel="Mb/s")
        axes[0].legend(fontsize=7)
        if "flow0_cwnd_bytes" in w.columns:
            part = w.filter((pl.col("time_s") >= flows[0][0]) & (pl.col("time_s") < flows[0][1]))
            axes[1].plot(part["time_s"], part["flow0_cwnd_bytes"] / 1e3)
        axes[1].set(xlabel="time (s)", ylabel="A1's cwnd (KB)")


def experiment() -> Experiment:
    """Figs. 6.6 - 6.8: the testbed's four staggered R-TCP flows through a 10 Mb/s RCP router."""
    return Experiment(
        name="fig6-6-8",
        title="RCP thesis Figs. 6.6 - 6.8: the validation testbed (10 Mb/s, four staggered R-TCP flows), simulated",
        base="ch6-testbed.toml",
        points=[("testbed", _schedule(1.0))],
        seeds=1,
        analyze=analyze,
        quick=lambda n, o: _schedule(QUICK_SCALE),
    )
