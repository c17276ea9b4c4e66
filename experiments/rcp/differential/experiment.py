"""The RCP thesis, chapter 3, sec. 3.6: differential bandwidth sharing. The router stamps R into
young flows' packets and theta R into flows older than a threshold (the age rides in the header),
R capped at C / theta. Two checks on the link of Fig. 3.9 (`experiments/rcp/ch3-fig3-9.toml`): a
long-lived flow and a 100 MB flow that joins it, old past 40 MB (shares 1 : theta while the joiner
is young, C / R = N_s + theta N_l, then equal shares), and the Poisson workload of Fig. 3.9 with
and without it (the thesis's use: emulating least-attained-service disciplines, which favour
short flows).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table, mean_fct, window_stat
from fctlab_experiments.rcp import analysis as ra

#: Bottleneck capacity (bit/s) and round trip (s) of the base scenario.
C, RTT = 150e6, 0.1
#: Differential sharing: old flows get THETA x R.
THETA = 0.5
#: Age threshold of the two-flow run (bytes) and the joiner's size.
THRESHOLD, JOINER = 40_000_000, 100_000_000
#: When the joiner starts, and the two-flow run's length (s).
JOIN, TWO_END = 20.0, 40.0
#: Age threshold of the Poisson runs: the mean flow size, 30 packets of 960 payload bytes.
MIX_THRESHOLD = 30 * ra.MSS


def _router(differential: dict[str, Any] | None) -> dict[str, Any]:
    # A warm start (R = 0.5 C, d = the RTT), as in the chapter 4 runs: from the ns-2 cold start
    # (0.05 C, 0.2 s) R takes seconds to reach the link rate, which would blur the phases.
    q: dict[str, Any] = {"kind": "rcp", "limit": "1875KB", "initial_rate": 0.5, "initial_rtt": RTT}
    if differential:
        q["differential"] = differential
    return {"queues.router": q}


def _two_flows(differential: bool) -> dict[str, Any]:
    flows = [
        {"src": "l0", "dst": "r0", "start": 0.0},
    ]
    joiner = {"src": "l1", "dst": "r1", "start": JOIN, "size": JOINER}
    diff = {"threshold": THRESHOLD, "theta": THETA} if differential else None
    return {
        **_router(diff),
        "duration": TWO_END,
        "workload": [{"kind": "long_lived", "flows": flows}, {"kind": "flows", "flows": [joiner]}],
        "output": {"series": {"interval": 0.05, "links": ["bottleneck"], "flows": [0, 1]}},
    }


def two_flow_phases(
    w: pl.DataFrame, young_until: float | None, joiner_end: float | None
) -> dict[str, dict[str, float | None]]:
    """Mean sending rates of the long flow (flow 0) and the joiner (flow 1), and C/R, in three
    phases: alone (the 10 s before the join), joiner young (its last second before its age
    passes the threshold) and both old (the last 2 s before the joiner completes). The join
    itself is a transient (see the report), so the phases are taken at their ends."""
    young = young_until if young_until is not None else JOIN + 1.0
    end = joiner_end if joiner_end is not None else TWO_END
    spans = {"alone": (JOIN - 10.0, JOIN), "young": (young - 1.0, young), "old": (end - 2.0, end)}
    out = {}
    for k, (a, b) in spans.items():
        r = window_stat(w, "bottleneck_rcp_rate_bps", a, b)
        out[k] = {
            "long": window_stat(w, "flow0_send_rate_bps", a, b),
            "joiner": window_stat(w, "flow1_send_rate_bps", a, b),
            "c_over_r": None if not r else C / r,
        }
    return out


def _joiner_end(runs: Runs, name: str, seed: int) -> float | None:
    """When the joiner completed (s), if it did."""
    f = runs.flows(name, seed).filter(pl.col("workload") == "w1")["finish_s"]
    return None if len(f) == 0 or f[0] is None else float(f[0])


def _young_until(runs: Runs, name: str, seed: int) -> float | None:
    """When the joiner's acknowledged bytes pass the threshold (s)."""
    w = runs.wide_series(name, seed)
    if "flow1_acked_bytes" not in w.columns:
        return None
    t = w.filter(pl.col("flow1_acked_bytes") >= THRESHOLD)["time_s"]
    return float(t[0]) if len(t) else None


def analyze_differential(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds_of("two-flows-differential", "two-flows-plain")[0]
    young = _young_until(runs, "two-flows-differential", seed)
    ends = {n: _joiner_end(runs, n, seed) for n in ("two-flows-differential", "two-flows-plain")}
    diff = two_flow_phases(runs.wide_series("two-flows-differential", seed), young, ends["two-flows-differential"])
    plain = two_flow_phases(runs.wide_series("two-flows-plain", seed), young, ends["two-flows-plain"])

    def mb(x: float | None) -> str:
        return fmt(None if x is None else x / 1e6, ".1f")

    rows = []
    for label, got in (("differential", diff), ("plain", plain)):
        for phase in ("alone", "young", "old"):
            g = got[phase]
            rows.append([label, phase, mb(g["long"]), mb(g["joiner"]), fmt(g["c_over_r"], ".2f")])
    y = diff["young"]
    ratio = None if not (y["long"] and y["joiner"]) else y["long"] / y["joiner"]
    alone_r = None if not diff["alone"]["c_over_r"] else C / diff["alone"]["c_over_r"]
    ctx.check("sec. 3.6", "long flow's rate / young joiner's (theta)", THETA, ratio)
    ctx.check("sec. 3.6", "C/R, one young and one old flow (N_s + theta N_l)", 1 + THETA, y["c_over_r"])
    ctx.check("sec. 3.6", "C/R, two old flows (theta N_l)", 2 * THETA, diff["old"]["c_over_r"])
    mix_rows, mix = _mix(runs)
    _plot_two(ctx, runs, seed)
    return (
        f"Differential sharing with theta = {THETA}: packets carry the flow's age (KiB sent); flows older "
        f"than the threshold get theta R, younger ones R, and R may grow to C / theta. Same link as Fig. 3.9 "
        "(150 Mb/s, 100 ms), the routers starting warm (R = 0.5 C, d = 100 ms). Two flows: a long-lived flow "
        f"from 0 s and a {JOINER // 1_000_000} MB flow "
        f"joining at {JOIN:.0f} s, threshold {THRESHOLD // 1_000_000} MB (the joiner is young until "
        f"{fmt(young, '.2f')} s). Sending rates on the wire (Mb/s) per phase (alone: the 10 s before the join; "
        "young: the joiner's last second below the threshold; old: the 2 s before the joiner completes; the plain "
        "router's young phase is the same span):\n\n"
        + md_table(["router", "phase", "long flow", "joiner", "C / R"], rows)
        + "\n\n"
        + md_table(
            ["thesis (sec. 3.6)", "fctlab"],
            [
                [
                    "rates of long and short flows in ratio theta : 1",
                    f"long / young joiner = {fmt(ratio, '.2f')} (theta = {THETA})",
                ],
                [
                    "C/R estimates N_s + theta N_l",
                    f"C/R = {fmt(y['c_over_r'], '.2f')} with one young and one old flow (1 + theta = "
                    f"{1 + THETA}); {fmt(diff['old']['c_over_r'], '.2f')} with two old ones (2 theta = "
                    f"{2 * THETA})",
                ],
                [
                    "R grows up to C / theta so that long flows alone can claim the link",
                    f"the long flow alone sends {mb(diff['alone']['long'])} Mb/s on a {C / 1e6:.0f} Mb/s link "
                    f"(R = {mb(alone_r)} Mb/s)",
                ],
                [
                    "(use) emulating flow-size-based disciplines such as LAS, which favour short flows",
                    mix,
                ],
            ],
        )
        + "\n\nThe Poisson workload of Fig. 3.9 (load 0.7, Pareto mean 30 packets) with the threshold at "
        f"{MIX_THRESHOLD // ra.MSS} packets, against the plain router (mean FCT, s):\n\n"
        + md_table(["router", "seeds", "flows", "AFCT <= threshold", "AFCT > threshold", "AFCT all"], mix_rows)
        + "\n\nAt this load a flow of up to 30 packets finishes in about 1.5 RTT plus 30 packets at R, and the "
        "round trips dominate: a larger share for young flows shortens them little. Differential sharing matters "
        "where flows are bandwidth-bound."
        + "\n\nThe join is a transient with differential sharing: alone, the old long flow has R grown to C / theta "
        "and sends theta R = C; the joiner, young, is stamped min(R, C) = C, so the link is offered twice its rate "
        "for a round trip and the queue term of eq. 3.3 cuts R deeply, after which it climbs back at alpha = 0.1 "
        "(see the plot). The plain router starts the joiner at R = C too.\n"
        + "\n![Two flows: sending rates and C/R with and without differential sharing](differential.png)\n"
    )


def _mix(runs: Runs) -> tuple[list[list[Any]], str]:
    rows = []
    got: dict[str, tuple[float, float]] = {}
    for name in ("mix-differential", "mix-plain"):
        seeds = runs.seeds_of(name)
        sample = pl.concat([runs.sample(name, s) for s in seeds]) if seeds else pl.DataFrame()
        if sample.height == 0:
            rows.append([name, len(seeds), 0, "-", "-", "-"])
            continue
        short = sample.filter(pl.col("size_bytes") <= MIX_THRESHOLD)
        long = sample.filter(pl.col("size_bytes") > MIX_THRESHOLD)
        s_afct = mean_fct(short)[0] if short.height else float("nan")
        l_afct = mean_fct(long)[0] if long.height else float("nan")
        got[name] = (s_afct, l_afct)
        rows.append([name, len(seeds), sample.height, f"{s_afct:.4f}", f"{l_afct:.4f}", f"{mean_fct(sample)[0]:.4f}"])
    if len(got) == 2:
        (sd, ld), (sp, lp) = got["mix-differential"], got["mix-plain"]
        text = (
            f"short flows' AFCT {(sd / sp - 1) * 100:+.1f}%, long flows' {(ld / lp - 1) * 100:+.1f}% against the plain "
            "router"
        )
    else:
        text = "no flows to compare"
    return rows, text


def _plot_two(ctx: Context, runs: Runs, seed: int) -> None:
    with figure(ctx, "differential.png", 1, 2, figsize=(11, 3.6), sharey=True) as (fig, axes):
        for ax, name in zip(axes, ("two-flows-differential", "two-flows-plain"), strict=True):
            w = runs.wide_series(name, seed)
            t = w["time_s"].to_list()
            for col, label in (("flow0_send_rate_bps", "long flow"), ("flow1_send_rate_bps", "joiner")):
                if col in w.columns:
                    ax.plot(t, (w[col] / 1e6).to_list(), label=label)
            ax.set(title=name, xlabel="time (s)", ylabel="sending rate (Mb/s)")
            ax.legend(fontsize=8)


def experiment() -> Experiment:
    """Sec. 3.6: differential bandwidth sharing, two flows and the Poisson mix."""
    points = [
        ("two-flows-differential", _two_flows(True)),
        ("two-flows-plain", _two_flows(False)),
        ("mix-differential", _router({"threshold": MIX_THRESHOLD, "theta": THETA})),
        ("mix-plain", _router(None)),
    ]
    return Experiment(
        name="differential",
        title="RCP thesis sec. 3.6: differential bandwidth sharing (young flows R, old flows theta R)",
        base="ch3-fig3-9.toml",
        points=points,
        seeds=2,
        analyze=analyze_differential,
        quick=lambda n, o: {} if n.startswith("two") else {"duration": 15.0},
        point_seeds={"two-flows-differential": 1, "two-flows-plain": 1},
    )
