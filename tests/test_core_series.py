"""Time series from the compiled core: a named link's queue, throughput, input and active flows
(and an RCP port's fair rate and average RTT, a JetMax port's fair rate and flow count), a flow's
cwnd and sending rate, sampled at the requested interval."""

from __future__ import annotations

import polars as pl
import pytest

import fctlab
from realcore import REPO, fake, small_dumbbell  # noqa: F401  (fake: the compiled core)

INTERVAL = 0.002


def run_with_series():
    # Flow 0 (the earliest start) is a 1 MB transfer that fills the bottleneck queue.
    spec = small_dumbbell(output={"series": {"interval": "2ms", "links": ["bottleneck"], "flows": [0]}})
    spec["workload"].append({"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": 0, "size": "1MB"}]})
    return fctlab.run(spec)


def test_link_and_flow_series_appear_at_the_interval():
    """queue_bytes and throughput_bps of `bottleneck` at every multiple of the interval; cwnd of flow 0."""
    r = run_with_series()
    s = r.series
    assert set(zip(s["metric"], s["target"])) == {
        ("queue_bytes", "bottleneck"),
        ("throughput_bps", "bottleneck"),
        ("input_bps", "bottleneck"),
        ("active_flows", "bottleneck"),
        ("drops_bytes", "bottleneck"),
        ("cwnd_bytes", "flow0"),
        ("send_rate_bps", "flow0"),
        ("acked_bytes", "flow0"),
    }, "a drop-tail port has no rcp_* or jetmax_* rows"
    last_finish = r.flows["finish_s"].max()
    for metric in ("queue_bytes", "throughput_bps", "active_flows"):
        times = s.filter(pl.col("metric") == metric)["time_s"].to_list()
        # One sample per interval from the first interval until the last flow completed (the
        # packets still in flight then reach their hosts unsampled).
        assert times == pytest.approx([INTERVAL * k for k in range(1, len(times) + 1)], abs=1e-12)
        assert last_finish - INTERVAL < times[-1] <= last_finish <= r.meta["sim_time_s"]
    cwnd = s.filter(pl.col("metric") == "cwnd_bytes")
    gaps = cwnd["time_s"].diff().drop_nulls()
    assert cwnd.height > 10 and gaps.min() == pytest.approx(INTERVAL) and gaps.max() == pytest.approx(INTERVAL)
    # The drops so far: never falling, and ending at the links table's count.
    drops = s.filter(pl.col("metric") == "drops_bytes")["value"]
    assert drops.diff().drop_nulls().min() >= 0
    bottleneck = r.links.filter(pl.col("name") == "bottleneck")
    assert drops[-1] == bottleneck["drops_bytes"][0] > 0, "the 1 MB flow overflows the queue"
    # Sampled while the flow is active only: until its last ACK is back (about 7 ms after it
    # completed, plus queueing), not to the end of the run; starting at the initial window.
    finish = r.flows.filter(pl.col("id") == 0)["finish_s"].item()
    assert finish - INTERVAL < cwnd["time_s"].max() < finish + 0.05 < times[-1]
    assert cwnd["value"][0] >= 4 * 1460 and cwnd["value"].max() > 4 * 1460


def test_series_values_are_consistent_with_the_links_table():
    """The queue never exceeds the link's maximum; throughput integrates to the bytes sent."""
    r = run_with_series()
    s = r.series
    bottleneck = r.links.filter(pl.col("name") == "bottleneck").row(0, named=True)
    queue = s.filter(pl.col("metric") == "queue_bytes")["value"]
    assert 0 < queue.max() <= bottleneck["queue_max_bytes"]
    thr = s.filter(pl.col("metric") == "throughput_bps")
    assert thr["value"].max() > 0.5 * bottleneck["rate_bps"], "a 1 MB transfer keeps the bottleneck busy"
    sampled_bits = (thr["value"] * INTERVAL).sum()
    assert sampled_bits <= bottleneck["bytes_sent"] * 8 + 1e-6
    # Whatever was sent after the last sample is missing from the sum: at most one interval's worth.
    assert bottleneck["bytes_sent"] * 8 - sampled_bits <= bottleneck["rate_bps"] * INTERVAL * 1.01


def test_active_flows_count_the_flows_in_progress_on_the_link():
    """`active_flows` at each sample = flows whose path holds the link, started and not complete,
    counted again here from the flows table; a host's uplink sees only that host's flows."""
    spec = small_dumbbell(output={"series": {"interval": "3ms", "links": ["bottleneck", "l1->rl"]}})
    spec["workload"][0]["load"] = 0.6
    r = fctlab.run(spec)
    ids = dict(zip(r.links["name"], r.links["id"]))
    flows = r.flows.select("start_s", "finish_s", "path")
    for link in ("bottleneck", "l1->rl"):
        got = r.series.filter((pl.col("metric") == "active_flows") & (pl.col("target") == link))
        on_link = flows.filter(pl.col("path").list.contains(ids[link]))
        want = [on_link.filter((pl.col("start_s") <= t) & (pl.col("finish_s") > t)).height for t in got["time_s"]]
        assert got["value"].to_list() == want, link
        assert max(want) >= 2, "the check needs overlapping flows"
    active = r.series.filter(pl.col("metric") == "active_flows")
    assert (
        active.filter(pl.col("target") == "l1->rl")["value"].max()
        < active.filter(pl.col("target") == "bottleneck")["value"].max()
    )


def test_rcp_ports_report_their_fair_rate_and_average_rtt():
    """An `rcp` bottleneck adds `rcp_rate_bps` (within (0, C]) and `rcp_avg_rtt_s` rows per
    sample; the drop-tail access link beside it has none."""
    spec = small_dumbbell(output={"series": {"interval": "10ms", "links": ["bottleneck", "l0->rl"]}})
    spec["queues"] = {"router": {"kind": "rcp", "initial_rtt": "30ms"}}
    spec["transport"] = {"protocol": "rcp"}
    r = fctlab.run(spec)
    wide = r.series.pivot("metric", index=["time_s", "target"], values="value")
    bottleneck = wide.filter(pl.col("target") == "bottleneck")
    assert bottleneck["rcp_rate_bps"].null_count() == 0 and bottleneck.height > 40
    assert 0 < bottleneck["rcp_rate_bps"].min() and bottleneck["rcp_rate_bps"].max() <= 100e6
    assert bottleneck["rcp_rate_bps"].n_unique() > 10, "R moves as flows come and go"
    assert bottleneck["rcp_avg_rtt_s"].is_between(0.01, 0.2).all()
    assert wide.filter(pl.col("target") == "l0->rl")["rcp_rate_bps"].null_count() == bottleneck.height


def test_seed_003_series_appear_in_the_run_result():
    """A JetMax dumbbell reports, per sample, the input and throughput of the bottleneck, its fair
    rate g and flow count N, and each sampled flow's sending rate; a TCP flow reports its sending
    rate beside its window, as cwnd x 8 / SRTT."""
    flows = [{"src": f"l{i}", "dst": f"r{i}", "start": 0.1 * i, "stop": 2.0} for i in range(2)]
    spec = small_dumbbell(
        duration=2.0,
        drain=False,
        queues={"router": {"kind": "jetmax", "limit": "1MB"}},
        transport={"protocol": "jetmax"},
        workload=[{"kind": "long_lived", "flows": flows}],
        output={"series": {"interval": "20ms", "links": ["bottleneck"], "flows": [0, 1]}},
    )
    r = fctlab.run(spec)
    wide = r.series.filter(pl.col("target") == "bottleneck").pivot("metric", index="time_s", values="value")
    assert wide.columns == [
        "time_s",
        "queue_bytes",
        "throughput_bps",
        "input_bps",
        "active_flows",
        "drops_bytes",
        "jetmax_rate_bps",
        "jetmax_flows",
    ]
    late = wide.filter(pl.col("time_s") > 1.0)
    capacity = r.links.filter(pl.col("name") == "bottleneck")["rate_bps"].item()
    assert late["jetmax_flows"].mean() == pytest.approx(2.0, rel=0.05)
    assert late["jetmax_rate_bps"].mean() == pytest.approx(0.98 * capacity / 2, rel=0.05)
    # Nothing is dropped: what the port took in and did not send is in its queue, or the unsent
    # part of the packet in serialization (at most one packet of 1500 B).
    assert r.links.filter(pl.col("name") == "bottleneck")["drops_pkts"].item() == 0
    growth = wide["queue_bytes"].diff().fill_null(wide["queue_bytes"][0]) * 8
    assert ((wide["input_bps"] - wide["throughput_bps"]) * 0.02 - growth).abs().max() <= 1500 * 8
    assert (growth != 0).any() and (wide["input_bps"] != wide["throughput_bps"]).any()
    rates = r.series.filter(pl.col("metric") == "send_rate_bps").pivot("target", index="time_s", values="value")
    assert rates.columns == ["time_s", "flow0", "flow1"]
    for f in ("flow0", "flow1"):
        assert rates.filter(pl.col("time_s") > 1.0)[f].mean() == pytest.approx(0.98 * capacity / 2, rel=0.05)
    assert r.series.filter(pl.col("metric") == "cwnd_bytes").height == 0, "paced senders have no window"

    tcp = run_with_series().series.filter(pl.col("target") == "flow0")
    tcp = tcp.pivot("metric", index="time_s", values="value")
    assert tcp.columns == ["time_s", "cwnd_bytes", "send_rate_bps", "acked_bytes"]
    assert tcp["acked_bytes"].is_sorted() and tcp["acked_bytes"][-1] > 0, "the flow's progress"
    assert tcp["send_rate_bps"][0] == 0.0, "no RTT sample at the first interval"
    assert (tcp["send_rate_bps"] > 0).sum() > 5


def test_no_series_without_output_series():
    """Without [output.series] the series table is empty but has its columns."""
    r = fctlab.run(small_dumbbell())
    assert r.series.height == 0 and r.series.columns == ["time_s", "metric", "target", "value"]


def test_the_quickstart_bottleneck_never_reports_more_than_its_rate():
    """docs/examples/quickstart.toml: its 1 Gb/s bottleneck reported up to 2.01 Gb/s when a drop-tail
    port counted bytes at admission; the serialized bits of each 10 ms interval stay within 1 Gb/s."""
    r = fctlab.run(REPO / "docs" / "examples" / "quickstart.toml", overrides={"duration": "3s"})
    thr = r.series.filter((pl.col("metric") == "throughput_bps") & (pl.col("target") == "bottleneck"))["value"]
    assert thr.len() > 100
    assert thr.max() <= 1e9, thr.max()
    assert thr.max() > 0.95e9, "the bottleneck gets busy, so the bound is tight"
