"""The RCP thesis (Dukkipati), sec. 6.3.1, Figs. 6.23 - 6.24: AFCT and loss probability against the
offered load (0.1 - 0.8) for large flows (Pareto, mean 1700 packets) and small ones (every flow 5
packets, beside M/M/1/K's blocking probability), buffers of 2%, 5%, 10% and 200% of the
bandwidth-delay product.

Every run is a `buffers.Point` on `experiments/rcp/ch6-buffers.toml`; its table, plot and the
differences from the thesis's simulations are `buffer_reports`'.
"""

from __future__ import annotations

from fctlab.reproduce.checks import ratio
from fctlab.reproduce.framework import Context, Experiment, Runs
from fctlab_experiments.rcp import models
from fctlab_experiments.rcp.buffer_reports import DIFFERENCES, increase, pct, plot_sweep, sweep_table
from fctlab_experiments.rcp.buffers import FEW_BUFFERS, WARMUP, Point, buffer_sweep, measure_all
from fctlab_experiments.rcp.reports import CLOSE_TO_PS

LOADS = (0.1, 0.2, 0.4, 0.6, 0.8)
#: Fig. 6.23: E[L] = 1700 packets; arrivals for 300 s x 0.68 / load (as many flows per load).
#: Fig. 6.24: E[L] = 5 packets, every flow the same size; arrivals for 20 s.
LARGE_L, SMALL_L = 1700, 5
LOAD_WINDOW, SMALL_LOAD_WINDOW = 300.0, 20.0


#: "Shifted by 50% for the very small buffer sizes": the AFCT with the smallest buffer over the
#: largest buffer's, at most 1.5 at every load (the largest over the loads).
AT_MOST_50 = (None, 1.5)
#: Fig. 6.23's loss "first increases and then decreases with the offered load", read as its peak at
#: one of the inner loads, not at either end.
INNER_LOADS = (LOADS[1], LOADS[-2])


def check_fig6_23_24(ctx: Context, label: str, items) -> None:
    """Sec. 6.3.1 on one load sweep (`sweep_table`'s items: (load, buffer, measured)): with the
    largest buffer the AFCT follows PS (/ eq. 6.1, `reports.CLOSE_TO_PS`) at every load; the
    smallest buffer's shift at most 50% and more pronounced at high load (its ratio to the largest
    buffer's at the highest load over at the lowest, at least 1); the loss peaking at an inner load
    (Fig. 6.23, large flows) or at the highest (Fig. 6.24, small flows: it grows with the load), per
    buffer that loses packets at all."""
    got = {(k, b): g for k, b, g in items}
    loads, buffers = sorted({k for k, _, _ in items}), sorted({b for _, b, _ in items})
    lo, hi = buffers[0], buffers[-1]
    for r in loads:
        ctx.check(
            label,
            f"(AFCT + RTT/2) / eq. 6.1, load {r:g}, {pct(hi)} buffer (follows PS)",
            CLOSE_TO_PS,
            got[r, hi]["ratio"],
        )
    shift = {r: ratio(got[r, lo]["thesis_afct"], got[r, hi]["thesis_afct"]) for r in loads}
    known = [v for v in shift.values() if v is not None]
    ctx.check(
        label,
        f"AFCT with a {pct(lo)} buffer / with {pct(hi)}, largest over the loads (shifted by at most 50%)",
        AT_MOST_50,
        max(known) if known else None,
    )
    ctx.check(
        label,
        f"that shift at load {loads[-1]:g} over at load {loads[0]:g} (more pronounced at high load)",
        (1.0, None),
        ratio(shift[loads[-1]], shift[loads[0]]),
    )
    where = INNER_LOADS if label == "Fig. 6.23" else loads[-1]
    shape = "rises, then falls" if label == "Fig. 6.23" else "grows with the load"
    for b in buffers:
        losses = [(r, got[r, b]["loss"]) for r in loads]
        if max(x for _, x in losses) > 0:
            peak = max(losses, key=lambda t: t[1])[0]
            ctx.check(label, f"load of the highest loss, {pct(b)} buffer ({shape})", where, peak)


def analyze_fig6_23_24(runs: Runs, ctx: Context, grid: dict[str, Point]) -> str:
    got = measure_all(runs, grid)
    parts, verdicts = [], {}
    for label, fixed, file in (("Fig. 6.23", False, "fig6-23.png"), ("Fig. 6.24", True, "fig6-24.png")):
        sub = {n: p for n, p in grid.items() if p.fixed == fixed}
        table, items = sweep_table(sub, got, "load", "load", lambda k: f"{k:g}")
        mm1 = None
        if fixed:
            # M/M/1/K with K = the buffer plus the packet on the wire, at the data packets' load.
            mm1 = {
                b: [models.mm1k_loss(r, Point(100e6, SMALL_L, r, b, 1.0).buffer_pkts + 1) for r in LOADS]
                for b in FEW_BUFFERS
            }
        plot_sweep(ctx, file, items, "offered load", False, mm1)
        check_fig6_23_24(ctx, label, items)
        lines = []
        for b in FEW_BUFFERS:
            losses = [g["loss"] for _, bb, g in items if bb == b]
            peak = max(range(len(losses)), key=lambda i: losses[i])
            rising = all(x <= y for x, y in zip(losses, losses[1:]))
            lines.append(
                f"{pct(b)}: "
                + ", ".join(f"{x:.1e}" for x in losses)
                + (
                    " (no loss)"
                    if max(losses) == 0
                    else " (grows with the load)"
                    if rising
                    else f" (peak at load {LOADS[peak]:g})"
                )
                + (f"; M/M/1/K: {', '.join(f'{x:.1e}' for x in mm1[b])}" if mm1 else "")
            )
        verdicts[label] = "<br>".join(lines)
        ratios = [(k, b, g["ratio"]) for k, b, g in items if g["ratio"] is not None]
        worst = max(ratios, key=lambda t: t[2]) if ratios else None
        ref = {k: g for k, b, g in items if b == max(FEW_BUFFERS)}
        shift = [
            f"{k:g}: {'-' if (v := increase(g, ref[k])) is None else f'{v * 100:+.0f}%'}"
            for k, b, g in items
            if b == FEW_BUFFERS[0]
        ]
        verdicts[label + " fct"] = f"2% buffer against 200%, by load: {', '.join(shift)}; " + (
            "-"
            if worst is None
            else f"largest (AFCT + RTT/2) / eq. 6.1: {worst[2]:.2f} (load {worst[0]:g}, buffer {pct(worst[1])})"
        )
        what = f"E[L] = {SMALL_L} packets, every flow that size" if fixed else f"E[L] = {LARGE_L} packets, Pareto"
        dotted = "; dotted: M/M/1/K" if fixed else ""
        parts.append(
            f"### {label}: {what}\n\n{table}\n\n![{label}: (AFCT + RTT/2) / eq. 6.1 (left) and loss "
            f"probability (right) against the load, one line per buffer{dotted}]({file})\n"
        )
    return (
        f"C = 100 Mb/s, RTT 80 ms, load {', '.join(f'{r:g}' for r in LOADS)}, buffers of 2%, 5%, 10% and 200% of the "
        f"BDP. Fig. 6.23: Pareto sizes of mean {LARGE_L} packets (1.7 BDP), arrivals for 300 s x 0.68 / load (as "
        f"many flows at every load); Fig. 6.24: every flow {SMALL_L} packets, arrivals for 20 s. The thesis "
        "compares small flows with an M/M/1/B-FCFS queue: the dotted lines are M/M/1/K's blocking probability "
        "(`experiments/rcp/models.py`, K = buffer + 1) at the data packets' load, a rough reference since RCP's "
        "packets come paced in flows of five after a SYN, not as a Poisson stream.\n\n"
        + "| thesis (sec. 6.3.1) | fctlab |\n|---|---|\n"
        + f"| Fig. 6.23 (large flows): AFCT follows PS with large buffers, shifted by up to 50% with very small "
        f"ones, more at high load | {verdicts['Fig. 6.23 fct']} |\n"
        + f"| Fig. 6.23: loss first rises, then falls with the load | {verdicts['Fig. 6.23']} |\n"
        + "| Fig. 6.24 (small flows): AFCT shifted by up to 50% with very small buffers | "
        + f"{verdicts['Fig. 6.24 fct']} |\n"
        + f"| Fig. 6.24: loss grows with the load, like M/M/1/B-FCFS | {verdicts['Fig. 6.24']} |\n\n"
        + "\n".join(parts)
        + DIFFERENCES
    )


def experiment() -> Experiment:
    points = [Point(100e6, LARGE_L, r, b, WARMUP + LOAD_WINDOW * 0.68 / r) for r in LOADS for b in FEW_BUFFERS]
    points += [Point(100e6, SMALL_L, r, b, WARMUP + SMALL_LOAD_WINDOW, fixed=True) for r in LOADS for b in FEW_BUFFERS]
    return buffer_sweep(
        "fig6-23-24",
        "RCP thesis Figs. 6.23 - 6.24: AFCT and loss against the offered load",
        points,
        analyze_fig6_23_24,
    )
