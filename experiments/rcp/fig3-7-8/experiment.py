"""The RCP thesis's fixed-rate study (sec. 3.3), Figs. 3.7 and 3.8 (one experiment: Fig. 3.8 plots
Fig. 3.7's runs): every flow sent at one rate R into a FCFS link, Pareto sizes. E[tau] against R
is a 'U' with a minimum between R -> 0 and the M/Pareto/1-FCFS limit, and the queue grows with R;
Appendix A's model (eqs. A.11 / A.12) beside it. The runs and their statistics are `fixed_rate`'s
(base scenario `experiments/rcp/ch3-fixed-rate.toml`).
"""

from __future__ import annotations

from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, mean_std, pm
from fctlab_experiments.rcp.analysis import MSS
from fctlab_experiments.rcp.fixed_rate import CAP_PKTS, QUICK, C, fmt_ms, plot_durations, point_name, stats_by_rate

#: Rates of the sweep, as fractions of C.
FIG37_RATES = (0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 1.0, 2.0, 5.0)
#: Fig. 3.7's sizes: Pareto, shape 1.2, mean 25 packets, cut at `CAP_PKTS` packets.
PARETO_SHAPE = 1.2
PARETO_MEAN_PKTS = 25.0


def capped_pareto_mean(scale_pkts: float, shape: float, cap_pkts: int) -> float:
    """E[min(ceil(X), cap)] in packets for X Pareto with `scale_pkts` and `shape` (the core's
    draw: scale / U^(1 / shape), rounded up to whole packets, then cut at the cap)."""
    # E[N] = sum over j >= 1 of P(N >= j), and P(ceil(X) >= j) = P(X > j - 1).
    total = 0.0
    for j in range(1, cap_pkts + 1):
        x = j - 1
        total += 1.0 if x < scale_pkts else (scale_pkts / x) ** shape
    return total


def pareto_mean_param(mean_pkts: float, shape: float, cap_pkts: int) -> int:
    """The core's Pareto `mean` parameter (bytes) whose rounded, capped draws have a mean of
    `mean_pkts` packets: the cut removes part of the mean, so the scale is raised to keep it."""
    lo, hi = 1e-6, mean_pkts
    for _ in range(100):
        mid = (lo + hi) / 2.0
        if capped_pareto_mean(mid, shape, cap_pkts) < mean_pkts:
            lo = mid
        else:
            hi = mid
    return round((lo + hi) / 2.0 * shape / (shape - 1.0) * MSS)


#: The 'U' curve's minimum "in between" R -> 0 and R >> C (sec. 3.3), read as: the sweep's lowest
#: mean E[tau] is at one of its inner rates, not at either end.
INNER_RATES = (FIG37_RATES[1], FIG37_RATES[-2])


def check_fig37_38(
    ctx: Context, best: float, util_best: float, load: float, tau_top: float, mg1: float, top: float
) -> None:
    """Sec. 3.3's statements: a 'U' with its minimum between the ends (the rate of the lowest mean
    E[tau], R / C); the utilization equal to the offered load at that rate; E[tau] -> eq. 3.5 with
    the sample's L^2 as R >> C (footnote 1; E[tau] at the top rate and eq. 3.5 in seconds)."""
    ctx.check("Fig. 3.7", "R / C of the lowest mean E[tau] (a minimum inside the sweep)", INNER_RATES, best)
    ctx.check("Fig. 3.8", "utilization / offered load at the rate of the lowest E[tau]", 1.0, util_best / load)
    ctx.check(
        "Fig. 3.7",
        f"E[tau] at R = {top:g} C, ms (eq. 3.5 with the sample's L^2, the R >> C limit)",
        mg1 * 1e3,
        tau_top * 1e3,
    )


def analyze_fig37_38(runs: Runs, ctx: Context) -> str:
    stats = stats_by_rate(runs, FIG37_RATES, pareto=True)
    rows = []
    for f, s in stats.items():
        rows.append(
            [
                f"{f:g}",
                f"{s['mean'][0] / (f * C) * 1e3:.2f}",
                fmt_ms(s["tau"]),
                fmt_ms(s["model"]),
                pm(s["queue_pkts"], ".1f"),
                pm(s["util"], ".3f"),
            ]
        )
    mg1 = [v for s in stats.values() for v in s["mg1"]]
    fcfs = [v for s in stats.values() for v in s["fcfs"]]
    rho = [v for s in stats.values() for v in s["rho"]]
    seeds = len(next(iter(stats.values()))["tau"])
    best_per_seed = [min(FIG37_RATES, key=lambda f: stats[f]["tau"][i]) for i in range(seeds)]
    means = {f: mean_std(s["tau"])[0] for f, s in stats.items()}
    best = min(means, key=means.__getitem__)
    model_best = min(FIG37_RATES, key=lambda f: mean_std(stats[f]["model"])[0])
    top = max(FIG37_RATES)
    ratio_low = means[min(FIG37_RATES)] / means[best]
    ratio_high = means[top] / means[best]
    plot_durations(
        ctx,
        "fig3-7.png",
        stats,
        {"eq. 3.5 with the sample's L^2": mean_std(mg1)[0], "FCFS of whole flows, same arrivals": mean_std(fcfs)[0]},
        "model",
        queue=False,
    )
    plot_durations(ctx, "fig3-8.png", stats, {}, None, queue=True)
    queue = {f: mean_std(s["queue_pkts"])[0] for f, s in stats.items()}
    util = {f: mean_std(s["util"])[0] for f, s in stats.items()}
    low = min(FIG37_RATES)
    check_fig37_38(ctx, best, util[best], mean_std(rho)[0], means[top], mean_std(mg1)[0], top)
    return (
        f"Pareto sizes (shape {PARETO_SHAPE}, mean {PARETO_MEAN_PKTS:g} packets of 1000 bytes), Poisson arrivals at "
        "600 flows/s, C = 150 Mb/s, every flow sent at R (the thesis: load 0.8, RTT 0.2 s; Fig. 3.8 is the same "
        f"experiment). Sizes are cut at {CAP_PKTS} packets (10 MB), as in Appendix A's bounded-Pareto model, with "
        "the scale raised so that the mean stays 25 packets: unbounded, a single draw of 10^5 packets or more "
        "sets a whole run's FCFS delay. The thesis (sec. 3.3, no numbers): a 'U' curve, E[tau] -> infinity as "
        "R -> 0 and -> the M/Pareto/1-FCFS delay as R >> C, with a minimum in between where the average queue "
        "is small and the utilization equals the load; the queue grows with R. Mean ± std over seeds.\n\n"
        + md_table(
            [
                "R / C",
                "E[L] / R (ms)",
                "fctlab E[tau] (ms)",
                "Appendix A model (ms)",
                "mean queue (packets)",
                "utilization",
            ],
            rows,
        )
        + f"\n\nLoad as drawn: {pm(rho, '.3f')}. References from the same runs: eq. 3.5 with the sample's L^2 "
        f"(the thesis's asymptote) {fmt_ms(mg1)} ms; FCFS of whole flows on the same arrivals "
        f"(exact) {fmt_ms(fcfs)} ms.\n\n"
        f"The 'U' is there: the mean E[tau] is lowest at R = {best:g} C ({means[best] * 1e3:.1f} ms; the best rate "
        f"per seed: {', '.join(f'{b:g} C' for b in best_per_seed)}), {ratio_low:.1f} times higher at "
        f"R = {min(FIG37_RATES):g} C and {ratio_high:.1f} times higher at R = {top:g} C, where it is within "
        f"{abs(means[top] / mean_std(fcfs)[0] - 1) * 100:.0f}% of FCFS of whole flows on the same arrivals (the "
        "R -> infinity limit of these runs). Eq. 3.5 with the sample's L^2 is higher: it is the steady state, "
        "which runs of two minutes with sizes this heavy-tailed do not reach (a large flow delays only the "
        "arrivals of the rest of its run). "
        f"The mean queue grows with R: {queue[low]:.0f} packets at {low:g} C, {queue[best]:.0f} at the best "
        f"rate, {queue[top]:.0f} at {top:g} C. The utilization over the run is {util[low]:.3f} at {low:g} C, "
        f"{util[best]:.3f} at the best rate and {util[top]:.3f} at {top:g} C, against a load of {mean_std(rho)[0]:.3f} "
        "(below the load means work still in progress at the end of the measurement: the flows are stretched). "
        f"Appendix A's model puts its minimum at R = {model_best:g} C; it is an approximation (its P(blocking) "
        "steps with the integer part of K (1 - rho_s) - 1), and its values are compared here only by shape.\n\n"
        "![Fig. 3.7](fig3-7.png)\n\n![Fig. 3.8](fig3-8.png)"
    )


def experiment() -> Experiment:
    """Figs. 3.7 and 3.8: Pareto sizes, R from 0.02 C to 5 C."""
    pareto = {
        "workload.0.rate": 600,
        "workload.0.sizes": {
            "kind": "pareto",
            "shape": PARETO_SHAPE,
            "round_to": MSS,
            "max": CAP_PKTS * MSS,
            "mean": pareto_mean_param(PARETO_MEAN_PKTS, PARETO_SHAPE, CAP_PKTS),
        },
    }
    return Experiment(
        name="fig3-7-8",
        title="RCP thesis Figs. 3.7 and 3.8: flow duration and queue against a fixed rate, Pareto sizes",
        base="ch3-fixed-rate.toml",
        seeds=5,
        analyze=analyze_fig37_38,
        quick=QUICK,
        points=[(point_name(f), {"transport.fixed_rate": round(f * C), **pareto}) for f in FIG37_RATES],
    )
