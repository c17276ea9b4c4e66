"""The RCP thesis's fixed-rate study (sec. 3.3, Figs. 3.6 - 3.8): every flow sent at one rate R
into a FCFS link. Is there a rate that minimizes the mean flow duration E[tau] (eq. 3.4)?

The flow duration tau is measured as FCT - rtt_prop / 2 (the flows skip the handshake, so this
is the time from the first packet entering the network to the last leaving the bottleneck:
L / R plus the last packet's queueing, propagation left out as in eq. 3.5 and Appendix A).
References per run, from the run's own flows: eq. 3.5 (the FCFS limit R -> infinity, with the
sample's E[L^2] as the thesis's footnote does), FCFS on the same arrivals computed exactly
(Lindley's recursion over the flow starts), and for Pareto sizes the thesis's 'U' curve model
(Appendix A, eqs. A.11 / A.12).
"""

from __future__ import annotations

import polars as pl

from fctlab import models
from fctlab.reproduce.framework import Context, Experiment, Runs, md_table, mean_std, plt, pm

#: Link rate of Figs. 3.6 - 3.8, bit/s.
C = 150e6
MSS = 960
PKT_BITS = 8000.0
#: Rates of the sweep, as fractions of C.
FIG36_RATES = (0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 2.0, 5.0)
FIG37_RATES = (0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 1.0, 2.0, 5.0)
#: Fig. 3.7's sizes: Pareto, shape 1.2, mean 25 packets, cut at CAP packets (Appendix A's model
#: is for a bounded Pareto; unbounded, one draw of 10^5+ packets decides a whole run).
PARETO_SHAPE = 1.2
PARETO_MEAN_PKTS = 25.0
CAP_PKTS = 10_000


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


def fcfs_sojourn(starts: list[float], work: list[float]) -> list[float]:
    """Per job, waiting plus service time in a FCFS queue (Lindley's recursion); `starts` sorted,
    `work` in seconds of service."""
    out, wait = [], 0.0
    for i, (a, x) in enumerate(zip(starts, work, strict=True)):
        if i > 0:
            wait = max(0.0, wait + work[i - 1] - (a - starts[i - 1]))
        out.append(wait + x)
    return out


def run_stats(runs: Runs, name: str, seed: int, pareto: bool) -> dict[str, float]:
    """E[tau], the size moments, load, queue and utilization of one fixed-rate run, and the
    references computed from its own flows."""
    start, end = runs.window(name, seed)
    flows = runs.flows(name, seed).sort("start_s")
    sample = flows.filter(pl.col("measured") & pl.col("fct_s").is_not_null())
    if sample.height < flows.filter(pl.col("measured")).height:
        raise ValueError(f"{name} seed {seed}: measured flows did not all complete")
    bits = sample["size_bytes"].cast(pl.Float64) / MSS * PKT_BITS
    lam = sample.height / (end - start)
    mean, second = float(bits.mean()), float((bits**2).mean())
    soj = fcfs_sojourn(
        flows["start_s"].to_list(), (flows["size_bytes"].cast(pl.Float64) / MSS * PKT_BITS / C).to_list()
    )
    measured = flows["measured"].to_list()
    fcfs = [s for s, m in zip(soj, measured, strict=True) if m]
    w = runs.series(name, seed).filter(pl.col("target") == "bottleneck").pivot("metric", index="time_s", values="value")
    w = w.sort("time_s").filter((pl.col("time_s") >= start) & (pl.col("time_s") <= end))
    dt = float(w["time_s"][1] - w["time_s"][0])
    admitted = float(w["throughput_bps"][1:].sum()) * dt
    carried = admitted - 8.0 * float(w["queue_bytes"][-1] - w["queue_bytes"][0])
    out = {
        "tau": float((sample["fct_s"] - sample["rtt_prop_s"] / 2).mean()),
        "mean": mean,
        "second": second,
        "lam": lam,
        "rho": lam * mean / C,
        "queue_pkts": float(w["queue_bytes"].mean()) / 1000.0,
        "util": carried / (C * float(w["time_s"][-1] - w["time_s"][0])),
        "mg1": models.mg1_fcfs_duration(mean, second, lam, C),
        "fcfs": sum(fcfs) / len(fcfs),
    }
    if pareto:
        small = float((sample["size_bytes"] <= CAP_PKTS * MSS / 20).mean())
        out["small"] = small
        rate = float(name[1:]) * C
        out["model"] = models.fixed_rate_duration(rate, C, lam, mean, second, small)
    return out


def _table(runs: Runs, rates: tuple[float, ...], pareto: bool) -> dict[float, dict[str, list[float]]]:
    """Per rate fraction: each statistic over seeds."""
    out = {}
    for f in rates:
        name = point_name(f)
        per: dict[str, list[float]] = {}
        for seed in runs.seeds_of(name):
            for k, v in run_stats(runs, name, seed, pareto).items():
                per.setdefault(k, []).append(v)
        out[f] = per
    return out


def point_name(fraction: float) -> str:
    """Run name of the point R = fraction x C."""
    return f"r{fraction:g}"


def _ms(values: list[float]) -> str:
    return pm([v * 1e3 for v in values], ".2f")


def analyze_fig36(runs: Runs, ctx: Context) -> str:
    stats = _table(runs, FIG36_RATES, pareto=False)
    rows = []
    for f, s in stats.items():
        rows.append(
            [
                f"{f:g}",
                f"{s['mean'][0] / (f * C) * 1e3:.2f}",
                _ms(s["tau"]),
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
    _plot(ctx, "fig3-6.png", stats, {"eq. 3.5 (M/M/1-FCFS)": mg1_mean}, None, queue=False)
    monotone = all(b <= a * 1.02 for a, b in zip(taus, taus[1:]))
    return (
        "Exponential sizes of mean 50 packets (1000 bytes), Poisson arrivals at 175 flows/s, C = 150 Mb/s "
        f"(load {rho:.3f} as drawn), every flow sent at R. The thesis (sec. 3.3, Fig. 3.6, no numbers): E[tau] "
        "falls monotonically as R grows and converges to the M/M/1-FCFS delay (dotted line) once R >= C. "
        "Mean ± std over seeds; E[L]/R uses the first seed's mean size.\n\n"
        + md_table(["R / C", "E[L] / R (ms)", "fctlab E[tau] (ms)", "mean queue (packets)", "utilization"], rows)
        + f"\n\nReferences from the same runs: eq. 3.5 with the drawn sizes' moments (M/M/1-FCFS) "
        f"{_ms(mg1)} ms; FCFS of whole flows on the same arrivals (exact, Lindley) {_ms(fcfs)} ms.\n\n"
        f"E[tau] {'falls monotonically (within 2%)' if monotone else 'does not fall monotonically'} as R grows, "
        f"and for R >= C it is within {gap:.1f}% of the M/M/1-FCFS value, as the thesis says: with "
        "exponential sizes the highest rate is the best one.\n\n![Fig. 3.6](fig3-6.png)"
    )


def analyze_fig37_38(runs: Runs, ctx: Context) -> str:
    stats = _table(runs, FIG37_RATES, pareto=True)
    rows = []
    for f, s in stats.items():
        rows.append(
            [
                f"{f:g}",
                f"{s['mean'][0] / (f * C) * 1e3:.2f}",
                _ms(s["tau"]),
                _ms(s["model"]),
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
    _plot(
        ctx,
        "fig3-7.png",
        stats,
        {"eq. 3.5 with the sample's L^2": mean_std(mg1)[0], "FCFS of whole flows, same arrivals": mean_std(fcfs)[0]},
        "model",
        queue=False,
    )
    _plot(ctx, "fig3-8.png", stats, {}, None, queue=True)
    queue = {f: mean_std(s["queue_pkts"])[0] for f, s in stats.items()}
    util = {f: mean_std(s["util"])[0] for f, s in stats.items()}
    low = min(FIG37_RATES)
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
        f"(the thesis's asymptote) {_ms(mg1)} ms; FCFS of whole flows on the same arrivals (exact) {_ms(fcfs)} ms.\n\n"
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


def _plot(
    ctx: Context,
    file: str,
    stats: dict[float, dict[str, list[float]]],
    lines: dict[str, float],
    model: str | None,
    queue: bool,
) -> None:
    pyplot = plt()
    fig, ax = pyplot.subplots(figsize=(6.5, 4))
    xs = list(stats)
    ms = [mean_std(stats[f]["tau"]) for f in xs]
    ax.errorbar(xs, [m * 1e3 for m, _ in ms], yerr=[s * 1e3 for _, s in ms], fmt="o-", capsize=3, label="fctlab E[tau]")
    if model:
        ax.plot(xs, [mean_std(stats[f][model])[0] * 1e3 for f in xs], "s--", label="Appendix A model")
    for i, (label, value) in enumerate(lines.items()):
        ax.axhline(value * 1e3, color=f"C{i + 2}", ls=":", label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("normalized flow rate R / C")
    ax.set_ylabel("average flow duration (ms)")
    if queue:
        bx = ax.twinx()
        bx.plot(xs, [mean_std(stats[f]["queue_pkts"])[0] for f in xs], "^-", color="C3", label="mean queue")
        bx.set_yscale("log")
        bx.set_ylabel("average queue (packets)")
        bx.legend(loc="lower right", fontsize=8)
    ax.legend(loc="upper left" if queue else "upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(ctx.out / file, dpi=120)


def experiments() -> list[Experiment]:
    """Figs. 3.6 and 3.7 / 3.8 (one experiment: Fig. 3.8 plots Fig. 3.7's runs)."""
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
    quick = {"duration": "20s"}
    return [
        Experiment(
            name="fig3-6",
            title="RCP thesis Fig. 3.6: flow duration against a fixed rate, exponential sizes",
            base="ch3-fixed-rate.toml",
            seeds=3,
            analyze=analyze_fig36,
            quick=quick,
            points=[(point_name(f), {"transport.fixed_rate": round(f * C)}) for f in FIG36_RATES],
        ),
        Experiment(
            name="fig3-7-8",
            title="RCP thesis Figs. 3.7 and 3.8: flow duration and queue against a fixed rate, Pareto sizes",
            base="ch3-fixed-rate.toml",
            seeds=5,
            analyze=analyze_fig37_38,
            quick=quick,
            points=[(point_name(f), {"transport.fixed_rate": round(f * C), **pareto}) for f in FIG37_RATES],
        ),
    ]
