"""The RCP thesis, chapter 5 (stability), Fig. 5.2 (sec. 5.1, Apps. C and D): the linear stable
(alpha, beta) region by the Bode criterion and by the Nyquist test (`experiments/rcp/stability/linear.py`),
App. D's example at beta = 0.3 and the region's edges, with Fig. D.1's Nyquist curves. Analytic,
no runs (`analysis_only`): `--quick` uses a coarser grid.
"""

from __future__ import annotations

import math

import numpy as np

from fctlab.reproduce.framework import Context, Experiment, Runs, analysis_only, figure, md_table
from fctlab_experiments.rcp.stability import linear

#: App. D's example: the Nyquist crossings A and B for beta = 0.3, and the alphas they give.
THESIS_A, THESIS_B = -2.91, -0.696
THESIS_INTERVAL = (0.3436, 1.436)
#: The betas whose intervals the report lists.
TABLE_BETAS = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.54, 0.55, 0.6)


def _fmt(intervals: list[tuple[float, float]] | tuple[float, float] | None) -> str:
    if not intervals:
        return "none"
    if isinstance(intervals, tuple):
        intervals = [intervals]
    return ", ".join(f"{a:.4f} - {b:.4f}" for a, b in intervals)


def beta_max(delay: str, iters: int) -> float:
    """The largest beta with a stable alpha by the Nyquist test, by bisection between 0.5 and 0.7."""
    lo, hi = 0.5, 0.7
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if linear.nyquist_intervals(mid, delay) else (lo, mid)
    return lo


def _grids(quick: bool) -> tuple[np.ndarray, np.ndarray]:
    """(alphas, betas) of the region grid: up to 2 and 1, steps 0.02 / 0.01 (quick: 0.1 / 0.05)."""
    da, db = (0.1, 0.05) if quick else (0.02, 0.01)
    return np.round(np.arange(da, 2.0 + 1e-9, da), 3), np.round(np.arange(db, 1.0 + 1e-9, db), 3)


def _inside(alpha: float, intervals: list[tuple[float, float]]) -> bool:
    return any(a < alpha < b for a, b in intervals)


def _plot_region(ctx: Context, alphas: np.ndarray, betas: np.ndarray, nyq: np.ndarray) -> None:
    """Fig. 5.2: the Bode boundary (closed form) and the Nyquist-stable grid points."""
    with figure(ctx, "fig5-2.png", figsize=(6, 4.5), dpi=120) as (fig, ax):
        w = np.linspace(1e-3, math.pi / 2, 400)
        ab = np.array([linear.bode_boundary(x) for x in w])
        ax.plot(ab[:, 0], ab[:, 1], "k-", lw=1.5, label="Bode: $\\omega_z = \\omega_c$ (eqs. 5.10, 5.11)")
        bb, aa = np.nonzero(nyq)
        ax.plot(alphas[aa], betas[bb], "+", ms=3, color="tab:blue", label="Nyquist (exact delay): stable")
        ax.set_xlabel("alpha")
        ax.set_ylabel("beta")
        ax.set_xlim(0, 2)
        ax.set_ylim(0, 1)
        ax.legend(fontsize=8)


def _plot_nyquist(ctx: Context) -> None:
    """Fig. D.1: G1(jw) for beta = 0.3 (with App. D's A and B) and beta = 0.6."""
    with figure(ctx, "figD-1.png", 1, 2, figsize=(9, 4), dpi=120) as (fig, axes):
        w = np.geomspace(1e-3, 60, 20000)
        for ax, beta in zip(axes, (0.3, 0.6), strict=True):
            for delay, style in (("exact", "-"), ("pade", "--")):
                g = linear.g1(w, beta, delay)
                ax.plot(g.real, g.imag, style, lw=1, label=f"{delay} delay")
                ax.plot(g.real, -g.imag, style, lw=0.6, color=ax.lines[-1].get_color())
            if beta == 0.3:
                ax.plot([THESIS_A, THESIS_B], [0, 0], "rx", label="thesis's A, B")
            ax.axhline(0, color="k", lw=0.5)
            ax.set_xlim(-4, 2)
            ax.set_ylim(-3, 3)
            ax.set_title(f"G1(jw), beta = {beta}")
            ax.legend(fontsize=8)


def analyze_fig52(runs: Runs, ctx: Context) -> str:
    alphas, betas = _grids(ctx.quick)
    nyq_intervals = {d: [linear.nyquist_intervals(float(b), d) for b in betas] for d in linear.DELAYS}
    nyq = {d: np.array([[_inside(a, iv) for a in alphas] for iv in nyq_intervals[d]]) for d in linear.DELAYS}
    bode = np.array([[linear.bode(float(a), float(b)).stable for a in alphas] for b in betas])
    differ = {d: int((nyq[d] != bode).sum()) for d in linear.DELAYS}
    pade_max = beta_max("pade", 8 if ctx.quick else 20)
    _plot_region(ctx, alphas, betas, nyq["exact"])
    _plot_nyquist(ctx)
    (exact,) = linear.nyquist_intervals(0.3, "exact")
    (pade,) = linear.nyquist_intervals(0.3, "pade")
    bode03 = linear.bode_interval(0.3)
    assert bode03 is not None  # 0.3 < BETA_MAX
    low = linear.bode_interval(1e-4)
    assert low is not None
    ctx.check("App. D", "A = -1 / alpha_min at beta = 0.3 (Pade delay)", THESIS_A, -1 / pade[0])
    ctx.check("App. D", "B = -1 / alpha_max at beta = 0.3 (Pade delay)", THESIS_B, -1 / pade[1])
    ctx.check("sec. 5.1.2", "largest beta with a stable alpha", 0.55, linear.BETA_MAX)
    ctx.check("sec. 5.1.2", "largest stable alpha, beta -> 0 (below 1.6)", (None, 1.6), low[1])
    rows03 = [
        ["thesis (App. D, Pade, read off Fig. D.1)", f"{THESIS_A}", f"{THESIS_B}", _fmt(THESIS_INTERVAL)],
        ["Nyquist, App. D's Pade delay", f"{-1 / pade[0]:.3f}", f"{-1 / pade[1]:.3f}", _fmt(pade)],
        ["Nyquist, exact delay", f"{-1 / exact[0]:.3f}", f"{-1 / exact[1]:.3f}", _fmt(exact)],
        ["Bode boundary (closed form)", f"{-1 / bode03[0]:.3f}", f"{-1 / bode03[1]:.3f}", _fmt(bode03)],
    ]
    shift = [
        (linear.nyquist_intervals(b, "pade")[0][1] / linear.bode_interval(b)[1] - 1) * 100
        for b in TABLE_BETAS
        if b < linear.BETA_MAX
    ]
    per_beta = [
        [b, _fmt(linear.bode_interval(b)), _fmt(linear.nyquist_intervals(b)), _fmt(linear.nyquist_intervals(b, "pade"))]
        for b in TABLE_BETAS
    ]
    return (
        "The linearized loop of eq. 5.7, G(s) = e^(-s d0) (alpha s d0 + beta) / (s d0)^2, in frequencies "
        "normalized by d0 (so C, N and d0 drop out, as the thesis says). Three computations, each independent "
        "of the others (`experiments/rcp/stability/linear.py`):\n\n"
        "- **Bode** (eqs. 5.9 - 5.12, App. C): stable iff the gain crossover w_z (eq. 5.10) comes before the "
        "phase crossover w_c (eq. 5.11, which exists only for alpha / beta > 1, eq. 5.12). Where the two meet, "
        "|G| = 1 and tan w = w alpha / beta give the boundary in closed form, alpha = w sin w, beta = w^2 cos w "
        "for 0 < w < pi / 2 (derived here; the thesis solved eqs. 5.10 - 5.11 numerically in Matlab).\n"
        "- **Nyquist** (App. D): the curve G1(jw) of G1(s) = s d0 e^(-s d0) / (s^2 d0^2 + beta e^(-s d0)) must "
        "encircle -1 / alpha counter-clockwise P times, P = G1's right-half-plane poles (2 here, as in the "
        "thesis). The thesis draws G1 with a second-order Pade approximation of the delay; fctlab evaluates "
        "it both with that approximation and with the exact delay, sampling the imaginary axis (400,001 points, "
        "w from 1e-6 to 200) and counting windings, and finds the alpha intervals from where the curve crosses "
        "the negative real axis.\n\n"
        "**beta = 0.3** (App. D, thesis: stable for -2.91 < -1 / alpha < -0.696):\n\n"
        + md_table(["method", "A = -1 / alpha_min", "B = -1 / alpha_max", "stable alpha"], rows03)
        + "\n\nThe lower edge agrees with the thesis to its three digits. The upper edge does not: the Pade "
        f"curve crosses at B = {-1 / pade[1]:.3f} and the exact one at {-1 / exact[1]:.3f}, not -0.696, so "
        f"alpha_max is {pade[1]:.3f} / {exact[1]:.3f} rather than 1.436 ({(pade[1] / 1.436 - 1) * 100:.1f}% / "
        f"{(exact[1] / 1.436 - 1) * 100:.1f}%). The thesis's B looks like a reading of its plot, where -0.70 "
        "and -0.71 are close. The exact Nyquist interval equals the Bode one to 1e-7, as it must: a root crosses the "
        "imaginary axis exactly where |G(jw)| = 1 and the phase is -pi.\n\n"
        "**The region's edges** (thesis sec. 5.1.2: capped at alpha < 1.6 and beta <= 0.55):\n\n"
        + md_table(
            ["edge", "thesis", "fctlab"],
            [
                [
                    "largest beta with a stable alpha",
                    '"about 0.55", "beta <= 0.55"',
                    f"{linear.BETA_MAX:.4f} (exact; at alpha = {linear.bode_boundary(linear.W_TOP)[0]:.3f}), "
                    f"{pade_max:.4f} (Pade)",
                ],
                [
                    "largest alpha (beta -> 0)",
                    "alpha < 1.6",
                    f"pi / 2 = {math.pi / 2:.4f} ({low[1]:.4f} at beta = 1e-4)",
                ],
                [
                    "smallest alpha",
                    "alpha / beta > 1 (eq. 5.12)",
                    f"alpha -> beta as beta -> 0; {bode03[0]:.4f} at beta = 0.3",
                ],
            ],
        )
        + "\n\nStable alphas per beta:\n\n"
        + md_table(["beta", "Bode", "Nyquist, exact delay", "Nyquist, Pade delay"], per_beta)
        + f"\n\nThe Pade delay moves the upper edge up by {min(shift):.1f} - {max(shift):.1f}% over these betas. "
        f"Over the grid of the plot ({len(alphas)} alphas up to 2 x {len(betas)} betas up to 1), the Nyquist "
        f"test with the exact delay and the Bode criterion disagree at {differ['exact']} points, with the Pade "
        f"delay at {differ['pade']}: the Nyquist test confirms the Bode region, as the thesis found.\n\n"
        "![Fig. 5.2](fig5-2.png)\n\nFig. D.1, the Nyquist curves of G1 (both halves, w < 0 mirrored) for beta "
        "= 0.3 and 0.6: at 0.6 no point of the negative real axis is encircled twice counter-clockwise.\n\n"
        "![Fig. D.1](figD-1.png)"
    )


def experiment() -> Experiment:
    """Fig. 5.2, analytic."""
    return analysis_only("fig5-2", "RCP thesis Fig. 5.2: the linear stable region by Bode and Nyquist", analyze_fig52)
