"""The convergence runs of the RCP thesis's Figs. 5.10 - 5.13 and 7.1 (004:2641-2680, 004:3614-3660):
long-lived flows in equilibrium on one link of `ch5-long-flows.toml` until the load doubles
(`convergence_point`), and the time R and q then take to settle, in RTTs (`convergence_of`, by
`settling.convergence_time`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fctlab.reproduce.framework import Runs
from fctlab_experiments.rcp import settling as st
from fctlab_experiments.rcp.long_flows import long_flows
from fctlab_experiments.rcp.settling import link_series

#: The base of the convergence runs: 10 Mb/s, RTT 100 ms, N 10 -> 20.
CONV_C, CONV_RTT, CONV_N = 10e6, 0.1, 20
#: Join after this many RTTs in equilibrium; run this many RTTs after it; the last
#: CONV_TAIL RTTs give the measured equilibrium.
CONV_BEFORE, CONV_AFTER, CONV_TAIL = 20, 80, 20


def convergence_point(
    c: float = CONV_C, rtt: float = CONV_RTT, n: int = CONV_N, alpha: float = 0.5, beta: float = 0.5, scale: float = 1.0
) -> dict[str, Any]:
    """Overrides for n/2 flows in equilibrium (R(0) = 2C/n) joined by n/2 more after
    CONV_BEFORE RTTs (the load doubles); the run lasts CONV_AFTER RTTs more (times x scale)."""
    join = CONV_BEFORE * rtt * scale
    return {
        "topology.bottleneck_rate": c,
        "topology.bottleneck_delay": rtt / 2,
        "queues.router.limit": max(10 * c * rtt / 8, 100_000),
        "queues.router.initial_rate": 2.0 / n,
        "queues.router.initial_rtt": rtt,
        "queues.router.alpha": alpha,
        "queues.router.beta": beta,
        "duration": join + CONV_AFTER * rtt * scale,
        "output.series.interval": rtt / 10,
        "workload.0.flows": long_flows([(n // 2, 0.0, None), (n - n // 2, join, None)]),
    }


def convergence_of(runs: Runs, name: str, seed: int) -> dict[str, Any]:
    """A convergence run's settling time in RTTs (None: not settled), its equilibrium R against
    the fair rate, and its series for plots."""
    sc = runs.scenario(name, seed)
    topo = sc["topology"]
    from fctlab.quantity import parse_rate, parse_time

    c = parse_rate(topo["bottleneck_rate"], "bottleneck_rate")
    rtt = 2 * parse_time(topo["bottleneck_delay"], "bottleneck_delay")
    flows = sc["workload"][0]["flows"]
    n = len(flows)
    join = max(float(f["start"]) for f in flows)
    end = runs.window(name, seed)[1]
    s = link_series(runs, name, seed, "bottleneck")
    out: dict[str, Any] = {"c": c, "rtt": rtt, "n": n, "join": join, "rtts": None, "r_eq": float("nan")}
    if "rcp_rate_bps" not in s:
        return out
    t, r = s["rcp_rate_bps"]
    tq, q = s["queue_bytes"]
    q = np.interp(t, tq, q)
    tail = r[t > end - CONV_TAIL * rtt]
    r_eq = float(tail.mean()) if tail.size else float("nan")
    # The queue's band: its peak over the 10 RTTs before the change (the packet-level jitter of
    # the equilibrium, a few packets of paced flows colliding) plus Q_TOL of the pipe.
    before = q[(t > join - 10 * rtt) & (t <= join)]
    q_band = (float(before.max()) if before.size else 0.0) + st.Q_TOL * c * rtt / 8
    # R over one RTT (the series samples every RTT / 10): its interval-to-interval jitter is
    # not the loop's transient.
    r_rtt = st.trailing_mean(r, max(1, round(rtt / float(np.median(np.diff(t))))) if t.size > 1 else 1)
    ct = st.convergence_time(t, r_rtt, q, join, r_eq, q_band)
    if "rcp_avg_rtt_s" in s:
        td, d = s["rcp_avg_rtt_s"]
        at = d[td <= join]
        late = d[td > join]
        out.update(
            d_join=float(at[-1]) if at.size else float("nan"), d_peak=float(late.max()) if late.size else float("nan")
        )
    out.update(
        r_eq=r_eq,
        fair=c / n,
        rtts=None if ct is None else ct / rtt,
        t=t,
        r=r,
        q=q,
    )
    return out
