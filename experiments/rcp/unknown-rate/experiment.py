"""The RCP thesis, end of chapter 6: a link of unknown or varying rate (eq. 6.2).

The thesis proposes eq. 6.2 for links whose rate the router does not know (wireless, input-
queued switches) and leaves it there: "It remains to be seen how the above rate equation will
perform". There is no figure to reproduce; this experiment is the test the thesis asks for. The
bottleneck of `ch6-unknown-rate.toml` runs at 100, 50, 150 and 100 Mb/s in four 10 s phases
(`[[link_rate]]`), under four long RCP flows, with three routers: eq. 3.3 told each new rate
(the reference), eq. 3.3 not told (it keeps C = 100 Mb/s), and eq. 6.2 not told.
"""

from __future__ import annotations

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table

#: (start, end, link rate in bit/s) of each phase.
PHASES = [(0.0, 10.0, 100e6), (10.0, 20.0, 50e6), (20.0, 30.0, 150e6), (30.0, 40.0, 100e6)]
#: Each phase's first seconds are its transient; the means leave them out.
SETTLE = 3.0
#: Round trip of the scenario (s), for the queue in RTTs.
RTT = 0.04

POINTS = [
    ("eq3.3-told", {}),
    ("eq3.3-not-told", {f"link_rate.{i}.notify_queue": False for i in range(3)}),
    (
        "eq6.2-not-told",
        {
            **{f"link_rate.{i}.notify_queue": False for i in range(3)},
            "queues.router.variant": "unknown-rate",
        },
    ),
]


def phase_means(w: pl.DataFrame) -> list[dict[str, float | None]]:
    """Per phase (after its first `SETTLE` s): utilization, mean queue in RTTs of the phase's
    rate, and R over the per-flow share of the phase's rate (4 flows)."""
    out = []
    for a, b, c in PHASES:
        p = w.filter((pl.col("time_s") > a + SETTLE) & (pl.col("time_s") <= b))
        if p.height == 0:
            out.append({"util": None, "queue_rtts": None, "r_share": None})
            continue
        out.append(
            {
                "util": float(p["bottleneck_throughput_bps"].mean()) / c,
                "queue_rtts": float(p["bottleneck_queue_bytes"].mean()) * 8 / c / RTT,
                "r_share": float(p["bottleneck_rcp_rate_bps"].mean()) / (c / 4),
            }
        )
    return out


def analyze(runs: Runs, ctx: Context) -> str:
    rows = []
    got = {}
    for name, _ in POINTS:
        w = runs.wide_series(name, runs.seeds[0])
        got[name] = phase_means(w)
        for (a, b, c), m in zip(PHASES, got[name], strict=True):
            rows.append(
                [
                    name,
                    f"{a:.0f}-{b:.0f}",
                    f"{c / 1e6:.0f}",
                    fmt(None if m["util"] is None else m["util"] * 100, ".1f"),
                    fmt(m["queue_rtts"], ".3f"),
                    fmt(m["r_share"], ".2f"),
                ]
            )
    _plot(runs, ctx)

    def u(name: str, i: int) -> str:
        m = got.get(name, [{}] * 4)[i].get("util")
        return fmt(None if m is None else m * 100, ".0f") + "%"

    return (
        "A 100 Mb/s dumbbell (the router's C), 40 ms round trip, four long RCP flows; the bottleneck runs at "
        "100, 50, 150 and 100 Mb/s in 10 s phases. Gains alpha 0.4, beta 0.5 (App. F's recommendation), "
        "buffer 500 KB, R starting at 0.5 C. Means per phase leave out its first "
        f"{SETTLE:.0f} s. `R / share` is R over the phase's rate / 4.\n\n"
        + md_table(["router", "phase (s)", "link rate (Mb/s)", "utilization", "mean queue (RTTs)", "R / share"], rows)
        + "\n\n"
        + md_table(
            ["thesis (end of ch. 6)", "fctlab"],
            [
                [
                    "C appears in eq. 3.3 twice; without it (eq. 6.2: the queue's growth for C - y, y / R for "
                    'C / R) the router needs no link rate. "It remains to be seen how [it] will perform."',
                    f"eq. 6.2, not told: {u('eq6.2-not-told', 0)}, {u('eq6.2-not-told', 1)}, "
                    f"{u('eq6.2-not-told', 2)}, {u('eq6.2-not-told', 3)} of the four phases' rates; eq. 3.3 not "
                    f"told: {u('eq3.3-not-told', 0)}, {u('eq3.3-not-told', 1)}, {u('eq3.3-not-told', 2)}, "
                    f"{u('eq3.3-not-told', 3)} (it caps R at the C it believes, so the 150 Mb/s phase runs at "
                    "100); eq. 3.3 told: "
                    f"{u('eq3.3-told', 0)}, {u('eq3.3-told', 1)}, {u('eq3.3-told', 2)}, {u('eq3.3-told', 3)}",
                ]
            ],
        )
        + "\n\nEq. 6.2 has no equilibrium with a standing queue (q_dot = 0 leaves only -beta q / d, which lowers "
        "R), so its queue fills and drains around the link rate rather than settling near zero as eq. 3.3's "
        "does; where the link is slower than the router believes, eq. 3.3 holds the standing queue that "
        "balances alpha (C - y) against beta q / d.\n\n"
        "![Throughput and queue of the bottleneck under the three routers](unknown-rate.png)\n"
    )


def _plot(runs: Runs, ctx: Context) -> None:
    with figure(ctx, "unknown-rate.png", 2, 1, figsize=(10, 5.5), sharex=True, dpi=110) as (_fig, axes):
        for name, _ in POINTS:
            w = runs.wide_series(name, runs.seeds[0])
            axes[0].plot(w["time_s"].to_list(), (w["bottleneck_throughput_bps"] / 1e6).to_list(), label=name, lw=0.8)
            axes[1].plot(w["time_s"].to_list(), (w["bottleneck_queue_bytes"] / 1e3).to_list(), label=name, lw=0.8)
        steps = [(a, c / 1e6) for a, _, c in PHASES] + [(PHASES[-1][1], PHASES[-1][2] / 1e6)]
        axes[0].step([s[0] for s in steps], [s[1] for s in steps], "k:", where="post", label="link rate")
        axes[0].set(ylabel="throughput (Mb/s)")
        axes[1].set(xlabel="time (s)", ylabel="queue (KB)")
        for a in axes:
            a.legend(fontsize=7)


def experiment() -> Experiment:
    """Eq. 6.2 against eq. 3.3 on a link whose rate changes."""
    return Experiment(
        name="unknown-rate",
        title="RCP thesis eq. 6.2: a link whose rate changes under the router",
        base="ch6-unknown-rate.toml",
        points=POINTS,
        seeds=1,
        analyze=analyze,
        # No figure of the thesis: eq. 6.2 comes without a number ("it remains to be seen how the
        # above rate equation will perform"), and this is the test it asks for.
        investigation=True,
    )
