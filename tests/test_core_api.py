"""The Python API over the compiled core: tables as documented, summary numbers recomputed
directly, the metrics' definitions (docs/scenario.md, Metrics), and `fctlab compare`."""

from __future__ import annotations

import json
import math

import polars as pl
import pytest

import fctlab
from fctlab.cli import main
from realcore import fake, small_dumbbell  # noqa: F401  (fake: the compiled core)

FLOW_COLUMNS = {
    "id": pl.Int64,
    "src": pl.String,
    "dst": pl.String,
    "size_bytes": pl.Int64,
    "start_s": pl.Float64,
    "finish_s": pl.Float64,
    "fct_s": pl.Float64,
    "acked_s": pl.Float64,
    "rtt_prop_s": pl.Float64,
    "ideal_fct_s": pl.Float64,
    "first_write_s": pl.Float64,
    "delivered_bytes": pl.Int64,
    "retx_bytes": pl.Int64,
    "timeouts": pl.Int64,
    "protocol": pl.String,
    "mss_bytes": pl.Int64,
    "header_bytes": pl.Int64,
    "workload": pl.String,
    "measured": pl.Boolean,
    "path": pl.List(pl.Int64),
}
LINK_COLUMNS = {
    "id": pl.Int64,
    "name": pl.String,
    "src": pl.String,
    "dst": pl.String,
    "rate_bps": pl.Int64,
    "delay_s": pl.Float64,
    "pkts_sent": pl.Int64,
    "bytes_sent": pl.Int64,
    "drops_pkts": pl.Int64,
    "drops_bytes": pl.Int64,
    "utilization": pl.Float64,
    "queue_avg_bytes": pl.Float64,
    "queue_max_bytes": pl.Int64,
}
SERIES_COLUMNS = {"time_s": pl.Float64, "metric": pl.String, "target": pl.String, "value": pl.Float64}

# The small dumbbell's path: host links 1 Gb/s and 1 ms, bottleneck 100 Mb/s and 5 ms.
RTT_PROP = 2 * (1e-3 + 5e-3 + 1e-3)
MSS, HEADER = 1460, 40


def test_run_returns_the_documented_tables():
    """`fctlab.run(dict)` gives polars DataFrames with the documented columns and dtypes."""
    r = fctlab.run(small_dumbbell(output={"series": {"interval": "10ms", "links": ["bottleneck"]}}))
    for frame, columns in ((r.flows, FLOW_COLUMNS), (r.links, LINK_COLUMNS), (r.series, SERIES_COLUMNS)):
        assert isinstance(frame, pl.DataFrame)
        assert dict(frame.schema) == columns
    assert r.flows.height > 20 and r.series.height > 0
    # 2 hosts per side: 4 host links and the bottleneck, two directions each.
    assert r.links.height == 10 and r.links["name"].to_list()[:2] == ["bottleneck", "bottleneck_rev"]
    assert r.flows["id"].to_list() == list(range(r.flows.height))
    assert r.flows["start_s"].is_sorted()
    assert set(r.flows["protocol"]) == {"tcp-newreno-iw4"} and set(r.flows["workload"]) == {"w0"}
    assert r.meta["flows_completed"] == r.flows.height == r.meta["flows_started"]
    assert r.meta["sent_pkts"] == r.meta["delivered_pkts"] + r.meta["dropped_pkts"] + r.meta["in_network_pkts"]


@pytest.mark.parametrize("queue", ["droptail", "prio"])
def test_meta_counts_random_and_scripted_loss_as_drops(queue):
    """sent = delivered + dropped + in_network holds with random and scripted loss on a link,
    behind a FIFO port and a qdisc port; the links table's drops add up to meta's."""
    loss = [{"link": "bottleneck", "p": 0.02, "drop": [{"flow": 0, "segment": 1}, {"flow": 2, "segment": 3}]}]
    r = fctlab.run(small_dumbbell(loss=loss, queues={"router": {"kind": queue, "limit": "250KB"}}))
    m = r.meta
    assert r.links["drops_pkts"].sum() > 5, "the bottleneck must lose packets for this to test anything"
    assert m["sent_pkts"] == m["delivered_pkts"] + m["dropped_pkts"] + m["in_network_pkts"]
    assert m["sent_bytes"] == m["delivered_bytes"] + m["dropped_bytes"] + m["in_network_bytes"]
    assert m["dropped_pkts"] == r.links["drops_pkts"].sum()
    assert m["dropped_bytes"] == r.links["drops_bytes"].sum()


def test_metrics_follow_their_definitions():
    """rtt_prop, ideal FCT, FCT = finish - start, and the measurement window, as documented."""
    r = fctlab.run(small_dumbbell())
    f = r.flows
    assert f["rtt_prop_s"].to_list() == pytest.approx([RTT_PROP] * f.height, abs=1e-12)
    size = 14600
    wire = size + math.ceil(size / MSS) * HEADER
    ideal = 1.5 * RTT_PROP + wire * 8 / 100e6
    assert f["ideal_fct_s"].to_list() == pytest.approx([ideal] * f.height, abs=1e-11)
    assert (f["fct_s"] - (f["finish_s"] - f["start_s"])).abs().max() < 1e-9
    assert (f["fct_s"] >= f["ideal_fct_s"]).all()
    window = (f["start_s"] >= 0.1) & (f["start_s"] < 0.5)
    assert f["measured"].to_list() == window.to_list()
    assert 0 < f["measured"].sum() < f.height, "the warm-up must hold some flows for this to test anything"
    assert (f["delivered_bytes"] == f["size_bytes"]).all()


def test_lone_segment_pays_the_handshake():
    """FCT counts from the application start: SYN, SYN-ACK, then the data, each crossing 3 hops."""
    r = fctlab.run(
        small_dumbbell(workload=[{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": "3ms", "size": MSS}]}])
    )
    (fct,) = r.flows["fct_s"].to_list()

    def crossing(wire: int) -> float:  # serialization on access, bottleneck, access
        return wire * 8 / 1e9 + wire * 8 / 100e6 + wire * 8 / 1e9

    expected = 1.5 * RTT_PROP + 2 * crossing(HEADER) + crossing(MSS + HEADER)
    assert fct == pytest.approx(expected, abs=1e-9)
    assert r.flows["start_s"].item() == pytest.approx(0.003)


def test_rtcp_lone_segment_carries_the_rcp_header_and_is_labelled():
    """R-TCP over RCP routers: SYN, SYN-ACK and the data carry the 12-byte RCP header on the 40
    of TCP/IP, the one segment leaves as soon as the SYN-ACK brings the first rate, and the
    flows table labels it `rtcp`."""
    r = fctlab.run(
        small_dumbbell(
            queues={"router": {"kind": "rcp", "limit": "250KB"}},
            transport={"protocol": "rtcp"},
            workload=[{"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": "3ms", "size": MSS}]}],
        )
    )
    (fct,) = r.flows["fct_s"].to_list()

    def crossing(wire: int) -> float:  # serialization on access, bottleneck, access
        return wire * 8 / 1e9 + wire * 8 / 100e6 + wire * 8 / 1e9

    rcp_header = HEADER + 12
    expected = 1.5 * RTT_PROP + 2 * crossing(rcp_header) + crossing(MSS + rcp_header)
    assert fct == pytest.approx(expected, abs=1e-9)
    assert r.flows["protocol"].to_list() == ["rtcp"]


def percentile(values: list[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default), written out."""
    xs = sorted(values)
    pos = q * (len(xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def test_summary_agrees_with_a_direct_computation():
    """Counts, means, percentiles, slowdown and size bins recomputed from the flows table."""
    spec = small_dumbbell(drain=False, duration="2s")
    spec["workload"][0]["sizes"] = {"kind": "uniform", "min": 1, "max": 60000}
    spec["workload"].append(
        {"kind": "long_lived", "label": "bg", "flows": [{"src": "l1", "dst": "r1", "start": 0, "stop": "100ms"}]}
    )
    r = fctlab.run(spec)
    f, s = r.flows, r.summary

    finite = f.filter(pl.col("size_bytes") >= 0)
    measured = finite.filter(pl.col("measured"))
    sample = measured.filter(pl.col("fct_s").is_not_null())
    assert s["flows_started"] == f.height
    assert s["flows_completed"] == f["finish_s"].is_not_null().sum()
    assert s["flows_incomplete"] == f.height - s["flows_completed"]
    assert s["long_lived"] == 1 and f.filter(pl.col("workload") == "bg")["size_bytes"].item() == -1
    assert s["measured"] == measured.height
    assert s["measured_incomplete"] == measured.height - sample.height
    assert s["measured_incomplete"] > 0, "without draining, flows still open at the end must be counted"
    assert s["completed_measured"] == sample.height > 30

    fct, size, ideal = sample["fct_s"].to_list(), sample["size_bytes"].to_list(), sample["ideal_fct_s"].to_list()
    assert s["mean_fct_s"] == pytest.approx(sum(fct) / len(fct), rel=1e-12)
    assert s["mean_fct_bytes_weighted_s"] == pytest.approx(sum(a * b for a, b in zip(size, fct)) / sum(size), rel=1e-12)
    for q in (50, 90, 99):
        assert s[f"p{q}_fct_s"] == pytest.approx(percentile(fct, q / 100), rel=1e-12)
    assert s["mean_slowdown"] == pytest.approx(sum(a / b for a, b in zip(fct, ideal)) / len(fct), rel=1e-12)

    # More than 32 distinct sizes: log2 bins of 1460-byte segments.
    by_bin: dict[int, list[float]] = {}
    for n, t in zip(size, fct):
        by_bin.setdefault((max(1, -(-n // 1460))).bit_length() - 1, []).append(t)
    assert [b["count"] for b in s["bins"]] == [len(by_bin[k]) for k in sorted(by_bin)]
    for b, k in zip(s["bins"], sorted(by_bin)):
        assert b["lo_bytes"] == (2**k - 1) * 1460 + 1 and b["hi_bytes"] == (2 ** (k + 1) - 1) * 1460
        assert b["mean_fct_s"] == pytest.approx(sum(by_bin[k]) / len(by_bin[k]), rel=1e-12)
        assert b["p99_fct_s"] == pytest.approx(percentile(by_bin[k], 0.99), rel=1e-12)


def test_compare_iw4_iw10_reports_a_reduction(tmp_path, capsys):
    """10-segment flows need two data round trips with IW 4 and one with IW 10: `fctlab compare`
    reports a positive reduction over flows, as JSON and as a table."""
    spec = small_dumbbell()
    spec["workload"][0]["load"] = 0.1
    path = tmp_path / "dumbbell.json"
    path.write_text(json.dumps(spec))
    a, b = str(tmp_path / "iw4"), str(tmp_path / "iw10")
    assert main(["run", str(path), "-o", a, "-q", "--set", "transport.iw=4"]) == 0
    assert main(["run", str(path), "-o", b, "-q", "--set", "transport.iw=10"]) == 0
    assert fctlab.load(a).flows["protocol"][0] == "tcp-newreno-iw4"
    assert fctlab.load(b).flows["protocol"][0] == "tcp-newreno-iw10"
    capsys.readouterr()

    assert main(["compare", a, b, "--json"]) == 0
    c = json.loads(capsys.readouterr().out)
    assert c["count_a"] == c["count_b"] > 0, "same seed, same flows"
    # One round trip (14 ms) of about 36 ms: well above noise.
    assert c["over_flows_pct"] > 20
    assert c["over_flows_pct"] == pytest.approx((c["mean_fct_a_s"] - c["mean_fct_b_s"]) / c["mean_fct_a_s"] * 100)
    assert [row["label"] for row in c["bins"]] == ["14600 B"]

    assert main(["compare", a, b]) == 0
    table = capsys.readouterr().out
    assert "over flows" in table and f"{c['over_flows_pct']:+.2f}%" in table


def test_progress_bar_shows_draining_and_open_flows(capsys):
    """With progress on, the bar switches to "draining" after the horizon and shows the core's
    count of open flows (the attribute is `open_flows` on the compiled Simulation)."""
    spec = small_dumbbell()
    spec["workload"].append({"kind": "flows", "flows": [{"src": "l1", "dst": "r1", "start": "490ms", "size": "1MB"}]})
    fctlab.run(spec, progress=True)
    err = capsys.readouterr().err
    assert "draining" in err and "flows open" in err, err[-500:]
