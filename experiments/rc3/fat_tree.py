"""RC3 paper sec. 6's datacenter: TCP and RC3 on a k = 4 fat tree of 100 Gb/s links
(`points_dc`), the setup of `datacenter`, which `datacenter-setups` varies one setting at a
time."""

from __future__ import annotations

from typing import Any

from fctlab_experiments.rc3.common import RC3, TCP


def points_dc() -> list[tuple[str, dict[str, Any]]]:
    """TCP and RC3 on the fat tree (k = 4, 100 Gb/s links of 10 us, ECMP), 1.5 MB router buffers,
    runs of 0.1 s, a 10 ms minimum RTO."""
    dc = {
        "topology": {"kind": "fat_tree", "k": 4, "rate": "100Gbps", "delay": "10us"},
        "routing.ecmp": True,
        "duration": "0.1s",
        "measure_from": "0.04s",
        "transport.min_rto": "10ms",
    }
    return [
        ("tcp", {**TCP, **dc, "queues.router": {"kind": "droptail", "limit": "1.5MB"}}),
        ("rc3", {**RC3, **dc, "queues.router": {"kind": "prio", "limit": "1.5MB"}}),
    ]


#: Quick mode of the fat-tree runs.
QUICK_FAT_TREE = {"duration": "0.03s", "measure_from": "0.01s"}
