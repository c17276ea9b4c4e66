"""The protocol registry (crates/fctlab-core/src/protocol/mod.rs) as Python sees it."""

from __future__ import annotations

from pathlib import Path

import fctlab
from fctlab._core import PROTOCOLS
from fctlab.tools import check
from realcore import fake, paper_code  # noqa: F401  (the compiled core)

ROOT = Path(__file__).resolve().parents[1]
#: The explicit paper's protocol table (experiments/explicit/protocols.py).
explicit = paper_code("explicit", "protocols")


def test_every_protocol_has_its_folder_and_runs_by_its_name() -> None:
    names = [p["name"] for p in PROTOCOLS]
    assert names == [
        *("newreno", "cubic", "dctcp", "pfabric", "hpcc", "rc3"),
        *("rcp", "rtcp", "xcp", "jetmax", "piqi", "swift", "dcqcn", "timely"),
    ]
    for p in PROTOCOLS:
        folder = ROOT / "crates/fctlab-core/src/protocol" / p["folder"]
        assert (folder / "mod.rs").is_file(), p["name"]
        key = p["host_key"].split(".")[1]
        spec = {
            "duration": "50ms",
            "topology": {
                "kind": "dumbbell",
                "hosts_per_side": 1,
                "bottleneck_rate": "10Mbps",
                "bottleneck_delay": "1ms",
                "access_rate": "100Mbps",
            },
            "transport": {key: p["name"], **check.TRANSPORT_KEYS.get(p["name"], {})},
            "workload": [{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": 0, "size": 3000}]}],
        }
        if p["queue"] not in (None, "prio"):
            spec["queues"] = {"router": {"kind": p["queue"], **check.QUEUE_KEYS.get(p["queue"], {})}}
        result = fctlab.run(spec)
        assert result.flows["delivered_bytes"][0] == 3000, p["name"]


def test_the_explicit_study_takes_its_header_sizes_from_the_registry() -> None:
    sizes = {p["name"]: p["header_bytes"] for p in PROTOCOLS}
    assert explicit.PROTOCOLS["xcp"]["transport"]["header"] == 40 + sizes["xcp"] == 60
    assert explicit.PROTOCOLS["jetmax"]["transport"]["header"] == 40 + sizes["jetmax"] == 72
    assert explicit.PROTOCOLS["piqi"]["transport"]["header"] == 40 + sizes["piqi"] == 64
