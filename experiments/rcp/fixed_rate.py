"""The RCP thesis's fixed-rate study (sec. 3.3, Figs. 3.6 - 3.8): every flow sent at one rate R into
a FCFS link (`ch3-fixed-rate.toml`). What the two experiments (`fig3-6`, exponential sizes;
`fig3-7-8`, Pareto sizes) share: the link, the runs' names and quick mode, the statistics of a
run and the plot of E[tau] against R.

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

from fctlab.reproduce.framework import Context, Runs, figure, mean_std, pm
from fctlab_experiments.rcp import models
from fctlab_experiments.rcp.analysis import MSS

#: Link rate of Figs. 3.6 - 3.8, bit/s.
C = 150e6
PKT_BITS = 8000.0
#: Fig. 3.7's sizes are cut at this many packets (Appendix A's model is for a bounded Pareto;
#: unbounded, one draw of 10^5+ packets decides a whole run).
CAP_PKTS = 10_000
#: Quick mode: shorter runs.
QUICK = {"duration": "20s"}


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
    # throughput_bps counts the bits a sampling interval put on the wire: their sum is what the
    # link carried (no correction for the queue's growth, which only admitted bits would need).
    carried = float(w["throughput_bps"][1:].sum()) * dt
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


def stats_by_rate(runs: Runs, rates: tuple[float, ...], pareto: bool) -> dict[float, dict[str, list[float]]]:
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


def fmt_ms(values: list[float]) -> str:
    """Durations (s) in ms, mean ± std."""
    return pm([v * 1e3 for v in values], ".2f")


def plot_durations(
    ctx: Context,
    file: str,
    stats: dict[float, dict[str, list[float]]],
    lines: dict[str, float],
    model: str | None,
    queue: bool,
) -> None:
    """E[tau] against R / C with `lines` (references, s) and `model`'s values; the mean queue on a
    second axis if `queue`."""
    with figure(ctx, file, figsize=(6.5, 4), dpi=120) as (fig, ax):
        xs = list(stats)
        ms = [mean_std(stats[f]["tau"]) for f in xs]
        ax.errorbar(
            xs, [m * 1e3 for m, _ in ms], yerr=[s * 1e3 for _, s in ms], fmt="o-", capsize=3, label="fctlab E[tau]"
        )
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
