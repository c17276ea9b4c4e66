"""The RCP thesis (Dukkipati), sec. 6.3.1, Figs. 6.19 - 6.20: AFCT, active flows and loss probability
against the mean flow size (20 to 8200 packets, 2% - 820% of the bandwidth-delay product) and the
buffer (2% - 200%), at load 0.68 on 100 Mb/s; and runs with an RTO floor near the thesis's resend
wait.

Every run is a `buffers.Point` on `experiments/rcp/ch6-buffers.toml`; its table, plot and the
differences from the thesis's simulations are `buffer_reports`'.
"""

from __future__ import annotations

import polars as pl

from fctlab.reproduce.checks import ratio
from fctlab.reproduce.framework import Context, Experiment, Runs, fmt, md_table
from fctlab_experiments.rcp.buffer_reports import DIFFERENCES, increase, pct, plot_sweep, sweep_table
from fctlab_experiments.rcp.buffers import RTT, Point, buffer_sweep, measure_all
from fctlab_experiments.rcp.reports import CLOSE_TO_PS

#: Buffers of the sweeps, as fractions of C x RTT.
BUFFERS = (0.02, 0.05, 0.10, 0.20, 0.50, 2.00)
#: The buffers that suffice, the thesis says (5-10% of the bandwidth-delay product).
ENOUGH = (0.05, 0.10)
#: Mean sizes (packets; the BDP is 1000) and each one's arrival window (s): enough flows for a
#: mean over heavy-tailed sizes while keeping each run to a few seconds of CPU.
SIZES = ((20, 60.0), (60, 100.0), (200, 200.0), (600, 300.0), (1700, 400.0), (8200, 800.0))
#: The sensitivity runs: an RTO floor of two round trips, near the thesis's resend wait.
RTO_2RTT = 2 * RTT
RTO_SIZES, RTO_BUFFERS = (20, 1700), (0.02, 0.10, 2.00)


def _timeout_split(runs: Runs, p: Point) -> str:
    """Mean FCT of the flows without and with a timeout, and what a timeout cost on average."""
    s = runs.sample(p.name, runs.seeds[0])
    without = s.filter(pl.col("timeouts") == 0)["fct_s"].mean()
    hit = s.filter(pl.col("timeouts") > 0)
    if hit.height == 0 or without is None:
        return "no flow had a timeout"
    cost = (float(hit["fct_s"].mean()) - float(without)) / float(hit["timeouts"].mean())
    return (
        f"{hit.height / s.height:.0%} of the flows had a timeout ({float(hit['timeouts'].mean()):.2f} each); their "
        f"mean FCT is {float(hit['fct_s'].mean()):.3f} s against {float(without):.3f} s for the others: "
        f"{cost:.2f} s per timeout, against the {2 * RTT:.2f} s (2 RTT) the thesis's hosts waited before resending"
    )


def _rto_table(got: dict[str, dict], grid: dict[str, Point], rto: dict[str, Point]) -> str:
    """The runs with an RTO floor of two round trips against the same runs with fctlab's defaults,
    each against its largest buffer."""
    rto_rows = []
    for n, p in sorted(rto.items(), key=lambda t: (t[1].mean_pkts, t[1].buffer)):
        base = next(q for q in grid.values() if (q.mean_pkts, q.buffer) == (p.mean_pkts, p.buffer))
        ref = next(q for q in rto.values() if q.mean_pkts == p.mean_pkts and q.buffer == max(RTO_BUFFERS))
        ref0 = next(q for q in grid.values() if q.mean_pkts == p.mean_pkts and q.buffer == max(RTO_BUFFERS))
        inc, inc0 = increase(got[n], got[ref.name]), increase(got[base.name], got[ref0.name])
        rto_rows.append(
            [
                f"{p.mean_pkts:g}",
                pct(p.buffer),
                fmt(got[base.name]["thesis_afct"], ".3f"),
                "-" if inc0 is None else f"{inc0 * 100:+.0f}%",
                fmt(got[n]["thesis_afct"], ".3f"),
                "-" if inc is None else f"{inc * 100:+.0f}%",
                fmt(got[n]["ratio"], ".2f"),
                f"{got[n]['loss']:.2e}",
            ]
        )
    return md_table(
        [
            "E[L] (packets)",
            "buffer",
            "AFCT + RTT/2, RTO floor 200 ms, SYN 500 ms (s)",
            "vs 200%",
            f"AFCT + RTT/2, both {RTO_2RTT * 1e3:.0f} ms (s)",
            "vs 200%",
            "/ eq. 6.1",
            "loss probability",
        ],
        rto_rows,
    )


def _losses_by_buffer(items) -> dict[float, list[tuple[float, float]]]:
    """Per buffer, (E[L], loss probability) of each mean size, in the sweep's order."""
    by_buffer: dict[float, list[tuple[float, float]]] = {}
    for k, b, g in items:
        by_buffer.setdefault(b, []).append((k, g["loss"]))
    return by_buffer


def _loss_shape(items) -> list[str]:
    """Per buffer, the losses against E[L], where they peak and how far they fall after."""
    shape = []
    for b, pts in sorted(_losses_by_buffer(items).items()):
        losses = [x for _, x in pts]
        peak = max(range(len(losses)), key=lambda i: losses[i])
        shape.append(
            f"{pct(b)}: "
            + ", ".join(f"{x:.1e}" for x in losses)
            + f" (highest at E[L] = {pts[peak][0]:g}; at E[L] = {pts[-1][0]:g} "
            + f"{losses[-1] / losses[peak]:.0%} of it)"
            if losses[peak] > 0
            else f"{pct(b)}: no loss"
        )
    return shape


#: Fig. 6.19, E[L] = 20 packets: small buffers raise the AFCT "at most 50% for a buffer as small as
#: 2%" (AFCT at 2% over the largest buffer's).
AT_MOST_50 = (None, 1.5)
#: Fig. 6.20: the loss probability "first increase[s] and then decrease[s]" as E[L] grows, read as
#: its peak at one of the sweep's inner mean sizes, not at either end.
INNER_SIZES = (SIZES[1][0], SIZES[-2][0])


def check_fig6_19_20(ctx: Context, items) -> None:
    """Sec. 6.3.1's statements on the sweep (`sweep_table`'s items: (E[L], buffer, measured)):
    Fig. 6.19's at most 50% at E[L] = 20 and RCP emulating PS at E[L] = 8200 with the smallest
    buffer (/ eq. 6.1, `reports.CLOSE_TO_PS`); Fig. 6.20's negligible difference from PS at the
    largest E[L] (active flows over eq. 6.1's, `CLOSE_TO_PS`) and the loss peaking at an inner E[L],
    per buffer. A buffer without any loss has no peak and is left out."""
    got = {(k, b): g for k, b, g in items}
    sizes, buffers = sorted({k for k, _, _ in items}), sorted({b for _, b, _ in items})
    small, large, lo, hi = sizes[0], sizes[-1], buffers[0], buffers[-1]
    ctx.check(
        "Fig. 6.19",
        f"AFCT with a {pct(lo)} buffer / with {pct(hi)}, E[L] = {small:g} packets (at most +50%)",
        AT_MOST_50,
        ratio(got[small, lo]["thesis_afct"], got[small, hi]["thesis_afct"]),
    )
    ctx.check(
        "Fig. 6.19",
        f"(AFCT + RTT/2) / eq. 6.1, E[L] = {large:g} packets, {pct(lo)} buffer (emulates PS)",
        CLOSE_TO_PS,
        got[large, lo]["ratio"],
    )
    for b in buffers:
        ctx.check(
            "Fig. 6.20",
            f"active flows / eq. 6.1's, E[L] = {large:g} packets, {pct(b)} buffer (negligible difference)",
            CLOSE_TO_PS,
            ratio(got[large, b]["active"], got[large, b]["active_ps"]),
        )
    for b, pts in sorted(_losses_by_buffer(items).items()):
        if max(x for _, x in pts) > 0:
            peak = max(pts, key=lambda t: t[1])[0]
            ctx.check("Fig. 6.20", f"E[L] of the highest loss, {pct(b)} buffer (rises, then falls)", INNER_SIZES, peak)


def analyze_fig6_19_20(runs: Runs, ctx: Context, grid: dict[str, Point]) -> str:
    got = measure_all(runs, grid)
    rto = {n: p for n, p in grid.items() if p.min_rto is not None}
    grid = {n: p for n, p in grid.items() if p.min_rto is None}
    rto_table = _rto_table(got, grid, rto)
    small_2 = next((p for p in grid.values() if p.mean_pkts == SIZES[0][0] and p.buffer == BUFFERS[0]), None)
    table, items = sweep_table(grid, got, "mean_pkts", "E[L] (packets)", lambda k: f"{k:g} ({k / 10:g}% BDP)")
    plot_sweep(ctx, "fig6-19-20.png", items, "mean flow size E[L] (packets)", True)
    check_fig6_19_20(ctx, items)
    small = [(b, g) for k, b, g in items if k == SIZES[0][0]]
    large = [(b, g) for k, b, g in items if k == SIZES[-1][0]]
    ref_small, ref_large = small[-1][1], large[-1][1]
    inc_small = {b: increase(g, ref_small) for b, g in small}
    inc_large = {b: increase(g, ref_large) for b, g in large}
    shape = _loss_shape(items)
    return (
        "C = 100 Mb/s, RTT 80 ms (C x RTT = 1000 packets), load 0.68, Poisson arrivals, Pareto sizes (shape 1.2) "
        "of mean E[L] from 20 to 8200 packets (the thesis's two plots of Fig. 6.19 are E[L] = 20 and 8200; "
        "Fig. 6.20 sweeps 2% - 1000% of the BDP), buffers from 2% to 200% of the BDP. Each run's arrivals last "
        "60 s (E[L] = 20) to 800 s (E[L] = 8200).\n\n"
        + "| thesis (sec. 6.3.1) | fctlab |\n|---|---|\n"
        + "| Fig. 6.19, E[L] = 20 packets: small buffers raise the AFCT, by at most 50% at 2% of the BDP | "
        + ", ".join(f"{pct(b)}: {'-' if v is None else f'{v * 100:+.0f}%'}" for b, v in inc_small.items())
        + f" against the 200% buffer; (AFCT + RTT/2) / eq. 6.1 = {fmt(small[0][1]['ratio'], '.2f')} at 2%, "
        f"{fmt(ref_small['ratio'], '.2f')} at 200% |\n"
        + "| Fig. 6.19, E[L] = 8200 packets: RCP emulates PS even with small buffers | "
        + ", ".join(f"{pct(b)}: {'-' if v is None else f'{v * 100:+.0f}%'}" for b, v in inc_large.items())
        + f"; / eq. 6.1 = {fmt(large[0][1]['ratio'], '.2f')} at 2%, {fmt(ref_large['ratio'], '.2f')} at 200% |\n"
        + "| Fig. 6.20: the difference from PS (active flows) becomes negligible as E[L] grows | see the table: "
        "active flows against eq. 6.1's lambda x AFCT |\n"
        + "| Fig. 6.20: loss probability first rises, then falls as E[L] grows | "
        + "; ".join(shape)
        + " |\n"
        + "| 5-10% of the BDP suffice | E[L] = 20: "
        + ", ".join(f"{pct(b)} {'-' if v is None else f'{v * 100:+.0f}%'}" for b, v in inc_small.items() if b in ENOUGH)
        + " against 200% |\n\n"
        + "The losses are RCP's own: a new flow is sent at R at once, and while short flows leave R high (they end "
        "before using it) a few arrivals together exceed C for a round trip, which a buffer of a few per cent of "
        "the BDP cannot absorb"
        + (
            ""
            if small_2 is None or got[small_2.name]["r_c"] is None
            else f" (E[L] = 20, 2% buffer: R = {got[small_2.name]['r_c']:.2f} C on average while the mean of N(t) R(t) "
            f"is {got[small_2.name]['nr_c']:.1f} C)"
        )
        + ". A loss then costs a flow a timeout: at E[L] = 20 with a 2% buffer, "
        + (_timeout_split(runs, small_2) if small_2 else "-")
        + ". fctlab's RCP hosts time out after max(200 ms, SRTT + 4 RTTVAR), 0.5 s for a lost SYN, doubling on "
        "repeats; the thesis's hosts resent what was missing about 2 RTT after their last packet. Runs with an RTO "
        f"floor and a SYN timeout of {RTO_2RTT * 1e3:.0f} ms (`transport.min_rto`, `transport.initial_rto`: about "
        "the thesis's wait) show how much of the gap that is:\n\n"
        + rto_table
        + "\n\n"
        + table
        + DIFFERENCES
        + "\n\n![Figs. 6.19 - 6.20: (AFCT + RTT/2) / eq. 6.1 (left) and loss probability (right) against E[L], "
        "one line per buffer](fig6-19-20.png)\n"
    )


def experiment() -> Experiment:
    points = [Point(100e6, m, 0.68, b, d) for m, d in SIZES for b in BUFFERS]
    points += [Point(100e6, m, 0.68, b, d, min_rto=RTO_2RTT) for m, d in SIZES if m in RTO_SIZES for b in RTO_BUFFERS]
    return buffer_sweep(
        "fig6-19-20",
        "RCP thesis Figs. 6.19 - 6.20: AFCT, active flows and loss against the mean flow size and the buffer",
        points,
        analyze_fig6_19_20,
    )
