"""The RCP thesis, chapter 7 (frequently asked questions): Fig. 7.1 (Q1, 004:3614-3660).

Ten long-lived flows in equilibrium (R/C = 0.1) when the load doubles (ten more flows start at
once); alpha = 0.6, beta = 0.2. The thesis: R "finds the new equilibrium within 10 round-trip
times". Base scenario `experiments/rcp/ch5-long-flows.toml` (the convergence runs of Figs. 5.10 -
5.13, `convergence.convergence_point`), read with the same convergence time
(`settling.convergence_time`).
"""

from __future__ import annotations

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, md_table
from fctlab_experiments.rcp import settling as st
from fctlab_experiments.rcp.convergence import CONV_C, CONV_RTT, convergence_of, convergence_point

#: The thesis's example, and the ch. 4 default beside it.
POINTS = [("alpha0.6-beta0.2", 0.6, 0.2), ("alpha0.1-beta1.0", 0.1, 1.0)]


def _band_entry(g: dict, tol: float) -> float | None:
    """RTTs after the join until R is first within `tol` of the new equilibrium."""
    if "t" not in g:
        return None
    after = g["t"] >= g["join"]
    inside = abs(g["r"][after] - g["r_eq"]) <= tol * g["r_eq"]
    if not inside.any():
        return None
    return float((g["t"][after][inside.argmax()] - g["join"]) / g["rtt"])


def analyze_fig7_1(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    got = {n: convergence_of(runs, n, seed) for n, _, _ in POINTS}
    rows = []
    for n, a, b in POINTS:
        g = got[n]
        ct = g["rtts"]
        rows.append(
            [
                f"({a}, {b})",
                "-" if g.get("fair") is None else f"{g['r_eq'] / g['c']:.4f}",
                "-" if _band_entry(g, 0.1) is None else f"{_band_entry(g, 0.1):.1f}",
                "-" if _band_entry(g, st.R_TOL) is None else f"{_band_entry(g, st.R_TOL):.1f}",
                "not settled" if ct is None else f"{ct:.1f}",
            ]
        )
    thesis = got[POINTS[0][0]]["rtts"]
    a, b = POINTS[0][1:]
    ctx.check("Fig. 7.1", f"RTTs for R to settle at its new equilibrium, alpha = {a}, beta = {b}", (None, 10.0), thesis)
    _plot(ctx, got)
    return (
        f"Ten long-lived RCP flows on a {CONV_C / 1e6:.0f} Mb/s link, RTT {CONV_RTT * 1e3:.0f} ms, in equilibrium "
        "(R starts at C/10) for 20 RTTs, then ten more start at once. The new equilibrium R is the mean over the "
        "last 20 of 80 RTTs after the join (fair: C/20 = 0.05 C). Columns: RTTs after the join until R first "
        f"enters 10% and {st.R_TOL:.0%} bands about it, and the convergence time of Figs. 5.10 - 5.13 (R averaged "
        f"over one RTT within {st.R_TOL:.0%} and the queue below its pre-change peak plus {st.Q_TOL:.0%} of the "
        "bandwidth-delay product for good).\n\n"
        + md_table(
            ["(alpha, beta)", "new R / C", "R within 10% (RTTs)", "R within 2% (RTTs)", "R and q settled (RTTs)"], rows
        )
        + "\n\n| thesis (Fig. 7.1, 004:3651-3656) | fctlab |\n|---|---|\n"
        + "| alpha = 0.6, beta = 0.2: R finds the new equilibrium (0.05) within 10 round-trip times | "
        + ("not settled in 80 RTTs" if thesis is None else f"{thesis:.1f} RTTs")
        + " |\n"
        + "\n![Fig. 7.1: R / C against RTTs after the load doubles](fig7-1.png)\n"
    )


def _plot(ctx: Context, got: dict) -> None:
    with figure(ctx, "fig7-1.png", figsize=(6, 3.5)) as (fig, ax):
        for n, g in got.items():
            if "t" not in g:
                continue
            x = (g["t"] - g["join"]) / g["rtt"]
            keep = (x > -5) & (x < 50)
            ax.plot(x[keep], g["r"][keep] / g["c"], lw=0.9, label=n)
        ax.axhline(0.05, color="k", lw=0.5, ls=":")
        ax.set(xlabel="round-trip times after the load doubles", ylabel="R / C")
        ax.legend(fontsize=7)


def experiment() -> Experiment:
    """Fig. 7.1: R after the load doubles from 10 to 20 flows."""
    return Experiment(
        name="fig7-1",
        title="RCP thesis Fig. 7.1: convergence within 10 RTTs after the load doubles",
        base="ch5-long-flows.toml",
        points=[(n, convergence_point(n=20, alpha=a, beta=b)) for n, a, b in POINTS],
        seeds=1,
        analyze=analyze_fig7_1,
    )
