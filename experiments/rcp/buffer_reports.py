"""The tables and plots of the RCP thesis's buffer sweeps (sec. 6.3, Figs. 6.19 - 6.24): a sweep's
table of every run against eq. 6.1 and the largest buffer, its plot of (AFCT + RTT/2) / eq. 6.1
and loss against the swept parameter, and the paragraph on the differences from the thesis's
simulations that every report ends with.

Those differences: its ns-2.29 hosts resent, about two round trips after their last packet,
whatever was still unacknowledged, and a flow ended when the sender knew the receiver had
everything; fctlab's RCP hosts repair losses from SACK information (docs/scenario.md, "RCP and
XCP") and a flow ends when the receiver holds the last byte, half a round trip earlier. Reports
add that half round trip to fctlab's FCTs before comparing with eq. 6.1. CPU is scarce, so the
sweeps are coarser than the thesis's and the capacity sweep spans two orders of magnitude (10 Mb/s
- 1 Gb/s), not three.
"""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.framework import Context, figure, fmt, md_table
from fctlab_experiments.rcp.buffers import WARMUP, Point


def pct(b: float) -> str:
    """A buffer (fraction of the BDP) in per cent."""
    return f"{b * 100:g}%"


def increase(got: dict[str, Any], ref: dict[str, Any]) -> float | None:
    """The rise of (AFCT + RTT/2) over the reference run's (0.8 for +80%); None without flows."""
    if got["thesis_afct"] is None or ref["thesis_afct"] is None:
        return None
    return got["thesis_afct"] / ref["thesis_afct"] - 1.0


def sweep_table(
    grid: dict[str, Point], got: dict[str, dict[str, Any]], key: str, label: str, key_fmt
) -> tuple[str, list[tuple[Any, float, dict[str, Any]]]]:
    """A table of every run of a sweep, sorted by `key` then buffer, its first column `key_fmt` of
    the key; returns it with the rows."""
    items = sorted(((getattr(p, key), p.buffer, got[n]) for n, p in grid.items()), key=lambda t: (t[0], t[1]))
    biggest = {k: max(b for kk, b, _ in items if kk == k) for k, _, _ in items}
    ref = {k: g for k, b, g in items if b == biggest[k]}
    rows = []
    for k, b, g in items:
        inc = increase(g, ref[k])
        rows.append(
            [
                key_fmt(k),
                f"{pct(b)} ({next(p.buffer_pkts for p in grid.values() if getattr(p, key) == k and p.buffer == b)})",
                str(g["flows"]) + (f" ({g['incomplete']} unfinished)" if g["incomplete"] else ""),
                fmt(g["mean_pkts"], ".1f"),
                fmt(g["load"], ".2f"),
                fmt(g["thesis_afct"], ".3f"),
                fmt(g["eq61"], ".3f"),
                fmt(g["ratio"], ".2f"),
                "-" if inc is None else f"{inc * 100:+.0f}%",
                f"{g['loss']:.2e}",
                fmt(None if g["timeouts"] is None else g["timeouts"] * 100, ".1f"),
                fmt(g["active"], ".1f"),
                fmt(g["active_ps"], ".1f"),
                fmt(g["r_c"], ".2f"),
                fmt(g["nr_c"], ".1f"),
                f"{g['queue_pkts']:.1f}",
            ]
        )
    header = [
        label,
        "buffer (packets)",
        "flows",
        "mean size (packets)",
        "measured load",
        "AFCT + RTT/2 (s)",
        "eq. 6.1 (s)",
        "/ eq. 6.1",
        f"vs the {pct(max(p.buffer for p in grid.values()))} buffer",
        "loss probability",
        "flows with a timeout (%)",
        "active flows",
        "eq. 6.1's active flows",
        "R / C",
        "N R / C",
        "mean queue, whole run (packets)",
    ]
    return md_table(header, rows), items


def plot_sweep(ctx: Context, file: str, items, xlabel: str, logx: bool, mm1: dict[float, list[float]] | None = None):
    """(AFCT + RTT/2) / eq. 6.1 and the loss probability against the swept parameter, one line per
    buffer; `mm1`, M/M/1/K's loss per buffer, dotted."""
    with figure(ctx, file, 1, 2, figsize=(10, 3.6)) as (fig, axes):
        for b in sorted({b for _, b, _ in items}):
            xs = [k for k, bb, g in items if bb == b and g["ratio"] is not None]
            axes[0].plot(
                xs, [g["ratio"] for k, bb, g in items if bb == b and g["ratio"] is not None], "o-", label=pct(b)
            )
            axes[1].plot(
                [k for k, bb, _ in items if bb == b], [g["loss"] for _, bb, g in items if bb == b], "o-", label=pct(b)
            )
            if mm1 and b in mm1:
                axes[1].plot(sorted({k for k, _, _ in items}), mm1[b], ":", color="grey")
        axes[0].axhline(1.0, color="k", lw=0.6)
        axes[0].set(xlabel=xlabel, ylabel="(AFCT + RTT/2) / eq. 6.1")
        axes[1].set(xlabel=xlabel, ylabel="loss probability")
        axes[1].set_yscale("symlog", linthresh=1e-5)
        for a in axes:
            if logx:
                a.set_xscale("log")
            a.legend(fontsize=7, title="buffer (% BDP)", title_fontsize=7)


DIFFERENCES = (
    "\n\nDifferences from the thesis's simulations: its ns-2.29 RCP hosts resent, about two round trips after "
    "their last packet, whatever was still unacknowledged, and a flow ended when the sender knew the receiver "
    "had every packet; fctlab's RCP hosts repair losses from SACK information (a segment with three SACKed "
    "segments above it, or a timeout) and a flow ends when the receiver holds its last byte. 'AFCT + RTT/2' "
    "adds that last half round trip so the AFCT is comparable with eq. 6.1 (2 RTT + E[L] / (C (1 - rho))); "
    "eq. 6.1 is the thesis's curve at the nominal E[L] and load. With shape 1.2 Pareto's "
    "sample mean strays far from the nominal one (the 'mean size' column), and so does the load the measured "
    "flows bring ('measured load': their data packets' wire bits over the measurement window and C), which "
    "moves the AFCT; compare buffers within one mean size and load, which share their flows. "
    "Loss probability is the bottleneck's drops / arrivals over the whole run, SYNs included. Active flows: "
    "Little's law, the measured flows' arrival rate x (AFCT + RTT/2). R / C and N R / C: means over the "
    "measurement window of the router's R(t) / C and of N(t) R(t) / C, N(t) the flows active at the bottleneck "
    "(100 ms samples). The router starts at R = 0.5 C, d = 80 ms; "
    f"flows of the first {WARMUP:.0f} s are not measured. One seed: the runs of one sweep share their arrivals "
    "and sizes wherever the load and mean size agree, so buffers compare on the same flows."
)
