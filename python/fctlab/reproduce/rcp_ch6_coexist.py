"""The RCP thesis (Dukkipati), sec. 6.2.1: RCP sharing routers with TCP (Figs. 6.11, 6.13-6.16).

Fig. 6.11 is the problem: on a plain RCP port TCP fills the buffer and RCP throttles itself.
Figs. 6.13-6.16 are the thesis's fix, fctlab's `rcp-tcp` queue (`protocol/rcp/coexist.rs`): RCP and
TCP queues served by WFQ (DRR) whose weights equalize the two classes' average flow rates, with
RCP's law run on C_R(t) = max(C - y_T, C w_R); or one shared queue ("soft isolation", Fig.
6.14). Base scenarios: `experiments/rcp/ch6-coexist.toml` (one bottleneck, Figs. 6.11, 6.13,
6.14, 6.16) and `ch6-coexist-two-bottlenecks.toml` (Fig. 6.15). The thesis gives no link rates,
delays or buffers for these figures: we take its ch. 6 simulation setting (100 Mb/s, an 80 ms
round trip) and a buffer of half a bandwidth-delay product (500 KB) per queue; with a full one
(1 MB) the scheme locks TCP out after its slow start in Fig. 6.13 (see that report).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.quantity import parse_time
from fctlab.reproduce import checks
from fctlab.reproduce.framework import Context, Experiment, Runs, fmt, md_table, plt, window_stat

#: Bottleneck capacity of both base scenarios (bit/s).
CAPACITY = 100e6
#: Quick mode runs this fraction of every schedule.
QUICK_SCALE = 0.2
#: The scheme's port as the experiments configure it (the rest: `rcp-tcp` defaults).
SCHEME = {"kind": "rcp-tcp", "limit": "500KB", "tc": "500ms", "theta": 0.1}
#: A plain RCP port of the same buffer (Fig. 6.11).
PLAIN_RCP = {"kind": "rcp", "limit": "500KB"}


def _long_lived(n_rcp: int, n_tcp: int, tcp_start: float, duration: float, queue: dict[str, Any]) -> dict[str, Any]:
    """Overrides of ch6-coexist.toml: `n_rcp` RCP flows from 0 s on hosts l0.., `n_tcp` TCP flows
    from `tcp_start` on the next hosts, every uplink and the bottleneck sampled."""
    n = n_rcp + n_tcp

    def flows(lo: int, hi: int, start: float) -> list[dict[str, Any]]:
        return [{"src": f"l{i}", "dst": f"r{i}", "start": start} for i in range(lo, hi)]

    return {
        "duration": duration,
        "topology.hosts_per_side": n,
        "queues.links.bottleneck": queue,
        "workload.0.flows": flows(0, n_rcp, 0.0),
        "workload.1.flows": flows(n_rcp, n, tcp_start),
        "output.series.links": ["bottleneck"] + [f"l{i}->rl" for i in range(n)],
    }


def _scaled(points: dict[float, dict[str, dict[str, Any]]]) -> Any:
    """Quick-mode overrides: the run's points at QUICK_SCALE."""
    return lambda name, _o: points[QUICK_SCALE][name]


# ---------------------------------------------------------------------------------------------
# Reading the runs


def _rate_of(w: pl.DataFrame, uplink: str, a: float, b: float) -> float | None:
    return window_stat(w, f"{uplink}_throughput_bps", a, b)


def _class_rates(w: pl.DataFrame, ups: list[str], a: float, b: float) -> list[float]:
    return [r for r in (_rate_of(w, u, a, b) for u in ups) if r is not None]


def _avg(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _jain(xs: list[float]) -> float | None:
    s2 = sum(x * x for x in xs)
    return (sum(xs) ** 2 / (len(xs) * s2)) if xs and s2 > 0 else None


def _duration(runs: Runs, name: str, seed: int) -> float:
    return runs.window(name, seed)[1]


def _tcp_start(runs: Runs, name: str, seed: int) -> float:
    flows = runs.scenario(name, seed)["workload"][1].get("flows") or [{"start": 0.0}]
    return float(flows[0]["start"])


def _counts(runs: Runs, name: str, seed: int) -> tuple[int, int]:
    wl = runs.scenario(name, seed)["workload"]
    return len(wl[0]["flows"]), len(wl[1]["flows"])


def _tc_check(w: pl.DataFrame, tc: float) -> str:
    """How often the measured T_c* exceeded T_c, and its largest value."""
    col = "bottleneck_rcp_tcp_tc_star_s"
    if col not in w.columns or w.height == 0:
        return "-"
    v = w[col]
    over = int((v > tc).sum())
    return f"T_c* > T_c in {over} of {len(v)} samples (max {float(v.max()):.2f} s, T_c = {tc:.1f} s)"


# ---------------------------------------------------------------------------------------------
# Fig. 6.11: the problem (and the scheme on the same flows)

FIG611 = {"n_rcp": 9, "n_tcp": 1, "join": 50.0, "end": 100.0}


def _fig611_points(scale: float) -> dict[str, dict[str, Any]]:
    g = FIG611
    return {
        name: _long_lived(g["n_rcp"], g["n_tcp"], g["join"] * scale, g["end"] * scale, q)
        for name, q in (("plain-rcp", PLAIN_RCP), ("plain-rcp-1MB", {**PLAIN_RCP, "limit": "1MB"}), ("rcp-tcp", SCHEME))
    }


def fig6_11() -> Experiment:
    """Fig. 6.11: nine RCP flows and a TCP flow joining at 50 s on a plain RCP router."""
    pts = {s: _fig611_points(s) for s in (1.0, QUICK_SCALE)}
    return Experiment(
        name="fig6-11",
        title="RCP thesis Fig. 6.11: TCP joining RCP flows on an RCP router throttles RCP",
        base="ch6-coexist.toml",
        points=list(pts[1.0].items()),
        seeds=1,
        analyze=analyze_fig6_11,
        quick=_scaled(pts),
    )


def analyze_fig6_11(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    rows, got = [], {}
    for name in runs.names:
        w = runs.wide_series(name, seed)
        n_rcp, n_tcp = _counts(runs, name, seed)
        join, end = _tcp_start(runs, name, seed), _duration(runs, name, seed)
        rcp_ups = [f"l{i}->rl" for i in range(n_rcp)]
        tcp_ups = [f"l{i}->rl" for i in range(n_rcp, n_rcp + n_tcp)]
        before = _avg(_class_rates(w, rcp_ups, join / 2, join))
        soon = (join, join + (end - join) / 10)
        late = ((join + end) / 2, end)
        g = {
            "before": before,
            "rcp_soon": _avg(_class_rates(w, rcp_ups, *soon)),
            "rcp_late": _avg(_class_rates(w, rcp_ups, *late)),
            "tcp_late": _avg(_class_rates(w, tcp_ups, *late)),
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
    p = plt()
    fig, axes = p.subplots(1, 2, figsize=(10, 3.5))
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
    fig.tight_layout()
    fig.savefig(ctx.out / "fig6-11.png", dpi=110)
    p.close(fig)


# ---------------------------------------------------------------------------------------------
# Figs. 6.13 and 6.14: long flows on the scheme's port


#: Runs of Figs. 6.13-6.14 by name: the scheme's mode and when its weights may move.
MODES = {
    "two-queue": {"mode": "two-queue"},
    "single-queue": {"mode": "single-queue"},
    "two-queue-fixed-tc": {"mode": "two-queue", "tc_rule": "fixed"},
    "two-queue-1MB": {"mode": "two-queue", "limit": "1MB"},
}


def _share_points(scale: float, n_rcp: int, n_tcp: int, join: float, end: float, modes: list[str]) -> dict:
    return {m: _long_lived(n_rcp, n_tcp, join * scale, end * scale, {**SCHEME, **MODES[m]}) for m in modes}


def fig6_13() -> Experiment:
    """Fig. 6.13: 80 RCP flows from 0 s and 20 TCP flows from 10 s, two-queue scheme."""
    pts = {
        s: _share_points(s, 80, 20, 10.0, 100.0, ["two-queue", "two-queue-fixed-tc", "two-queue-1MB"])
        for s in (1.0, QUICK_SCALE)
    }
    return Experiment(
        name="fig6-13",
        title="RCP thesis Fig. 6.13: 80 RCP and 20 TCP flows share a link equally under the coexistence scheme",
        base="ch6-coexist.toml",
        points=list(pts[1.0].items()),
        seeds=1,
        analyze=lambda runs, ctx: _analyze_share(runs, ctx, "fig6-13"),
        quick=_scaled(pts),
    )


def fig6_14() -> Experiment:
    """Fig. 6.14: 5 RCP and 5 TCP flows, the single-queue variant (and the two-queue scheme)."""
    pts = {s: _share_points(s, 5, 5, 0.0, 100.0, ["single-queue", "two-queue"]) for s in (1.0, QUICK_SCALE)}
    return Experiment(
        name="fig6-14",
        title="RCP thesis Fig. 6.14: five RCP and five TCP flows, shares 0.5 / 0.5 (single queue)",
        base="ch6-coexist.toml",
        points=list(pts[1.0].items()),
        seeds=1,
        analyze=lambda runs, ctx: _analyze_share(runs, ctx, "fig6-14"),
        quick=_scaled(pts),
    )


def _share_run(runs: Runs, name: str, seed: int) -> dict[str, Any]:
    w = runs.wide_series(name, seed)
    n_rcp, n_tcp = _counts(runs, name, seed)
    join, end = _tcp_start(runs, name, seed), _duration(runs, name, seed)
    a = join + (end - join) / 2
    rcp = _class_rates(w, [f"l{i}->rl" for i in range(n_rcp)], a, end)
    tcp = _class_rates(w, [f"l{i}->rl" for i in range(n_rcp, n_rcp + n_tcp)], a, end)
    tc = parse_time(SCHEME["tc"], "tc")
    return {
        "n": (n_rcp, n_tcp),
        "window": (a, end),
        "rcp": _avg(rcp),
        "tcp": _avg(tcp),
        "rcp_all": rcp,
        "tcp_all": tcp,
        "jain": _jain(rcp + tcp),
        "share": (sum(rcp) / (sum(rcp) + sum(tcp))) if rcp and tcp and sum(rcp) + sum(tcp) > 0 else None,
        "w_r": window_stat(w, "bottleneck_rcp_tcp_weight", a, end),
        "c_r": window_stat(w, "bottleneck_rcp_tcp_capacity_bps", a, end),
        "n_r": window_stat(w, "bottleneck_rcp_tcp_flows_rcp", a, end),
        "n_t": window_stat(w, "bottleneck_rcp_tcp_flows_tcp", a, end),
        "util": window_stat(w, "bottleneck_throughput_bps", a, end),
        "tc": _tc_check(w, tc),
        "w": w,
    }


def _analyze_share(runs: Runs, ctx: Context, fig: str) -> str:
    seed = runs.seeds[0]
    got = {n: _share_run(runs, n, seed) for n in runs.names}
    rows = []
    for n, g in got.items():
        ratio = g["rcp"] / g["tcp"] if g["rcp"] and g["tcp"] else None
        rows.append(
            [
                n,
                f"{g['n'][0]} + {g['n'][1]}",
                fmt(g["rcp"], ".2f", 1e6),
                fmt(g["tcp"], ".2f", 1e6),
                fmt(ratio, ".3f"),
                fmt(g["share"], ".3f"),
                fmt(g["jain"], ".3f"),
                fmt(g["w_r"], ".3f"),
                f"{fmt(g['n_r'], '.1f')} / {fmt(g['n_t'], '.1f')}",
                fmt(g["util"], ".1f", 1e6),
            ]
        )
    _plot_share(ctx, fig, got)
    first = next(iter(got.values()))
    n_rcp, n_tcp = first["n"]
    a, end = first["window"]
    table = md_table(
        [
            "mode",
            "flows RCP + TCP",
            "RCP per flow (Mb/s)",
            "TCP per flow (Mb/s)",
            "RCP / TCP",
            "RCP's share of the link",
            "Jain index, all flows",
            "w_R",
            "N_R / N_T estimates",
            "link (Mb/s)",
        ],
        rows,
    )
    intro = (
        f"{n_rcp} long RCP flows from 0 s and {n_tcp} long TCP flows from "
        f"{_tcp_start(runs, runs.names[0], seed):.0f} s "
        "on a 100 Mb/s bottleneck (80 ms round trip, 500 KB buffer per queue) running the `rcp-tcp` queue with "
        f"theta = {SCHEME['theta']}, T_c = {SCHEME['tc']}, zombie lists of 1000 entries. Rates are per-flow sending "
        f"rates (access links, wire bytes) averaged over {a:.0f}-{end:.0f} s; w_R and the zombie-list estimates N_R, "
        "N_T are averaged over the same span.\n\n"
    )
    if fig == "fig6-13":
        g = got["two-queue"]
        ratio = g["rcp"] / g["tcp"] if g["rcp"] and g["tcp"] else None
        # "Share the bandwidth equally": each of the 100 flows about C/100 = 1 Mb/s.
        for cls in ("rcp", "tcp"):
            rate = None if g[cls] is None else g[cls] / 1e6
            ctx.check("Fig. 6.13", f"{cls.upper()} flow's rate, 80 RCP + 20 TCP flows, Mb/s", 1.0, rate)
        ctx.check("Fig. 6.13", "w_R (N_R / (N_R + N_T), implied)", 0.8, g["w_r"])
        claims = (
            "\n\n| thesis (Fig. 6.13) | fctlab |\n|---|---|\n"
            + f"| 80 RCP and 20 TCP flows share the bandwidth equally (each about C/100 = 1 Mb/s) | RCP "
            f"{fmt(g['rcp'], '.3f', 1e6)}, TCP {fmt(g['tcp'], '.3f', 1e6)} Mb/s per flow "
            f"(ratio {fmt(ratio, '.3f')}); "
            "Jain "
            f"index {fmt(g['jain'], '.3f')} |\n"
            + f"| (implied) w_R -> N_R/(N_R+N_T) = 0.8 | w_R = {fmt(g['w_r'], '.3f')} |\n"
            + f"| T_c above T_c* = (C_T - y_T)/ydot_T | {g['tc']} |\n"
        )
        if ratio is not None and abs(ratio - 1) > 0.1:
            claims += (
                f"\n**Miss:** RCP gets {ratio:.2f}x TCP's per-flow rate. The scheme stops where y_R/N_R = y_T/N_T "
                f"with the *estimates*: the zombie list sees the TCP flows as {fmt(g['n_t'], '.1f')} (TCP's own "
                "unfairness: 1/P counts unequal flows as fewer), so TCP's per-flow rate looks "
                f"{20 / g['n_t'] if g['n_t'] else float('nan'):.2f}x what it is and w_R settles above 0.8. "
                'The thesis gives no number for Fig. 6.13 beyond "share equally".\n\n'
            )
        for n, what in (
            ("two-queue-fixed-tc", "weights moving every T_c, T_c* not waited for"),
            ("two-queue-1MB", "1 MB per queue (a full bandwidth-delay product)"),
        ):
            if n in got:
                v = got[n]
                r = v["rcp"] / v["tcp"] if v["rcp"] and v["tcp"] else None
                claims += (
                    f"| (variant: {what}) | RCP / TCP per flow {fmt(r, '.3f')}, w_R {fmt(v['w_r'], '.3f')}, "
                    f"N_T estimate {fmt(v['n_t'], '.1f')} of 20 |\n"
                )
        claims += (
            "\nWith 1 MB per queue, TCP's slow start at 10 s overshoots into drops; the RCP law (alpha = 0.1) "
            "follows the growing C_R more slowly than T_c, the DRR hands RCP's unused share to TCP, r_T looks "
            "high, w_R climbs to its bound (0.99) within 3 s and TCP's queue, now drained at 1% of C, holds its "
            "packets for seconds: most TCP flows back off into repeated timeouts. The zombie list then counts the "
            "few TCP flows that still send (1/P counts unequal flows as fewer), so r_T stays overestimated and "
            "w_R settles well above 0.8. Started at w_R = 0.8 the same 1 MB run shares equally (RCP / TCP 1.01 in "
            "our trial); the 500 KB queue keeps TCP's queueing delay short enough that it does not lock out.\n"
        )
    else:
        g = got["single-queue"]
        g2 = got.get("two-queue")
        ctx.check("Fig. 6.14", "RCP's average share of the link, one queue", 0.5, g["share"])
        claims = (
            "\n\n| thesis (Fig. 6.14) | fctlab |\n|---|---|\n"
            + f"| single queue: average link shares 0.5 each for RCP and TCP | RCP {fmt(g['share'], '.3f')}, TCP "
            f"{fmt(None if g['share'] is None else 1 - g['share'], '.3f')} |\n"
            + (
                f"| (two queues, Fig. 6.12) | RCP {fmt(g2['share'], '.3f')}, TCP "
                f"{fmt(None if g2['share'] is None else 1 - g2['share'], '.3f')} |\n"
                if g2
                else ""
            )
            + "| fluctuations in R, C_R and RCP's queue following TCP's saw-tooth | see the plot: C_R/C and R/C "
            "move with TCP's queue |\n" + f"| T_c above T_c* | {g['tc']} |\n"
        )
    return (
        intro
        + table
        + claims
        + "\nHow the scheme reads the thesis (`protocol/rcp/coexist.rs`): N_R, N_T are 1/hit probability of one "
        "zombie list "
        "per class, which counts flows of unequal rates as fewer (1/sum of squared shares); a class that sent "
        "nothing in an interval holds w_R; in single-queue mode RCP's q is a virtual queue drained at C_R (the RCP "
        "bytes in the shared FIFO wait behind TCP's standing queue and hold RCP down: 19% of the link for 5 + 5 "
        "flows in our trials).\n"
        + f"\n![{fig}: aggregate throughput by class, queues, w_R, C_R/C and R/C]({fig}.png)\n"
        + f"\n![{fig}: each flow's rate over the averaging span, over its fair share C/N]({fig}-flows.png)\n"
    )


def _plot_share(ctx: Context, fig_name: str, got: dict[str, dict[str, Any]]) -> None:
    p = plt()
    fig, axes = p.subplots(len(got), 3, figsize=(13, 3.3 * len(got)), squeeze=False)
    for row, (n, g) in zip(axes, got.items(), strict=True):
        w = g["w"]
        n_rcp, n_tcp = g["n"]
        if w.height == 0:
            continue
        t = w["time_s"]

        def total(lo: int, hi: int, w: pl.DataFrame = w) -> Any:
            cols = [f"l{i}->rl_throughput_bps" for i in range(lo, hi) if f"l{i}->rl_throughput_bps" in w.columns]
            return w.select(pl.sum_horizontal(cols) if cols else pl.lit(0.0)).to_series() / CAPACITY

        row[0].plot(t, total(0, n_rcp), label="RCP aggregate")
        row[0].plot(t, total(n_rcp, n_rcp + n_tcp), label="TCP aggregate")
        row[0].set(title=f"{n}: throughput / C", xlabel="time (s)", ylim=(0, 1.1))
        for col, label in (("rcp_tcp_queue_rcp_bytes", "RCP"), ("rcp_tcp_queue_tcp_bytes", "TCP")):
            if f"bottleneck_{col}" in w.columns:
                row[1].plot(t, w[f"bottleneck_{col}"] / 1000, label=f"{label} queue (packets)")
        row[1].set(title="queues", xlabel="time (s)")
        for col, label in (
            ("rcp_tcp_weight", "w_R"),
            ("rcp_tcp_capacity_bps", "C_R/C"),
            ("rcp_rate_bps", "R/C"),
        ):
            c = f"bottleneck_{col}"
            if c in w.columns:
                scale = 1.0 if col == "rcp_tcp_weight" else CAPACITY
                row[2].plot(t, w[c] / scale, label=label, lw=0.9)
        row[2].set(title="scheme", xlabel="time (s)", yscale="log")
        for a in row:
            a.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ctx.out / f"{fig_name}.png", dpi=100)
    p.close(fig)
    # Per-flow normalized rates (Fig. 6.13's bottom plot): rate / (C / N).
    p = plt()
    fig, ax = p.subplots(figsize=(7, 3.2))
    for n, g in got.items():
        k = len(g["rcp_all"]) + len(g["tcp_all"])
        fair = CAPACITY / max(k, 1)
        xs = list(range(k))
        ax.plot(xs, [r / fair for r in g["rcp_all"] + g["tcp_all"]], "o", ms=3, label=n)
        ax.axvline(len(g["rcp_all"]) - 0.5, c="k", lw=0.6, ls=":")
    ax.axhline(1.0, c="k", lw=0.8)
    ax.set(xlabel="flow (RCP first, then TCP)", ylabel="rate / fair share", ylim=(0, 2))
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ctx.out / f"{fig_name}-flows.png", dpi=100)
    p.close(fig)


# ---------------------------------------------------------------------------------------------
# Fig. 6.15: two bottlenecks

#: (source, destination, uplink) of the six flows: 0 and 1 cross both links.
FIG615_FLOWS = [
    ("s0", "d0", "s0->a"),
    ("s1", "d1", "s1->a"),
    ("s2", "d2", "s2->a"),
    ("s3", "d3", "s3->a"),
    ("s4", "d4", "s4->b"),
    ("s5", "d5", "s5->b"),
]
FIG615_RUNS = {"all-rcp": [0, 1, 2, 3, 4, 5], "all-tcp": [], "mix": [1, 3, 5]}


def _fig615_points(scale: float) -> dict[str, dict[str, Any]]:
    out = {}
    for name, rcp in FIG615_RUNS.items():

        def flows(ids: list[int]) -> list[dict[str, Any]]:
            return [{"src": FIG615_FLOWS[i][0], "dst": FIG615_FLOWS[i][1], "start": 0.0} for i in ids]

        tcp = [i for i in range(6) if i not in rcp]
        # A workload entry needs a flow: an empty class gets a flow that starts after the end.
        never = [{"src": "s0", "dst": "d0", "start": 1e6 * scale}]
        out[name] = {
            "duration": 100.0 * scale,
            "workload.0.flows": flows(rcp) or never,
            "workload.1.flows": flows(tcp) or never,
        }
    return out


def fig6_15() -> Experiment:
    """Fig. 6.15: six long flows over two bottlenecks, two of them crossing both."""
    pts = {s: _fig615_points(s) for s in (1.0, QUICK_SCALE)}
    return Experiment(
        name="fig6-15",
        title="RCP thesis Fig. 6.15: RCP and TCP over two bottlenecks",
        base="ch6-coexist-two-bottlenecks.toml",
        points=list(pts[1.0].items()),
        seeds=1,
        analyze=analyze_fig6_15,
        quick=_scaled(pts),
    )


def analyze_fig6_15(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    got: dict[str, list[float | None]] = {}
    for name in FIG615_RUNS:
        w = runs.wide_series(name, seed)
        end = _duration(runs, name, seed)
        got[name] = [_rate_of(w, up, end / 2, end) for _, _, up in FIG615_FLOWS]
    rows = []
    for i in range(6):
        kind = {n: ("RCP" if i in FIG615_RUNS[n] else "TCP") for n in FIG615_RUNS}
        rows.append(
            [f"{i} ({'two-hop' if i < 2 else 'one-hop'})"]
            + [f"{fmt(got[n][i], '.1f', 1e6)} ({kind[n]})" for n in FIG615_RUNS]
        )
    _plot_fig615(ctx, got)
    mix = got["mix"]

    def mean(ids: list[int], run: str) -> float | None:
        return _avg([x for x in (got[run][i] for i in ids) if x is not None])

    rcp_mix, tcp_one = mean([1, 3, 5], "mix"), mean([2, 4], "mix")
    for i, rate in enumerate(got["all-rcp"]):
        ctx.check("Fig. 6.15", f"all RCP: flow {i}'s rate, Mb/s (C/4)", 25.0, None if rate is None else rate / 1e6)
    ctx.check(
        "Fig. 6.15",
        "mix: RCP flows' mean rate / single-hop TCP flows' (the same rate)",
        1.0,
        checks.ratio(rcp_mix, tcp_one),
    )
    return (
        "Two 100 Mb/s bottlenecks in series (20 ms each way each), both running the `rcp-tcp` queue (two-queue, "
        "500 KB per queue). Flows 0 and 1 cross both links, 2 and 3 the first, 4 and 5 the second; all start at 0 s. "
        "Per-flow sending rates (Mb/s, wire bytes) over the second half of the run:\n\n"
        + md_table(["flow", *FIG615_RUNS], rows)
        + "\n\n| thesis (Fig. 6.15) | fctlab |\n|---|---|\n"
        + f"| all RCP: every flow gets the same rate (C/4 = 25 Mb/s) | "
        f"{', '.join(fmt(x, '.1f', 1e6) for x in got['all-rcp'])} |\n"
        + f"| all TCP: the two-hop flows are throttled | two-hop {fmt(mean([0, 1], 'all-tcp'), '.1f', 1e6)}, "
        f"one-hop {fmt(mean([2, 3, 4, 5], 'all-tcp'), '.1f', 1e6)} Mb/s on average |\n"
        + f"| mix (1, 3, 5 RCP; 0, 2, 4 TCP): every RCP flow gets the single-hop TCP rate | RCP flows 1, 3, 5: "
        f"{', '.join(fmt(mix[i], '.1f', 1e6) for i in (1, 3, 5))} (mean {fmt(rcp_mix, '.1f', 1e6)}); "
        f"single-hop TCP flows 2, 4: {fmt(tcp_one, '.1f', 1e6)} Mb/s on average; two-hop TCP flow 0: "
        f"{fmt(mix[0], '.1f', 1e6)} |\n" + "\n![Fig. 6.15: per-flow rates in the three runs](fig6-15.png)\n"
    )


def _plot_fig615(ctx: Context, got: dict[str, list[float | None]]) -> None:
    p = plt()
    fig, ax = p.subplots(figsize=(7, 3.2))
    width = 0.27
    for k, (n, rates) in enumerate(got.items()):
        xs = [i + (k - 1) * width for i in range(6)]
        ax.bar(xs, [(r or 0) / 1e6 for r in rates], width, label=n)
    ax.set(xlabel="flow (0, 1 two-hop)", ylabel="Mb/s", xticks=range(6))
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ctx.out / "fig6-15.png", dpi=110)
    p.close(fig)


# ---------------------------------------------------------------------------------------------
# Fig. 6.16: Poisson arrivals, Pareto sizes

#: Offered load, half RCP and half TCP flows; Pareto sizes of mean 25 packets (ch. 4's E[L]),
#: shape 1.2, cut at 10 MB.
FIG616 = {"load": 0.7, "mean": 25_000, "shape": 1.2, "max": "10MB", "end": 100.0, "warmup": 10.0}
#: Size bins (bytes) of the FCT table.
BINS = [0, 10_000, 100_000, 1_000_000, 10**12]
#: Flows at least this large are "long" for the throughput comparison.
LONG = 500_000


def _fig616_points(scale: float) -> dict[str, dict[str, Any]]:
    g = FIG616
    sizes = {"kind": "pareto", "shape": g["shape"], "mean": g["mean"], "round_to": 948, "max": g["max"]}

    def wl(mix: float) -> dict[str, Any]:
        return {
            "duration": g["end"] * scale,
            "measure_from": g["warmup"] * scale,
            "topology.hosts_per_side": 10,
            "queues.links.bottleneck": SCHEME,
            "workload": [
                {
                    "kind": "poisson",
                    "load": g["load"],
                    "load_on": "bottleneck",
                    "sizes": sizes,
                    "label": "poisson",
                    **({"mix": [{"transport": "tcp", "fraction": mix}]} if mix > 0 else {}),
                }
            ],
            "output.series.links": ["bottleneck"],
        }

    return {"mix": wl(0.5), "rcp-only": wl(0.0)}


def fig6_16() -> Experiment:
    """Fig. 6.16: Poisson arrivals of RCP and TCP flows with Pareto sizes on the scheme's port."""
    pts = {s: _fig616_points(s) for s in (1.0, QUICK_SCALE)}
    return Experiment(
        name="fig6-16",
        title="RCP thesis Fig. 6.16: a Poisson/Pareto mix of RCP and TCP flows",
        base="ch6-coexist.toml",
        points=list(pts[1.0].items()),
        seeds=1,
        analyze=analyze_fig6_16,
        quick=_scaled(pts),
    )


#: Labels of the size bins.
BIN_LABELS = ["< 10 KB", "10-100 KB", "100 KB-1 MB", ">= 1 MB"]


def _by_bin(sample: pl.DataFrame) -> pl.DataFrame:
    """Per class and size bin (in size order): flows, mean FCT, mean size/FCT."""
    size = pl.col("size_bytes")
    index = sum((size >= edge).cast(pl.Int32) for edge in BINS[1:-1])
    return (
        sample.with_columns(
            b=index,
            tput=size * 8 / pl.col("fct_s"),
            cls=pl.when(pl.col("protocol") == "tcp").then(pl.lit("TCP")).otherwise(pl.lit("RCP")),
        )
        .group_by("cls", "b")
        .agg(n=pl.len(), fct=pl.col("fct_s").mean(), tput=pl.col("tput").mean())
        .sort("cls", "b")
        .with_columns(bin=pl.col("b").map_elements(lambda i: BIN_LABELS[i], return_dtype=pl.String))
    )


def analyze_fig6_16(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    tables = {n: _by_bin(runs.sample(n, seed)) for n in runs.names}
    rows = []
    for n, t in tables.items():
        for r in t.iter_rows(named=True):
            rows.append([n, r["cls"], str(r["bin"]), r["n"], fmt(r["fct"], ".3f"), fmt(r["tput"], ".2f", 1e6)])

    def stat(run: str, cls: str, col: str, long: bool) -> float | None:
        s = runs.sample(run, seed).with_columns(tput=pl.col("size_bytes") * 8 / pl.col("fct_s"))
        s = s.filter((pl.col("protocol") == "tcp") == (cls == "TCP"))
        s = s.filter(pl.col("size_bytes") >= LONG) if long else s.filter(pl.col("size_bytes") < 10_000)
        v = s[col].mean() if s.height else None
        return None if v is None else float(v)

    long_r, long_t = stat("mix", "RCP", "tput", True), stat("mix", "TCP", "tput", True)
    short_r, short_t = stat("mix", "RCP", "fct_s", False), stat("mix", "TCP", "fct_s", False)
    short_alone = stat("rcp-only", "RCP", "fct_s", False)
    ctx.check(
        "Fig. 6.16",
        f"long flows (>= {LONG // 1000} KB): RCP's mean size/FCT over TCP's (shared equally)",
        1.0,
        checks.ratio(long_r, long_t),
    )
    _plot_fig616(ctx, tables)
    g = FIG616
    return (
        f"Poisson arrivals at load {g['load']} of the 100 Mb/s bottleneck (80 ms round trip; two-queue `rcp-tcp`, "
        f"500 KB per queue), Pareto sizes of mean {g['mean'] // 1000} KB (shape {g['shape']}, cut at {g['max']}); in "
        "`mix` half the flows are TCP, in `rcp-only` none (the reference for RCP's FCTs). The thesis gives no load "
        "or sizes: these are ch. 4's. Flows starting in the first tenth are not measured.\n\n"
        + md_table(["run", "class", "size", "flows", "mean FCT (s)", "mean size/FCT (Mb/s)"], rows)
        + "\n\n| thesis (Fig. 6.16) | fctlab |\n|---|---|\n"
        + f"| long RCP flows share the bandwidth equally with long TCP flows | flows of {LONG // 1000} KB or more: RCP "
        f"{fmt(long_r, '.2f', 1e6)}, TCP {fmt(long_t, '.2f', 1e6)} Mb/s mean size/FCT |\n"
        + f"| RCP keeps short flow-completion times | flows under 10 KB: RCP {fmt(short_r, '.3f')} s, TCP "
        f"{fmt(short_t, '.3f')} s; RCP alone on the link {fmt(short_alone, '.3f')} s |\n"
        + "\nThe long flows do not share equally here: long TCP flows finish faster than long RCP flows. The scheme "
        "equalizes the classes' average per-flow rates y/N, with N the zombie lists' estimates, which count flows by "
        "their packets (1/sum of squared shares): in a heavy-tailed mix the few long flows carry most packets, so "
        "both N are small and the per-flow rates compared are roughly the long flows' own. But within its class "
        "RCP gives every flow the same R = C_R/(flows in C_R), short ones included (processor sharing), while "
        "TCP's long flows leave slow start and take more than the short TCP flows that share their queue; the "
        'thesis does not say which flows its "long" are or how it averaged. The short-flow claim holds: short RCP '
        "flows finish about a third sooner than short TCP flows, and within about 20% of RCP alone on the link.\n"
        + "\n![Fig. 6.16: mean FCT by size bin and class](fig6-16.png)\n"
    )


def _plot_fig616(ctx: Context, tables: dict[str, pl.DataFrame]) -> None:
    p = plt()
    fig, ax = p.subplots(figsize=(7, 3.2))
    for n, t in tables.items():
        for cls in ("RCP", "TCP"):
            s = t.filter(pl.col("cls") == cls)
            if s.height:
                ax.plot([str(b) for b in s["bin"]], s["fct"], "o-", label=f"{n}: {cls}")
    ax.set(xlabel="flow size", ylabel="mean FCT (s)", yscale="log")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ctx.out / "fig6-16.png", dpi=110)
    p.close(fig)


def experiments() -> list[Experiment]:
    """Sec. 6.2.1's experiments, in figure order."""
    return [fig6_11(), fig6_13(), fig6_14(), fig6_15(), fig6_16()]
