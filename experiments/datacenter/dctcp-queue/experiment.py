"""DCTCP (Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010): the queue and the marks its
analysis predicts (sec. 3.3, Fig. 13). Its convergence and fairness (sec. 4.2) are `dctcp-convergence`.

The analysis of sec. 3.3 (N identical long-lived flows, one bottleneck of capacity C, round
trip RTT, marking threshold K, all in packets) gives a sawtooth queue:

    W* = (C x RTT + K) / N,   alpha ~ sqrt(2 / W*)   (exactly: alpha^2 (1 - alpha/4) = (2W* + 1) / (W* + 1)^2)
    Q_max = K + N,   A = (1/2) sqrt(2 N (C x RTT + K)),   Q_min = Q_max - A

where alpha is the fraction of packets the switch marks (one window of each flow in each
sawtooth). `fctlab_core::protocol::dctcp::analysis` computes the same for the core's tests, with
how closely the analysis pins that fraction (`alpha_tolerance`): the square root against the
exact root, alpha held constant where DCTCP's moving average (g = 1/16) cuts at its trough, and
windows of whole packets. The guideline K > C x RTT / 7 keeps Q_min above zero. The paper runs
K = 20 packets at 1 Gb/s and K = 65 at 10 Gb/s, and Fig. 13 compares the analysis with ns-2 at
10 Gb/s for N = 2, 10, 40 with K = 40 and RTT 100 us. Base scenario
`experiments/datacenter/dctcp-long-flows.toml`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table
from fctlab_experiments.datacenter.dumbbell import PKT, RTT

#: The share of a run left out of every statistic as warm-up (50 ms of the 150 ms at 10 Gb/s).
WARM = 1 / 3
#: (rate, K values) of the queue sweep: the paper's K at each rate, the K of Fig. 13, and some
#: below and above.
K_SWEEP = {1e9: [5, 10, 20, 40], 10e9: [20, 40, 65, 100]}
NS = [2, 10, 40]
#: DCTCP's weight g of the newest window in alpha (the paper's and the scenario's default).
G = 1 / 16
#: The series' sampling interval (s).
INTERVAL = 10e-6


def _bisect(f: Callable[[float], float], hi: float = 1.0) -> float:
    """The root in (0, hi] of an increasing `f` (`hi` if f stays below 0 there)."""
    if f(hi) <= 0:
        return hi
    lo = 0.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


def alpha_root(w_star: float) -> float:
    """Sec. 3.3's alpha before its approximation: the root in (0, 1] of
    alpha^2 (1 - alpha / 4) = (2 W* + 1) / (W* + 1)^2 (1 if there is none: W* below about 1.4)."""
    rhs = (2 * w_star + 1) / (w_star + 1) ** 2
    return _bisect(lambda a: a * a * (1 - a / 4) - rhs)


def alpha_ewma(w_star: float, g: float = G) -> float:
    """The marked fraction 1 / D when each cut uses alpha at the trough of its moving average:
    alpha_cut = g (1 - g)^(D-1) / (1 - (1 - g)^D) with D = (W* + 1) alpha_cut / 2 windows per
    sawtooth (`fctlab_core::protocol::dctcp::analysis`); sec. 3.3 holds alpha constant."""
    half = (w_star + 1) / 2

    def trough(d: float) -> float:
        return g * (1 - g) ** (d - 1) / (1 - (1 - g) ** d)

    return 1 / (half * _bisect(lambda a: a - trough(half * a)))


def alpha_tolerance(w_star: float, g: float = G) -> float:
    """The relative distance from sqrt(2 / W*) within which the analysis cannot tell a marked
    fraction apart: the square root against the exact root, the moving average's rise where it
    raises the fraction, and 1 / W* for windows of whole packets."""
    approx, exact = math.sqrt(2 / w_star), alpha_root(w_star)
    return abs(approx - exact) / approx + max(0.0, alpha_ewma(w_star, g) / exact - 1) + 1 / w_star


def sawtooth(n: int, c: float, k: float, rtt: float = RTT) -> dict[str, float]:
    """Sec. 3.3's queue (packets) and alpha for `n` flows at `c` bit/s with threshold `k`, and
    the same with alpha's moving average (`_ewma`: the cut at its trough, so the amplitude is
    N (W* + 1) alpha_cut / 2 and the marked fraction 1 / D)."""
    bdp = c * rtt / (PKT * 8)
    q_max = k + n
    amplitude = 0.5 * math.sqrt(2 * n * (bdp + k))
    w_star = (bdp + k) / n
    marked_ewma = alpha_ewma(w_star)
    return {
        "bdp": bdp,
        "q_max": q_max,
        "amplitude": amplitude,
        "q_min": q_max - amplitude,
        "alpha": math.sqrt(2 / w_star),
        "alpha_root": alpha_root(w_star),
        "alpha_ewma": marked_ewma,
        "tolerance": alpha_tolerance(w_star),
        # D = 1 / (marked fraction) windows per sawtooth, each flow's cut (packets).
        "amplitude_ewma": n / marked_ewma,
        "w_star": w_star,
    }


def long_flows(n: int, start: float = 0.0, stop: float | None = None) -> list[dict[str, Any]]:
    """`n` long-lived flows l0 -> r0 starting at `start` (stopping at `stop`)."""
    flow: dict[str, Any] = {"src": "l0", "dst": "r0", "start": start}
    if stop is not None:
        flow["stop"] = stop
    return [dict(flow) for _ in range(n)]


def _rate_name(c: float) -> str:
    return f"{c / 1e9:g}g"


def queue_point(c: float, n: int, k: int) -> dict[str, Any]:
    """Overrides for `n` DCTCP flows at `c` bit/s with threshold `k` packets, every flow sampled."""
    return {
        "topology.bottleneck_rate": c,
        "queues.router.k_packets": k,
        "queues.router.limit_packets": max(1000, 4 * k),
        "workload.0.flows": long_flows(n),
        "duration": 0.15 if c >= 10e9 else 0.3,
        "max_time": 0.15 if c >= 10e9 else 0.3,
        "output.series.interval": INTERVAL,
        "output.series.flows": list(range(n)),
    }


def queue_points() -> list[tuple[str, dict[str, Any]]]:
    return [(f"{_rate_name(c)}-n{n}-k{k}", queue_point(c, n, k)) for c, ks in K_SWEEP.items() for n in NS for k in ks]


def _quantile(q: pl.Series, p: float) -> float:
    """The p-quantile of a sorted series (nearest rank)."""
    return float(q[min(len(q) - 1, round(p * (len(q) - 1)))])


def queue_stats(wide: pl.DataFrame, n: int, c: float) -> dict[str, float]:
    """What the analysis predicts, measured on the samples of `wide` (already past the warm-up):
    the queue's extremes and quantiles (packets), the fraction of packets the bottleneck marked,
    the flows' mean alpha, the utilization, and the smallest and largest flow's share of the
    mean throughput."""
    q = (wide["bottleneck_queue_bytes"] / PKT).sort()
    out = {f"p{p}": _quantile(q, p / 100) for p in (1, 5, 95, 99)}
    out |= {"min": float(q[0]), "max": float(q[-1]), "mean": float(q.mean())}
    # Packets serialized onto the bottleneck between the first sample and the last (a sample's
    # throughput is that of the interval before it), as the marks are counted.
    sent = float(wide["bottleneck_throughput_bps"][1:].sum()) * INTERVAL / (PKT * 8)
    marks = wide["bottleneck_ecn_marks"]
    out["marked"] = (float(marks[-1]) - float(marks[0])) / sent if sent > 0 else float("nan")
    out["alpha"] = sum(float(wide[f"flow{i}_dctcp_alpha"].mean()) for i in range(n)) / n
    out["util"] = float(wide["bottleneck_throughput_bps"].mean()) / c
    acked = [float(wide[f"flow{i}_acked_bytes"][-1]) - float(wide[f"flow{i}_acked_bytes"][0]) for i in range(n)]
    fair = sum(acked) / n
    out["share_min"], out["share_max"] = min(acked) / fair, max(acked) / fair
    return out


def _stats(runs: Runs, name: str, seed: int, n: int, c: float) -> dict[str, float]:
    wide = runs.wide_series(name, seed).filter(pl.col("time_s") > WARM * runs.window(name, seed)[1])
    out = queue_stats(wide, n, c)
    links = runs.links(name, seed)
    out["drops"] = int(links.filter(pl.col("name") == "bottleneck")["drops_pkts"][0])
    return out


def _regime(a: dict[str, float], n: int) -> str | None:
    """Why the analysis does not apply to a point (None where it does)."""
    if a["w_star"] < 2:
        return f"W* = {a['w_star']:.1f} < 2: floor, 2N - C x RTT = {2 * n - a['bdp']:.0f}"
    if a["q_min"] <= 0:
        return "Q_min < 0: the queue drains"
    return None


def _check_point(ctx: Context, point: str, a: dict[str, float], m: dict[str, float], k: int, n: int) -> None:
    """Sec. 3.3's numbers for one point, each within what the analysis can resolve there."""
    # The queue is whole packets: its highest sample may stand one packet off K + N.
    ctx.check(
        "sec. 3.3, Q_max", f"{point}: highest queue, K + N (packets)", a["q_max"], m["max"], tolerance=1 / (k + n)
    )
    # The amplitude is N cuts of (W* + 1) alpha / 2: as far from A as the cut's alpha is from
    # the analysis's constant alpha, plus a packet at each end.
    tol_a = abs(a["amplitude_ewma"] / a["amplitude"] - 1) + 2 / a["amplitude"]
    ctx.check(
        "sec. 3.3, A",
        f"{point}: swing p99 - p1, A (packets)",
        a["amplitude"],
        m["p99"] - m["p1"],
        tolerance=tol_a,
        partial=max(0.30, 2 * tol_a),
    )
    tol = a["tolerance"]
    for key, what in (("marked", "fraction of packets marked"), ("alpha", "mean alpha")):
        ctx.check(
            "sec. 3.3, alpha",
            f"{point}: {what}, sqrt(2 / W*)",
            a["alpha"],
            m[key],
            tolerance=tol,
            partial=max(0.30, 2 * tol),
        )


def analyze_queue(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    queue_rows: list[list[Any]] = []
    mark_rows: list[list[Any]] = []
    #: Per point where the analysis applies: its label, the analysis, the measurements.
    applies: list[tuple[str, dict[str, float], dict[str, float]]] = []
    for c, ks in K_SWEEP.items():
        for n in NS:
            for k in ks:
                name = f"{_rate_name(c)}-n{n}-k{k}"
                if name not in runs.names:
                    continue
                a, m = sawtooth(n, c, k), _stats(runs, name, seed, n, c)
                regime = _regime(a, n)
                point = f"{c / 1e9:g} Gb/s, N = {n}, K = {k}"
                if regime is None:
                    applies.append((point, a, m))
                    _check_point(ctx, point, a, m, k, n)
                head = [f"{c / 1e9:g} Gb/s", n, k, f"{a['w_star']:.1f}"]
                queue_rows.append(
                    head
                    + [
                        f"{m['min']:.0f} / {m['p5']:.0f} / {m['mean']:.1f} / {m['p95']:.0f} / {m['max']:.0f}",
                        f"{a['q_min']:.1f} - {a['q_max']:.0f}",
                        f"{m['p99'] - m['p1']:.0f}",
                        f"{a['amplitude']:.1f}",
                        f"{m['util']:.1%}",
                        m["drops"],
                        regime or "applies",
                    ]
                )
                mark_rows.append(
                    head
                    + [
                        f"{a['alpha']:.3f} / {a['alpha_root']:.3f}",
                        f"{a['alpha_ewma']:.3f}",
                        f"{m['marked']:.3f}",
                        f"{m['alpha']:.3f}",
                        fmt(m["marked"] / a["alpha"], ".2f"),
                        "-" if regime else f"{a['tolerance']:.1%}",
                        f"{m['share_min']:.2f} - {m['share_max']:.2f}",
                    ]
                )
    _plot_queue(runs, ctx, seed)
    _plot_marks(ctx, applies)
    ratios = [m["marked"] / a["alpha"] for _, a, m in applies]
    inside = sum(abs(m["marked"] / a["alpha"] - 1) <= a["tolerance"] for _, a, m in applies)
    unfair = [(p, m) for p, _, m in applies if m["share_max"] - m["share_min"] > 0.2]
    swings = [(m["p99"] - m["p1"]) / a["amplitude"] for _, a, m in applies if m["marked"] <= 0.99]
    return (
        'N long-lived DCTCP flows (g = 1/16) through one bottleneck marking at K (`kind = "step"`, at enqueue: an '
        f"arrival that finds K or more packets queued), RTT {RTT * 1e6:.0f} us, 1,500-byte packets, one ACK per "
        "packet, statistics over the last two thirds of each run (100 ms at 10 Gb/s, 200 ms at 1 Gb/s) from samples "
        f"every {INTERVAL * 1e6:.0f} us. The analysis (sec. 3.3) predicts a sawtooth between Q_min and Q_max = K + N "
        "of amplitude A, and one window of each flow marked per sawtooth: a fraction alpha ~ sqrt(2 / W*) of the "
        "packets, W* = (C x RTT + K) / N.\n\n"
        "**The queue.** fctlab's queue: min / p5 / mean / p95 / max (packets); its swing is p99 - p1, so that a rare "
        "deeper trough does not pass for the sawtooth's.\n\n"
        + md_table(
            [
                "rate",
                "N",
                "K",
                "W*",
                "fctlab queue min / p5 / mean / p95 / max",
                "analysis Q_min - Q_max",
                "fctlab swing",
                "analysis A",
                "utilization",
                "drops",
                "analysis",
            ],
            queue_rows,
        )
        + "\n\n**The marks.** The fraction of packets the bottleneck marked (marks over packets it sent) and the "
        "flows' mean alpha (each flow's alpha averaged over time, then over the flows), against sec. 3.3's "
        "sqrt(2 / W*) and the exact root before that approximation. The analysis holds alpha constant; DCTCP's alpha "
        "is a moving average (g = 1/16) that rises once per sawtooth, in the window with the marks, and decays in "
        "the others, and the cut comes at the first marked ACK, at its trough: the column *with alpha's moving "
        "average* is the marked fraction 1 / D that follows, D = (W* + 1) alpha_cut / 2 windows per sawtooth. It "
        "lies a few percent above sqrt(2 / W*) where the sawtooth lasts several windows (two flows at 10 Gb/s) and "
        "on it where the sawtooth lasts two or three (more flows, or 1 Gb/s). The tolerance is what the analysis "
        "can resolve at that W*: the square root against the exact root, the moving average's rise, and 1 / W* for "
        "windows of whole packets (`alpha_tolerance`). Flows' shares: the smallest and largest flow's throughput "
        "over the mean.\n\n"
        + md_table(
            [
                "rate",
                "N",
                "K",
                "W*",
                "analysis sqrt(2 / W*) / exact",
                "with alpha's moving average",
                "fctlab marked fraction",
                "fctlab mean alpha",
                "marked / sqrt(2 / W*)",
                "tolerance",
                "flows' shares",
            ],
            mark_rows,
        )
        + (
            f"\n\nWhere the analysis applies (W* >= 2 packets, Q_min > 0) the highest queue is K + N at "
            f"{sum(m['max'] == a['q_max'] for _, a, m in applies)} of {len(applies)} points, and the swing is "
            f"{min(swings):.2f} to {max(swings):.2f} of A where the windows are off the floor (below)."
            if swings
            else ""
        )
        + (
            f" The marked fraction is {min(ratios):.2f} "
            f"to {max(ratios):.2f} of sqrt(2 / W*), within the analysis's resolution at {inside} of {len(ratios)} "
            "points."
            if ratios
            else ""
        )
        + (
            " The analysis assumes identical, synchronized flows; at "
            + "; ".join(f"{p} (shares {m['share_min']:.2f} - {m['share_max']:.2f})" for p, m in unfair)
            + " the flows settle into unequal shares of the link, which a deterministic run with equal round trips "
            "does not even out."
            if unfair
            else ""
        )
        + "".join(
            f" At {p} (W* = {a['w_star']:.1f}) every packet is marked and the queue stays between "
            f"{m['min']:.0f} and {m['max']:.0f}: the analysis's trough window, (W* + 1)(1 - alpha / 2) = "
            f"{(a['w_star'] + 1) * (1 - a['alpha_root'] / 2):.1f} segments, is within a packet of DCTCP's floor of "
            "two: a cut from three segments stops at the floor, the queue never falls back below K, and every window "
            "is cut to the floor once per round trip, as below W* = 2."
            for p, a, m in applies
            if m["marked"] > 0.99
        )
        + "\n\nThe reaction comes at most once per window of data: after a cut, ECE counts again only on an ACK of "
        "data sent after the cut (RFC 3168 sec. 6.1.2 as ns-2's `seqno > recover_` and Linux's CWR state apply "
        "it). The ACK of the last packet sent before the cut carries that packet's mark, from the congestion the "
        "cut answered; taking it as a new signal cuts twice per sawtooth, doubles the sawtooth's length and takes "
        "the marked fraction to about sqrt(1 / W*), 0.71 of sec. 3.3's.\n\n"
        "Where W* = (C x RTT + K) / N is below two packets every window sits at DCTCP's floor of two segments, "
        "every packet is marked (alpha = 1) and the queue is the N x 2 packets in flight less what the link holds, "
        "2N - C x RTT, whatever K is; the analysis's sawtooth does not exist there. Where Q_min <= 0 the analysis "
        "itself says the queue drains each cycle (K below the guideline K > C x RTT / 7).\n\n"
        "![queue of 2, 10 and 40 flows at 10 Gb/s, K = 40, against the analysis's Q_min and Q_max (dotted; Fig. 13)]"
        "(queue-10g-k40.png)\n\n"
        "![marked fraction and mean alpha over sqrt(2 / W*) against W*, with the analysis's resolution (band) and "
        "alpha's moving average (line)](marks.png)\n"
    )


def _plot_queue(runs: Runs, ctx: Context, seed: int) -> None:
    with figure(ctx, "queue-10g-k40.png", 1, 3, figsize=(11, 3.2), sharey=True) as (fig, axes):
        for ax, n in zip(axes, NS):
            name = f"10g-n{n}-k40"
            if name not in runs.names:
                continue
            wide = runs.wide_series(name, seed).filter((pl.col("time_s") > 0.1) & (pl.col("time_s") <= 0.102))
            ax.plot((wide["time_s"] - 0.1) * 1e3, wide["bottleneck_queue_bytes"] / PKT, lw=0.8)
            a = sawtooth(n, 10e9, 40)
            ax.axhline(a["q_max"], color="k", ls=":", lw=0.7)
            ax.axhline(a["q_min"], color="k", ls=":", lw=0.7)
            ax.set(title=f"N = {n}, K = 40", xlabel="ms")
        axes[0].set_ylabel("queue (packets)")


def _plot_marks(ctx: Context, applies: list[tuple[str, dict[str, float], dict[str, float]]]) -> None:
    """The marked fraction and mean alpha over sqrt(2 / W*), against W*, where the analysis applies."""
    if not applies:
        return
    points = sorted((a["w_star"], m["marked"] / a["alpha"], m["alpha"] / a["alpha"]) for _, a, m in applies)
    w = [p[0] for p in points]
    lo, hi = min(w), max(w)
    grid = [lo * (hi / lo) ** (i / 99) for i in range(100)] if hi > lo else [lo]
    with figure(ctx, "marks.png", figsize=(6.5, 3.6)) as (fig, ax):
        tol = [alpha_tolerance(x) for x in grid]
        ax.fill_between(grid, [1 - t for t in tol], [1 + t for t in tol], color="0.9", label="analysis's resolution")
        ax.plot(
            grid, [alpha_ewma(x) / math.sqrt(2 / x) for x in grid], color="k", lw=0.8, label="alpha's moving average"
        )
        ax.plot(grid, [alpha_root(x) / math.sqrt(2 / x) for x in grid], color="k", ls=":", lw=0.8, label="exact root")
        ax.plot(w, [p[1] for p in points], "o", ms=4, label="fctlab: marked fraction")
        ax.plot(w, [p[2] for p in points], "x", ms=5, label="fctlab: mean alpha")
        ax.axhline(1, color="0.5", lw=0.5)
        ax.set(xscale="log", xlabel="W* = (C x RTT + K) / N (packets)", ylabel="over sqrt(2 / W*)")
        ax.legend(fontsize=7, loc="lower right")


def experiment() -> Experiment:
    return Experiment(
        name="dctcp-queue",
        title="DCTCP sec. 3.3 and Fig. 13: the steady queue and the marked fraction against K, N and the link rate",
        base="dctcp-long-flows.toml",
        points=queue_points(),
        seeds=1,
        analyze=analyze_queue,
        quick_points=[f"10g-n{n}-k40" for n in NS] + ["10g-n2-k65", "1g-n2-k20"],
    )
