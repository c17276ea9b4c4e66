"""The RCP thesis's fluid-model stability (sec. 5.1.2, App. E), Fig. 5.4 / E.3: the phase-plane
stable region of eqs. 5.1 - 5.4, its independence of C, d0 and N, and Figs. E.1 - E.2's
trajectories. Analytic, no runs (`analysis_only`): `--quick` uses a coarser grid.

Models and verdicts come from `experiments/rcp/stability/fluid.py`. Eqs. 5.1 - 5.4 run two ways: as the
router's sampled law (forward Euler with App. E's control interval T = 10 ms) and as the
continuous equations (Heun, 25 steps per round trip; `fluid_regions`).
"""

from __future__ import annotations

import math

import numpy as np

from fctlab.reproduce.checks import ratio
from fctlab.reproduce.framework import Context, Experiment, Runs, analysis_only, figure, md_table, plt
from fctlab_experiments.rcp.fluid_regions import APP_E, CONTINUOUS, continuous, edge, linear_stable, setup
from fctlab_experiments.rcp.stability import fluid, linear

#: App. E's variations of C (bit/s; "56 Kbps" in ch. 5, "5.6Kbps" in App. E), d0 (s) and N.
CAPACITIES = (56e3, 2.5e9, 10e9, 1000e9)
DELAYS = (0.01, 0.5, 1.0, 2.0)
FLOWS = (100, 1000, 5000)
QUICK_VARIANTS = (fluid.Link(56e3, 0.2, 10), fluid.Link(0.15e9, 0.5, 10), fluid.Link(0.15e9, 0.2, 5000))
#: Figs. E.1 and E.2's pairs.
PORTRAITS = ((0.6, 0.2), (0.6, 0.8), (1.4, 0.8))


def sampled(link: fluid.Link, grid: np.ndarray, rule: fluid.Settling) -> np.ndarray:
    """App. E's region for the router's sampled law (one Euler step per control interval)."""
    return fluid.region(grid, grid, link=link, steps=fluid.control_steps(link.d0), rule=rule)


def _verdict_at(region: np.ndarray, grid: np.ndarray, alpha: float, beta: float) -> str:
    i, j = int(np.argmin(abs(grid - alpha))), int(np.argmin(abs(grid - beta)))
    if not (math.isclose(grid[i], alpha) and math.isclose(grid[j], beta)):
        return "(not on the quick grid)"
    return fluid.VERDICTS[region[j, i]]


def _plot_regions(path, grid: np.ndarray, panels: list[tuple[str, np.ndarray]]) -> None:
    """Verdict maps with the linear analysis's boundary (the bell curve of Fig. 5.4)."""
    # Not `framework.figure`: its tight layout leaves no room below the panels for the shared
    # legend, which this plot's own layout (rect) keeps.
    pyplot = plt()
    fig, axes = pyplot.subplots(1, len(panels), figsize=(4.5 * len(panels), 4.2), squeeze=False)
    w = np.linspace(1e-3, math.pi / 2, 300)
    bell = np.array([linear.bode_boundary(x) for x in w])
    marks = {fluid.SETTLED: ("o", "tab:green"), fluid.CONVERGING: ("s", "tab:orange"), fluid.OSCILLATING: ("x", "r")}
    for ax, (title, region) in zip(axes[0], panels, strict=True):
        for verdict, (m, c) in marks.items():
            bb, aa = np.nonzero(region == verdict)
            ax.plot(grid[aa], grid[bb], m, ms=3, color=c, ls="", label=fluid.VERDICTS[verdict])
        ax.plot(bell[:, 0], bell[:, 1], "k-", lw=1.2, label="linear boundary (Fig. 5.2)")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("alpha")
        ax.set_ylabel("beta")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="lower center", ncol=len(labels))
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(path, dpi=120)
    pyplot.close(fig)


def _plot_portraits(ctx: Context) -> None:
    """Figs. E.1 and E.2: (gamma = R / C, q) trajectories from App. E's six initial states."""
    rtts = 150 if ctx.quick else 400
    with figure(ctx, "figE-1-2.png", 1, len(PORTRAITS), figsize=(13, 4), dpi=120) as (_fig, axes):
        for ax, (a, b) in zip(axes, PORTRAITS, strict=True):
            for state in fluid.INITIAL_STATES:
                _, r, x = fluid.trajectory("rcp", APP_E, a, b, state, rtts, 20)
                ax.plot(r / APP_E.flows, x * APP_E.capacity * APP_E.d0 / 8e6, lw=0.7)
            ax.plot([1 / APP_E.flows], [0], "k*", ms=9)
            ax.set_xscale("log")
            ax.set_title(f"alpha = {a}, beta = {b}", fontsize=9)
            ax.set_xlabel("gamma = R / C")
            ax.set_ylabel("queue (MB)")


def _variants(quick: bool) -> list[fluid.Link]:
    if quick:
        return list(QUICK_VARIANTS)
    return (
        [fluid.Link(c, APP_E.d0, APP_E.flows) for c in CAPACITIES]
        + [fluid.Link(APP_E.capacity, d, APP_E.flows) for d in DELAYS]
        + [fluid.Link(APP_E.capacity, APP_E.d0, n) for n in FLOWS]
    )


def _varied(link: fluid.Link) -> str:
    """Which of App. E's C, d0 and N a variation changes."""
    return "C" if link.capacity != APP_E.capacity else "d0" if link.d0 != APP_E.d0 else "N"


def _independence(
    grid: np.ndarray, rule: fluid.Settling, base: np.ndarray, quick: bool
) -> tuple[list[list[str]], dict[str, float]]:
    """One row per App. E variation: how many grid points' verdicts differ from App. E's link;
    and per varied quantity (C, d0, N), the smallest share of grid points whose verdict agrees."""
    rows = []
    agree: dict[str, float] = {}
    for link in _variants(quick):
        region = sampled(link, grid, rule)
        diff = region != base
        share = 1.0 - float(diff.sum()) / diff.size
        agree[_varied(link)] = min(agree.get(_varied(link), 1.0), share)
        where = ", ".join(f"({grid[i]:.1f}, {grid[j]:.1f})" for j, i in list(zip(*np.nonzero(diff), strict=True))[:6])
        rows.append(
            [
                f"{link.capacity / 1e9:g} Gb/s, {link.d0:g} s, N = {link.flows}",
                fluid.control_steps(link.d0),
                int((region == fluid.SETTLED).sum()),
                int(diff.sum()),
                where + (" ..." if diff.sum() > 6 else ""),
            ]
        )
    cont = continuous("rcp", grid, rule, fluid.Link(1000e9, 2.0, 5000))
    rows.append(
        [
            "1000 Gb/s, 2 s, N = 5000, continuous (Heun)",
            CONTINUOUS,
            int((cont == fluid.SETTLED).sum()),
            f"{int((cont != continuous('rcp', grid, rule)).sum())} (against App. E's link, continuous)",
            "",
        ]
    )
    return rows, agree


def right_edge(region: np.ndarray, grid: np.ndarray, j: int) -> float:
    """The largest settled alpha of row `j` (0 when none)."""
    ok = np.nonzero(region[j] == fluid.SETTLED)[0]
    return float(grid[ok[-1]]) if ok.size else 0.0


def _unsettled(grid: np.ndarray, lin: np.ndarray, region: np.ndarray) -> str:
    """The linearly stable grid points a region does not settle, with their verdicts."""
    points = [
        f"({grid[i]:.1f}, {grid[j]:.1f}) {fluid.VERDICTS[region[j, i]]}"
        for j, i in zip(*np.nonzero(lin & (region != fluid.SETTLED)), strict=True)
    ]
    return f"{len(points)}" + (": " + ", ".join(points) if points else "")


def limit_cycle(alpha: float, beta: float, rule: fluid.Settling) -> float:
    """The sampled law's largest deviation from the equilibrium at the end, over App. E's states."""
    states = np.asarray(fluid.INITIAL_STATES)
    run = fluid.rcp(APP_E, alpha, beta, states[:, 0], states[:, 1], fluid.control_steps(APP_E.d0))
    return float(fluid.window_peaks(run, fluid.control_steps(APP_E.d0), rule)[1].max())


def _discussion(grid: np.ndarray, rule: fluid.Settling, law: np.ndarray, cont: np.ndarray, lin: np.ndarray) -> str:
    """What the regions show against the thesis, in numbers taken from them."""
    edges = [right_edge(law, grid, j) for j in range(len(grid))]
    lower = sum(right_edge(law, grid, j) < right_edge(cont, grid, j) for j in range(len(grid)))
    j08 = int(np.argmin(abs(grid - 0.8)))
    outside = [a for a in grid if a > edges[j08]]
    sizes = ", ".join(
        f"{limit_cycle(float(a), 0.8, rule):.2f} at alpha = {a:.1f}" for a in outside[:: max(1, len(outside) // 3)]
    )
    return (
        "The fluid region is much larger than the linear one, as the thesis says: it reaches beta = "
        f"{grid[-1]:.0f} (alpha up to {edges[-1]:.1f}) where the linear analysis has no stable alpha above beta = "
        f"{linear.BETA_MAX:.2f}, and its right edge falls from alpha = {max(edges[:3]):.1f} at small beta to "
        f'{edges[-1]:.1f} at beta = {grid[-1]:.0f}: the bounded-alpha shape of Fig. 5.4 ("to the left of the '
        'solid lines"). Beyond the edge the trajectories end on a limit cycle that grows with the distance from '
        f"it, as App. E describes for (1.4, 0.8): at beta = 0.8 the deviation left is {sizes}. Slow "
        "convergence marks the corner of small alpha and beta: from R = 5 C / N a trajectory builds a queue "
        "of hundreds to thousands of C d0, and d = d0 + q / C slows eq. 5.1 down by as much, so it drains over "
        "tens of thousands of round trips (converging, not oscillating). The sampled law's edge is lower than the "
        f"continuous one's for {lower} of {len(grid)} betas: one update per 10 ms is a coarser controller."
    )


#: Fig. 5.3's boundary at beta = 0.6 ("stable so long as alpha <= 1.2"), which the region of
#: Fig. 5.4 ("Simulations and Phase Plane analysis") takes in.
ALPHA_MAX_06 = 1.2


def check_fig54(ctx: Context, grid: np.ndarray, law: np.ndarray, lin: np.ndarray, agree: dict[str, float]) -> None:
    """Sec. 5.1.2 and App. E on the sampled law's region (`law`, [beta, alpha] verdicts; `lin`,
    the linear analysis's): larger than and including the linear region (the share of linearly
    stable points settled, 1; settled over linearly stable points, at least 1); alpha <= 1.2 at
    beta = 0.6; the same region for every C, d0 and N (`agree`: per varied quantity the smallest
    share of points with App. E's link's verdict, 1)."""
    settled = law == fluid.SETTLED
    n_lin = int(lin.sum())
    ctx.check(
        "Fig. 5.4",
        "share of the linearly stable grid points settled (includes the linear region)",
        1.0,
        float((lin & settled).sum()) / n_lin if n_lin else None,
    )
    ctx.check(
        "Fig. 5.4", "settled grid points / linearly stable ones (larger)", (1.0, None), ratio(int(settled.sum()), n_lin)
    )
    j06 = int(np.argmin(abs(grid - 0.6)))
    ctx.check("Figs. 5.3 - 5.4", "largest settled alpha at beta = 0.6", ALPHA_MAX_06, right_edge(law, grid, j06))
    for what, share in agree.items():
        ctx.check("App. E", f"share of grid points with App. E's verdicts, {what} varied (the worst)", 1.0, share)


def analyze_fig54(runs: Runs, ctx: Context) -> str:
    grid, rule = setup(ctx.quick)
    law = sampled(APP_E, grid, rule)
    cont = continuous("rcp", grid, rule)
    lin = linear_stable(grid)
    _plot_regions(
        ctx.out / "fig5-4.png",
        grid,
        [("eqs. 5.1 - 5.4, sampled law, T = 10 ms", law), ("eqs. 5.1 - 5.4, continuous (Heun)", cont)],
    )
    _plot_portraits(ctx)
    rows = [[f"{b:.1f}", edge(law, grid, j), edge(cont, grid, j), edge(np.where(lin, 0, 2), grid, j)]
            for j, b in enumerate(grid)]  # fmt: skip
    claims = [
        ["E.1 left: (0.6, 0.2)", "converges", _verdict_at(law, grid, 0.6, 0.2), _verdict_at(cont, grid, 0.6, 0.2)],
        ["E.1 right: (0.6, 0.8)", "converges", _verdict_at(law, grid, 0.6, 0.8), _verdict_at(cont, grid, 0.6, 0.8)],
        ["E.2: (1.4, 0.8)", "oscillates", _verdict_at(law, grid, 1.4, 0.8), _verdict_at(cont, grid, 1.4, 0.8)],
    ]
    lost, lost_c = _unsettled(grid, lin, law), _unsettled(grid, lin, cont)
    j06 = int(np.argmin(abs(grid - 0.6)))
    table_ind, agree = _independence(grid, rule, law, ctx.quick)
    check_fig54(ctx, grid, law, lin, agree)
    return (
        "App. E's phase-plane analysis: eqs. 5.1 - 5.4 (R' = R (alpha (C - y) - beta q / d) / (C d), y = N "
        "R(t - d0), d = d0 + q / C, the queue stopping at 0) on App. E's link, C = 0.15 Gb/s, d0 = 0.2 s, N = "
        f"10, from App. E's six initial states (gamma = R / C in {{0.5, 0.1, 0.01}} x q in {{2 C d0, 0}}), for "
        f"alpha and beta from {grid[0]:.1f} to 2 in steps of {grid[1] - grid[0]:.1f}. The thesis calls a pair "
        'stable when every trajectory "finally ends at the equilibrium" and gives no tolerance; fctlab calls '
        f"a trajectory **settled** when R stays within {rule.band:.0%} of C / N and the queue within "
        f"{rule.band:.0%} of C d0 over the last {rule.window:.0f} round trips of {rule.horizon:.0f}, "
        "**oscillating** when it is not and its rate keeps crossing C / N without the deviation shrinking by "
        "10% since half the horizon (a limit cycle), and **converging** otherwise (still on its way). A pair's "
        "verdict is its worst trajectory's. Two integrations (`experiments/rcp/stability/fluid.py`): the "
        "**sampled law**, one Euler step per control interval T = 10 ms (App. E's T; this is the router's "
        "update itself), and "
        f"the **continuous** equations by Heun's method with {CONTINUOUS} steps per round trip (200 give the "
        "same verdicts).\n\n"
        'Settled alphas per beta (Fig. 5.4: the stable region lies "to the left of the solid lines"; a range '
        "where the smallest alpha of the grid is not settled):\n\n"
        + md_table(["beta", "sampled law, T = 10 ms", "continuous", "linear analysis (Fig. 5.2)"], rows)
        + "\n\nThe thesis's statements:\n\n"
        + md_table(
            ["thesis", "says", "fctlab, sampled law", "fctlab, continuous"],
            [
                *claims,
                [
                    "Fig. 5.3 (packet simulation): beta = 0.6",
                    "stable iff alpha <= 1.2",
                    f"alpha <= {edge(law, grid, j06)}",
                    f"alpha <= {edge(cont, grid, j06)}",
                ],
                [
                    "the region includes the linear one",
                    "hypothesis (sec. 5.1.2)",
                    f"linearly stable grid points not settled: {lost}",
                    lost_c,
                ],
                [
                    "settled pairs",
                    "-",
                    f"{int((law == 0).sum())} of {law.size} ({int((law == 1).sum())} converging)",
                    f"{int((cont == 0).sum())} ({int((cont == 1).sum())} converging)",
                ],
            ],
        )
        + "\n\n"
        + _discussion(grid, rule, law, cont, lin)
        + "\n\n"
        'Independence of C, d0 and N (App. E: the region "remained the same"), for the sampled law with T = 10 '
        "ms (steps per round trip = d0 / T; App. E does not say how the initial rates scale with N, so they stay "
        "5, 1 and 0.1 x C / N):\n\n"
        + md_table(["link", "steps per round trip", "settled pairs", "differ from App. E's link", "where"], table_ind)
        + "\n\nIn units of C / N, C d0 and d0, eqs. 5.1 - 5.4 contain none of C, N, d0, so C and N change nothing "
        "(bit for bit up to rounding) and neither does d0 in the continuous equations. With a fixed T, d0 sets "
        "the number of updates per round trip, and with it the sampled law's region: the thesis's claim holds "
        "exactly for the continuous model and for C and N, and for d0 only as far as the table shows. (With one "
        "update per round trip, d0 = T, a step can take R below 0; the model holds it at 1e-6 C / N, "
        "`fluid.MIN_RATE`, as a router holds R at a minimum rate.)\n\n"
        "![Fig. 5.4](fig5-4.png)\n\nFigs. E.1 and E.2: trajectories in the (gamma, q) plane from the six "
        "initial states (sampled law); the star is the equilibrium (0.1, 0).\n\n![Figs. E.1, E.2](figE-1-2.png)"
    )


def experiment() -> Experiment:
    """Fig. 5.4 and App. E, analytic."""
    return analysis_only("fig5-4", "RCP thesis Fig. 5.4 and App. E: the fluid model's stable region", analyze_fig54)
