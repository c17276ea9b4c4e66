"""The RCP thesis, sec. 6.3: sizing router buffers for RCP (Figs. 6.18 - 6.24). What the sweeps of
Figs. 6.19 - 6.24 share: their runs (`Point`: capacity, mean size, load, buffer) on
`ch6-buffers.toml`, and what one run measured (`measure`). Their tables and plots are
`buffer_reports`.

The thesis (004:3337-3560) asks how much buffer RCP needs. With N long-lived flows (Fig. 6.18)
any buffer does: R settles at C/N, the link is fully used and the queue is near zero. With
flows arriving (Poisson) and leaving (Pareto sizes, shape 1.2), buffers must scale with C, but
5-10% of the bandwidth-delay product suffices: the mean FCT rises by at most 50% at a 2% buffer
(Fig. 6.19), the loss probability first rises, then falls, as the mean size grows (Fig. 6.20),
it stays constant over link rates when buffers scale with C (Figs. 6.21 - 6.22), and it grows
with the load for small flows like an M/M/1/B queue (Fig. 6.24) while for large flows it rises,
then falls (Fig. 6.23). The reference is eq. 6.1, processor sharing plus two round trips of
setup: `fctlab.reference.ps_afct_with_setup`.

Setup (`experiments/rcp/ch6-buffers.toml`, `ch6-fig6-18.toml`): one RCP bottleneck, round trip
80 ms, 1000-byte packets (948 payload + 52 header bytes), (alpha, beta) = (0.4, 0.5), buffers as
a fraction of C x RTT in packets. The offered load counts wire bits of the data packets, as the
thesis's rho = lambda E[L] / C does with its 1000-byte packets (the workload's payload load is
rho x 948 / 1000); SYNs and ACKs come on top. E[L] is Pareto's mean parameter, in packets.

Loss probability is the bottleneck's drops over arrivals over the whole run
(`fctlab.analysis.loss_probability`), SYNs and probes included.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from fctlab.analysis import loss_probability
from fctlab.reference import ps_afct_with_setup
from fctlab.reproduce.framework import Experiment, Runs

#: Round trip (s), packet and payload bytes of the base scenarios.
RTT, PACKET, MSS = 0.08, 1000, 948
#: Pareto shape of the sizes (sec. 6.3.1).
SHAPE = 1.2
#: Buffers (fractions of C x RTT) of the capacity and load sweeps (Figs. 6.21 - 6.24), coarser
#: than Figs. 6.19 - 6.20's.
FEW_BUFFERS = (0.02, 0.05, 0.10, 2.00)
#: Warm-up (s): flows starting earlier are not measured (the router starts at R = 0.5 C).
WARMUP = 10.0
#: Quick mode: this fraction of each run's arrival window, and a shorter warm-up.
QUICK_SCALE, QUICK_WARMUP = 0.1, 2.0


@dataclass(frozen=True)
class Point:
    """One run of a sweep: capacity (bit/s), mean size (packets), load, buffer (fraction of the
    BDP), fixed sizes or Pareto, and the arrival window (s)."""

    capacity: float
    mean_pkts: float
    load: float
    buffer: float
    duration: float
    fixed: bool = False
    #: RCP hosts' RTO floor and SYN timeout (s); None: fctlab's defaults (200 ms, 500 ms).
    min_rto: float | None = None

    @property
    def name(self) -> str:
        sizes = "fixed" if self.fixed else "L"
        rto = "" if self.min_rto is None else f"-rto{self.min_rto * 1e3:g}"
        return f"c{self.capacity / 1e6:g}M-{sizes}{self.mean_pkts:g}-rho{self.load:g}-b{self.buffer * 100:g}{rto}"

    @property
    def bdp_pkts(self) -> float:
        return self.capacity * RTT / (8 * PACKET)

    @property
    def buffer_pkts(self) -> int:
        return max(1, round(self.buffer * self.bdp_pkts))

    def overrides(self) -> dict[str, Any]:
        sizes: dict[str, Any] = (
            {"kind": "fixed", "size": round(self.mean_pkts * MSS)}
            if self.fixed
            else {"kind": "pareto", "shape": SHAPE, "mean": self.mean_pkts * MSS, "round_to": MSS}
        )
        rto = {} if self.min_rto is None else {"transport.min_rto": self.min_rto, "transport.initial_rto": self.min_rto}
        return {
            **rto,
            "topology.bottleneck_rate": self.capacity,
            "queues.router.limit_packets": self.buffer_pkts,
            "workload.0.load": self.load * MSS / PACKET,
            "workload.0.sizes": sizes,
            "duration": self.duration,
            "measure_from": WARMUP,
            # Long Pareto flows drain for a while after the arrivals stop.
            "max_time": self.duration + 600.0,
        }


def _quick(name: str, o: dict[str, Any]) -> dict[str, Any]:
    return {
        "duration": max(2 * QUICK_WARMUP, o["duration"] * QUICK_SCALE),
        "measure_from": QUICK_WARMUP,
        "max_time": 300.0,
    }


def buffer_sweep(name: str, title: str, points: list[Point], analyze) -> Experiment:
    """An experiment of `Point`s on `ch6-buffers.toml`, one seed; `analyze(runs, ctx, grid)` gets the
    points by name."""
    grid = {p.name: p for p in points}
    return Experiment(
        name=name,
        title=title,
        base="ch6-buffers.toml",
        points=[(p.name, p.overrides()) for p in points],
        seeds=1,
        analyze=lambda runs, ctx: analyze(runs, ctx, grid),
        quick=_quick,
    )


def measure(runs: Runs, p: Point, seed: int) -> dict[str, Any]:
    """AFCT (fctlab's, and + RTT / 2 as the thesis's flows end), eq. 6.1 at the nominal E[L] and
    load, the measured load and mean size, mean active flows (Little's law), loss probability,
    the share of flows with a timeout, R / C and N R / C over the window, and the mean queue."""
    sample = runs.sample(p.name, seed)
    measure_from, duration = runs.window(p.name, seed)
    links = runs.links(p.name, seed)
    row = links.filter(pl.col("name") == "bottleneck")
    flows = runs.flows(p.name, seed)
    incomplete = flows.filter(pl.col("measured") & (pl.col("size_bytes") >= 0) & pl.col("fct_s").is_null()).height
    series = runs.series(p.name, seed).filter(
        (pl.col("target") == "bottleneck") & (pl.col("time_s") > measure_from) & (pl.col("time_s") <= duration)
    )
    w = series.pivot("metric", index="time_s", values="value") if series.height else None
    has_rate = w is not None and "rcp_rate_bps" in w.columns
    out: dict[str, Any] = {
        # The router's rate against C, and N(t) R(t) / C: above 1, R promises more than C to the active flows.
        "r_c": float(w["rcp_rate_bps"].mean()) / p.capacity if has_rate else None,
        "nr_c": float((w["rcp_rate_bps"] * w["active_flows"]).mean()) / p.capacity if has_rate else None,
        "flows": sample.height,
        "incomplete": incomplete,
        "loss": loss_probability(links, "bottleneck"),
        "queue_pkts": float(row["queue_avg_bytes"].item()) / PACKET,
        "afct": None,
        "thesis_afct": None,
        "eq61": None,
        "ratio": None,
        "active": None,
        "active_ps": None,
        "mean_pkts": None,
        "load": None,
        "timeouts": None,
    }
    if sample.height == 0:
        return out
    pkts = sample.select((pl.col("size_bytes") / MSS).ceil().mean()).item()
    afct = float(sample["fct_s"].mean())
    rate = sample.height / (duration - measure_from)
    # The load the measured flows brought (Pareto's heavy tail makes it stray from the nominal one);
    # eq. 6.1 is the thesis's curve, at the nominal E[L] and load.
    load = rate * pkts * PACKET * 8 / p.capacity
    eq61 = ps_afct_with_setup(p.mean_pkts * PACKET * 8, p.capacity, p.load, RTT)
    out.update(
        afct=afct,
        thesis_afct=afct + RTT / 2,
        eq61=eq61,
        ratio=(afct + RTT / 2) / eq61,
        active=rate * (afct + RTT / 2),
        active_ps=rate * eq61,
        mean_pkts=float(pkts),
        load=load,
        timeouts=float((sample["timeouts"] > 0).mean()),
    )
    return out


def measure_all(runs: Runs, grid: dict[str, Point]) -> dict[str, dict[str, Any]]:
    """`measure` of every point of a sweep, first seed."""
    seed = runs.seeds[0]
    return {n: measure(runs, p, seed) for n, p in grid.items()}
