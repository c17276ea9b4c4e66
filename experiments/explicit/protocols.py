"""Seed 003's protocols and common setup: the protocol table every figure loops over, and the
overrides that run a figure's flows with one protocol (sec. IV).

Common setup (seed 003 sec. IV): 1500-byte packets on the wire (mss = 1500 - the protocol's
header), the gains the paper names, the protocol's router on the bottleneck link(s) only (the
paper's routers; every other port is a plain FIFO), and buffers of `BUFFER_PKTS` packets (the
paper's are large and unstated; RCP's queue reaches ~11,000 packets in its Fig. 9(a)). Every
figure loops over `PROTOCOLS`, so a protocol is one entry there. The base scenarios are
`experiments/explicit/*.toml`; each figure sets the same flow schedules at full scale, and quick
mode (`--quick`) runs every schedule `QUICK_SCALE` times as long (`quick`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fctlab.quantity import parse_time

#: Bytes of every data packet on the wire (seed 003 sec. IV: 1500-byte packets).
WIRE = 1500
#: Buffer of every router port, packets: far above the ~11,000 of RCP's queue in the paper.
BUFFER_PKTS = 50_000
#: Quick mode runs every flow schedule and duration this many times as long.
QUICK_SCALE = 1 / 3

#: JetMax's target utilization: seed 003 gives no value; 0.98 is fctlab's default (eq. 4 has
#: no queue term, so at 1 a join's transient queue would never drain).
JETMAX_GAMMA = 0.98
#: PIQI-RCP's virtual capacity gamma (seed 003 sec. IV).
PIQI_GAMMA = 0.95

#: TCP/IP's header bytes, under each protocol's congestion header.
TCP_IP_HEADER = 40


def _header(protocol: str) -> int:
    """Header bytes on the wire of `protocol`'s packets: TCP/IP's and its congestion header (the
    protocol registry's size, seed 003 sec. III-D/E)."""
    from fctlab._core import PROTOCOLS as REGISTRY

    return TCP_IP_HEADER + next(p["header_bytes"] for p in REGISTRY if p["name"] == protocol)


#: Protocol name -> how to run it: `transport` keys (protocol, header bytes on the wire),
#: `queue` keys of the router port on each bottleneck (kind and the law's parameters), and
#: optionally `utilization`, the fraction of capacity its router aims at (a virtual capacity,
#: by which max-min targets are scaled; 1 when absent). Seed 003 sec. IV's gains.
PROTOCOLS: dict[str, dict[str, Any]] = {
    # alpha = 0.4, beta = 0.226; control interval = the mean RTT; 20-byte header (sec. III-D);
    # shuffling gamma = 0.1 (Katabi et al.'s; seed 003 gives none).
    "xcp": {
        "transport": {"protocol": "xcp", "header": _header("xcp")},
        "queue": {"kind": "xcp", "alpha": 0.4, "beta": 0.226, "gamma": 0.1},
    },
    # alpha = 0.1, beta = 1; seed 003's 16-byte header (the thesis's, in the registry, has 12);
    # seed 003's router (`variant = "seed003"`: a fixed
    # 10 ms interval, d a moving average of the RTT fields, the same way up and down).
    "rcp": {
        "transport": {"protocol": "rcp", "header": TCP_IP_HEADER + 16},
        "queue": {"kind": "rcp", "alpha": 0.1, "beta": 1.0, "interval": "10ms", "variant": "seed003"},
    },
    # tau = 0.6 (the host's default), interval 100 ms, 32-byte header.
    "jetmax": {
        "transport": {"protocol": "jetmax", "header": _header("jetmax")},
        "queue": {"kind": "jetmax", "gamma": JETMAX_GAMMA, "interval": "100ms"},
        "utilization": JETMAX_GAMMA,
    },
    # tau1 = 0.01, tau2 = 0.1 (the host's defaults), gamma = 0.95, T = 10 ms, 24-byte header; eq. 6's
    # gains are fctlab's reading of alpha = 0.5 (docs/scenario.md, PIQI-RCP).
    "piqi": {
        "transport": {"protocol": "piqi", "header": _header("piqi")},
        "queue": {"kind": "piqi", "gamma": PIQI_GAMMA, "interval": "10ms"},
        "utilization": PIQI_GAMMA,
    },
}


def mss(protocol: str) -> int:
    """Payload bytes per packet of `protocol`: the 1500-byte wire size less its headers."""
    return WIRE - int(PROTOCOLS[protocol]["transport"]["header"])


def utilization(protocol: str) -> float:
    """The fraction of a link's capacity `protocol`'s router aims at (1 without a virtual capacity)."""
    return float(PROTOCOLS[protocol].get("utilization", 1.0))


def protocol_overrides(protocol: str, links: list[str]) -> dict[str, Any]:
    """Overrides that run every flow with `protocol` and its router on each of `links`."""
    entry = PROTOCOLS[protocol]
    out = {f"transport.{k}": v for k, v in entry["transport"].items()}
    out["transport.mss"] = mss(protocol)
    queue = {**entry["queue"], "limit_packets": BUFFER_PKTS}
    out.update({f"queues.links.{link}": dict(queue) for link in links})
    return out


def long_lived(flows: list[tuple[str, str, float, float]]) -> list[dict[str, Any]]:
    """A `long_lived` entry's flow list from (source, destination, start, stop) in seconds."""
    return [{"src": s, "dst": d, "start": a, "stop": b} for s, d, a, b in flows]


def long_flow_points(
    links: list[str], flows: list[tuple[str, str, float, float]], end: float
) -> list[tuple[str, dict]]:
    """One point per protocol: its router on each of `links`, long-lived `flows`, `end` s long."""
    common = {"duration": end, "workload.0.flows": long_lived(flows)}
    return [(p, {**protocol_overrides(p, links), **common}) for p in PROTOCOLS]


def scale_times(overrides: dict[str, Any], scale: float) -> dict[str, Any]:
    """The time overrides of a run (duration, flow lists' start/stop, arrival windows) x `scale`."""
    out: dict[str, Any] = {}
    for key, value in overrides.items():
        if key == "duration" or key.endswith((".start", ".stop")):
            out[key] = parse_time(value, key) * scale
        elif key.endswith(".flows"):
            out[key] = [_scaled_flow(f, scale) for f in value]
    return out


def _scaled_flow(flow: dict[str, Any], scale: float) -> dict[str, Any]:
    return {**flow, **{k: parse_time(flow[k], k) * scale for k in ("start", "stop") if k in flow}}


def quick(scale: float = QUICK_SCALE) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    """Quick mode's overrides of a run (`Experiment.quick`): every time of it x `scale`."""
    return lambda _name, o: scale_times(o, scale)
