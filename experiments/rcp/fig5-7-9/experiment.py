"""The RCP thesis, chapter 5's packet simulations, Figs. 5.7 - 5.9 (004:2531-2620): three links, 49
flows of RTT 4 ms and one of RTT 20 s; R at L1 and L3, d and d_T at L1, with the thesis's RTT
averaging (eqs. 5.16 - 5.17) and the fixed-gain one it replaced (`variant = "fixed-gain"`). Base
scenario `experiments/rcp/ch5-fig5-7.toml`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table
from fctlab_experiments.rcp import settling as st
from fctlab_experiments.rcp.settling import link_series

F57_END = 1000.0
F57_QUICK_END = 30.0
F57_POINTS = [
    ("fig5-8-thesis", 0.1, 1.0, "thesis"),
    ("fig5-8-fixed-gain", 0.1, 1.0, "fixed-gain"),
    ("fig5-9-thesis", 0.5, 0.1, "thesis"),
    ("fig5-9-fixed-gain", 0.5, 0.1, "fixed-gain"),
]
#: Capacities (bit/s) of L1 and L3 and the fair rates they should settle at: 49 short flows
#: take L3's 100 Mb/s, the long flow the rest of L1's 155.
F57_L1, F57_L3 = 155e6, 100e6
F57_R1, F57_R3 = F57_L1 - F57_L3, F57_L3 / 49


def _f57_overrides(alpha: float, beta: float, variant: str) -> dict[str, Any]:
    return {
        "queues.router.alpha": alpha,
        "queues.router.beta": beta,
        "queues.router.variant": variant,
        "workload.0.flows": [{"src": "s", "dst": "d", "start": 0.0} for _ in range(49)],
    }


def check_fig5_7_9(ctx: Context, rates: dict[str, tuple[float, float]]) -> None:
    """Sec. 5.3: with the thesis's RTT averaging, Figs. 5.8 and 5.9 (the extreme pairs of the stable
    region) are stable: R at L1 and at L3 (`rates`, Mb/s, means over the second half, by run) at
    their links' max-min fair rates, 55 and 100/49 Mb/s. The fixed-gain average's instability is
    a statement about the old algorithm, not a figure's, and is not checked."""
    for n, a, b, v in F57_POINTS:
        if v != "thesis" or n not in rates:
            continue
        r1, r3 = rates[n]
        fig = "Fig. 5.8" if n.startswith("fig5-8") else "Fig. 5.9"
        ctx.check(fig, f"R at L1, Mb/s, (alpha, beta) = ({a}, {b}) (the long flow's fair rate)", F57_R1 / 1e6, r1)
        ctx.check(fig, f"R at L3, Mb/s, (alpha, beta) = ({a}, {b}) (the short flows' fair rate)", F57_R3 / 1e6, r3)


def analyze_fig5_7_9(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    rows, data, rates = [], {}, {}
    for n, a, b, v in F57_POINTS:
        end = runs.window(n, seed)[1]
        l1, l3, l2 = (link_series(runs, n, seed, k) for k in ("L1", "L3", "L2"))
        data[n] = (l1, l3)
        half = end / 2

        def mean(s: dict, m: str, half: float = half) -> float:
            if m not in s:
                return float("nan")
            t, x = s[m]
            w = x[(t > half) & np.isfinite(x)]
            return float(w.mean()) if w.size else float("nan")

        def sw(s: dict, m: str, ref: float, half: float = half, end: float = end) -> float:
            if m not in s:
                return float("nan")
            t, x = s[m]
            return st.swing(t, np.nan_to_num(x), half, end, ref)

        rates[n] = (mean(l1, "rcp_rate_bps") / 1e6, mean(l3, "rcp_rate_bps") / 1e6)
        rows.append(
            [
                n,
                f"{a}, {b}",
                v,
                fmt(mean(l1, "rcp_rate_bps") / 1e6, ".1f"),
                fmt(sw(l1, "rcp_rate_bps", F57_R1), ".2f"),
                fmt(mean(l3, "rcp_rate_bps") / 1e6, ".2f"),
                fmt(sw(l3, "rcp_rate_bps", F57_R3), ".2f"),
                fmt(mean(l1, "rcp_avg_rtt_s"), ".2f"),
                fmt(sw(l1, "rcp_avg_rtt_s", 1.0), ".2f"),
                fmt(float(l1["rcp_avg_rtt_s"][1].max()) if "rcp_avg_rtt_s" in l1 else None, ".1f"),
                fmt(mean(l2, "throughput_bps") / 1e6, ".1f"),
                fmt(mean(l3, "throughput_bps") / 1e6, ".1f"),
            ]
        )
    _plot_fig5_7_9(ctx, data)
    check_fig5_7_9(ctx, {n: tuple(None if math.isnan(x) else x for x in r) for n, r in rates.items()})
    return (
        "Fig. 5.7's network: L1 155 Mb/s / 1 ms, L2 622 Mb/s / 10 s, L3 100 Mb/s / 1 ms; 49 flows of RTT 4 ms "
        "cross L1 and L3 (bottleneck L3, fair rate 100/49 = 2.04 Mb/s), one flow of RTT 20 s crosses L1 and L2 "
        "(bottleneck L1, fair rate 155 - 100 = 55 Mb/s); every router runs RCP, buffers of 1 GB (no losses; the "
        "thesis gives no buffer). Fig. 5.8: alpha 0.1, "
        "beta 1; Fig. 5.9: alpha 0.5, beta 0.1; each with the thesis's RTT averaging (eqs. 5.16 - 5.17, "
        '`variant = "thesis"`) and with the original fixed-gain one (d = 0.02 rtt_p + 0.98 d per packet, '
        '`variant = "fixed-gain"`). The thesis gives no run length: '
        f"{runs.window(F57_POINTS[0][0], seed)[1]:.0f} s here (the long flow's RTT is 20 s). Means and swings "
        "(max - min, as a fraction of the fair rate; d's in seconds) over the second half of the run.\n\n"
        + md_table(
            [
                "run",
                "alpha, beta",
                "RTT averaging",
                "R at L1 (Mb/s)",
                "R swing at L1",
                "R at L3 (Mb/s)",
                "R swing at L3",
                "d at L1 (s)",
                "d swing at L1 (s)",
                "d's peak at L1 (s)",
                "long flow (Mb/s)",
                "short flows (Mb/s)",
            ],
            rows,
        )
        + "\n\n| thesis (sec. 5.3) | fctlab |\n|---|---|\n"
        + "| with eqs. 5.16 - 5.17 the same stable region holds: Figs. 5.8, 5.9 settle at both extremes | see the "
        "`thesis` rows: R at L1 against 55 Mb/s, at L3 against 2.04 Mb/s |\n"
        + '| the original fixed-gain average "lead to instability ... because the RTT estimate itself was '
        "unstable\" (004:2584-2588) | see the `fixed-gain` rows: d's swing at L1 and R's |\n"
        + "| Fig. 5.9: d (smoothed) differs from d_T (the interval's average) | plotted: `rcp_interval_rtt_s` "
        "(d_T over the interval so far, sampled every 100 ms) against `rcp_avg_rtt_s` (d) |\n"
        + "\n**What happens here.** Until the long flow's data reaches L1, L1 carries only the short flows' "
        "100 Mb/s and its R climbs to C = 155 Mb/s; the long flow's first feedback (one 20 s RTT later) is "
        "that R, so for a whole RTT it sends 155 Mb/s into a link already carrying 100: a queue of hundreds of MB "
        "(seconds to tens of seconds of delay) builds at L1 before any correction can arrive. The short flows' "
        "RTT fields then carry that delay, d at L1 rises with them (gain T/d upwards) to tens of seconds and R "
        "collapses. With the thesis's averaging, d comes down only with gain (R/C)(T/d)(d_T/d) (eq. 5.17), and "
        "with R at a percent of C and d ~ 25 - 75 s that is almost nothing: d stays near its peak long after d_T "
        "has fallen back (the plot's d against d_T, the Fig. 5.9 contrast), and R, whose steps scale as T/d, "
        "climbs back over hundreds of seconds (Fig. 5.9's pair) or not at all in the run (Fig. 5.8's). The "
        "fixed-gain average follows d_T up and down: at (0.1, 1) it falls into a lasting oscillation (R at L1 "
        "between its floor and C with a period of about 200 s, d between 0 and 50 s) - the instability the "
        "thesis attributes to it; at (0.5, 0.1) it settles, near 55 Mb/s, after about 700 s. So the thesis's "
        "claim that the old average is unstable is reproduced for Fig. 5.8's parameters, but its claim that the "
        "new one keeps both figures stable is **not**: here the start-up overload of a 20 s RTT flow drives the "
        "new average into a state it leaves only very slowly. The thesis does not say how its flows started or "
        "what buffers it had (a drop-tail buffer would cap the queue, and so d, but drop most of the excess).\n"
        + "\n![Figs. 5.8 - 5.9: R at L1 and L3, d and d_T at L1, per run](fig5-7-9.png)\n"
    )


def _plot_fig5_7_9(ctx: Context, data: dict) -> None:
    figsize = (4 * len(F57_POINTS), 8)
    with figure(ctx, "fig5-7-9.png", 3, len(F57_POINTS), figsize=figsize, squeeze=False, dpi=100) as (_fig, axes):
        _draw_fig5_7_9(axes, data)


def _draw_fig5_7_9(axes, data: dict) -> None:
    """Per run (a column): R at L1, R at L3, and d and d_T at L1."""
    for j, (n, *_r) in enumerate(F57_POINTS):
        l1, l3 = data[n]
        for i, (s, m, scale, label) in enumerate(
            ((l1, "rcp_rate_bps", 1e6, "R at L1 (Mb/s)"), (l3, "rcp_rate_bps", 1e6, "R at L3 (Mb/s)"))
        ):
            if m in s:
                axes[i][j].plot(s[m][0], s[m][1] / scale, lw=0.7)
            axes[i][j].set(ylabel=label)
        for m, label in (("rcp_interval_rtt_s", "d_T"), ("rcp_avg_rtt_s", "d")):
            if m in l1:
                axes[2][j].plot(l1[m][0], l1[m][1], lw=0.6 if m == "rcp_interval_rtt_s" else 1.2, label=label)
        axes[2][j].set(ylabel="at L1 (s)", xlabel="time (s)")
        axes[2][j].legend(fontsize=7)
        axes[0][j].set_title(n, fontsize=9)


def experiment() -> Experiment:
    """Figs. 5.7 - 5.9: 49 short-RTT flows and one 20 s flow, with and without eqs. 5.16 - 5.17."""
    return Experiment(
        name="fig5-7-9",
        title="RCP thesis Figs. 5.7 - 5.9: heterogeneous RTTs and the RTT averaging",
        base="ch5-fig5-7.toml",
        points=[(n, {**_f57_overrides(a, b, v), "duration": F57_END}) for n, a, b, v in F57_POINTS],
        seeds=1,
        analyze=analyze_fig5_7_9,
        quick={"duration": F57_QUICK_END},
    )
