"""RC3 paper Fig. 9's settings: Internet-2 scaled to a bottleneck (access) rate and a nominal
round trip, 100 Mb/s or 1 Gb/s x 40 or 400 ms, with buffers of RTT x BW, and the paper's numbers
for each. `fig9-rttbw` runs all four; `fig12-priorities` varies RC3 at 100 Mb/s x 40 ms."""

from __future__ import annotations

from typing import Any

from fctlab_experiments.rc3.common import FIG8

FIG9 = {  # (bw, rtt): paper row as in FIG8
    ("100Mbps", "40ms"): (0.167, 0.691, 0.110, 0.442, 33.98, 36.05),
    ("100Mbps", "400ms"): (0.948, 3.501, 0.567, 0.783, 40.29, 77.62),
    ("1Gbps", "40ms"): FIG8[30],
    ("1Gbps", "400ms"): (0.971, 3.590, 0.558, 0.569, 42.45, 84.17),
}


def _rttbw(bw: str, rtt: str) -> dict[str, Any]:
    """Internet-2 scaled to a bottleneck (access) rate and a nominal RTT; buffers of RTT x BW."""
    fast = bw == "1Gbps"
    slow_rtt = rtt == "400ms"
    buffer = {
        ("1Gbps", "40ms"): "5MB",
        ("100Mbps", "40ms"): "500KB",
        ("1Gbps", "400ms"): "50MB",
        ("100Mbps", "400ms"): "5MB",
    }[(bw, rtt)]
    topo = {
        "kind": "internet2-rc3",
        "access_rate": bw,
        "core_rate_scale": 1.0 if fast else 0.1,
        "access_delay": "10ms" if slow_rtt else "1ms",
        "core_delay": "100ms" if slow_rtt else "10ms",
    }
    return {"topology": topo, "buffer": buffer}


def points_rttbw() -> list[tuple[str, dict[str, Any]]]:
    """Fig. 9's runs: TCP and RC3 at each setting, named `<protocol>-<bw>-<rtt>`."""
    pts = []
    for bw, rtt in FIG9:
        c = _rttbw(bw, rtt)
        for p in ("tcp", "rc3"):
            kind = "droptail" if p == "tcp" else "prio"
            pts.append(
                (
                    f"{p}-{bw}-{rtt}",
                    {
                        "transport.protocol": p,
                        "topology": c["topology"],
                        "queues.router": {"kind": kind, "limit": c["buffer"]},
                        "queues.host": {"kind": kind},
                    },
                )
            )
    return pts
