"""The RCP thesis, chapter 3, Fig. 3.9 (sec. 3.4): R(t)/C at a 150 Mb/s bottleneck under Poisson
arrivals of Pareto-sized flows (load 0.7, mean 30 packets); the thesis: "R(t) sweeps over its
entire range depending on the input conditions", from R(0) = 0.05 C. Base scenario
`experiments/rcp/ch3-fig3-9.toml`.
"""

from __future__ import annotations

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table

#: Bottleneck capacity of the base scenario (bit/s).
C = 150e6


def rate_stats(r_over_c: list[float]) -> dict[str, float]:
    """Range and spread of R/C samples: min, max, the 5th / 50th / 95th percentiles and the
    decades the 5-95% range covers."""
    s = pl.Series(r_over_c, dtype=pl.Float64)
    p5, p50, p95 = (float(s.quantile(q, "nearest")) for q in (0.05, 0.5, 0.95))
    import math

    return {
        "min": float(s.min()),
        "max": float(s.max()),
        "p5": p5,
        "p50": p50,
        "p95": p95,
        "decades": math.log10(p95 / p5) if p5 > 0 else float("inf"),
    }


def check_fig3_9(ctx: Context, top: dict[int, float]) -> None:
    """Sec. 3.4: R(t) sweeps "from minimum-rate to a maximum of link-rate": R/C's largest value
    (after the first tenth of the run) per seed, against 1 (the link rate). The thesis gives no
    number for the minimum rate, so the low end is not checked."""
    for seed, x in top.items():
        ctx.check("Fig. 3.9", f"largest R/C, seed {seed} (R reaches the link rate)", 1.0, x)


def analyze_fig3_9(runs: Runs, ctx: Context) -> str:
    rows = []
    plot = None
    top = {}
    for seed in runs.seeds:
        w = runs.wide_series("rcp", seed)
        r = (w["bottleneck_rcp_rate_bps"] / C).to_list()
        st = rate_stats(r[len(r) // 10 :])
        top[seed] = st["max"]
        n = w["bottleneck_active_flows"].to_list()
        # How long R takes to leave the region of its initial value (0.05 C).
        left = next((t for t, x in zip(w["time_s"].to_list(), r, strict=True) if x > 0.1), None)
        corr = pl.DataFrame({"r": r, "inv": [1.0 / max(k, 1) for k in n]}).select(pl.corr("r", "inv")).item()
        rows.append(
            [
                seed,
                f"{st['min']:.4f}",
                f"{st['p5']:.3f}",
                f"{st['p50']:.3f}",
                f"{st['p95']:.3f}",
                f"{st['max']:.3f}",
                f"{st['decades']:.2f}",
                fmt(left, ".2f"),
                fmt(corr, ".2f"),
            ]
        )
        plot = plot if plot is not None else w
    if plot is not None:
        _plot_fig3_9(ctx, plot)
    check_fig3_9(ctx, top)
    first = rows[0] if rows else ["-"] * 9
    return (
        "Setup of the caption: C = 150 Mb/s, RTT 100 ms, load 0.7, Pareto sizes (mean 30 packets of 1000 "
        "bytes, shape 1.2), R(0) = 0.05 C; the caption gives no buffer (C x RTT here) and no duration "
        "(60 s here). R/C is sampled every 10 ms; the statistics leave out the first tenth of the run.\n\n"
        + md_table(
            ["thesis (sec. 3.4)", "fctlab"],
            [
                [
                    "R(t) sweeps over its entire range depending on the input conditions",
                    f"seed {first[0]}: R/C from {first[1]} to {first[5]}; 5-95% range {first[2]} - {first[4]} "
                    f"({first[6]} decades), median {first[3]}",
                ],
                [
                    "R(0) = 0.05 C does not matter (the initial rate is forgotten)",
                    f"R/C first exceeds 0.1 after {first[7]} s",
                ],
            ],
        )
        + "\n\n"
        + md_table(
            [
                "seed",
                "min R/C",
                "5%",
                "median",
                "95%",
                "max R/C",
                "decades (5-95%)",
                "R/C > 0.1 after (s)",
                "corr(R/C, 1/N)",
            ],
            rows,
        )
        + "\n\nThe last column correlates R/C with one over the number of active flows: R(t) is not C/N(t), "
        "as sec. 3.4 says it should not be - many of the flows present send less than an RTT's worth, and R "
        "gives each more than C/N so that the link fills.\n\n"
        "![Fig. 3.9: R(t)/C and the number of active flows](fig3-9.png)\n"
    )


def _plot_fig3_9(ctx: Context, w: pl.DataFrame) -> None:
    with figure(ctx, "fig3-9.png", 2, 1, figsize=(9, 5), sharex=True, dpi=110) as (_fig, axes):
        axes[0].plot(w["time_s"].to_list(), (w["bottleneck_rcp_rate_bps"] / C).to_list(), lw=0.6)
        axes[0].set(ylabel="R(t) / C", yscale="log")
        axes[1].plot(w["time_s"].to_list(), w["bottleneck_active_flows"].to_list(), lw=0.6, color="C1")
        axes[1].set(xlabel="time (s)", ylabel="active flows")


def experiment() -> Experiment:
    """Fig. 3.9: R(t)/C under Poisson arrivals."""
    return Experiment(
        name="fig3-9",
        title="RCP thesis Fig. 3.9: R(t)/C under Poisson arrivals of Pareto-sized flows",
        base="ch3-fig3-9.toml",
        points=[("rcp", {})],
        seeds=2,
        analyze=analyze_fig3_9,
        quick={"duration": 15.0},
    )
