"""The RCP thesis's fixed-rate study (sec. 3.3), Fig. 3.6: every flow sent at one rate R into a
FCFS link, exponential sizes. E[tau] (eq. 3.4) falls as R grows and converges to the M/M/1-FCFS
delay (eq. 3.5) once R >= C: the highest rate is the best one. The runs and their statistics are
`fixed_rate`'s (base scenario `experiments/rcp/ch3-fixed-rate.toml`).
"""

from __future__ import annotations

from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, mean_std, pm
from fctlab_experiments.rcp.fixed_rate import QUICK, C, fmt_ms, plot_durations, point_name, stats_by_rate

#: Rates of the sweep, as fractions of C.
FIG36_RATES = (0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 2.0, 5.0)


def analyze_fig36(runs: Runs, ctx: Context) -> str:
    stats = stats_by_rate(runs, FIG36_RATES, pareto=False)
    rows = []
    for f, s in stats.items():
        rows.append(
            [
                f"{f:g}",
                f"{s['mean'][0] / (f * C) * 1e3:.2f}",
                fmt_ms(s["tau"]),
                pm(s["queue_pkts"], ".1f"),
                pm(s["util"], ".3f"),
            ]
        )
    mg1 = [v for s in stats.values() for v in s["mg1"]]
    fcfs = [v for s in stats.values() for v in s["fcfs"]]
    taus = [mean_std(s["tau"])[0] for s in stats.values()]
    at_c = [mean_std(stats[f]["tau"])[0] for f in FIG36_RATES if f >= 1.0]
    mg1_mean = mean_std(mg1)[0]
    gap = max(abs(t - mg1_mean) / mg1_mean for t in at_c) * 100.0
    for f in FIG36_RATES:
        if f >= 1.0:
            # The thesis's limit: eq. 3.5, the M/M/1-FCFS delay, with the drawn sizes' moments.
            tau = mean_std(stats[f]["tau"])[0]
            ctx.check("Fig. 3.6", f"E[tau] at R = {f:g} C, ms (eq. 3.5's M/M/1 delay)", mg1_mean * 1e3, tau * 1e3)
    rho = mean_std([v for s in stats.values() for v in s["rho"]])[0]
    plot_durations(ctx, "fig3-6.png", stats, {"eq. 3.5 (M/M/1-FCFS)": mg1_mean}, None, queue=False)
    monotone = all(b <= a * 1.02 for a, b in zip(taus, taus[1:]))
    return (
        "Exponential sizes of mean 50 packets (1000 bytes), Poisson arrivals at 175 flows/s, C = 150 Mb/s "
        f"(load {rho:.3f} as drawn), every flow sent at R. The thesis (sec. 3.3, Fig. 3.6, no numbers): E[tau] "
        "falls monotonically as R grows and converges to the M/M/1-FCFS delay (dotted line) once R >= C. "
        "Mean ± std over seeds; E[L]/R uses the first seed's mean size.\n\n"
        + md_table(["R / C", "E[L] / R (ms)", "fctlab E[tau] (ms)", "mean queue (packets)", "utilization"], rows)
        + f"\n\nReferences from the same runs: eq. 3.5 with the drawn sizes' moments (M/M/1-FCFS) "
        f"{fmt_ms(mg1)} ms; FCFS of whole flows on the same arrivals (exact, Lindley) {fmt_ms(fcfs)} ms.\n\n"
        f"E[tau] {'falls monotonically (within 2%)' if monotone else 'does not fall monotonically'} as R grows, "
        f"and for R >= C it is within {gap:.1f}% of the M/M/1-FCFS value, as the thesis says: with "
        "exponential sizes the highest rate is the best one.\n\n![Fig. 3.6](fig3-6.png)"
    )


def experiment() -> Experiment:
    """Fig. 3.6: exponential sizes, R from 0.1 C to 5 C."""
    return Experiment(
        name="fig3-6",
        title="RCP thesis Fig. 3.6: flow duration against a fixed rate, exponential sizes",
        base="ch3-fixed-rate.toml",
        seeds=3,
        analyze=analyze_fig36,
        quick=QUICK,
        points=[(point_name(f), {"transport.fixed_rate": round(f * C)}) for f in FIG36_RATES],
    )
