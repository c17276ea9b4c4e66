"""The RCP thesis (Dukkipati), sec. 6.2.1, Fig. 6.11: nine long RCP flows on a plain RCP port, a TCP
flow joins at 50 s and RCP is throttled at once (TCP fills the buffer); beside it the same flows on
a 1 MB buffer and on the coexistence scheme's port (`rcp-tcp`, Figs. 6.12 - 6.13). Base scenario
`experiments/rcp/ch6-coexist.toml`; the setting is `coexist`'s.
"""

from __future__ import annotations

from typing import Any

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table, window_stat
from fctlab_experiments.rcp.coexist import (
    CAPACITY,
    QUICK_SCALE,
    SCHEME,
    avg,
    class_rates,
    counts_of,
    duration_of,
    long_lived,
    scaled,
    tcp_start_of,
)

#: A plain RCP port of the same buffer as the scheme's.
PLAIN_RCP = {"kind": "rcp", "limit": "500KB"}
FIG611 = {"n_rcp": 9, "n_tcp": 1, "join": 50.0, "end": 100.0}


def _fig611_points(scale: float) -> dict[str, dict[str, Any]]:
    g = FIG611
    return {
        name: long_lived(g["n_rcp"], g["n_tcp"], g["join"] * scale, g["end"] * scale, q)
        for name, q in (("plain-rcp", PLAIN_RCP), ("plain-rcp-1MB", {**PLAIN_RCP, "limit": "1MB"}), ("rcp-tcp", SCHEME))
    }


def analyze_fig6_11(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    rows, got = [], {}
    for name in runs.names:
        w = runs.wide_series(name, seed)
        n_rcp, n_tcp = counts_of(runs, name, seed)
        join, end = tcp_start_of(runs, name, seed), duration_of(runs, name, seed)
        rcp_ups = [f"l{i}->rl" for i in range(n_rcp)]
        tcp_ups = [f"l{i}->rl" for i in range(n_rcp, n_rcp + n_tcp)]
        before = avg(class_rates(w, rcp_ups, join / 2, join))
        soon = (join, join + (end - join) / 10)
        late = ((join + end) / 2, end)
        g = {
            "before": before,
            "rcp_soon": avg(class_rates(w, rcp_ups, *soon)),
            "rcp_late": avg(class_rates(w, rcp_ups, *late)),
            "tcp_late": avg(class_rates(w, tcp_ups, *late)),
            "r_before": window_stat(w, "bottleneck_rcp_rate_bps", join / 2, join),
            "r_late": window_stat(w, "bottleneck_rcp_rate_bps", *late),
            "w": w,
            "join": join,
        }
        got[name] = g
        rows.append(
            [
                name,
                fmt(g["before"], ".2f", 1e6),
                fmt(g["rcp_soon"], ".2f", 1e6),
                fmt(g["rcp_late"], ".2f", 1e6),
                fmt(g["tcp_late"], ".2f", 1e6),
                fmt(g["r_before"], ".3f", CAPACITY),
                fmt(g["r_late"], ".3f", CAPACITY),
            ]
        )
    _plot_fig611(ctx, got)
    p, p1 = got["plain-rcp"], got["plain-rcp-1MB"]
    fair = CAPACITY / 10
    r_before = None if p["r_before"] is None else p["r_before"] / CAPACITY
    ctx.check("Fig. 6.11", "R/C before TCP joins (9 RCP flows)", 1 / 9, r_before)
    fixed = got["rcp-tcp"]
    for cls in ("rcp", "tcp"):
        rate = fixed[f"{cls}_late"]
        ctx.check(
            "Figs. 6.12 - 6.13",
            f"{cls.upper()} flow's rate with the coexistence scheme, Mb/s (about C/10)",
            fair / 1e6,
            None if rate is None else rate / 1e6,
        )

    def pct(x: float | None, of: float) -> str:
        return "-" if x is None else f"{x / of:.0%}"

    return (
        "Nine long RCP flows share a 100 Mb/s bottleneck (80 ms round trip, 500 KB buffer) from 0 s; a TCP flow "
        f"joins at {p['join']:.0f} s (the thesis: 50 s). `plain-rcp` is the thesis's Fig. 6.11 (the bottleneck runs "
        "the plain RCP law; `plain-rcp-1MB` with a 1 MB buffer instead of 500 KB); `rcp-tcp` is the same with "
        "the coexistence scheme of Figs. 6.12-6.13 (two-queue). Rates "
        "are per-flow sending rates on the flows' access links (Mb/s, wire bytes): before the join (its second "
        "half), in the first tenth after it, and over the second half after it; R/C is the bottleneck's RCP rate.\n\n"
        + md_table(
            [
                "run",
                "RCP per flow before",
                "RCP per flow just after",
                "RCP per flow late",
                "TCP late",
                "R/C before",
                "R/C late",
            ],
            rows,
        )
        + "\n\n| thesis (Fig. 6.11) | fctlab |\n|---|---|\n"
        + f"| before the join R/C = 1/9 = 0.111 | R/C {fmt(p['r_before'], '.3f', CAPACITY)} |\n"
        + f'| "RCP rate is throttled immediately" when TCP joins | plain RCP, 500 KB: R/C falls to '
        f"{fmt(p['r_late'], '.3f', CAPACITY)}; each RCP flow gets {fmt(p['rcp_late'], '.2f', 1e6)} Mb/s, "
        f"{pct(p['rcp_late'], fair)} of its fair {fair / 1e6:.0f} Mb/s, and TCP takes "
        f"{fmt(p['tcp_late'], '.1f', 1e6)} Mb/s "
        f"({pct(p['tcp_late'], CAPACITY)} of the link). 1 MB: R/C {fmt(p1['r_late'], '.4f', CAPACITY)}, RCP "
        f"{fmt(p1['rcp_late'], '.2f', 1e6)} Mb/s per flow, TCP {fmt(p1['tcp_late'], '.1f', 1e6)} Mb/s |\n"
        + "| (the fix, Fig. 6.13) each flow about C/10 | rcp-tcp: RCP "
        f"{fmt(got['rcp-tcp']['rcp_late'], '.2f', 1e6)}, "
        f"TCP {fmt(got['rcp-tcp']['tcp_late'], '.2f', 1e6)} Mb/s |\n"
        + "\nWhy: TCP keeps the buffer full; eq. 3.3 sees a standing queue (beta q/d) and an input above C, "
        "lowers R, RCP sends less, TCP's window grows into the room, and R falls to its floor.\n"
        + "\n![Fig. 6.11: R(t)/C and the per-class throughput](fig6-11.png)\n"
    )


def _plot_fig611(ctx: Context, got: dict[str, dict[str, Any]]) -> None:
    with figure(ctx, "fig6-11.png", 1, 2, figsize=(10, 3.5)) as (fig, axes):
        for ax, name in zip(axes, ("plain-rcp", "rcp-tcp"), strict=True):
            if name not in got:
                continue
            w = got[name]["w"]
            if "bottleneck_rcp_rate_bps" in w.columns:
                ax.plot(w["time_s"], w["bottleneck_rcp_rate_bps"] / CAPACITY, label="R(t)/C")
            tcp_col = "l9->rl_throughput_bps"
            if tcp_col in w.columns:
                ax.plot(w["time_s"], w[tcp_col] / CAPACITY, label="TCP flow / C", alpha=0.7)
            ax.axhline(1 / 9, ls=":", c="k", lw=0.8)
            ax.set(title=name, xlabel="time (s)", ylabel="fraction of C", ylim=(0, 1.05))
            ax.legend(fontsize=7)


def experiment() -> Experiment:
    """Fig. 6.11: nine RCP flows and a TCP flow joining at 50 s on a plain RCP router."""
    pts = {s: _fig611_points(s) for s in (1.0, QUICK_SCALE)}
    return Experiment(
        name="fig6-11",
        title="RCP thesis Fig. 6.11: TCP joining RCP flows on an RCP router throttles RCP",
        base="ch6-coexist.toml",
        points=list(pts[1.0].items()),
        seeds=1,
        analyze=analyze_fig6_11,
        quick=scaled(pts),
    )
