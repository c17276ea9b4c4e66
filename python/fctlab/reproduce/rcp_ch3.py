"""The RCP thesis (Dukkipati), chapter 3: how RCP's rate R behaves (Figs. 3.2 - 3.5) and why a
router should not simply hand out the highest rate (Figs. 3.6 - 3.8, in `rcp_fixed_rate`).

Every experiment runs a base scenario `experiments/rcp/ch3-*.toml` (1000-byte packets, the
thesis's gains alpha = 0.1, beta = 1, the ns-2 code's starting state R = 0.05 C, d = 0.2 s).
The thesis gives these figures as plots: where its text gives a number (a max-min rate, R/C =
0.5) the README sets it beside fctlab's; elsewhere it states the expected shape and checks it
with numbers measured here (C/R within 10% of N after so many seconds, and so on).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reference import max_min_rates
from fctlab.reproduce import rcp_fixed_rate
from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, mean_std, plt
from fctlab.reproduce.series import link_series, settle_time, window_mean

#: Payload bytes of the thesis's 1000-byte packets (40 bytes of headers).
MSS = 960


def _scaled_long_lived(flows: list[tuple[str, str, float, float]], scale: float) -> list[dict[str, Any]]:
    return [{"src": s, "dst": d, "start": a * scale, "stop": b * scale} for s, d, a, b in flows]


# ---------------------------------------------------------------------------------------------
# Fig. 3.2: C/R follows N(t) with long-lived flows.

#: (start, stop) of the two groups of 20 flows, s (caption of Fig. 3.2).
FIG32_GROUPS = ((0.0, 100.0), (40.0, 140.0))
FIG32_END = 140.0
#: Quick mode runs the same script 4 times faster.
QUICK_SCALE = 0.25


def _fig32_flows(scale: float) -> list[dict[str, Any]]:
    flows = [(f"l{i}", f"r{i}", *FIG32_GROUPS[i // 20]) for i in range(40)]
    return _scaled_long_lived(flows, scale)


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
    pyplot = plt()
    fig, (ax, bx) = pyplot.subplots(2, 1, figsize=(7, 5), sharex=True)
    ax.plot(t, est, label="C / R(t)")
    ax.plot(t, w["active_flows"].to_list(), "--", label="N(t)")
    ax.set_ylabel("flows")
    ax.set_ylim(0, 60)
    ax.legend()
    bx.plot(t, w["utilization"].to_list())
    bx.set_ylabel("bottleneck utilization")
    bx.set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(ctx.out / "fig3-2.png", dpi=120)
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


# ---------------------------------------------------------------------------------------------
# Fig. 3.3: max-min fair rates of two groups with different bottlenecks.

FIG33_A = (0.0, 140.0)
FIG33_B = (40.0, 100.0)
#: The thesis's rates (sec. 3.2.1), Mb/s, by (group, whether group B is active).
FIG33_THESIS_RATE = {("A", False): 50.0, ("A", True): 40.0, ("B", True): 20.0}


def _fig33_workload(scale: float) -> list[dict[str, Any]]:
    a = [(f"a{i}", "d", *FIG33_A) for i in range(8)]
    b = [(f"b{i}", "d", *FIG33_B) for i in range(4)]
    return [
        {"kind": "long_lived", "label": "A", "flows": _scaled_long_lived(a, scale)},
        {"kind": "long_lived", "label": "B", "flows": _scaled_long_lived(b, scale)},
    ]


def analyze_fig33(runs: Runs, ctx: Context) -> str:
    scale = QUICK_SCALE if ctx.quick else 1.0
    seed = runs.seeds[0]
    series = runs.series("rcp", seed)
    links = runs.links("rcp", seed)
    cap = {n: float(r) for n, r in zip(links["name"], links["rate_bps"])}
    uplinks = {"A": [f"a{i}->y" for i in range(8)], "B": [f"b{i}->x" for i in range(4)]}
    thr = (
        series.filter(pl.col("metric") == "throughput_bps")
        .pivot("target", index="time_s", values="value")
        .sort("time_s")
    )
    rate_c = link_series(series, "linkC").with_columns(c_over_r=cap["linkC"] / pl.col("rcp_rate_bps"))
    rate_b = link_series(series, "linkB").with_columns(c_over_r=cap["linkB"] / pl.col("rcp_rate_bps"))
    phases = [(FIG33_A[0], FIG33_B[0], False), (FIG33_B[0], FIG33_B[1], True), (FIG33_B[1], FIG33_A[1], False)]
    t = thr["time_s"].to_list()
    rows = []
    for a, b, with_b in phases:
        a, b = a * scale, b * scale
        tail = b - 10.0 * scale
        paths = [["linkC"]] * 8 + ([["linkB", "linkC"]] * 4 if with_b else [])
        fair = max_min_rates(paths, {"linkB": cap["linkB"], "linkC": cap["linkC"]})
        for group, lo, hi in (("A", 0, 8), ("B", 8, 12)):
            if group == "B" and not with_b:
                continue
            got = [window_mean(thr, u, tail, b) / 1e6 for u in uplinks[group]]
            want = fair[lo] / 1e6
            ctx.check(
                "Fig. 3.3",
                f"group {group}'s mean rate, {a:.0f} - {b:.0f} s (Mb/s)",
                FIG33_THESIS_RATE[group, with_b],
                sum(got) / len(got),
            )
            worst = max(abs(g - want) / want for g in got) * 100.0
            settled = [settle_time(t, (thr[u] / 1e6).to_list(), want, a, b) for u in uplinks[group]]
            slowest = None if None in settled else max(x for x in settled if x is not None)
            rows.append(
                [
                    f"{a:.0f} - {b:.0f}",
                    group,
                    hi - lo,
                    f"{want:.1f}",
                    f"{sum(got) / len(got):.2f}",
                    f"{min(got):.2f} - {max(got):.2f}",
                    f"{worst:.1f}",
                    "not within 10%" if slowest is None else f"{slowest:.1f}",
                ]
            )
        theta = fair[8] / fair[0] if with_b else 0.0
        n_est = 8 + 4 * theta
        ctx.check(
            "Fig. 3.3",
            f"link C's C/R, {a:.0f} - {b:.0f} s (N1 + theta N2)",
            10.0 if with_b else 8.0,
            window_mean(rate_c, "c_over_r", tail, b),
        )
        rows.append(
            [
                "",
                "link C: C/R",
                "",
                f"{n_est:.1f} (N1 + theta N2)",
                f"{window_mean(rate_c, 'c_over_r', tail, b):.2f}",
                "",
                "",
                "",
            ]
        )
        if with_b:
            rows.append(["", "link B: C/R", "", "4.0", f"{window_mean(rate_b, 'c_over_r', tail, b):.2f}", "", "", ""])
    pyplot = plt()
    fig, ax = pyplot.subplots(figsize=(7, 3.8))
    for group, style in (("A", "C0"), ("B", "C1")):
        for i, u in enumerate(uplinks[group]):
            ax.plot(t, (thr[u] / 1e6).to_list(), color=style, lw=0.8, label=f"group {group} flows" if i == 0 else None)
    for a, b, with_b in phases:
        ax.hlines([40.0 if with_b else 50.0], a * scale, b * scale, colors="k", linestyles="dashed", lw=0.8)
    ax.hlines(
        [20.0], FIG33_B[0] * scale, FIG33_B[1] * scale, colors="k", linestyles="dashed", lw=0.8, label="max-min fair"
    )
    ax.set_xlabel("time (s)")
    ax.set_ylabel("flow throughput (Mb/s)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(ctx.out / "fig3-3.png", dpi=120)
    return (
        "Group A (8 flows) crosses link C (400 Mb/s) only; group B (4 flows) crosses link B (80 Mb/s) and then "
        f"link C, from {40 * scale:.0f} s to {100 * scale:.0f} s. The thesis (sec. 3.2.1) gives the numbers: B is "
        "limited to 20 Mb/s per flow by link B, so A shares the rest of link C, (400 - 80)/8 = 40 Mb/s "
        "per flow, and link C's C/R estimates N1 + theta N2 = 8 + 4 x 20/40 = 10; outside B's span A gets "
        "50 Mb/s. The max-min column is computed by water-filling (`fctlab.reference.max_min_rates`). fctlab's "
        "rates are each flow's throughput on its host link (sampled every 500 ms), averaged over the last "
        f'{10 * scale:.1f} s of each phase; "settles after" is the time from the phase\'s start until every '
        "flow of the group stays within 10% of its max-min rate.\n\n"
        + md_table(
            [
                "phase (s)",
                "group",
                "flows",
                "max-min (Mb/s)",
                "fctlab mean (Mb/s)",
                "fctlab range",
                "worst error (%)",
                "settles after (s)",
            ],
            rows,
        )
        + "\n\nThe flows reach their max-min rates in every phase, within the few percent RCP leaves unused on "
        "a link (the standing queue of Fig. 3.2). When group B joins, link B's R is C (the link was idle), so B's "
        "four flows start at 80 Mb/s each, overload link B fourfold and drive its R down hard; B's rate then "
        "climbs back to 20 Mb/s by alpha per round trip, which is the slow settling in the table.\n\n"
        "![Fig. 3.3](fig3-3.png)"
    )


# ---------------------------------------------------------------------------------------------
# Fig. 3.4: C/R against the measured number of active flows.


def data_phase_counts(flows: pl.DataFrame, times: list[float]) -> list[int]:
    """Per sample time, the flows past their handshake and not yet complete: data phase taken as
    [start + rtt_prop, finish - rtt_prop / 2) (the SYN's round trip; the last packet's one-way trip)."""
    f = flows.filter(pl.col("finish_s").is_not_null())
    begin = (f["start_s"] + f["rtt_prop_s"]).sort()
    end = (f["finish_s"] - f["rtt_prop_s"] / 2).sort()
    at = pl.Series(times, dtype=pl.Float64)
    return (begin.search_sorted(at, side="right") - end.search_sorted(at, side="right")).to_list()


def _corr(a: list[float], b: list[float]) -> float:
    return float(pl.DataFrame({"a": a, "b": b}).select(pl.corr("a", "b")).item())


def analyze_fig34(runs: Runs, ctx: Context) -> str:
    variants = [
        ("10Mbps", "10 Mb/s, 40 flows/s, pipe 62.5 packets", 62.5),
        ("100Mbps", "100 Mb/s, 400 flows/s, pipe 625 packets", 625.0),
    ]
    rows = []
    summary = []
    pyplot = plt()
    fig, axes = pyplot.subplots(2, 1, figsize=(7, 5.5))
    for (name, label, _bdp), ax in zip(variants, axes, strict=True):
        per_seed: dict[str, list[float]] = {k: [] for k in ("n", "nd", "cr", "corr", "rho", "mean")}
        for seed in runs.seeds_of(name):
            scen = runs.flows(name, seed)
            links = runs.links(name, seed)
            capacity = float(links.filter(pl.col("name") == "bottleneck")["rate_bps"].item())
            w = link_series(runs.series(name, seed), "bottleneck").with_columns(
                c_over_r=capacity / pl.col("rcp_rate_bps")
            )
            start, end = runs.window(name, seed)
            w = w.filter((pl.col("time_s") > start) & (pl.col("time_s") <= end))
            w = w.with_columns(n_data=pl.Series(data_phase_counts(scen, w["time_s"].to_list()), dtype=pl.Float64))
            secs = (
                w.with_columns(sec=pl.col("time_s").ceil())
                .group_by("sec")
                .agg(pl.col("active_flows").mean(), pl.col("c_over_r").mean())
                .sort("sec")
            )
            sample = scen.filter(pl.col("measured") & (pl.col("size_bytes") > 0))
            per_seed["n"].append(float(w["active_flows"].mean()))
            per_seed["nd"].append(float(w["n_data"].mean()))
            per_seed["cr"].append(float(w["c_over_r"].mean()))
            per_seed["corr"].append(_corr(secs["active_flows"].to_list(), secs["c_over_r"].to_list()))
            per_seed["mean"].append(float(sample["size_bytes"].mean()) / MSS)
            per_seed["rho"].append(float(sample["size_bytes"].sum()) / MSS * 8000.0 / (capacity * (end - start)))
            if seed == runs.seeds_of(name)[0]:
                a = start + 40.0 * (0.25 if ctx.quick else 1.0)
                z = w.filter((pl.col("time_s") > a) & (pl.col("time_s") <= a + 10.0))
                ax.plot(z["time_s"].to_list(), z["active_flows"].to_list(), lw=0.8, label="N(t), measured active flows")
                ax.plot(
                    z["time_s"].to_list(), z["n_data"].to_list(), lw=0.6, alpha=0.7, label="flows past their handshake"
                )
                ax.plot(z["time_s"].to_list(), z["c_over_r"].to_list(), lw=1.2, label="C / R(t)")
                ax.set_title(label)
                ax.set_ylabel("flows")
        ratio = [c / n for c, n in zip(per_seed["cr"], per_seed["n"], strict=True)]
        ratio_d = [c / n for c, n in zip(per_seed["cr"], per_seed["nd"], strict=True)]
        summary.append((mean_std(ratio)[0], mean_std(ratio_d)[0], mean_std(per_seed["corr"])[0]))
        # One row per seed: with shape 1.2 a single draw can move a run's load far from 0.8.
        for i, seed in enumerate(runs.seeds_of(name)):
            rows.append(
                [
                    label if i == 0 else "",
                    seed,
                    f"{per_seed['mean'][i]:.1f}",
                    f"{per_seed['rho'][i]:.2f}",
                    f"{per_seed['n'][i]:.1f}",
                    f"{per_seed['nd'][i]:.1f}",
                    f"{per_seed['cr'][i]:.1f}",
                    f"{ratio[i]:.2f}",
                    f"{ratio_d[i]:.2f}",
                    f"{per_seed['corr'][i]:.2f}",
                ]
            )
        rows.append(
            [
                "",
                "mean",
                "",
                "",
                "",
                "",
                "",
                f"**{mean_std(ratio)[0]:.2f}**",
                f"**{mean_std(ratio_d)[0]:.2f}**",
                f"**{mean_std(per_seed['corr'])[0]:.2f}**",
            ]
        )
    axes[0].legend(fontsize=8)
    axes[-1].set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(ctx.out / "fig3-4.png", dpi=120)
    (r10, d10, c10), (r100, d100, c100) = summary
    return (
        "Poisson arrivals of Pareto sizes (shape 1.2, mean 25 packets of 1000 bytes), 50 ms round trip. The "
        "caption's setting (C = 10 Mb/s, 400 flows/s) would offer eight times the link, so the first row uses "
        "40 flows/s (load 0.8), which keeps the text's point: E[L] = 25 packets is close to the 62.5-packet "
        'pipe, where the thesis says C/R "is a good estimate" of N, a smoothed one. The second row is the '
        "caption's 400 flows/s on 100 Mb/s (load 0.8 too): E[L] is far below the 625-packet pipe, where the "
        "thesis says C/R estimates an effective number of flows Ne(t) < N(t). N(t) is the `active_flows` series "
        '(flows from their SYN to their last byte); "past handshake" counts only flows that have had their '
        "SYN-ACK (the thesis does not say which it measured). Means over the run after a warm-up, sampled every "
        "10 ms; the correlation is between 1-second averages. The load drawn is the measured flows' bits over the "
        "link's capacity in the window: Pareto sizes of shape 1.2 make it vary a lot from seed to seed. The "
        "thesis gives no numbers.\n\n"
        + md_table(
            [
                "setting",
                "seed",
                "E[L] drawn (packets)",
                "load drawn",
                "mean N",
                "mean N past handshake",
                "mean C/R",
                "C/R / N",
                "C/R / N past handshake",
                "corr(C/R, N)",
            ],
            rows,
        )
        + f"\n\nWith E[L] near the pipe, C/R follows N (correlation {c10:.2f} between 1-second averages) as a "
        f"smoothed estimate: on average C/R = {r10:.2f} N, or {d10:.2f} times the flows past their handshake. "
        f"With E[L] far below the pipe, C/R is {r100:.2f} N: the thesis's Ne(t) < N(t). Most of those N flows "
        "are in their handshake (400 flows/s x 50 ms puts 20 in it on average) or send less than a round trip's "
        f"worth; against the flows past their handshake C/R is {d100:.2f} times their number (correlation with N "
        f"{c100:.2f}). The thesis gives neither figure's values, so only this shape is compared. The plot shows "
        "10 seconds of the first seed.\n\n![Fig. 3.4](fig3-4.png)"
    )


# ---------------------------------------------------------------------------------------------
# Fig. 3.5: short flows plus one long flow; R/C goes to 0.5.

RTT = 0.1
SHORT_PKTS = 125


def _fig35_short_flows(duration: float, spread: bool) -> list[dict[str, Any]]:
    """Four 125-packet flows every round trip: at its start (the caption), or a quarter apart."""
    out = []
    k = 0
    while k * RTT < duration:
        for j in range(4):
            start = k * RTT + (j * RTT / 4 if spread else 0.0)
            out.append({"src": f"l{j + 1}", "dst": f"r{j + 1}", "start": round(start, 9), "size": SHORT_PKTS * MSS})
        k += 1
    return out


FIG35_DURATION = 30.0
FIG35_QUICK = 20.0


def analyze_fig35(runs: Runs, ctx: Context) -> str:
    duration = runs.window("spread", runs.seeds_of("spread")[0])[1]
    rows = []
    pyplot = plt()
    fig, ax = pyplot.subplots(figsize=(7, 3.5))
    labels = {"together": "four at the start of each RTT (the caption)", "spread": "a quarter RTT apart"}
    found: dict[str, tuple[float, float]] = {}
    for name, label in labels.items():
        seed = runs.seeds_of(name)[0]
        series = runs.series(name, seed)
        capacity = float(runs.links(name, seed).filter(pl.col("name") == "bottleneck")["rate_bps"].item())
        b = link_series(series, "bottleneck").with_columns(
            r_over_c=pl.col("rcp_rate_bps") / capacity, utilization=pl.col("throughput_bps") / capacity
        )
        long = link_series(series, "l0->rl").select("time_s", long=pl.col("throughput_bps") / capacity)
        b = b.join(long, on="time_s").filter(pl.col("time_s") <= duration)
        tail = duration * 2 / 3
        short = runs.flows(name, seed).filter(
            (pl.col("size_bytes") > 0) & pl.col("fct_s").is_not_null() & (pl.col("start_s") > tail)
        )
        settled = settle_time(b["time_s"].to_list(), b["r_over_c"].to_list(), 0.5, 0.0, duration)
        found[name] = (window_mean(b, "r_over_c", tail, duration), window_mean(b, "utilization", tail, duration))
        ctx.check("Fig. 3.5", f"R/C in the last third, short flows {label}", 0.5, found[name][0])
        rows.append(
            [
                label,
                "0.5",
                f"{window_mean(b, 'r_over_c', tail, duration):.3f}",
                f"{window_mean(b, 'long', tail, duration):.3f}",
                f"{window_mean(b, 'utilization', tail, duration):.3f}",
                f"{window_mean(b, 'queue_bytes', tail, duration) / 1000:.1f}",
                f"{float(short['fct_s'].mean()) * 1e3:.0f}",
                "never" if settled is None else f"{settled:.1f}",
            ]
        )
        ax.plot(b["time_s"].to_list(), b["r_over_c"].to_list(), label=label)
    ax.axhline(0.5, color="k", ls="--", lw=0.8, label="max-min: R/C = 0.5")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("R(t) / C")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(ctx.out / "fig3-5.png", dpi=120)
    return (
        "A pipe of 1000 packets (80 Mb/s, 100 ms round trip, 1000-byte packets), one long-lived flow, and four "
        "short flows of 125 packets arriving every round trip. The thesis (sec. 3.2.1) says R/C converges to "
        "0.5: the short flows need half the pipe, max-min gives the long flow the other half (R = (C RTT - sum "
        "S(f)) / (n_B RTT)). The caption has the four short flows arrive at the start of every round trip; the "
        "second run spreads them a quarter of a round trip apart. Values over the last third of the run (from "
        f'{duration * 2 / 3:.0f} s); "reaches" is the time after which R/C stays within 10% of 0.5.\n\n'
        + md_table(
            [
                "short flows arrive",
                "thesis R/C",
                "fctlab R/C",
                "long flow's share of C",
                "utilization",
                "mean queue (kB)",
                "short flows' mean FCT (ms)",
                "reaches 0.5 ± 10% after (s)",
            ],
            rows,
        )
        + f"\n\nWith the arrivals spread over the round trip, R/C settles at {found['spread'][0]:.2f}, a few percent "
        "below 0.5 (the standing queue of Fig. 3.2). Arriving together, as the caption has it, the four short "
        "flows learn R from their SYN-ACKs and all send at R together with the long flow: at R = C/2 five flows "
        "would offer 2.5 C for the first quarter of each round trip, so a queue builds every round trip and eq. "
        f"3.3's queue term balances the spare capacity at a lower R: R/C settles at {found['together'][0]:.2f} and "
        f"the link runs at {found['together'][1]:.0%}. The thesis's 0.5 is reached only when the short flows do not "
        "all transmit at once.\n\n![Fig. 3.5](fig3-5.png)"
    )


# ---------------------------------------------------------------------------------------------


def experiments() -> list[Experiment]:
    """Chapter 3's experiments, in figure order."""
    # The short flows are listed for the full run; a quick run just stops earlier.
    fig35_quick = {"duration": FIG35_QUICK, "drain": False}
    return [
        Experiment(
            name="fig3-2",
            title="RCP thesis Fig. 3.2: C/R follows the number of long-lived flows",
            base="ch3-fig3-2.toml",
            points=[("rcp", {"duration": FIG32_END, "workload.0.flows": _fig32_flows(1.0)})],
            seeds=1,
            analyze=analyze_fig32,
            quick={"duration": FIG32_END * QUICK_SCALE, "workload.0.flows": _fig32_flows(QUICK_SCALE)},
        ),
        Experiment(
            name="fig3-3",
            title="RCP thesis Fig. 3.3: max-min fair rates with two bottlenecks",
            base="ch3-fig3-3.toml",
            points=[("rcp", {"duration": FIG33_A[1], "workload": _fig33_workload(1.0)})],
            seeds=1,
            analyze=analyze_fig33,
            quick={"duration": FIG33_A[1] * QUICK_SCALE, "workload": _fig33_workload(QUICK_SCALE)},
        ),
        Experiment(
            name="fig3-4",
            title="RCP thesis Fig. 3.4: RCP's estimate C/R against the number of active flows",
            base="ch3-fig3-4.toml",
            points=[
                ("10Mbps", {}),
                ("100Mbps", {"topology.bottleneck_rate": "100Mbps", "workload.0.rate": 400, "duration": "100s"}),
            ],
            seeds=3,
            analyze=analyze_fig34,
            quick={"duration": "25s", "measure_from": "5s"},
        ),
        Experiment(
            name="fig3-5",
            title="RCP thesis Fig. 3.5: short flows beside a long flow, R/C goes to 0.5",
            base="ch3-fig3-5.toml",
            points=[
                (
                    name,
                    {
                        "duration": FIG35_DURATION,
                        "workload.1.flows": _fig35_short_flows(FIG35_DURATION, name == "spread"),
                    },
                )
                for name in ("together", "spread")
            ],
            seeds=1,
            analyze=analyze_fig35,
            quick=fig35_quick,
        ),
        *rcp_fixed_rate.experiments(),
    ]
