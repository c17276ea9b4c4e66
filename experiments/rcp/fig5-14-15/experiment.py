"""The RCP thesis, chapter 5's packet simulations, Figs. 5.14 - 5.15 (004:2681-2698): mean FCT and
loss probability against (alpha, beta) and the buffer, for large (10,000 packets) and small (20
packets) mean flow sizes. Base scenario `experiments/rcp/ch5-fig5-14.toml`.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table, mean_fct
from fctlab_experiments.rcp.long_flows import ab

#: The bandwidth-delay product of the base (0.1 Gb/s x 80 ms), bytes.
F514_BDP = 1_000_000
F514_PAIRS = [(0.1, 1.0), (0.4, 0.2), (0.5, 0.5), (0.9, 0.1)]
F514_BUFFERS = [0.02, 0.2, 2.0]
#: (figure, load, mean size in packets, duration s, warm-up s).
F514_CASES = [("5.14", 0.68, 10_000, 150.0, 10.0), ("5.15", 0.8, 20, 30.0, 3.0)]


def _f514_points() -> list[tuple[str, dict[str, Any]]]:
    pts = []
    for fig, load, mean, dur, warm in F514_CASES:
        for a, b in F514_PAIRS:
            for buf in F514_BUFFERS:
                pts.append(
                    (
                        f"fig{fig.replace('.', '-')}-{ab(a, b)}-buf{buf:g}",
                        {
                            "queues.router.alpha": a,
                            "queues.router.beta": b,
                            "queues.router.limit": int(buf * F514_BDP),
                            "workload.0.load": load,
                            "workload.0.sizes.mean": mean * 960,
                            "duration": dur,
                            "measure_from": warm,
                        },
                    )
                )
    return pts


#: Sec. 5.4, case 2: the best (alpha, beta) for large flows (Fig. 5.14) and for small ones (Fig. 5.15).
BEST = {"5.14": (0.9, 0.1), "5.15": (0.1, 1.0)}


def check_best(ctx: Context, got: dict[str, dict[tuple[float, float, float], tuple[float, float]]]) -> None:
    """Sec. 5.4's best pairs, at every buffer: the mean FCT under the named pair over the lowest
    mean FCT of the pairs run (1 when it is the best; `got` as `_plot_fig5_14_15` takes it). A
    buffer without the named pair's run (quick mode runs a few) is left out."""
    for fig, (a, b) in BEST.items():
        points = got.get(fig, {})
        for buf in F514_BUFFERS:
            if (a, b, buf) not in points:
                continue
            fcts = [v[0] for (_, _, bb), v in points.items() if bb == buf and not math.isnan(v[0])]
            mine = points.get((a, b, buf), (math.nan, math.nan))[0]
            ctx.check(
                f"Fig. {fig}",
                f"mean FCT of ({a}, {b}) / the lowest of the pairs, buffer {buf:.0%} of BDP (the best pair)",
                1.0,
                None if math.isnan(mine) or not fcts else mine / min(fcts),
            )


def analyze_fig5_14_15(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    out = []
    verdicts = []
    plotted: dict[str, dict[tuple[float, float, float], tuple[float, float]]] = {}
    for fig, load, mean, _dur, _warm in F514_CASES:
        plotted[fig] = {}
        rows = []
        best: dict[float, tuple[float, str]] = {}
        for a, b in F514_PAIRS:
            row = [f"({a}, {b})"]
            for buf in F514_BUFFERS:
                n = f"fig{fig.replace('.', '-')}-{ab(a, b)}-buf{buf:g}"
                if n not in runs.names:
                    row.append("-")
                    continue
                sample = runs.sample(n, seed)
                links = runs.links(n, seed).filter(pl.col("name") == "bottleneck")
                drops = int(links["drops_pkts"].item()) if links.height else 0
                sent = int(links["pkts_sent"].item()) if links.height else 0
                loss = drops / (drops + sent) if drops + sent else float("nan")
                fct = mean_fct(sample)[0] if sample.height else float("nan")
                row.append(f"{fmt(fct, '.3f')} s / {loss:.2%} ({sample.height})")
                plotted[fig][(a, b, buf)] = (fct, loss)
                if not math.isnan(fct) and (buf not in best or fct < best[buf][0]):
                    best[buf] = (fct, f"({a}, {b})")
            if any(c != "-" for c in row[1:]):
                rows.append(row)
        out.append(
            f"**Fig. {fig}**: load {load}, mean size {mean:,} packets; mean FCT over flows / loss probability "
            "(flows measured) per buffer (fraction of the bandwidth-delay product).\n\n"
            + md_table(["(alpha, beta)"] + [f"buffer {b:.0%} of BDP" for b in F514_BUFFERS], rows)
        )
        verdicts.append(f"Fig. {fig}: " + ", ".join(f"buffer {b:.0%}: {best[b][1]}" for b in F514_BUFFERS if b in best))
    _plot_fig5_14_15(ctx, plotted)
    check_best(ctx, plotted)
    return (
        "One 0.1 Gb/s link, RTT 80 ms (bandwidth-delay product 1 MB = 1000 packets of 1000 bytes), Poisson "
        "arrivals, Pareto sizes of shape 1.2, RCP everywhere. Fig. 5.14: load 0.68, mean 10,000 packets, 150 s "
        "runs (10 s warm-up: about 120 flows measured); Fig. 5.15: load 0.8, mean 20 packets, 30 s runs (3 s "
        f"warm-up). The thesis sweeps (alpha, beta) and buffers from 2% to 200%; here {len(F514_PAIRS)} pairs - "
        "the two the thesis names as best for large and small flows, (0.9, 0.1) and (0.1, 1), and two inside its "
        f"recommended box - and {len(F514_BUFFERS)} buffers, one seed. Loss probability: packets dropped at the "
        "bottleneck over packets offered to it.\n\n"
        + "\n\n".join(out)
        + "\n\n| thesis | fctlab (lowest mean FCT per buffer) |\n|---|---|\n"
        + f"| large flows (Fig. 5.14): best alpha = 0.9, beta = 0.1 | {verdicts[0]} |\n"
        + f"| small flows (Fig. 5.15): best alpha = 0.1, beta = 1 | {verdicts[1]} |\n"
        + "| compromise: alpha in (0.4, 0.6), beta in (0.2, 0.6) | the (0.4, 0.2) and (0.5, 0.5) rows |\n"
        + "\n![Figs. 5.14 - 5.15: mean FCT (top) and loss probability (bottom) against the buffer, per (alpha, beta)]"
        "(fig5-14-15.png)\n"
    )


def _plot_fig5_14_15(ctx: Context, got: dict[str, dict[tuple[float, float, float], tuple[float, float]]]) -> None:
    with figure(ctx, "fig5-14-15.png", 2, len(got), figsize=(5 * len(got), 6), squeeze=False, dpi=110) as (_, axes):
        for j, (fig_name, points) in enumerate(got.items()):
            for a, b in F514_PAIRS:
                bufs = [buf for buf in F514_BUFFERS if (a, b, buf) in points]
                if not bufs:
                    continue
                fcts = [points[(a, b, x)][0] for x in bufs]
                axes[0][j].plot([x * 100 for x in bufs], fcts, "o-", label=f"({a}, {b})")
                axes[1][j].plot([x * 100 for x in bufs], [points[(a, b, x)][1] * 100 for x in bufs], "o-")
            axes[0][j].set(xscale="log", ylabel="mean FCT (s)", title=f"Fig. {fig_name}")
            axes[1][j].set(xscale="log", xlabel="buffer (% of BDP)", ylabel="loss probability (%)")
            axes[0][j].legend(fontsize=7, title="(alpha, beta)", title_fontsize=7)


def experiment() -> Experiment:
    """Figs. 5.14 - 5.15: mean FCT and loss probability against (alpha, beta) and the buffer."""
    return Experiment(
        name="fig5-14-15",
        title="RCP thesis Figs. 5.14 - 5.15: (alpha, beta) against FCT and losses",
        base="ch5-fig5-14.toml",
        points=_f514_points(),
        seeds=1,
        analyze=analyze_fig5_14_15,
        quick=lambda n, o: {"duration": o["duration"] / 5, "measure_from": o["measure_from"] / 5},
        quick_points=[n for n, _ in _f514_points() if "buf0.2" in n and ("a0.1" in n or "a0.9" in n)],
    )
