"""The RCP thesis's chapter 4 runs (flow completion times under RCP, TCP and XCP, Figs. 4.1 - 4.24):
its two setups, Pareto sizes, each protocol's overrides, the three runs of a configuration, the
dumbbell of `ch4-setup1.toml` and a sweep of it, and the quick mode.

Every configuration runs three times: RCP over `rcp` router queues, TCP (NewReno with SACK,
IW 2 as the thesis's ns-2 TCP) over drop-tail queues, XCP over `xcp` queues, all with the same
buffer (C x RTPD, the thesis's rule of thumb, sec. 4.1) and the same flows (same seed). Data
packets are 1000 bytes (960 payload + 40 header) for every protocol, as in the thesis. RCP
routers start at R = 0.5 C with d = the configuration's RTPD instead of the ns-2 cold start
(0.05 C, 0.2 s), and every run has a warm-up (`measure_from`) before flows are measured.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fctlab.reproduce.framework import Context, Experiment
from fctlab_experiments.rcp import analysis as ra
from fctlab_experiments.rcp import reports as rr
from fctlab_experiments.rcp.reports import Setup

PKT = ra.MSS
#: Setup 1 (Fig. 4.1) and setup 2 (Fig. 4.2): capacity, RTPD, load.
SETUP1 = Setup(2.4e9, 0.1, 0.9)
SETUP2 = Setup(150e6, 1.6, 0.9)


def pareto(mean_pkts: float, shape: float = 1.2) -> dict[str, Any]:
    """Pareto sizes of `mean_pkts` packets (ns-2's convention), rounded up to whole packets."""
    return {"kind": "pareto", "shape": shape, "mean": mean_pkts * PKT, "round_to": PKT}


def protocol(p: str, buffer_bytes: float, rtpd: float) -> dict[str, Any]:
    """Overrides that run every flow with `p` ("rcp", "tcp", "xcp") over its router queues."""
    limit = int(buffer_bytes)
    if p == "rcp":
        return {
            "transport.protocol": "rcp",
            "queues.router": {"kind": "rcp", "limit": limit, "initial_rtt": rtpd, "initial_rate": 0.5},
        }
    if p == "tcp":
        return {"transport.protocol": "tcp", "transport.iw": 2, "queues.router": {"kind": "droptail", "limit": limit}}
    if p == "xcp":
        return {"transport.protocol": "xcp", "queues.router": {"kind": "xcp", "limit": limit}}
    raise ValueError(f"protocol: expected rcp, tcp or xcp, got {p!r}")


def dumbbell(setup: Setup, sizes: dict[str, Any], duration: float, warmup: float, **extra: Any) -> dict[str, Any]:
    """Overrides of `ch4-setup1.toml` for one bottleneck of `setup`."""
    return {
        "topology.bottleneck_rate": setup.capacity,
        "topology.bottleneck_delay": setup.rtpd / 2,
        "workload.0.load": setup.load,
        "workload.0.sizes": sizes,
        "duration": duration,
        "measure_from": warmup,
        "max_time": duration + 120.0,
        **extra,
    }


def three(prefix: str, base: dict[str, Any], buffer_bytes: float, rtpd: float) -> list[tuple[str, dict[str, Any]]]:
    """The RCP, TCP and XCP runs of one configuration."""
    return [(rr.run_name(prefix, p), {**base, **protocol(p.lower(), buffer_bytes, rtpd)}) for p in rr.PROTOCOLS]


def bdp(setup: Setup) -> float:
    """C x RTPD in bytes."""
    return setup.capacity * setup.rtpd / 8


def quick_scale(factor: float) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    """Quick mode: every run's arrival window and warm-up shortened by `factor`."""

    def shorten(_name: str, o: dict[str, Any]) -> dict[str, Any]:
        d, m = float(o["duration"]), float(o["measure_from"])
        return {"duration": d * factor, "measure_from": m * factor}

    return shorten


def dumbbell_sweep(
    name: str,
    title: str,
    xlabel: str,
    cases: list[tuple[str, float, Setup, dict[str, Any]]],
    intro: str,
    claims: tuple[rr.SweepClaim, ...] = (),
    across: Callable[[Context, dict[float, dict[str, dict[str, float | None]]]], None] | None = None,
) -> Experiment:
    """A sweep of setup 1's dumbbell: (run name, x value, setup, `dumbbell` arguments) per point,
    reported per protocol with flows split at 500 packets; `claims` checked at every point,
    `across` checks comparing points (`reports.sweep_figure`)."""
    pts: list[tuple[str, dict[str, Any]]] = []
    for run, _, s, args in cases:
        pts += three(run, dumbbell(s, pareto(25), **args), bdp(s), s.rtpd)
    vals = [(run, x, s) for run, x, s, _ in cases]
    analyze = rr.sweep_figure(xlabel, vals, 500, intro, claims=claims, across=across)
    return Experiment(name, title, "ch4-setup1.toml", pts, 1, analyze, quick=quick_scale(0.3))
