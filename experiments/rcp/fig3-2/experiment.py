"""The RCP thesis (Dukkipati), Fig. 3.2 (sec. 3.2.1): C/R follows the number N(t) of long-lived
flows as they come and go (20 flows, 20 more, the first 20 leave).

Base scenario `experiments/rcp/ch3-fig3-2.toml` (1000-byte packets, the thesis's gains alpha = 0.1,
beta = 1, the ns-2 code's starting state R = 0.05 C, d = 0.2 s). The thesis gives this figure as
a plot: where its text gives a number the README sets it beside fctlab's; elsewhere it states the
expected shape and checks it with numbers measured here.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, md_table
from fctlab.reproduce.series import link_series, settle_time, window_mean
from fctlab_experiments.rcp.scaled_flows import QUICK_SCALE, scaled_long_lived

#: (start, stop) of the two groups of 20 flows, s (caption of Fig. 3.2).
FIG32_GROUPS = ((0.0, 100.0), (40.0, 140.0))
FIG32_END = 140.0


def _fig32_flows(scale: float) -> list[dict[str, Any]]:
    flows = [(f"l{i}", f"r{i}", *FIG32_GROUPS[i // 20]) for i in range(40)]
    return scaled_long_lived(flows, scale)


def _phases(groups: tuple[tuple[float, float], ...], end: float, scale: float) -> list[tuple[float, float, int]]:
    """(start, end, flows active) of each span between consecutive arrivals and departures."""
    edges = sorted({0.0, end, *(t for g in groups for t in g)})
    out = []
    for a, b in zip(edges, edges[1:]):
        n = sum(20 for g in groups if g[0] <= a < g[1])
        out.append((a * scale, b * scale, n))
    return out


def analyze_fig32(runs: Runs, ctx: Context) -> str:
    scale = QUICK_SCALE if ctx.quick else 1.0
    seed = runs.seeds[0]
    capacity = float(runs.links("rcp", seed).filter(pl.col("name") == "bottleneck")["rate_bps"].item())
    w = link_series(runs.series("rcp", seed), "bottleneck").with_columns(
        c_over_r=capacity / pl.col("rcp_rate_bps"), utilization=pl.col("throughput_bps") / capacity
    )
    t, est = w["time_s"].to_list(), w["c_over_r"].to_list()
    rows = []
    peaks = []
    for a, b, n in _phases(FIG32_GROUPS, FIG32_END, scale):
        tail = max(a, b - 10.0 * scale)
        settled = settle_time(t, est, n, a, b)
        phase = w.filter((pl.col("time_s") > a) & (pl.col("time_s") <= b))
        span = phase["c_over_r"]
        peaks.append((float(span.max()), float(phase["utilization"].min())))
        ctx.check(
            "Fig. 3.2",
            f"C/R at the end of {a:.0f} - {b:.0f} s (N = {n})",
            float(n),
            window_mean(w, "c_over_r", tail, b),
        )
        rows.append(
            [
                f"{a:.0f} - {b:.0f}",
                n,
                f"{window_mean(w, 'active_flows', tail, b):.1f}",
                f"{float(span.min()):.1f} - {float(span.max()):.1f}",
                f"{window_mean(w, 'c_over_r', tail, b):.2f}",
                "not within 10%" if settled is None else f"{settled:.1f}",
                f"{window_mean(w, 'utilization', tail, b):.3f}",
            ]
        )
    with figure(ctx, "fig3-2.png", 2, 1, figsize=(7, 5), sharex=True, dpi=120) as (fig, (ax, bx)):
        ax.plot(t, est, label="C / R(t)")
        ax.plot(t, w["active_flows"].to_list(), "--", label="N(t)")
        ax.set_ylabel("flows")
        ax.set_ylim(0, 60)
        ax.legend()
        bx.plot(t, w["utilization"].to_list())
        bx.set_ylabel("bottleneck utilization")
        bx.set_xlabel("time (s)")
    return (
        "Long-lived flows on a 100 Mb/s bottleneck, 100 ms round trip (the caption gives neither): 20 flows "
        f"start at 0, 20 more at {40 * scale:.0f} s, the first 20 stop at {100 * scale:.0f} s. The thesis plots "
        'R(t)/C and the utilization and says only that "in each case, C/R converges to N(t)" and that the '
        "convergence is fast; it gives no numbers. fctlab's `rcp_rate_bps` and `active_flows` series, sampled "
        "every 100 ms; each phase's values are means over its last "
        f'{10 * scale:.1f} s; "settles after" is the time from the phase\'s start until C/R stays within 10% '
        "of N to the phase's end.\n\n"
        + md_table(
            [
                "phase (s)",
                "N",
                "N measured",
                "C/R range in phase",
                "C/R at phase end",
                "settles after (s)",
                "utilization",
            ],
            rows,
        )
        + "\n\nC/R converges to N in every phase, as the thesis says; how fast depends on the direction. The "
        "R = 0.05 C the ns-2 code starts from happens to be C/20, so the first phase starts converged. When 20 "
        "flows join at the old rate the link is offered 2C for about a round trip; the queue that builds drives R "
        f"down through eq. 3.3's beta q/d term until C/R peaks at {peaks[1][0]:.0f} (the utilization falls to "
        f"{peaks[1][1]:.2f}), and R climbs back by alpha (T/d) (C - y)/C per control interval, a few percent at "
        "most, so C/R needs the seconds shown above to come back to 40. When flows leave, the spare capacity "
        "raises R in a few seconds. In equilibrium a standing "
        "queue of a few packets (the paced flows' phases collide) balances alpha (C - y) against beta q/d, which "
        "keeps the utilization a few percent below 1 and C/R a few percent above N.\n\n![Fig. 3.2](fig3-2.png)"
    )


def experiment() -> Experiment:
    """Fig. 3.2: 20 long-lived flows, 20 more, then the first 20 leave."""
    return Experiment(
        name="fig3-2",
        title="RCP thesis Fig. 3.2: C/R follows the number of long-lived flows",
        base="ch3-fig3-2.toml",
        points=[("rcp", {"duration": FIG32_END, "workload.0.flows": _fig32_flows(1.0)})],
        seeds=1,
        analyze=analyze_fig32,
        quick={"duration": FIG32_END * QUICK_SCALE, "workload.0.flows": _fig32_flows(QUICK_SCALE)},
    )
