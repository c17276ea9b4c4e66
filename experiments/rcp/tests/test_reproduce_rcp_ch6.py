"""The RCP thesis's chapter 6 testbed and buffer-sizing experiments: their setups and helpers."""

from __future__ import annotations

import polars as pl
import pytest

from realcore import experiment_code, paper_code

buffers = paper_code("rcp", "buffers")
testbed = experiment_code("rcp", "fig6-6-8")
fig618 = experiment_code("rcp", "fig6-18")


def test_testbed_phases_follow_the_joins_and_departures():
    assert testbed.phases(testbed.FLOWS, testbed.END) == [
        (0.0, 20.0, 1),
        (20.0, 40.0, 2),
        (40.0, 60.0, 3),
        (60.0, 100.0, 4),
        (100.0, 120.0, 3),
        (120.0, 140.0, 2),
        (140.0, 160.0, 1),
    ]


def test_buffers_are_fractions_of_the_bandwidth_delay_product_in_packets():
    # 100 Mb/s x 80 ms = 1000 packets of 1000 bytes.
    assert buffers.Point(100e6, 20, 0.68, 0.02, 60.0).buffer_pkts == 20
    assert buffers.Point(1e9, 20, 0.68, 0.02, 60.0).buffer_pkts == 200
    assert buffers.Point(10e6, 20, 0.68, 0.02, 60.0).buffer_pkts == 2
    # Never an empty buffer.
    assert buffers.Point(1e6, 20, 0.68, 0.02, 60.0).buffer_pkts == 1


def test_point_overrides_set_the_wire_load_and_the_sizes():
    o = buffers.Point(100e6, 20, 0.68, 0.05, 60.0).overrides()
    # The data packets' wire bits make the load: the payload load is rho x 948 / 1000.
    assert o["workload.0.load"] == pytest.approx(0.68 * 0.948)
    assert o["workload.0.sizes"] == {"kind": "pareto", "shape": 1.2, "mean": 20 * 948, "round_to": 948}
    assert o["queues.router.limit_packets"] == 50
    assert "transport.min_rto" not in o
    fixed = buffers.Point(100e6, 5, 0.4, 0.02, 30.0, fixed=True, min_rto=0.16)
    assert fixed.overrides()["workload.0.sizes"] == {"kind": "fixed", "size": 5 * 948}
    assert fixed.overrides()["transport.min_rto"] == fixed.overrides()["transport.initial_rto"] == 0.16
    # Every run of a sweep has its own name.
    for make in (experiment_code("rcp", n).experiment for n in ("fig6-19-20", "fig6-21-22", "fig6-23-24")):
        names = [n for n, _ in make().points]
        assert len(names) == len(set(names))


def test_drops_after_counts_what_was_offered_and_neither_sent_nor_queued():
    # 100 ms samples; after t = 0.2 s the port is offered 8 Mb/s more than it sends for two
    # samples (200,000 bytes), of which 50,000 stay queued: 150 packets of 1000 bytes dropped.
    s = pl.DataFrame(
        {
            "time_s": [0.1, 0.2, 0.3, 0.4],
            "input_bps": [1e8, 1e8, 1.08e8, 1.08e8],
            "throughput_bps": [1e8, 1e8, 1e8, 1e8],
            "queue_bytes": [0.0, 0.0, 20_000.0, 50_000.0],
        }
    )
    assert fig618._drops_after(s, 0.2) == pytest.approx(150.0)
    assert fig618._drops_after(s, 1.0) is None
    # With the port's own count of dropped bytes, that count decides (exact, never negative).
    counted = s.with_columns(drops_bytes=pl.Series([0.0, 3_000.0, 60_000.0, 123_000.0]))
    assert fig618._drops_after(counted, 0.2) == 120.0
