"""The analysis helpers of HPCC's reproduction (`experiments/datacenter/hpcc-fct`), on hand-made tables."""

from __future__ import annotations

import polars as pl

from realcore import experiment_code

hpcc = experiment_code("datacenter", "hpcc-fct")


def test_sizes_fall_in_the_papers_bins():
    sizes = pl.DataFrame({"s": [1, 19_999, 20_000, 72_999, 73_000, 199_999, 999_999, 1_000_000, 5_000_000]})
    got = sizes.select(b=hpcc.size_bin(pl.col("s")))["b"].to_list()
    assert got == ["<20K", "<20K", "20K-73K", "20K-73K", "73K-200K", "73K-200K", "200K-1M", "1M-5M", ">5M"]


def test_p95_slowdown_uses_the_background_flows_and_the_reference_ideals():
    n = 20
    flows = pl.DataFrame(
        {
            "id": list(range(n)) + [100],
            "size_bytes": [10_000] * n + [10_000],
            "fct_s": [float(k + 1) for k in range(n)] + [1000.0],
            "measured": [True] * n + [True],
            "workload": ["w0"] * n + ["w1"],
        }
    )
    # Ideal FCT 0.5 s for every flow: slowdowns 2, 4, ..., 40; the incast flow (w1) is left out.
    ideal = pl.DataFrame({"id": list(range(n)), "size_bytes": [10_000] * n, "ideal_fct_s": [0.5] * n})
    st = hpcc.p95_by_bin(flows, ideal)
    assert st["<20K"] == (38.0, n)
    assert st[">5M"] == (None, 0)
    # A flow whose size differs in the reference run is not the same flow: not counted.
    other = ideal.with_columns(pl.when(pl.col("id") == 0).then(1).otherwise(pl.col("size_bytes")).alias("size_bytes"))
    assert hpcc.p95_by_bin(flows, other)["<20K"][1] == n - 1


def test_switch_queues_read_the_switch_ports_only():
    links = pl.DataFrame(
        {
            "src": ["h0", "leaf0", "leaf1", "spine0"],
            "queue_avg_bytes": [1e6, 10.0, 20.0, 30.0],
            "queue_max_bytes": [2_000_000, 100, 200, 300],
        }
    )
    assert hpcc.switch_queues(links) == (20.0, 30.0, 300.0), "the host's NIC queue is not a switch port"


def test_incast_events_are_deterministic_and_cross_racks():
    a, b = hpcc.incast_flows(0.003), hpcc.incast_flows(0.003)
    assert a == b and len(a) == 3 * hpcc.INCAST_SENDERS
    for f in a:
        src, dst = int(f["src"][1:]), int(f["dst"][1:])
        assert src // hpcc.RACK != dst // hpcc.RACK and f["size"] == hpcc.INCAST_BYTES
    assert len({f["src"] for f in a[: hpcc.INCAST_SENDERS]}) == hpcc.INCAST_SENDERS, "distinct senders per event"
