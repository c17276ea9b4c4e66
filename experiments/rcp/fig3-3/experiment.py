"""The RCP thesis (Dukkipati), Fig. 3.3 (sec. 3.2.1): max-min fair rates of two groups of long-lived
flows with different bottlenecks (group A on link C, group B on link B then link C), and link C's
C/R = N1 + theta N2.

Base scenario `experiments/rcp/ch3-fig3-3.toml` (1000-byte packets, the thesis's gains alpha = 0.1,
beta = 1, the ns-2 code's starting state R = 0.05 C, d = 0.2 s). The thesis gives this figure as
a plot: where its text gives a number the README sets it beside fctlab's; elsewhere it states the
expected shape and checks it with numbers measured here.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reference import max_min_rates
from fctlab.reproduce.framework import Context, Experiment, Runs, figure, md_table
from fctlab.reproduce.series import link_series, settle_time, window_mean
from fctlab_experiments.rcp.scaled_flows import QUICK_SCALE, scaled_long_lived

FIG33_A = (0.0, 140.0)
FIG33_B = (40.0, 100.0)
#: The thesis's rates (sec. 3.2.1), Mb/s, by (group, whether group B is active).
FIG33_THESIS_RATE = {("A", False): 50.0, ("A", True): 40.0, ("B", True): 20.0}


def _fig33_workload(scale: float) -> list[dict[str, Any]]:
    a = [(f"a{i}", "d", *FIG33_A) for i in range(8)]
    b = [(f"b{i}", "d", *FIG33_B) for i in range(4)]
    return [
        {"kind": "long_lived", "label": "A", "flows": scaled_long_lived(a, scale)},
        {"kind": "long_lived", "label": "B", "flows": scaled_long_lived(b, scale)},
    ]


#: Each group's flows, by the host link its throughput is read on.
FIG33_UPLINKS = {"A": [f"a{i}->y" for i in range(8)], "B": [f"b{i}->x" for i in range(4)]}
#: The phases (unscaled start, end, whether group B is active).
FIG33_PHASES = [(FIG33_A[0], FIG33_B[0], False), (FIG33_B[0], FIG33_B[1], True), (FIG33_B[1], FIG33_A[1], False)]


def _fig33_series(runs: Runs, seed: int) -> dict[str, Any]:
    """The run's link rates, each host link's throughput (a column per link), and link C's and
    link B's C/R."""
    series = runs.series("rcp", seed)
    links = runs.links("rcp", seed)
    cap = {n: float(r) for n, r in zip(links["name"], links["rate_bps"])}
    thr = (
        series.filter(pl.col("metric") == "throughput_bps")
        .pivot("target", index="time_s", values="value")
        .sort("time_s")
    )
    rate_c = link_series(series, "linkC").with_columns(c_over_r=cap["linkC"] / pl.col("rcp_rate_bps"))
    rate_b = link_series(series, "linkB").with_columns(c_over_r=cap["linkB"] / pl.col("rcp_rate_bps"))
    return {"cap": cap, "thr": thr, "rate_c": rate_c, "rate_b": rate_b}


def _fig33_phase_rows(ctx: Context, d: dict[str, Any], a: float, b: float, with_b: bool, tail: float) -> list[list]:
    """One phase (`a` to `b` s, averaged from `tail`): each group's rates against max-min, and the
    links' C/R, checked against the thesis."""
    cap, thr, t = d["cap"], d["thr"], d["thr"]["time_s"].to_list()
    rows: list[list] = []
    paths = [["linkC"]] * 8 + ([["linkB", "linkC"]] * 4 if with_b else [])
    fair = max_min_rates(paths, {"linkB": cap["linkB"], "linkC": cap["linkC"]})
    for group, lo, hi in (("A", 0, 8), ("B", 8, 12)):
        if group == "B" and not with_b:
            continue
        got = [window_mean(thr, u, tail, b) / 1e6 for u in FIG33_UPLINKS[group]]
        want = fair[lo] / 1e6
        ctx.check(
            "Fig. 3.3",
            f"group {group}'s mean rate, {a:.0f} - {b:.0f} s (Mb/s)",
            FIG33_THESIS_RATE[group, with_b],
            sum(got) / len(got),
        )
        worst = max(abs(g - want) / want for g in got) * 100.0
        settled = [settle_time(t, (thr[u] / 1e6).to_list(), want, a, b) for u in FIG33_UPLINKS[group]]
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
        window_mean(d["rate_c"], "c_over_r", tail, b),
    )
    rows.append(
        [
            "",
            "link C: C/R",
            "",
            f"{n_est:.1f} (N1 + theta N2)",
            f"{window_mean(d['rate_c'], 'c_over_r', tail, b):.2f}",
            "",
            "",
            "",
        ]
    )
    if with_b:
        rows.append(["", "link B: C/R", "", "4.0", f"{window_mean(d['rate_b'], 'c_over_r', tail, b):.2f}", "", "", ""])
    return rows


def _plot_fig33(ctx: Context, thr: pl.DataFrame, scale: float) -> None:
    """Every flow's throughput, and the max-min rates dashed."""
    t = thr["time_s"].to_list()
    with figure(ctx, "fig3-3.png", figsize=(7, 3.8), dpi=120) as (fig, ax):
        for group, style in (("A", "C0"), ("B", "C1")):
            for i, u in enumerate(FIG33_UPLINKS[group]):
                ax.plot(
                    t, (thr[u] / 1e6).to_list(), color=style, lw=0.8, label=f"group {group} flows" if i == 0 else None
                )
        for a, b, with_b in FIG33_PHASES:
            ax.hlines([40.0 if with_b else 50.0], a * scale, b * scale, colors="k", linestyles="dashed", lw=0.8)
        ax.hlines(
            [20.0],
            FIG33_B[0] * scale,
            FIG33_B[1] * scale,
            colors="k",
            linestyles="dashed",
            lw=0.8,
            label="max-min fair",
        )
        ax.set_xlabel("time (s)")
        ax.set_ylabel("flow throughput (Mb/s)")
        ax.legend()


def _fig33_text(scale: float, rows: list[list]) -> str:
    """The set-up, the table and the reading."""
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


def analyze_fig33(runs: Runs, ctx: Context) -> str:
    scale = QUICK_SCALE if ctx.quick else 1.0
    d = _fig33_series(runs, runs.seeds[0])
    rows = []
    for a, b, with_b in FIG33_PHASES:
        a, b = a * scale, b * scale
        rows += _fig33_phase_rows(ctx, d, a, b, with_b, b - 10.0 * scale)
    _plot_fig33(ctx, d["thr"], scale)
    return _fig33_text(scale, rows)


def experiment() -> Experiment:
    """Fig. 3.3: group A (8 flows) throughout, group B (4 flows) in the middle."""
    return Experiment(
        name="fig3-3",
        title="RCP thesis Fig. 3.3: max-min fair rates with two bottlenecks",
        base="ch3-fig3-3.toml",
        points=[("rcp", {"duration": FIG33_A[1], "workload": _fig33_workload(1.0)})],
        seeds=1,
        analyze=analyze_fig33,
        quick={"duration": FIG33_A[1] * QUICK_SCALE, "workload": _fig33_workload(QUICK_SCALE)},
    )
