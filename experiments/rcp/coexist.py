"""The RCP thesis, sec. 6.2.1: RCP sharing routers with TCP (Figs. 6.11, 6.13 - 6.16). What the
experiments share: the link, the coexistence scheme's port as they configure it, the long-lived
flows of `ch6-coexist.toml`, the quick mode, and per-flow rates read from the runs.

Fig. 6.11 is the problem: on a plain RCP port TCP fills the buffer and RCP throttles itself.
Figs. 6.13 - 6.16 are the thesis's fix, fctlab's `rcp-tcp` queue (`protocol/rcp/coexist.rs`): RCP
and TCP queues served by WFQ (DRR) whose weights equalize the two classes' average flow rates,
with RCP's law run on C_R(t) = max(C - y_T, C w_R); or one shared queue ("soft isolation", Fig.
6.14). Base scenarios: `experiments/rcp/ch6-coexist.toml` (one bottleneck, Figs. 6.11, 6.13,
6.14, 6.16) and `ch6-coexist-two-bottlenecks.toml` (Fig. 6.15). The thesis gives no link rates,
delays or buffers for these figures: we take its ch. 6 simulation setting (100 Mb/s, an 80 ms
round trip) and a buffer of half a bandwidth-delay product (500 KB) per queue; with a full one
(1 MB) the scheme locks TCP out after its slow start in Fig. 6.13 (see that report).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce.framework import Runs, window_stat

#: Bottleneck capacity of both base scenarios (bit/s).
CAPACITY = 100e6
#: Quick mode runs this fraction of every schedule.
QUICK_SCALE = 0.2
#: The scheme's port as the experiments configure it (the rest: `rcp-tcp` defaults).
SCHEME = {"kind": "rcp-tcp", "limit": "500KB", "tc": "500ms", "theta": 0.1}


def long_lived(n_rcp: int, n_tcp: int, tcp_start: float, duration: float, queue: dict[str, Any]) -> dict[str, Any]:
    """Overrides of ch6-coexist.toml: `n_rcp` RCP flows from 0 s on hosts l0.., `n_tcp` TCP flows
    from `tcp_start` on the next hosts, every uplink and the bottleneck sampled."""
    n = n_rcp + n_tcp

    def flows(lo: int, hi: int, start: float) -> list[dict[str, Any]]:
        return [{"src": f"l{i}", "dst": f"r{i}", "start": start} for i in range(lo, hi)]

    return {
        "duration": duration,
        "topology.hosts_per_side": n,
        "queues.links.bottleneck": queue,
        "workload.0.flows": flows(0, n_rcp, 0.0),
        "workload.1.flows": flows(n_rcp, n, tcp_start),
        "output.series.links": ["bottleneck"] + [f"l{i}->rl" for i in range(n)],
    }


def scaled(points: dict[float, dict[str, dict[str, Any]]]) -> Any:
    """Quick-mode overrides: the run's points at QUICK_SCALE."""
    return lambda name, _o: points[QUICK_SCALE][name]


def rate_of(w: pl.DataFrame, uplink: str, a: float, b: float) -> float | None:
    """A flow's mean rate on its uplink over (a, b], bit/s."""
    return window_stat(w, f"{uplink}_throughput_bps", a, b)


def class_rates(w: pl.DataFrame, ups: list[str], a: float, b: float) -> list[float]:
    """The mean rates of a class's flows (by uplink) over (a, b]."""
    return [r for r in (rate_of(w, u, a, b) for u in ups) if r is not None]


def avg(xs: list[float]) -> float | None:
    """The mean; None of nothing."""
    return sum(xs) / len(xs) if xs else None


def duration_of(runs: Runs, name: str, seed: int) -> float:
    """When a run ends (s)."""
    return runs.window(name, seed)[1]


def tcp_start_of(runs: Runs, name: str, seed: int) -> float:
    """When a run's TCP flows start (s)."""
    flows = runs.scenario(name, seed)["workload"][1].get("flows") or [{"start": 0.0}]
    return float(flows[0]["start"])


def counts_of(runs: Runs, name: str, seed: int) -> tuple[int, int]:
    """A run's (RCP flows, TCP flows)."""
    wl = runs.scenario(name, seed)["workload"]
    return len(wl[0]["flows"]), len(wl[1]["flows"])
