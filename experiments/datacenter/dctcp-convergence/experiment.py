"""DCTCP (Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010), sec. 4.2: convergence and
fairness of five long-lived flows that join one per phase and then leave in the order they came,
against NewReno over a drop-tail buffer. Base scenario `experiments/datacenter/dctcp-long-flows.toml`.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce.framework import Context, Experiment, Runs, figure, md_table
from fctlab_experiments.datacenter.dumbbell import RTT

#: The convergence test: five flows join one per phase, then leave in the order they came.
PHASE = 0.3
FLOWS = 5


def convergence_flows() -> list[dict[str, Any]]:
    """Flow i starts at i x PHASE and stops at (FLOWS + i) x PHASE."""
    return [{"src": "l0", "dst": "r0", "start": i * PHASE, "stop": (FLOWS + i) * PHASE} for i in range(FLOWS)]


def convergence_point(dctcp: bool) -> dict[str, Any]:
    end = 2 * FLOWS * PHASE
    base = {
        "topology.bottleneck_rate": 1e9,
        "workload.0.flows": convergence_flows(),
        "duration": end,
        "max_time": end,
        "output.series.interval": 1e-3,
        "output.series.flows": list(range(FLOWS)),
    }
    if dctcp:
        return {**base, "queues.router.k_packets": 20}
    return {
        **base,
        "queues.router": {"kind": "droptail", "limit_packets": 100},
        "transport.cc": "newreno",
    }


def _phase_rates(runs: Runs, name: str, seed: int) -> list[tuple[int, float, float]]:
    """(active flows, Jain's index, total Gb/s) over the second half of each phase."""
    wide = runs.wide_series(name, seed)
    end = runs.window(name, seed)[1]
    out = []
    for ph in range(2 * FLOWS - 1):
        t0, t1 = (ph + 0.5) * PHASE, (ph + 1) * PHASE
        if t1 > end:
            break
        active = [i for i in range(FLOWS) if i * PHASE <= t0 and t1 <= (FLOWS + i) * PHASE]
        rates = []
        for i in active:
            col = f"flow{i}_acked_bytes"
            w = wide.filter((pl.col("time_s") >= t0) & (pl.col("time_s") <= t1)).drop_nulls(col)
            rates.append((float(w[col][-1]) - float(w[col][0])) * 8 / (float(w["time_s"][-1]) - float(w["time_s"][0])))
        jain = sum(rates) ** 2 / (len(rates) * sum(r * r for r in rates)) if rates else float("nan")
        out.append((len(active), jain, sum(rates) / 1e9))
    return out


def analyze_convergence(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    got = {n: _phase_rates(runs, n, seed) for n in ("dctcp", "newreno")}
    rows = []
    for ph, ((n, jd, gd), (_, jt, gt)) in enumerate(zip(got["dctcp"], got["newreno"])):
        rows.append([ph + 1, n, f"{jd:.3f}", f"{gd:.3f}", f"{jt:.3f}", f"{gt:.3f}"])
        # The paper: every flow gets its fair share, a Jain's index of 1.
        ctx.check("sec. 4.2", f"DCTCP's Jain's index, phase {ph + 1} ({n} flows)", 1.0, jd)
    worst = min((j for _, j, _ in got["dctcp"]), default=float("nan"))
    timeouts = {n: int(runs.flows(n, seed)["timeouts"].sum()) for n in got}
    _plot_convergence(runs, ctx, seed)
    return (
        f"Five long-lived flows on a 1 Gb/s bottleneck (RTT {RTT * 1e6:.0f} us) join one every {PHASE:g} s and then "
        "leave in the order they came (the paper's sec. 4.2 test, with 30 s phases on its testbed). DCTCP marks at "
        "K = 20 packets; NewReno runs over a 100-packet drop-tail buffer. Jain's index and the total throughput over "
        "the second half of each phase, from the flows' acknowledged bytes.\n\n"
        + md_table(
            ["phase", "flows", "DCTCP Jain", "DCTCP Gb/s", "NewReno Jain", "NewReno Gb/s"],
            rows,
        )
        + "\n\n| paper (sec. 4.2) | fctlab |\n|---|---|\n"
        + "| DCTCP converges quickly to the fair share, as TCP does, and all flows get their share | "
        + f"Jain's index >= {worst:.3f} in every phase |\n"
        + (
            "\nWith "
            + " and ".join(sorted({f"{n}" for n, j, _ in got["dctcp"] if j < 0.95}))
            + " flows DCTCP's index is below 0.95: the flows settle into unequal shares that a deterministic run "
            "with equal round trips does not even out (`dctcp-queue` shows the same at 1 Gb/s, N = 2, K = 20, its "
            "flows' shares column).\n"
            if worst < 0.95
            else ""
        )
        + f"\nTimeouts: DCTCP {timeouts['dctcp']}, NewReno {timeouts['newreno']}. A NewReno flow whose first packets "
        "meet a full drop-tail buffer waits out RFC 6298's initial RTO of 1 s (no RTT sample yet), and one that times "
        "out later waits at least the 200 ms minimum RTO, two thirds of a phase at this RTT of 100 us: it sits at zero "
        "meanwhile, and NewReno's index falls to (N - 1) / N in those phases (see the plot). DCTCP's marks keep the "
        "queue near K, far below the buffer, so its SYNs and first windows are not dropped.\n"
        + "\n![throughput of each flow over the phases](convergence.png)\n"
    )


def _plot_convergence(runs: Runs, ctx: Context, seed: int) -> None:
    with figure(ctx, "convergence.png", 1, 2, figsize=(10, 3.2), sharey=True) as (fig, axes):
        for ax, name in zip(axes, ("dctcp", "newreno")):
            wide = runs.wide_series(name, seed)
            t = wide["time_s"].to_numpy()
            for i in range(FLOWS):
                col = f"flow{i}_acked_bytes"
                if col not in wide.columns:
                    continue
                acked = wide[col].fill_null(strategy="forward").fill_null(0).to_numpy()
                k = 20
                ax.plot(t[k::k], (acked[k::k] - acked[:-k:k]) * 8 / (t[k::k] - t[:-k:k]) / 1e6)
            ax.set(title=name, xlabel="s")
        axes[0].set_ylabel("Mb/s (20 ms averages)")


def experiment() -> Experiment:
    return Experiment(
        name="dctcp-convergence",
        title="DCTCP sec. 4.2: convergence and fairness of five flows joining and leaving",
        base="dctcp-long-flows.toml",
        points=[("dctcp", convergence_point(True)), ("newreno", convergence_point(False))],
        seeds=1,
        analyze=analyze_convergence,
    )
