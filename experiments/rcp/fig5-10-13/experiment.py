"""The RCP thesis, chapter 5's packet simulations, Figs. 5.10 - 5.13 (004:2641-2680): the time R and
q take to settle after the load doubles, in RTTs, against the link rate, the RTT, N, and (alpha,
beta). The runs and their reading are `convergence` (Fig. 7.1 reads the same runs); base scenario
`experiments/rcp/ch5-long-flows.toml`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table
from fctlab_experiments.rcp import settling as st
from fctlab_experiments.rcp.convergence import CONV_AFTER, convergence_of, convergence_point
from fctlab_experiments.rcp.long_flows import ab

CONV_RATES = [1e6, 10e6, 100e6, 1e9]
CONV_RTTS = [0.01, 0.1, 1.0]
CONV_NS = [4, 20, 100, 200]
#: The parameter pairs of the rate / RTT / N sweeps.
CONV_PAIRS = [(0.5, 0.5), (0.1, 1.0)]


def _conv_points(quick: bool) -> list[tuple[str, dict[str, Any]]]:
    pts: list[tuple[str, dict[str, Any]]] = []
    for a, b in CONV_PAIRS[:1] if quick else CONV_PAIRS:
        for c in CONV_RATES[1:3] if quick else CONV_RATES:
            pts.append((f"rate{c / 1e6:g}M-{ab(a, b)}", convergence_point(c=c, alpha=a, beta=b)))
        for r in CONV_RTTS[:2] if quick else CONV_RTTS:
            pts.append((f"rtt{r * 1e3:g}ms-{ab(a, b)}", convergence_point(rtt=r, alpha=a, beta=b)))
        for n in CONV_NS[1:3] if quick else CONV_NS:
            pts.append((f"n{n}-{ab(a, b)}", convergence_point(n=n, alpha=a, beta=b)))
    grid = [0.3, 0.5, 0.9] if quick else [round(0.1 * i, 1) for i in range(1, 11)]
    pts += [(f"grid-{ab(a, b)}", convergence_point(alpha=a, beta=b)) for b in grid for a in grid]
    return pts


def _rtts(x: float | None) -> str:
    return "not settled" if x is None else f"{x:.1f}"


def analyze_fig5_10_13(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    got = {n: convergence_of(runs, n, seed) for n in runs.names}
    sweeps = []
    indep = []
    for a, b in CONV_PAIRS:
        for label, prefix, key, describe in (
            ("link rate (Fig. 5.10)", "rate", "c", lambda g: f"{g['c'] / 1e6:g} Mb/s"),
            ("RTT (Fig. 5.11 by caption, 5.12 by text)", "rtt", "rtt", lambda g: f"{g['rtt'] * 1e3:g} ms"),
            ("N (Fig. 5.12 by caption, 5.11 by text)", "n", "n", lambda g: f"{g['n'] // 2} -> {g['n']}"),
        ):
            names = [n for n in runs.names if n.startswith(prefix) and n.endswith(ab(a, b))]
            if not names:
                continue
            rows = [
                [
                    describe(got[n]),
                    _rtts(got[n]["rtts"]),
                    fmt(got[n]["r_eq"] / got[n].get("fair", float("nan")), ".3f"),
                    fmt(got[n].get("d_join", float("nan")) / got[n]["rtt"], ".2f")
                    + " -> "
                    + fmt(got[n].get("d_peak", float("nan")) / got[n]["rtt"], ".2f"),
                ]
                for n in names
            ]
            vals = [got[n]["rtts"] for n in names if got[n]["rtts"] is not None]
            spread = f"{min(vals):.1f} - {max(vals):.1f}" if vals else "-"
            indep.append(f"{label}, (alpha, beta) = ({a}, {b}): {spread} RTTs over {len(names)} values")
            sweeps.append(
                f"**{label}**, (alpha, beta) = ({a}, {b}):\n\n"
                + md_table([key, "convergence (RTTs)", "equilibrium R / (C/N)", "d / RTT: at the join -> peak"], rows)
            )
    grid_names = [n for n in runs.names if n.startswith("grid-")]
    ga = sorted({float(n[6:9]) for n in grid_names})
    gb = sorted({float(n[11:14]) for n in grid_names})
    grid_rows = [[f"{b:.1f}"] + [_rtts(got.get(f"grid-{ab(a, b)}", {}).get("rtts")) for a in ga] for b in reversed(gb)]
    g55 = got.get("grid-" + ab(0.5, 0.5), {}).get("rtts")
    ctx.check("Fig. 5.13", "RTTs to converge after the load doubles, (alpha, beta) = (0.5, 0.5)", (None, 10.0), g55)
    best = sorted(
        ((got[n]["rtts"], n) for n in grid_names if got[n]["rtts"] is not None),
    )[:5]
    rec = [
        got[f"grid-{ab(a, b)}"]["rtts"]
        for a in ga
        for b in gb
        if 0.4 <= a <= 0.6 and 0.2 <= b <= 0.6 and f"grid-{ab(a, b)}" in got
    ]
    rec_ok = [x for x in rec if x is not None]
    _plot_fig5_10_13(ctx, got, ga, gb)
    return (
        "Long-lived RCP flows on one link (base: 10 Mb/s, RTT 100 ms, buffer of ten bandwidth-delay products); "
        "N/2 flows run in equilibrium for 20 RTTs (R starts at the fair rate 2C/N), then N/2 more start at "
        "once: the load doubles (the thesis's Fig. 5.12 caption: N = 200, R(0)/C = 0.01 -> Re/C = 0.005). "
        "Runs last 80 RTTs after the join. **Convergence time** (`rcp_settling.convergence_time`): the time "
        f"after the join from which on R (averaged over one RTT) stays within {st.R_TOL:.0%} of its equilibrium and "
        "the queue below its "
        f"peak over the 10 RTTs before the join plus {st.Q_TOL:.0%} of the bandwidth-delay product (q_e = 0, so "
        'the thesis\'s "within 99%" of it is read as a band: paced flows keep a jitter of a few packets in '
        "equilibrium), in RTTs; the equilibrium R is the mean over the last 20 RTTs (its ratio to C/N is listed: "
        "below 1 where the packet-level queue jitter's beta q/d term holds R under C/N). The thesis sweeps alpha, "
        "beta in 0..1 by 0.1 for every setting; here the rate / RTT / N sweeps use two pairs, (0.5, 0.5) and the "
        "ch. 4 default (0.1, 1), and the grid uses the base setting.\n\n"
        + "\n\n".join(sweeps)
        + "\n\n**Fig. 5.13**: convergence time (RTTs) against (alpha, beta), base setting; rows beta, columns "
        "alpha.\n\n"
        + md_table(["beta \\ alpha"] + [f"{a:.1f}" for a in ga], grid_rows)
        + "\n\n| thesis | fctlab |\n|---|---|\n"
        + f"| (alpha, beta) = (0.5, 0.5) converges within 10 RTTs (004:2667) | {_rtts(g55)} RTTs |\n"
        + "| convergence time independent of link rate, N and RTT (counted in RTTs) (004:2646-2651) | "
        + "; ".join(indep)
        + " |\n"
        + "| fastest for alpha in (0.4, 0.6), beta in (0.2, 0.6) (004:2664-2666) | fastest grid points: "
        + ", ".join(f"({n[6:9]}, {n[11:14]}) {x:.1f}" for x, n in best)
        + f"; inside the recommended box: {fmt(min(rec_ok) if rec_ok else None, '.1f')} - "
        f"{fmt(max(rec_ok) if rec_ok else None, '.1f')} RTTs ({len(rec_ok)} of {len(rec)} settled) |\n"
        + "| slow when alpha is too small (slow to use spare capacity) or too big (overshoots) | see the grid |\n"
        + "\n**Why slower than the thesis's 10 RTTs.** When the load doubles the offered rate is 2C for an RTT "
        "before any feedback returns: a queue of one to two bandwidth-delay products builds, the beta q/d term "
        "drives R well below the new fair rate (to about a third of it at (0.5, 0.5)), and R climbs back by the "
        'alpha term. That climb is paced by d, and d rose with the queue (gain T/d upwards, the column "d / RTT") '
        "but comes down only with gain (R/C)(T/d)(d_T/d) (eq. 5.17): with R/C at a few percent, d stays near its "
        "peak for the whole recovery, and the loop runs about 2x slower than at d = RTT (d is already 1.0 - 1.5 RTTs "
        "at the join, still ageing out the start's queue). R is within 10% of the "
        "new rate on the way down within 2-3 RTTs (Fig. 7.1's table), but the settling the definition asks for "
        "comes after the undershoot. With (0.1, 1) R, after undershooting to ~15% of the fair rate, is still "
        "climbing after 80 RTTs (alpha = 0.1): not settled. At N = 200 on 10 Mb/s a flow gets 6 packets per second, "
        "so the queue's jitter (and the band it is held to) is coarse.\n"
        + "\nThe thesis's text (004:2646-2651) maps Figs. 5.10 / 5.11 / 5.12 to link rate / number of flows / RTT, "
        "while the captions say 5.11 is the RTT and 5.12 the number of flows; the tables above name both.\n"
        + "\n![Figs. 5.10 - 5.13: R / (C/N) after the join for the sweeps (left), the (alpha, beta) grid (right)]"
        "(fig5-10-13.png)\n"
    )


def _plot_fig5_10_13(ctx: Context, got: dict, ga: list[float], gb: list[float]) -> None:
    with figure(ctx, "fig5-10-13.png", 1, 2, figsize=(11, 4)) as (fig, axes):
        for n, g in got.items():
            if n.startswith("grid-") or "t" not in g or not n.endswith(ab(0.5, 0.5)):
                continue
            x = (g["t"] - g["join"]) / g["rtt"]
            keep = x > -5
            axes[0].plot(x[keep], g["r"][keep] / (g["c"] / g["n"]), lw=0.7, label=n.rsplit("-a", 1)[0])
        axes[0].set(xlabel="RTTs after the load doubles", ylabel="R / (C/N)", title="(alpha, beta) = (0.5, 0.5)")
        axes[0].legend(fontsize=6)
        if ga and gb:
            m = np.full((len(gb), len(ga)), np.nan)
            for i, b in enumerate(gb):
                for j, a in enumerate(ga):
                    x = got.get(f"grid-{ab(a, b)}", {}).get("rtts")
                    m[i, j] = CONV_AFTER if x is None else x
            im = axes[1].imshow(
                m, origin="lower", aspect="auto", extent=(ga[0] - 0.05, ga[-1] + 0.05, gb[0] - 0.05, gb[-1] + 0.05)
            )
            fig.colorbar(im, ax=axes[1], label=f"convergence (RTTs; {CONV_AFTER} = not settled)")
            axes[1].set(xlabel="alpha", ylabel="beta", title="Fig. 5.13")


def experiment() -> Experiment:
    """Figs. 5.10 - 5.13: convergence time against link rate, RTT, N and (alpha, beta)."""
    return Experiment(
        name="fig5-10-13",
        title="RCP thesis Figs. 5.10 - 5.13: convergence time after the load doubles",
        base="ch5-long-flows.toml",
        points=_conv_points(False),
        seeds=1,
        analyze=analyze_fig5_10_13,
        quick_points=[n for n, _ in _conv_points(True)],
    )
