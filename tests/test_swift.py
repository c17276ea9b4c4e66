"""Swift (crates/fctlab-core/src/protocol/swift/) through the Python front: two flows keep the
bottleneck's queueing delay near their target delay and share the link fairly; bad keys are
refused by field, value and what was expected. The law itself (window against target on hand-made
RTT samples) is tested in the folder's `tests.rs`."""

from __future__ import annotations

import polars as pl
import pytest

import fctlab
from fctlab.errors import ScenarioError
from realcore import fake  # noqa: F401  (fake: the compiled core)

#: The dumbbell: 10 Gb/s x 2 us bottleneck, 40 Gb/s x 1 us access links.
RATE = 10e9
#: Its RTT without a queue, by hand: 8 us of propagation, a 1,500-byte packet serialized at
#: 40, 10 and 40 Gb/s (0.3 + 1.2 + 0.3 us), a 40-byte ACK at 40, 10 and 40 Gb/s (0.064 us).
BASE_RTT = 8e-6 + 1500 * 8 * (2 / 40e9 + 1 / RATE) + 40 * 8 * (2 / 40e9 + 1 / RATE)


#: The second flow.
LATER = {"src": "l1", "dst": "r1", "start": 0.001}


def spec(transport: dict, *, duration: str = "20ms") -> dict:
    """Two long-lived Swift flows, the second starting 1 ms after the first."""
    return {
        "duration": duration,
        "max_time": duration,
        "topology": {
            "kind": "dumbbell",
            "hosts_per_side": 2,
            "bottleneck_rate": "10Gbps",
            "bottleneck_delay": "2us",
            "access_rate": "40Gbps",
            "access_delay": "1us",
        },
        "queues": {"router": {"kind": "droptail", "limit_packets": 1000}},
        "transport": transport,
        "workload": [{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": 0}, LATER]}],
        "output": {"series": {"interval": "50us", "links": ["bottleneck"], "flows": [0, 1]}},
    }


def test_two_flows_hold_the_queue_near_their_target_and_share_fairly():
    r = fctlab.run(spec({"cc": "swift"}))
    assert set(r.flows["protocol"]) == {"swift-iw4"}
    s = r.series.filter(pl.col("time_s") > 0.005)
    queue = s.filter((pl.col("metric") == "queue_bytes") & (pl.col("target") == "bottleneck"))["value"]
    queueing_delay = queue.mean() * 8 / RATE
    target = s.filter(pl.col("metric") == "swift_target_s")["value"].mean()
    # Defaults: 25 us + 1 hop x 1 us + the flow-based part at about 20 packets (4-9 us).
    assert 30e-6 < target < 36e-6, target
    # The queue holds the RTT at the target: its delay is the target less the empty path's RTT.
    assert queueing_delay == pytest.approx(target - BASE_RTT, rel=0.15), (queueing_delay, target - BASE_RTT)
    bottleneck = r.links.filter(pl.col("name") == "bottleneck")
    assert bottleneck["drops_pkts"][0] == 0 and bottleneck["utilization"][0] > 0.95
    # Each flow's share of the last 10 ms.
    acked = s.filter(pl.col("metric") == "acked_bytes")
    end = acked["time_s"].max()
    rates = []
    for f in ("flow0", "flow1"):
        mine = acked.filter(pl.col("target") == f)
        at = dict(zip(mine["time_s"].round(6).to_list(), mine["value"].to_list(), strict=True))
        rates.append(8 * (at[round(end, 6)] - at[round(end - 0.01, 6)]) / 0.01)
    jain = sum(rates) ** 2 / (2 * sum(x * x for x in rates))
    assert jain > 0.99 and sum(rates) > 0.95 * RATE * 1460 / 1500, rates


def test_a_larger_base_target_holds_a_longer_queue():
    """The target, not the buffer, sets the queue: 25 us more target, 25 us more queue."""
    delays = []
    for base in ("25us", "50us"):
        r = fctlab.run(spec({"cc": "swift", "swift_base_target": base}))
        s = r.series.filter((pl.col("time_s") > 0.005) & (pl.col("metric") == "queue_bytes"))
        delays.append(s.filter(pl.col("target") == "bottleneck")["value"].mean() * 8 / RATE)
    assert delays[1] - delays[0] == pytest.approx(25e-6, rel=0.2), delays


@pytest.mark.parametrize(
    "transport, field, message",
    [
        ({"cc": "swift", "swift_beta": 0}, "transport.swift_beta", "expected a constant in (0, 1], got 0"),
        ({"cc": "swift", "swift_max_mdf": 1.5}, "transport.swift_max_mdf", "expected a fraction in (0, 1), got 1.5"),
        ({"cc": "swift", "swift_base_target": "0s"}, "transport.swift_base_target", "expected a time above zero"),
        (
            {"cc": "swift", "swift_fs_min_cwnd": 10, "swift_fs_max_cwnd": 1},
            "transport.swift_fs_max_cwnd",
            "expected a window above swift_fs_min_cwnd (10), got 1",
        ),
        ({"cc": "swift", "swift_hops": -1}, "transport.swift_hops", "-1"),
        ({"cc": "swift", "ecn": True}, "transport.ecn", "Swift's window reacts to delay, not to marks"),
        ({"cc": "cubic", "swift_ai": 2}, "transport.swift_ai", 'only `cc = "swift"` has it'),
    ],
)
def test_bad_swift_keys_are_refused_by_field(transport, field, message):
    with pytest.raises(ScenarioError) as e:
        fctlab.run(spec(transport, duration="1ms"))
    assert f"`{field}" in str(e.value) and message in str(e.value), str(e.value)
