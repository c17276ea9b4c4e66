"""The RCP thesis, Fig. 4.3: how single flows progress under TCP, XCP and RCP.

The thesis explains its FCT gaps (Fig. 4.1) with the sequence numbers of two flows of that
setup over time: a 230-packet flow (TCP follows the slow-start curve, RCP jump-starts near PS)
and a 3,600-packet flow (TCP, after a loss, creeps in AIMD; XCP hands new flows bandwidth over
many round trips). Here the flows are written into Fig. 4.1's Poisson workload (setup 1: 2.4
Gb/s, RTPD 100 ms, load 0.9, Pareto mean 25 packets) as a second workload entry, three of each
size starting a second apart after the warm-up, and `output.series.workloads` samples their
acknowledged bytes (`acked_bytes`) every 10 ms. One run per protocol.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab import reference
from fctlab.reproduce.framework import Context, Experiment, Runs, figure, fmt, md_table
from fctlab_experiments.rcp import analysis as ra
from fctlab_experiments.rcp import reports as rr
from fctlab_experiments.rcp.dumbbell import SETUP1, bdp, dumbbell, pareto, protocol

#: The traced sizes, packets (the thesis's top and bottom plots).
SIZES = (230, 3600)
#: Start times of the traced flows after the warm-up, s (one flow of each size at each).
OFFSETS = (1.0, 2.0, 3.0)
#: Full mode: warm-up and end of the run (arrivals continue while the traced flows run).
WARMUP, END = 5.0, 20.0
#: Quick mode.
QUICK_WARMUP, QUICK_END = 1.0, 8.0
INTERVAL = 0.01

STATEMENTS = {
    230: (
        "TCP's delay follows the slow-start curve, [log2(L + 1) + 1/2] RTPD + L / C; RCP jump-starts "
        "the flow close to its PS delay (sec. 4.2.1, Fig. 4.3 top)"
    ),
    3600: (
        "a TCP flow that lost a packet enters AIMD and is slow to catch up with spare capacity; RCP "
        "catches up at once; XCP gives new flows a small rate and takes multiple RTTs to reach the fair "
        "share (Fig. 4.3 bottom)"
    ),
}


def _traced(warmup: float) -> list[dict[str, Any]]:
    return [
        {"src": f"l{i}", "dst": f"r{i}", "start": warmup + off, "size": size * ra.MSS}
        for i, (size, off) in enumerate((s, o) for s in SIZES for o in OFFSETS)
    ]


def _workload(warmup: float) -> list[dict[str, Any]]:
    poisson = {"kind": "poisson", "load": SETUP1.load, "load_on": "bottleneck", "sizes": pareto(25)}
    return [poisson, {"kind": "flows", "flows": _traced(warmup)}]


def _overrides(warmup: float, end: float) -> dict[str, Any]:
    base = dumbbell(SETUP1, pareto(25), end, warmup)
    return {
        **base,
        "workload": _workload(warmup),
        "drain": False,
        "max_time": end,
        "output": {"series": {"interval": INTERVAL, "workloads": [1]}},
    }


def traces(runs: Runs, name: str, seed: int) -> dict[int, pl.DataFrame]:
    """Flow id -> (time since the flow's start (s), packets acknowledged) of each traced flow."""
    flows = runs.flows(name, seed).filter(pl.col("workload") == "w1")
    s = runs.series(name, seed).filter(pl.col("metric") == "acked_bytes")
    out = {}
    for fid, start in zip(flows["id"].to_list(), flows["start_s"].to_list(), strict=True):
        t = s.filter(pl.col("target") == f"flow{fid}").sort("time_s")
        out[fid] = t.select(t_s=pl.col("time_s") - start, packets=pl.col("value") / ra.MSS)
    return out


def flow_rows(runs: Runs, name: str, seed: int) -> pl.DataFrame:
    """The traced flows of one run: size, FCT, retransmissions, and the thesis's curves."""
    flows = runs.flows(name, seed).filter(pl.col("workload") == "w1")
    curves = reference.reference_curves(flows, SETUP1.capacity, SETUP1.load, iw=2)
    return (
        flows.join(curves.drop("size_bytes"), on="id", how="left")
        .with_columns(packets=(pl.col("size_bytes") / ra.MSS).round(0).cast(pl.Int64))
        .sort("packets", "start_s")
    )


def _mean_ratio(t: pl.DataFrame, size: int, of: str) -> float | None:
    """Mean FCT over the mean of column `of` (a reference curve) of the traced flows of `size`
    packets that completed; None without one."""
    g = t.filter((pl.col("packets") == size) & pl.col("fct_s").is_not_null())
    return float(g["fct_s"].mean()) / float(g[of].mean()) if g.height else None


def check_fig43(ctx: Context, tables: dict[str, pl.DataFrame]) -> None:
    """Sec. 4.2.1 on the 230-packet flows of Fig. 4.3 (top), from each protocol's `flow_rows`:
    RCP's delay close to PS (`reports.CLOSE_TO_PS`, against eq. 4.1), TCP's on its slow-start
    curve; and sec. 4.2.2's "new flows in XCP start slower than with Slow-Start in TCP" (XCP's
    FCT at least TCP's slow-start curve). The 3,600-packet flows' statements (AIMD after a loss,
    "quick to catch up") give no number."""
    size = SIZES[0]
    ctx.check(
        "Fig. 4.3",
        f"RCP FCT / PS (eq. 4.1), {size}-packet flows",
        rr.CLOSE_TO_PS,
        _mean_ratio(tables["RCP"], size, "ps_curve_s"),
    )
    ctx.check(
        "Fig. 4.3",
        f"TCP FCT / slow-start curve, {size}-packet flows",
        1.0,
        _mean_ratio(tables["TCP"], size, "slow_start_s"),
    )
    ctx.check(
        "sec. 4.2.2",
        f"XCP FCT / TCP's slow-start curve, {size}-packet flows (XCP starts slower)",
        (1.0, None),
        _mean_ratio(tables["XCP"], size, "slow_start_s"),
    )


def analyze(runs: Runs, ctx: Context) -> str:
    seed = runs.seeds[0]
    check_fig43(ctx, {p: flow_rows(runs, p.lower(), seed) for p in rr.PROTOCOLS})
    rows = []
    summary: dict[tuple[str, int], list[float]] = {}
    for p in rr.PROTOCOLS:
        t = flow_rows(runs, p.lower(), seed)
        for r in t.iter_rows(named=True):
            fct = r["fct_s"]
            rows.append(
                [
                    p,
                    r["packets"],
                    f"{r['start_s']:.1f}",
                    "-" if fct is None else f"{fct:.3f}",
                    "-" if fct is None else f"{fct / SETUP1.rtpd:.1f}",
                    f"{r['slow_start_s']:.3f}",
                    f"{r['ps_curve_s']:.3f}",
                    "-" if fct is None else f"{fct / r['ps_curve_s']:.2f}",
                    r["retx_bytes"] // ra.MSS,
                ]
            )
            if fct is not None:
                summary.setdefault((p, r["packets"]), []).append(fct / r["ps_curve_s"])
    _plot(runs, ctx, seed)

    def ratio(p: str, size: int) -> str:
        v = summary.get((p, size), [])
        return f"{min(v):.2f}-{max(v):.2f}" if v else "no completed flow"

    tcp = flow_rows(runs, "tcp", seed)
    lossy = tcp.filter(pl.col("retx_bytes") > 0).height
    excess = ((tcp["fct_s"] - tcp["slow_start_s"]) / SETUP1.rtpd).max()
    loss_note = (
        f"{lossy} of the {tcp.height} traced TCP flows retransmitted a packet"
        if lossy
        else f"none of the {tcp.height} traced TCP flows lost a packet in this run, so the thesis's AIMD case "
        "is not among them: their FCTs exceed the slow-start curve by at most "
        f"{fmt(excess, '.2f')} RTPD"
    )
    claims = [
        [
            STATEMENTS[230],
            f"FCT / PS curve for the 230-packet flows: RCP {ratio('RCP', 230)}, TCP {ratio('TCP', 230)}, "
            f"XCP {ratio('XCP', 230)}; TCP's slow-start curve for 230 packets is "
            f"{_slow_start(runs, seed, 230):.3f} s",
        ],
        [
            STATEMENTS[3600],
            f"FCT / PS curve for the 3,600-packet flows: RCP {ratio('RCP', 3600)}, TCP {ratio('TCP', 3600)}, "
            f"XCP {ratio('XCP', 3600)}; {loss_note}",
        ],
    ]
    return (
        "Setup 1 of Fig. 4.1 (2.4 Gb/s, RTPD 100 ms, load 0.9, Pareto mean 25 packets, shape 1.2, "
        "1000-byte packets, buffer C x RTPD) with six flows written into the Poisson workload: "
        f"{SIZES[0]} and {SIZES[1]} packets, one of each starting {', '.join(f'{o:.0f}' for o in OFFSETS)} s "
        "after the warm-up. Each is traced by `output.series.workloads` (bytes acknowledged every "
        f"{INTERVAL * 1e3:.0f} ms). The thesis plots one flow of each size; which of its flows met a loss "
        "is chance, and so it is here.\n\n"
        + md_table(["thesis (sec. 4.2.1)", "fctlab"], claims)
        + "\n\n"
        + md_table(
            [
                "protocol",
                "packets",
                "start (s)",
                "FCT (s)",
                "FCT (RTPDs)",
                "slow start, IW 2 (s)",
                "PS eq. 4.1 (s)",
                "FCT / PS",
                "retransmitted packets",
            ],
            rows,
        )
        + "\n\n![Fig. 4.3: packets acknowledged against time since the flow's start, 230-packet flows "
        "(left) and 3,600-packet flows (right)](fig4-3.png)\n"
    )


def _slow_start(runs: Runs, seed: int, size: int) -> float:
    t = flow_rows(runs, "tcp", seed).filter(pl.col("packets") == size)
    return float(t["slow_start_s"][0]) if t.height else float("nan")


def _plot(runs: Runs, ctx: Context, seed: int) -> None:
    with figure(ctx, "fig4-3.png", 1, 2, figsize=(11, 4), dpi=110) as (_fig, axes):
        _draw(runs, axes, seed)


def _draw(runs: Runs, axes, seed: int) -> None:
    """Packets acknowledged against time since the start, each protocol's traced flows of each size."""
    for p in rr.PROTOCOLS:
        rows = flow_rows(runs, p.lower(), seed)
        tr = traces(runs, p.lower(), seed)
        for ax, size in zip(axes, SIZES, strict=True):
            ids = rows.filter(pl.col("packets") == size)["id"].to_list()
            for k, fid in enumerate(ids):
                t = tr.get(fid)
                if t is None or t.height == 0:
                    continue
                ax.plot(
                    t["t_s"].to_list(),
                    t["packets"].to_list(),
                    rr.STYLE[p][1:],
                    color=f"C{rr.PROTOCOLS.index(p)}",
                    alpha=1.0 if k == 0 else 0.45,
                    label=p if k == 0 else None,
                )
    for ax, size in zip(axes, SIZES, strict=True):
        ax.set(xlabel="time since the flow started (s)", ylabel="packets acknowledged", title=f"{size} packets")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)


def experiment() -> Experiment:
    """Fig. 4.3: the progress of 230- and 3,600-packet flows under each protocol."""
    base = _overrides(WARMUP, END)
    points = [(p.lower(), {**base, **protocol(p.lower(), bdp(SETUP1), SETUP1.rtpd)}) for p in rr.PROTOCOLS]
    return Experiment(
        name="fig4-3",
        title="RCP thesis Fig. 4.3: sequence numbers of a 230- and a 3,600-packet flow (setup 1)",
        base="ch4-setup1.toml",
        points=points,
        seeds=1,
        analyze=analyze,
        quick=lambda n, o: (
            {k: v for k, v in _overrides(QUICK_WARMUP, QUICK_END).items() if k in ("workload", "duration", "max_time")}
            | {"measure_from": QUICK_WARMUP}
        ),
    )
