"""A Parsimon-size fabric (Zhao et al., NSDI'23, section 6): 8 pods of 48 racks of 16 hosts
(6,144 hosts at 10 Gb/s), each rack's switch with one 40 Gb/s uplink to each of its pod's 4
fabric switches, and fabric switch `i` of every pod joined to each of the 48 spines of plane `i`
at 40 Gb/s: no oversubscription (16 x 10 = 4 x 40 at a rack, 48 x 40 down and up at a fabric
switch). Links of 1 us. ECMP spreads flows over the 4 x 48 paths between pods.
"""

from __future__ import annotations

from typing import Any


def fabric(
    pods: int = 8,
    racks: int = 48,
    hosts: int = 16,
    planes: int = 4,
    spines: int = 48,
    host_rate: str = "10Gbps",
    fabric_rate: str = "40Gbps",
    delay: str = "1us",
) -> dict[str, Any]:
    """The `kind = "graph"` topology table of the fabric."""
    nodes: list[dict[str, str]] = []
    links: list[dict[str, str]] = []
    spine_names = [[f"s{p}_{j}" for j in range(spines)] for p in range(planes)]
    nodes += [{"name": s, "kind": "router"} for plane in spine_names for s in plane]
    for pod in range(pods):
        fsw = [f"f{pod}_{p}" for p in range(planes)]
        nodes += [{"name": f, "kind": "router"} for f in fsw]
        for p, f in enumerate(fsw):
            links += [{"a": f, "b": s, "rate": fabric_rate, "delay": delay} for s in spine_names[p]]
        for r in range(racks):
            tor = f"t{pod}_{r}"
            nodes.append({"name": tor, "kind": "router"})
            links += [{"a": tor, "b": f, "rate": fabric_rate, "delay": delay} for f in fsw]
            for h in range(hosts):
                host = f"h{pod}_{r}_{h}"
                nodes.append({"name": host, "kind": "host"})
                links.append({"a": host, "b": tor, "rate": host_rate, "delay": delay})
    return {"kind": "graph", "nodes": nodes, "links": links}
