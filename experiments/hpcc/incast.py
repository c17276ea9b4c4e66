"""Incast events for the HPCC experiments (`hpcc/fig11`, `datacenter/hpcc-fct`): every `every_s`,
`senders` hosts of other racks send `size` bytes each to one host at once (fctlab's choice: the
HPCC paper's own incast parameters were not available here)."""

from __future__ import annotations

import random
from typing import Any


def incast_flows(
    duration_s: float,
    hosts: int,
    rack: int,
    prefix: str,
    *,
    every_s: float = 1e-3,
    senders: int = 20,
    size: int = 50_000,
    seed: int = 7,
) -> list[dict[str, Any]]:
    """The incast events of a run of `duration_s` on `hosts` hosts named `<prefix><i>`, `rack` to a
    rack: the k-th at (k + 1/2) `every_s`, to a host drawn at random, from `senders` hosts of other
    racks. Deterministic for `seed`."""
    rng = random.Random(seed)
    flows = []
    k = 0
    while (t := every_s * (k + 0.5)) < duration_s:
        dst = rng.randrange(hosts)
        others = [h for h in range(hosts) if h // rack != dst // rack]
        for src in rng.sample(others, senders):
            flows.append({"src": f"{prefix}{src}", "dst": f"{prefix}{dst}", "start": f"{t * 1e6:.0f}us", "size": size})
        k += 1
    return flows
