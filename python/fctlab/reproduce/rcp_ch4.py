"""The RCP thesis's chapter 4 (flow completion times under RCP, Figs. 4.1 - 4.24), and the RC3
paper's Fig. 14(c) (RC3 against RCP on Internet-2).

Every configuration runs three times: RCP over `rcp` router queues, TCP (NewReno with SACK,
IW 2 as the thesis's ns-2 TCP) over drop-tail queues, XCP over `xcp` queues, all with the same
buffer (C x RTPD, the thesis's rule of thumb, sec. 4.1) and the same flows (same seed). Data
packets are 1000 bytes (960 payload + 40 header) for every protocol, as in the thesis. RCP
routers start at R = 0.5 C with d = the configuration's RTPD instead of the ns-2 cold start
(0.05 C, 0.2 s), and every run has a warm-up (`measure_from`) before flows are measured.

Paper numbers come from the thesis's text; where it gives none (most figures), the reports
compare shapes and say so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from fctlab.reproduce import rcp_analysis as ra
from fctlab.reproduce import rcp_reports as rr
from fctlab.reproduce.framework import Context, Experiment, Runs, fmt, md_table, mean_fct, plt, pm, reduction
from fctlab.reproduce.rcp_reports import Setup

PKT = ra.MSS
SETUP1 = Setup(2.4e9, 0.1, 0.9)
SETUP2 = Setup(150e6, 1.6, 0.9)


def pareto(mean_pkts: float, shape: float = 1.2) -> dict[str, Any]:
    """Pareto sizes of `mean_pkts` packets (ns-2's convention), rounded up to whole packets."""
    return {"kind": "pareto", "shape": shape, "mean": mean_pkts * PKT, "round_to": PKT}


def protocol(p: str, buffer_bytes: float, rtpd: float) -> dict[str, Any]:
    """Overrides that run every flow with `p` ("rcp", "tcp", "xcp") over its router queues."""
    limit = int(buffer_bytes)
    if p == "rcp":
        return {
            "transport.protocol": "rcp",
            "queues.router": {"kind": "rcp", "limit": limit, "initial_rtt": rtpd, "initial_rate": 0.5},
        }
    if p == "tcp":
        return {"transport.protocol": "tcp", "transport.iw": 2, "queues.router": {"kind": "droptail", "limit": limit}}
    if p == "xcp":
        return {"transport.protocol": "xcp", "queues.router": {"kind": "xcp", "limit": limit}}
    raise ValueError(f"protocol: expected rcp, tcp or xcp, got {p!r}")


def dumbbell(setup: Setup, sizes: dict[str, Any], duration: float, warmup: float, **extra: Any) -> dict[str, Any]:
    """Overrides of `ch4-setup1.toml` for one bottleneck of `setup`."""
    return {
        "topology.bottleneck_rate": setup.capacity,
        "topology.bottleneck_delay": setup.rtpd / 2,
        "workload.0.load": setup.load,
        "workload.0.sizes": sizes,
        "duration": duration,
        "measure_from": warmup,
        "max_time": duration + 120.0,
        **extra,
    }


def three(prefix: str, base: dict[str, Any], buffer_bytes: float, rtpd: float) -> list[tuple[str, dict[str, Any]]]:
    """The RCP, TCP and XCP runs of one configuration."""
    return [(rr.run_name(prefix, p), {**base, **protocol(p.lower(), buffer_bytes, rtpd)}) for p in rr.PROTOCOLS]


def bdp(setup: Setup) -> float:
    """C x RTPD in bytes."""
    return setup.capacity * setup.rtpd / 8


def quick_scale(factor: float) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    """Quick mode: every run's arrival window and warm-up shortened by `factor`."""

    def shorten(_name: str, o: dict[str, Any]) -> dict[str, Any]:
        d, m = float(o["duration"]), float(o["measure_from"])
        return {"duration": d * factor, "measure_from": m * factor}

    return shorten


def combine(*parts: Callable[[Runs, Context], str]) -> Callable[[Runs, Context], str]:
    """One analysis made of several, their texts joined."""
    return lambda runs, ctx: "\n\n".join(p(runs, ctx) for p in parts)


def text(s: str) -> Callable[[Runs, Context], str]:
    """An analysis that only writes `s`."""
    return lambda runs, ctx: s


# ---------------------------------------------------------------------------------------------
# Figs. 4.1, 4.2: AFCT and maximum FCT against flow size.

FIG41 = (
    "Thesis sec. 4.2.1: RCP's AFCT is close to PS and always below TCP and XCP; for flows up to 2000 "
    "packets TCP's delay is 4 times RCP's and XCP's as much as 30 times near 2000 packets; beyond 2000 "
    "packets XCP stays about 30 times RCP while TCP and RCP are similar; TCP follows the slow-start curve "
    "for most flows; RCP's maximum FCT is close to the PS mean; TCP's delays vary, often ten times the mean."
)
FIG42 = (
    "Thesis sec. 4.2.1, setup 2: RCP close to PS for all sizes; TCP about five times RCP, XCP 20 times; "
    "TCP has the highest variance, RCP's mean and maximum are close."
)


#: The thesis's "close to PS" (or "follows PS", "like PS"), read as an AFCT at most 15% above
#: PS's.
CLOSE_TO_PS = (None, 1.15)
#: The numbers of sec. 4.2.1; "near 2,000 packets" is the reports' window of 1,000 - 2,999 packets.
FIG41_CLAIMS = (
    rr.SizeClaim("Fig. 4.1", "RCP", "PS", 1, 2000, CLOSE_TO_PS),
    rr.SizeClaim("Fig. 4.1", "TCP", "RCP", 1, 2000, 4.0),
    rr.SizeClaim("Fig. 4.1", "XCP", "RCP", *ra.NEAR_2000, 30.0),
)
FIG42_CLAIMS = (
    rr.SizeClaim("Fig. 4.2", "RCP", "PS", 1, 2000, CLOSE_TO_PS),
    rr.SizeClaim("Fig. 4.2", "TCP", "RCP", *ra.NEAR_2000, 5.0),
    rr.SizeClaim("Fig. 4.2", "XCP", "RCP", *ra.NEAR_2000, 20.0),
)


def _fig41() -> Experiment:
    base = dumbbell(SETUP1, pareto(25), 30.0, 5.0)
    intro = (
        "Setup 1: one bottleneck of 2.4 Gb/s, RTPD 100 ms, load 0.9, Poisson arrivals, Pareto sizes "
        "(mean 25 packets, shape 1.2), 1000-byte packets, buffer 30 MB; arrivals for 30 s, the first 5 s "
        "warm-up, then the network drains. PS is the exact max-min fluid of the same flows + 1.5 RTPD "
        "(`fctlab.reference.ps_fct`); eq. 4.1 is the thesis's M/G/1-PS curve at rho = 0.9. Fig. 4.3 (the "
        "sequence-number traces of single flows in this setup) is [fig4-3](../fig4-3/)."
    )
    return Experiment(
        "fig4-1",
        "RCP thesis Fig. 4.1: AFCT against flow size, setup 1 (2.4 Gb/s, 100 ms, load 0.9)",
        "ch4-setup1.toml",
        three("setup1", base, bdp(SETUP1), SETUP1.rtpd),
        2,
        combine(
            rr.size_figure([("setup1", SETUP1, "Setup 1", FIG41)], intro, {"setup1": FIG41_CLAIMS}), _bottleneck_state
        ),
        quick=quick_scale(0.3),
    )


def _bottleneck_state(runs: Runs, ctx: Context) -> str:
    """The bottleneck of each setup-1 run: drops, mean queue against C x RTPD, utilization."""
    rows = []
    for p in rr.PROTOCOLS:
        name = rr.run_name("setup1", p)
        for sd in runs.seeds_of(name):
            lk = runs.links(name, sd).filter(pl.col("name") == "bottleneck").row(0, named=True)
            share = lk["queue_avg_bytes"] * 8 / (SETUP1.capacity * SETUP1.rtpd) * 100
            if p == "RCP":
                ctx.check("sec. 4.3.1", f"RCP's mean queue, % of C x RTPD (seed {sd})", 2.0, share)
            rows.append(
                [
                    p,
                    str(sd),
                    str(lk["drops_pkts"]),
                    f"{lk['queue_avg_bytes'] / 1e6:.2f}",
                    f"{share:.1f}",
                    f"{lk['utilization']:.3f}",
                ]
            )
    return (
        "## The bottleneck\n\nOver the whole run (drain included, so utilization is below the offered 0.9); the "
        "thesis reports RCP's mean queue near 2% of C x RTPD (sec. 4.3.1):\n\n"
        + md_table(["protocol", "seed", "drops", "mean queue (MB)", "% of C x RTPD", "utilization"], rows)
    )


def _fig42() -> Experiment:
    base = dumbbell(SETUP2, pareto(25), 300.0, 40.0, max_time=600.0)
    intro = (
        "Setup 2: one bottleneck of 150 Mb/s, RTPD 1.6 s, load 0.9, Pareto sizes (mean 25 packets, shape "
        "1.2), buffer 30 MB; arrivals for 300 s, the first 40 s warm-up. Why TCP's large flows take 30-40 "
        "times PS here (spurious retransmission timeouts): [fig4-2-tcp](../fig4-2-tcp/)."
    )
    return Experiment(
        "fig4-2",
        "RCP thesis Fig. 4.2: AFCT against flow size, setup 2 (150 Mb/s, 1.6 s, load 0.9)",
        "ch4-setup1.toml",
        three("setup2", base, bdp(SETUP2), SETUP2.rtpd),
        1,
        rr.size_figure([("setup2", SETUP2, "Setup 2", FIG42)], intro, {"setup2": FIG42_CLAIMS}),
        quick=quick_scale(0.3),
    )


# ---------------------------------------------------------------------------------------------
# Figs. 4.4, 4.5: mean flow size.

MEANS = [(30, 20.0), (300, 20.0), (3000, 40.0), (30000, 60.0)]


def _fig44() -> Experiment:
    s = Setup(2.4e9, 0.1, 0.8)
    pts = []
    for mean, dur in MEANS:
        pts += three(f"mean{mean}", dumbbell(s, pareto(mean), dur, 5.0, max_time=dur + 60.0), bdp(s), s.rtpd)
    sweep = rr.sweep_figure(
        "mean flow size (pkts)",
        [(f"mean{m}", float(m), s) for m, _ in MEANS],
        7000,
        (
            "C = 2.4 Gb/s, RTPD 100 ms, load 0.8, Pareto sizes of shape 1.2 and mean 30 to 30,000 packets; arrivals "
            "for 20 s (means 30 and 300), 40 s (3000) and 60 s (30,000), 5 s warm-up, runs stopped 60 s after the "
            "arrivals (flows still open then are counted as unfinished and left out of the means). Thesis sec. 4.2.2: "
            "RCP's AFCT is close to PS whatever the mean; XCP is far worse than TCP for small means and gets close "
            "to PS as flows get longer, while TCP deviates further (more than an order of magnitude above PS for "
            "E[L] = 30,000, Fig. 4.5). No numbers in the text; compare shapes. Flows split at 7,000 packets as in "
            "the thesis."
        ),
        claims=[rr.SweepClaim("Fig. 4.4", "RCP", "PS", side, CLOSE_TO_PS) for side in ("small", "large")],
    )
    sizes = lambda runs, ctx: "\n\n".join(
        rr.size_section(runs, ctx, f"mean{m}", s, f"Fig. 4.5: E[L] = {m} packets", "", f"fig45-{m}.png")
        for m in (30, 30000)
    )
    return Experiment(
        "fig4-4-5",
        "RCP thesis Figs. 4.4, 4.5: mean flow size",
        "ch4-setup1.toml",
        pts,
        1,
        combine(sweep, sizes),
        quick=quick_scale(0.3),
    )


# ---------------------------------------------------------------------------------------------
# Figs. 4.6 - 4.8: size distributions; Fig. 4.9: Pareto arrivals.

DISTS = [
    ("uniform", {"kind": "uniform", "min": 1, "max": 59 * PKT}, "Fig. 4.6: uniform sizes on [1, 59] packets"),
    (
        "exponential",
        {"kind": "exponential", "mean": 30 * PKT, "round_to": PKT},
        "Fig. 4.7: exponential sizes, mean 30 packets",
    ),
    ("pareto18", pareto(30, 1.8), "Fig. 4.8: Pareto sizes, mean 30 packets, shape 1.8"),
]


def _fig46() -> Experiment:
    s = Setup(2.4e9, 0.1, 0.8)
    pts = []
    for name, sizes, _ in DISTS:
        pts += three(name, dumbbell(s, sizes, 20.0, 5.0), bdp(s), s.rtpd)
    intro = (
        "Mean flow size 30 packets, C = 2.4 Gb/s, RTPD 100 ms, load 0.8 (the captions of Figs. 4.6 and 4.7 "
        "are partly lost; their surviving part gives RTPD 0.1 s and rho 0.8, Fig. 4.8 gives E[L] = 30 and "
        "shape 1.8; C = 2.4 Gb/s and uniform on [1, 59] packets are assumptions). Arrivals for 20 s, 5 s "
        "warm-up. Thesis sec. 4.2.3: RCP follows PS whatever the distribution; with the mean small against "
        "C x RTPD, XCP keeps many active flows and an AFCT above TCP's. No numbers in the text."
    )

    def analyze(runs: Runs, ctx: Context) -> str:
        parts = [intro]
        for name, _, heading in DISTS:
            claim = rr.SizeClaim(heading.split(":")[0], "RCP", "PS", 1, 2000, CLOSE_TO_PS)
            parts.append(rr.size_section(runs, ctx, name, s, heading, "", f"sizes-{name}.png", claims=[claim]))
        parts.append(rr.active_section(runs, ctx, [(n, s, h) for n, _, h in DISTS], (5.0, 20.0), "active.png"))
        return "\n\n".join(parts)

    return Experiment(
        "fig4-6-8",
        "RCP thesis Figs. 4.6 - 4.8: uniform, exponential and Pareto sizes",
        "ch4-setup1.toml",
        pts,
        1,
        analyze,
        quick=quick_scale(0.3),
    )


def _fig49() -> Experiment:
    s = Setup(2.4e9, 0.5, 0.9)
    base = dumbbell(s, pareto(30), 40.0, 10.0, **{"workload.0.kind": "pareto", "workload.0.shape": 1.2})
    intro = (
        "Pareto inter-arrival times (shape 1.2), Pareto sizes (mean 30 packets, shape 1.2), C = 2.4 Gb/s, "
        "RTPD 0.5 s, load 0.9, buffer 150 MB; arrivals for 40 s, 10 s warm-up. The thesis compares with the "
        "lower bound 1.5 RTPD + L/C (no PS formula for G/G/1); the exact PS fluid of the same flows needs no "
        "Poisson assumption and is given instead (the eq. 4.1 column is then only indicative). Thesis sec. "
        "4.2.4: qualitatively the same as with Poisson arrivals; RCP compares well with the lower bound. "
        "No numbers in the text."
    )

    def analyze(runs: Runs, ctx: Context) -> str:
        lb = []
        for p in rr.PROTOCOLS:
            t = ra.pooled(runs, rr.run_name("pareto-arrivals", p), s.capacity, s.load)
            lb.append(
                [
                    p,
                    fmt(float(t["fct_s"].mean()), ".3f"),
                    fmt(float(t["lower_bound_s"].mean()), ".3f"),
                    fmt(float(t["fct_s"].mean() / t["lower_bound_s"].mean()), ".2f"),
                ]
            )
        return "\n\n".join(
            [
                intro,
                "AFCT over all measured flows against the lower bound:\n\n"
                + md_table(["protocol", "AFCT (s)", "lower bound (s)", "ratio"], lb),
                rr.size_section(runs, ctx, "pareto-arrivals", s, "Fig. 4.9: Pareto arrivals", "", "sizes.png"),
                rr.active_section(runs, ctx, [("pareto-arrivals", s, "Pareto arrivals")], (10.0, 40.0), "active.png"),
            ]
        )

    return Experiment(
        "fig4-9",
        "RCP thesis Fig. 4.9: Pareto flow arrivals",
        "ch4-setup1.toml",
        three("pareto-arrivals", base, bdp(s), s.rtpd),
        1,
        analyze,
        quick=quick_scale(0.3),
    )


# ---------------------------------------------------------------------------------------------
# Figs. 4.10 - 4.12: offered load.

LOADS = [0.2, 0.4, 0.6, 0.8, 0.9]


def _dumbbell_sweep(
    name: str,
    title: str,
    xlabel: str,
    cases: list[tuple[str, float, Setup, dict[str, Any]]],
    intro: str,
    claims: tuple[rr.SweepClaim, ...] = (),
) -> Experiment:
    """A sweep of setup 1's dumbbell: (run name, x value, setup, `dumbbell` arguments) per point,
    reported per protocol with flows split at 500 packets; `claims` checked at every point."""
    pts: list[tuple[str, dict[str, Any]]] = []
    for run, _, s, args in cases:
        pts += three(run, dumbbell(s, pareto(25), **args), bdp(s), s.rtpd)
    vals = [(run, x, s) for run, x, s, _ in cases]
    analyze = rr.sweep_figure(xlabel, vals, 500, intro, claims=claims)
    return Experiment(name, title, "ch4-setup1.toml", pts, 1, analyze, quick=quick_scale(0.3))


def _fig410() -> Experiment:
    cases = [(f"load{load}", load, Setup(150e6, 0.1, load), {"duration": 120.0, "warmup": 20.0}) for load in LOADS]
    intro = (
        "C = 150 Mb/s, RTPD 100 ms, Pareto sizes (mean 25 packets, shape 1.2), offered load 0.2 to 0.9; "
        "arrivals for 120 s, 20 s warm-up. The caption is partly lost: flows are split at 500 packets here "
        "(as in Figs. 4.13, 4.14). Thesis sec. 4.2.5: RCP follows PS; under low loads TCP's AFCT for large "
        "flows is up to 14 times PS and improves with load; XCP gets worse as the load grows."
    )
    return _dumbbell_sweep(
        "fig4-10", "RCP thesis Fig. 4.10: offered load (150 Mb/s, 100 ms)", "offered load", cases, intro
    )


def _fig411() -> Experiment:
    lo, hi = Setup(2.4e9, 0.1, 0.2), Setup(2.4e9, 0.1, 0.94)
    pts = three("load0.2", dumbbell(lo, pareto(283.35), 20.0, 5.0), bdp(lo), lo.rtpd)
    pts += three("load0.94", dumbbell(hi, pareto(283.35), 20.0, 5.0), bdp(hi), hi.rtpd)
    intro = (
        "C = 2.4 Gb/s, RTPD 100 ms, Pareto sizes of mean 283.35 packets (shape 1.2), load 0.2 (Fig. 4.11, "
        "whose caption is lost: the setting of Fig. 4.12 is assumed) and 0.94 (Fig. 4.12); arrivals for 20 s, "
        "5 s warm-up. Thesis sec. 4.2.5: XCP does better than TCP on average at low load and worse at high "
        "load; RCP is fairly independent of the load. No numbers in the text."
    )

    def analyze(runs: Runs, ctx: Context) -> str:
        return "\n\n".join(
            [
                intro,
                rr.size_section(runs, ctx, "load0.2", lo, "Fig. 4.11: load 0.2", "", "sizes-0.2.png"),
                rr.size_section(runs, ctx, "load0.94", hi, "Fig. 4.12: load 0.94", "", "sizes-0.94.png"),
                rr.active_section(
                    runs, ctx, [("load0.2", lo, "load 0.2"), ("load0.94", hi, "load 0.94")], (5.0, 20.0), "active.png"
                ),
            ]
        )

    return Experiment(
        "fig4-11-12",
        "RCP thesis Figs. 4.11, 4.12: low and high load (2.4 Gb/s, E[L] = 283 packets)",
        "ch4-setup1.toml",
        pts,
        1,
        analyze,
        quick=quick_scale(0.3),
    )


# ---------------------------------------------------------------------------------------------
# Figs. 4.13, 4.14: capacity and RTPD.

CAPACITIES = [(0.1e9, 100.0, 20.0), (0.6e9, 40.0, 8.0), (2.4e9, 20.0, 5.0), (9.6e9, 8.0, 3.0)]
RTPDS = [(0.01, 60.0, 10.0), (0.1, 80.0, 20.0), (0.4, 120.0, 30.0), (1.6, 300.0, 60.0)]


def _fig413() -> Experiment:
    cases = [
        (f"c{c / 1e9:g}G", c / 1e9, Setup(c, 0.1, 0.9), {"duration": dur, "warmup": warm})
        for c, dur, warm in CAPACITIES
    ]
    intro = (
        "RTPD 100 ms, load 0.9, Pareto sizes (mean 25 packets, shape 1.2), C from 0.1 to 9.6 Gb/s; arrivals "
        "for 100, 40, 20 and 8 s (warm-up 20, 8, 5, 3 s). Thesis sec. 4.3.1: for flows < 500 packets XCP "
        "lasts 3 times and TCP 2 times as long as RCP; for flows >= 500 packets XCP 30 times and TCP 6 times; "
        "RCP's mean queue is 2% of C x RTPD at every capacity, XCP's very small."
    )
    claims = tuple(
        rr.SweepClaim("Fig. 4.13", p, "RCP", side, v)
        for p, side, v in (("XCP", "small", 3.0), ("TCP", "small", 2.0), ("XCP", "large", 30.0), ("TCP", "large", 6.0))
    )
    return _dumbbell_sweep("fig4-13", "RCP thesis Fig. 4.13: link capacity", "capacity (Gb/s)", cases, intro, claims)


def _fig414() -> Experiment:
    cases = [
        (f"rtpd{rtpd:g}", rtpd, Setup(150e6, rtpd, 0.9), {"duration": dur, "warmup": warm, "max_time": dur + 200.0})
        for rtpd, dur, warm in RTPDS
    ]
    intro = (
        "C = 150 Mb/s, load 0.9, Pareto sizes (mean 25 packets, shape 1.2), RTPD 10 ms to 1.6 s, buffers "
        "C x RTPD; arrivals for 60 to 300 s. Thesis sec. 4.3.2: flows < 500 packets last about 2.5 times "
        "longer with TCP and XCP than with RCP; flows >= 500 packets 4 times longer with TCP and 13 times "
        "with XCP; RCP's AFCT grows as 1.5 RTPD like PS. Why RCP misses PS at 10 ms: [fig4-14-10ms](../fig4-14-10ms/)."
    )
    claims = (rr.SweepClaim("Fig. 4.14", "RCP", "PS", "small", CLOSE_TO_PS),) + tuple(
        rr.SweepClaim("Fig. 4.14", p, "RCP", side, v)
        for p, side, v in (("TCP", "small", 2.5), ("XCP", "small", 2.5), ("TCP", "large", 4.0), ("XCP", "large", 13.0))
    )
    return _dumbbell_sweep(
        "fig4-14", "RCP thesis Fig. 4.14: round-trip propagation delay", "RTPD (s)", cases, intro, claims
    )


#: The ten groups' round-trip propagation delays (s), g0 to g9 of ch4-rtt-groups.toml.
GROUPS = [0.02 * (k + 1) for k in range(10)]


def _fig415() -> Experiment:
    s = Setup(640e6, 0.1, 0.9)
    base = {"duration": 40.0, "measure_from": 5.0}
    intro = (
        "Ten groups of flows, RTPD 20, 40, ..., 200 ms, share a 640 Mb/s bottleneck (its own round trip "
        "10 ms), equal arrival rates, total load 0.9, Pareto sizes (mean 25 packets, shape 1.2), buffer 16 MB "
        "(C x 200 ms); arrivals for 40 s, 5 s warm-up. Thesis sec. 4.3.3: for every RTPD RCP is close to PS, "
        "not biased towards short round trips, and close to the minimum AFCT of each group. No numbers in "
        "the text. The eq. 4.1 column uses each flow's own RTPD."
    )

    def analyze(runs: Runs, ctx: Context) -> str:
        tables = {p: ra.pooled(runs, rr.run_name("groups", p), s.capacity, s.load) for p in rr.PROTOCOLS}
        rows = []
        series: dict[str, list[float]] = {p: [] for p in rr.PROTOCOLS + ("PS",)}
        for k, rtpd in enumerate(GROUPS):
            row = [f"{rtpd * 1e3:.0f}"]
            for i, p in enumerate(rr.PROTOCOLS):
                g = tables[p].filter(pl.col("workload") == f"g{k}")
                if i == 0:
                    ps = float(g["ps_fct_s"].mean())
                    row += [str(g.height), fmt(ps, ".3f"), fmt(float(g["ps_curve_s"].mean()), ".3f")]
                    series["PS"].append(ps)
                a = float(g["fct_s"].mean())
                series[p].append(a)
                if p == "RCP":
                    ctx.check("Fig. 4.15", f"RCP AFCT / PS, group of RTPD {rtpd * 1e3:.0f} ms", CLOSE_TO_PS, a / ps)
                row += [fmt(a, ".3f"), fmt(a / ps, ".2f")]
            rows.append(row)
        pyplot = plt()
        fig, ax = pyplot.subplots(figsize=(6, 4))
        for p in rr.PROTOCOLS + ("PS",):
            ax.plot([g * 1e3 for g in GROUPS], series[p], "k--" if p == "PS" else rr.STYLE[p], label=p)
        ax.set_xlabel("group RTPD (ms)")
        ax.set_ylabel("AFCT (s)")
        ax.set_yscale("log")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(ctx.out / "groups.png", dpi=110)
        pyplot.close(fig)
        header = ["RTPD (ms)", "flows", "PS (s)", "eq. 4.1 (s)"]
        for p in rr.PROTOCOLS:
            header += [f"{p} (s)", f"{p}/PS"]
        return "\n\n".join(
            [
                intro,
                "## Fig. 4.15: AFCT per group\n\n" + md_table(header, rows) + "\n\n![groups](groups.png)",
                rr.size_section(
                    runs, ctx, "groups", s, "Fig. 4.16: the 20 ms group", "", "sizes-20ms.png", workload="g0"
                ),
                rr.size_section(
                    runs, ctx, "groups", s, "Fig. 4.16: the 200 ms group", "", "sizes-200ms.png", workload="g9"
                ),
            ]
        )

    pts = [(rr.run_name("groups", p), {**base, **protocol(p.lower(), 16e6, 0.1)}) for p in rr.PROTOCOLS]
    return Experiment(
        "fig4-15-16",
        "RCP thesis Figs. 4.15, 4.16: flows of ten RTPDs on one bottleneck",
        "ch4-rtt-groups.toml",
        pts,
        1,
        analyze,
        quick=quick_scale(0.3),
    )


# ---------------------------------------------------------------------------------------------
# Figs. 4.17 - 4.21: congested reverse path.

REVERSE = [
    ("f75r75", 0.75, 0.75, "Fig. 4.17: forward and reverse load 0.75"),
    ("f75", 0.75, None, "Fig. 4.18: forward load 0.75, no reverse traffic"),
    ("f95r95", 0.95, 0.95, "Fig. 4.19: forward and reverse load 0.95"),
    ("f95r20", 0.95, 0.2, "Fig. 4.20: forward load 0.95, reverse 0.2 (forward flows)"),
]
FWD = {
    "kind": "poisson",
    "label": "fwd",
    "load_on": "bottleneck",
    "sizes": pareto(46),
    "pairs": {"kind": "uniform", "src": "left", "dst": "right"},
}


def _fig417() -> Experiment:
    pts = []
    for name, f, r, _ in REVERSE:
        o: dict[str, Any] = {"duration": 20.0, "measure_from": 5.0, "workload.0.load": f}
        if r is None:
            o["workload"] = [{**FWD, "load": f}]
        else:
            o["workload.1.load"] = r
        pts += three(name, o, 60e6, 0.2)
    intro = (
        "A 2.4 Gb/s dumbbell of 200 ms RTPD, Pareto sizes (mean 46 packets, shape 1.2) offered on the forward "
        "link and on the reverse link, buffers 60 MB; arrivals for 20 s, 5 s warm-up, runs stopped 100 s after "
        "the arrivals. Thesis sec. 4.3.4: reverse congestion leaves RCP and XCP unaffected (their queues are "
        "driven to zero) while TCP's delayed and dropped ACKs add timeouts and variance; at 0.95 both ways TCP "
        "and XCP look stochastically unstable (active flows keep growing), RCP slightly above PS but stable; "
        "with 0.95 forward and 0.2 reverse, XCP's active flows grow on the forward link, TCP's FCTs vary "
        "widely, and on the lightly loaded reverse link XCP beats TCP. No numbers in the text."
    )

    def analyze(runs: Runs, ctx: Context) -> str:
        parts = [intro]
        for name, f, _, heading in REVERSE:
            parts.append(
                rr.size_section(runs, ctx, name, Setup(2.4e9, 0.2, f), heading, "", f"sizes-{name}.png", workload="fwd")
            )
        parts.append(
            rr.size_section(
                runs,
                ctx,
                "f95r20",
                Setup(2.4e9, 0.2, 0.2),
                "Fig. 4.21: forward load 0.95, reverse 0.2 (reverse flows)",
                "",
                "sizes-f95r20-rev.png",
                workload="rev",
            )
        )
        parts.append(
            "## Active forward flows\n\n"
            + rr.active_section(
                runs,
                ctx,
                [(n, Setup(2.4e9, 0.2, f), h.split(":")[0]) for n, f, _, h in REVERSE],
                (5.0, 20.0),
                "active.png",
                workload="fwd",
            )
        )
        return "\n\n".join(parts)

    return Experiment(
        "fig4-17-21",
        "RCP thesis Figs. 4.17 - 4.21: congested reverse path",
        "ch4-reverse.toml",
        pts,
        1,
        analyze,
        quick=quick_scale(0.3),
    )


# ---------------------------------------------------------------------------------------------
# Figs. 4.23, 4.24: 1, 2, 4 and 8 bottlenecks.

HOPS = [1, 2, 4, 8]


def _parking_lot(n: int) -> dict[str, Any]:
    sizes = pareto(25)
    wl = [
        {
            "kind": "poisson",
            "label": "g0",
            "load": 0.45,
            "load_on": "hop0",
            "sizes": sizes,
            "pairs": {"kind": "uniform", "src": "long_src", "dst": "long_dst"},
        }
    ]
    wl += [
        {
            "kind": "poisson",
            "label": f"g{i + 1}",
            "load": 0.45,
            "load_on": f"hop{i}",
            "sizes": sizes,
            "pairs": {"kind": "uniform", "src": f"cross{i}_src", "dst": f"cross{i}_dst"},
        }
        for i in range(n)
    ]
    return {
        "topology.bottlenecks": n,
        "topology.delay": 0.05 / n,
        "workload": wl,
        "duration": 30.0,
        "measure_from": 5.0,
    }


def _fig423() -> Experiment:
    s = Setup(640e6, 0.1, 0.9)
    pts = []
    for n in HOPS:
        pts += three(f"hops{n}", _parking_lot(n), 8e6, 0.1)
    intro = (
        "A parking lot of n = 1, 2, 4, 8 bottlenecks of 640 Mb/s; group 0 crosses all of them with RTPD 100 ms "
        "(the caption's value; the text says 0.2 s), one cross group per bottleneck with the same arrival "
        "rate, each bottleneck loaded 0.9; Pareto sizes (mean 25 packets, shape 1.2), 8 MB buffers; arrivals "
        "for 30 s, 5 s warm-up. Only group 0 is reported. PS is the exact max-min fluid over the whole "
        "network (the eq. 4.1 column treats group 0 as alone on one link at 0.9). Thesis sec. 4.3.5: RCP stays "
        "close to the lower bound whatever n; TCP degrades as n grows (more losses, more AIMD); with several "
        "bottlenecks flows finish an order of magnitude faster with RCP than with TCP or XCP."
    )
    sweep = rr.sweep_figure(
        "bottlenecks", [(f"hops{n}", float(n), s) for n in HOPS], 500, intro, link="hop0", workload="g0"
    )
    sizes = lambda runs, ctx: "\n\n".join(
        rr.size_section(
            runs, ctx, f"hops{n}", s, f"Fig. 4.24: group 0, {n} bottleneck(s)", "", f"sizes-{n}.png", workload="g0"
        )
        for n in HOPS
    )
    return Experiment(
        "fig4-23-24",
        "RCP thesis Figs. 4.23, 4.24: 1, 2, 4 and 8 bottlenecks",
        "ch4-parking-lot.toml",
        pts,
        1,
        combine(sweep, sizes),
        quick=quick_scale(0.3),
    )


# ---------------------------------------------------------------------------------------------
# RC3 paper Fig. 14(c): RC3 against RCP on Internet-2.

#: Fig. 14(c)'s table: regular TCP, RCP and RC3 mean FCT (s) over flows and over bytes, and the
#: reductions (%) from TCP.
FIG14C = {"tcp": (0.135, 0.443), "rcp": (0.088, 0.117, 33.86, 73.58), "rc3": (0.076, 0.114, 43.54, 74.35)}


def _fig14c() -> Experiment:
    from fctlab_experiments.rc3.common import QUICK, RC3, TCP

    rcp = {
        "transport.protocol": "rcp",
        "queues.host": {"kind": "droptail"},
        "queues.router": {"kind": "rcp", "limit": "5MB", "initial_rtt": 0.044, "initial_rate": 0.5},
    }

    def analyze(runs: Runs, ctx: Context) -> str:
        from fctlab_experiments.rc3.comparison import per_size_rows as _per_size_rows

        vals: dict[str, dict[str, list[float]]] = {n: {"f": [], "b": []} for n in ("tcp", "rcp", "rc3")}
        for n in vals:
            for sd in runs.seeds_of("tcp", "rcp", "rc3"):
                f, b = mean_fct(runs.sample(n, sd))
                vals[n]["f"].append(f)
                vals[n]["b"].append(b)
        rows = [["Regular (TCP) FCT (s)", "0.135", pm(vals["tcp"]["f"], ".3f"), "0.443", pm(vals["tcp"]["b"], ".3f")]]
        for n, label in (("rcp", "RCP"), ("rc3", "RC3")):
            p = FIG14C[n]
            red_f = [reduction(a, b) for a, b in zip(vals["tcp"]["f"], vals[n]["f"])]
            red_b = [reduction(a, b) for a, b in zip(vals["tcp"]["b"], vals[n]["b"])]
            rows.append(
                [f"{label} FCT (s)", f"{p[0]:.3f}", pm(vals[n]["f"], ".3f"), f"{p[1]:.3f}", pm(vals[n]["b"], ".3f")]
            )
            rows.append(
                [f"{label} % reduction", f"**{p[2]:.2f}**", f"**{pm(red_f)}**", f"**{p[3]:.2f}**", f"**{pm(red_b)}**"]
            )
        per = _per_size_rows(runs, "tcp", ["rcp", "rc3"])
        return (
            "Internet-2 at 30% load (the RC3 baseline, `experiments/rc3/internet2.toml`): TCP (NewReno, SACK, IW 4) "
            "over 5 MB drop-tail queues, RC3 over 5 MB priority queues, RCP over 5 MB `rcp` queues at every "
            "router port (R starts at 0.5 C, d at 44 ms, the mean path RTT; flows from 2 s are measured). RCP "
            "uses its default 52-byte headers, TCP and RC3 40. RC3 paper sec. 5.1.4: for large flows the two "
            "schemes are roughly neck and neck; RCP imposes a penalty on the smallest (1-4 packet) flows, partly "
            "because it paces packets at the assigned rate.\n\n"
            + md_table(["", "paper: over flows", "fctlab: over flows", "paper: over bytes", "fctlab: over bytes"], rows)
            + "\n\nReduction from TCP per flow size (%), mean over seeds:\n\n"
            + md_table(["segments", "RCP", "RC3"], per)
        )

    return Experiment(
        "rc3-fig14c",
        "RC3 paper Fig. 14(c): RC3 and RCP against TCP on Internet-2",
        "../rc3/internet2.toml",
        [("tcp", TCP), ("rcp", rcp), ("rc3", RC3)],
        2,
        analyze,
        quick=QUICK,
    )


def experiments() -> list[Experiment]:
    """The thesis's chapter 4 figures in order, then the RC3 paper's Fig. 14(c)."""
    return [
        _fig41(),
        _fig42(),
        _fig44(),
        _fig46(),
        _fig49(),
        _fig410(),
        _fig411(),
        _fig413(),
        _fig414(),
        _fig415(),
        _fig417(),
        _fig423(),
        _fig14c(),
    ]
