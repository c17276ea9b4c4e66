"""The RCP thesis, chapter 5's packet simulations, Fig. 5.3 (004:2414-2433): 5 long flows at t = 0,
5 more at the first change, the first 5 leave at the second; every (alpha, beta) of a grid is
classified stable or not by `settling.stable_phase` and set beside the linear region of Fig. 5.2.
Base scenario `experiments/rcp/ch5-long-flows.toml`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from fctlab.reproduce.checks import ratio
from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table
from fctlab_experiments.rcp import settling as st
from fctlab_experiments.rcp.long_flows import ab, long_flows
from fctlab_experiments.rcp.settling import link_series
from fctlab_experiments.rcp.stability import linear

#: Fig. 5.3's schedule at full scale (s): 5 flows at 0, 5 more at JOIN, the first 5 leave at
#: LEAVE, the run ends at END. RTT 100 ms: phases of 150, 250 and 200 RTTs (the thesis's 40,
#: 60 and 40+ time units, its unit unstated).
F53_JOIN, F53_LEAVE, F53_END = 15.0, 40.0, 60.0
#: Fig. 5.3's link rate (bit/s) and RTT (s).
F53_C, F53_RTT = 10e6, 0.1
F53_QUICK_SCALE = 0.25


def _f53_schedule(scale: float) -> dict[str, Any]:
    return {
        "duration": F53_END * scale,
        "topology.bottleneck_rate": F53_C,
        "queues.router.initial_rate": 0.2,
        "workload.0.flows": long_flows([(5, 0.0, F53_LEAVE * scale), (5, F53_JOIN * scale, None)]),
    }


def _f53_grid(quick: bool) -> list[tuple[float, float]]:
    if quick:
        return [(0.4, 0.6), (1.2, 0.6), (1.6, 0.6), (2.0, 0.6)]
    alphas = [round(0.1 * i, 1) for i in range(1, 21)]
    betas = [round(0.1 * i, 1) for i in range(1, 11)]
    return [(a, b) for b in betas for a in alphas]


def _f53_verdicts(runs: Runs, name: str, seed: int) -> tuple[list[st.PhaseVerdict], dict[str, Any]]:
    sc = runs.scenario(name, seed)
    flows = sc["workload"][0]["flows"]
    join = float(flows[5]["start"])
    leave = float(flows[0]["stop"])
    end = runs.window(name, seed)[1]
    s = link_series(runs, name, seed, "bottleneck")
    if "rcp_rate_bps" not in s:
        nan = st.PhaseVerdict(float("nan"), float("nan"))
        return [nan, nan, nan], {"t": np.array([]), "r": np.array([]), "join": join, "leave": leave}
    t, r = s["rcp_rate_bps"]
    tq, q = s["queue_bytes"]
    bdp = F53_C * F53_RTT / 8
    # The second half of each phase.
    phases = [
        ((0.5 * join), join, F53_C / 5),
        ((join + leave) / 2, leave, F53_C / 10),
        ((leave + end) / 2, end, F53_C / 5),
    ]
    verdicts = []
    for a, b, fair in phases:
        v = st.stable_phase(t, r, np.interp(t, tq, q), a, b, fair, bdp)
        verdicts.append(v)
    return verdicts, {"t": t, "r": r, "join": join, "leave": leave}


def _is_stable(vs: list[st.PhaseVerdict]) -> bool | None:
    if any(math.isnan(v.r_swing) or math.isnan(v.q_peak) for v in vs):
        return None
    return all(v.stable for v in vs)


@functools.cache
def _linear_stable(alpha: float, beta: float) -> bool:
    """Fig. 5.2's verdict (Nyquist, exact delay) on one grid point."""
    return linear.nyquist_stable(alpha, beta)


#: Fig. 5.3's caption: for beta = 0.6 "the system is stable so long as alpha <= 1.2".
ALPHA_MAX_06 = 1.2


def check_fig5_3(
    ctx: Context, verdict: dict[tuple[float, float], bool | None], linear_ok: dict[tuple[float, float], bool]
) -> None:
    """Sec. 5.1.2 on the simulated region (`verdict`: stable, unstable or unknown per grid point;
    `linear_ok`: the linear model's verdict there): at beta = 0.6 stable up to alpha = 1.2 (the
    largest alpha before the first unstable one, from the smallest up); the simulated region
    "larger and includes the one obtained by the linearized model" (the share of linearly stable
    points stable in simulation, 1; and simulated over linearly stable points, at least 1)."""
    row = sorted((a, v) for (a, b), v in verdict.items() if abs(b - 0.6) < 1e-9)
    a_max = None
    for a, v in row:
        if not v:
            break
        a_max = a
    ctx.check("Fig. 5.3", "largest stable alpha at beta = 0.6", ALPHA_MAX_06, a_max)
    lin = [k for k in verdict if linear_ok[k]]
    if not lin:
        # Quick mode's few points: none is linearly stable, so there is no region to compare.
        return
    ctx.check(
        "sec. 5.1.2",
        "share of the linearly stable grid points stable in simulation (includes)",
        1.0,
        sum(1 for k in lin if verdict[k]) / len(lin) if lin else None,
    )
    ctx.check(
        "sec. 5.1.2",
        "stable grid points in simulation / linearly stable ones (larger)",
        (1.0, None),
        ratio(sum(1 for v in verdict.values() if v), len(lin)),
    )


def analyze_fig5_3(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    grid = [(float(n[1:4]), float(n[6:9])) for n in runs.names]
    got = {(a, b): _f53_verdicts(runs, ab(a, b), seed) for a, b in grid}
    verdict = {k: _is_stable(v[0]) for k, v in got.items()}
    alphas = sorted({a for a, _ in grid})
    betas = sorted({b for _, b in grid})

    def mark(a: float, b: float) -> str:
        v = verdict.get((a, b))
        lin = _linear_stable(a, b)
        sim = "-" if (a, b) not in verdict else "?" if v is None else "S" if v else "u"
        return sim + ("*" if lin else "")

    region = md_table(
        ["beta \\ alpha"] + [f"{a:.1f}" for a in alphas],
        [[f"{b:.1f}"] + [mark(a, b) for a in alphas] for b in reversed(betas)],
    )
    # Beta = 0.6: the thesis's example.
    row06 = sorted((a, verdict[(a, b)], got[(a, b)][0]) for a, b in grid if abs(b - 0.6) < 1e-9)
    a_max = None
    for a, v, _ in row06:
        if not v:
            break
        a_max = a
    rows06 = [
        [f"{a:.1f}", "S" if v else "?" if v is None else "unstable"]
        + [f"{p.r_swing:.2f} / {p.q_peak:.3f}" for p in ps]
        + ["yes" if _linear_stable(a, 0.6) else "no"]
        for a, v, ps in row06
    ]
    both = sum(1 for k, v in verdict.items() if v and _linear_stable(*k))
    sim_only = sum(1 for k, v in verdict.items() if v and not _linear_stable(*k))
    lin_only = [k for k, v in verdict.items() if v is False and _linear_stable(*k)]
    n_stable = sum(1 for v in verdict.values() if v)
    lin_beta = max((b for a, b in verdict if _linear_stable(a, b)), default=None)
    sim_beta = max((b for (a, b), v in verdict.items() if v), default=None)
    sim_alpha = max((a for (a, b), v in verdict.items() if v), default=None)
    lin_list = (": " + ", ".join(f"({a:.1f}, {b:.1f})" for a, b in sorted(lin_only)[:8])) if lin_only else ""
    _plot_fig5_3(ctx, got, verdict, alphas, betas)
    check_fig5_3(ctx, verdict, {k: _linear_stable(*k) for k in verdict})
    a_text = "none" if a_max is None else f"{a_max:.1f}"
    return (
        f"Long-lived RCP flows on one {F53_C / 1e6:.0f} Mb/s link, RTT {F53_RTT * 1e3:.0f} ms, buffer of ten "
        "bandwidth-delay products: 5 flows start at 0 (R/C = 0.2; R starts there, `initial_rate = 0.2`), 5 more "
        f"at {F53_JOIN:.0f} s (R/C -> 0.1), the first 5 leave at {F53_LEAVE:.0f} s (R/C -> 0.2), the run ends at "
        f"{F53_END:.0f} s (phases of 150, 250 and 200 RTTs; the thesis's times 40 and 100 have no unit or RTT). "
        f"{len(grid)} (alpha, beta) points (thesis: 0.1 <= alpha <= 2, 0.1 <= beta <= 1, steps of 0.1).\n\n"
        f"**Criterion** (`rcp_settling.stable_phase`): over the second half of each of the three phases, R's swing "
        f"(max - min) is at most {st.R_SWING:.0%} of the phase's fair rate C/N and the queue stays below "
        f"{st.Q_STABLE} bandwidth-delay products; a point is stable when all three phases are. An unstable loop "
        "keeps R swinging between its floor and C and the queue filling and emptying, far outside both bounds.\n\n"
        "Region: `S` stable in simulation, `u` not; `*` marks the points the linearized model (Fig. 5.2, Nyquist "
        "with the exact delay, `experiments/rcp/stability/linear.py`) calls stable.\n\n"
        + region
        + "\n\nbeta = 0.6 (the thesis's Fig. 5.3 example): R swing / queue peak (BDPs) per phase.\n\n"
        + md_table(["alpha", "verdict", "5 flows", "10 flows", "5 flows again", "linear model"], rows06)
        + "\n\n| thesis | fctlab |\n|---|---|\n"
        + f"| beta = 0.6: stable so long as alpha <= 1.2 (004:2418-2421) | stable for every alpha up to {a_text} |\n"
        + f"| the simulated stable region is larger than and includes the linear one (004:2422-2430) | {n_stable} "
        f"of {len(verdict)} points stable; {both} stable in both, {sim_only} stable in simulation only, "
        f"{len(lin_only)} stable in the linear model only{lin_list} |\n"
        + "| the linear region is capped at alpha < 1.6 and beta <= 0.55 (004:2404-2407) | linear model: largest "
        f"stable beta on the grid {fmt(lin_beta, '.1f')}; simulation: stable points up to beta = "
        f"{fmt(sim_beta, '.1f')}, alpha = {fmt(sim_alpha, '.1f')} |\n"
        + "| (1.4, 0.3): linearly stable, unstable in simulation (sec. 5.2, 004:2466-2470) | "
        + ("not on the grid" if (1.4, 0.3) not in verdict else "stable" if verdict[(1.4, 0.3)] else "unstable")
        + f" (linear model: {'stable' if _linear_stable(1.4, 0.3) else 'unstable'}) |\n"
        + "\n![Fig. 5.3: R/C against time for beta = 0.6 (left); the simulated region against the linear one "
        "(right)](fig5-3.png)\n"
    )


def _plot_fig5_3(ctx: Context, got: dict, verdict: dict, alphas: list[float], betas: list[float]) -> None:
    with figure(ctx, "fig5-3.png", 1, 2, figsize=(11, 4), dpi=110) as (_fig, axes):
        _draw_fig5_3(axes, got, verdict)


def _draw_fig5_3(axes, got: dict, verdict: dict) -> None:
    """R/C against time for beta = 0.6 (left); the simulated verdicts and the linear boundary (right)."""
    for a in (0.4, 1.2, 1.6, 2.0):
        if (a, 0.6) in got and got[(a, 0.6)][1]["t"].size:
            d = got[(a, 0.6)][1]
            axes[0].plot(d["t"], d["r"] / F53_C, lw=0.8, label=f"alpha = {a}")
    axes[0].set(xlabel="time (s)", ylabel="R / C", title="beta = 0.6")
    axes[0].legend(fontsize=7)
    w = np.linspace(1e-3, math.pi / 2, 300)
    ab = np.array([linear.bode_boundary(x) for x in w])
    axes[1].plot(ab[:, 0], ab[:, 1], "k-", lw=1, label="linear (Bode) boundary, Fig. 5.2")
    for (a, b), v in verdict.items():
        if v is not None:
            axes[1].plot(a, b, "o" if v else "x", color="tab:green" if v else "tab:red", ms=4)
    axes[1].set(xlabel="alpha", ylabel="beta", xlim=(0, 2.1), ylim=(0, 1.05), title="o stable, x unstable (simulation)")
    axes[1].legend(fontsize=7, loc="upper right")


def experiment() -> Experiment:
    """Fig. 5.3: which (alpha, beta) keep 5 -> 10 -> 5 long flows stable."""
    grid = _f53_grid(False)
    points = [(ab(a, b), {"queues.router.alpha": a, "queues.router.beta": b, **_f53_schedule(1.0)}) for a, b in grid]
    return Experiment(
        name="fig5-3",
        title="RCP thesis Fig. 5.3: the stable (alpha, beta) region in packet simulation",
        base="ch5-long-flows.toml",
        points=points,
        seeds=1,
        analyze=analyze_fig5_3,
        quick=_f53_schedule(F53_QUICK_SCALE),
        quick_points=[ab(a, b) for a, b in _f53_grid(True)],
    )
