"""Packet captures (`[output.pcap]`, docs/pcap.md) read back by tshark, from the compiled core.

Every captured frame must parse (no malformed packet, no expert error), and what tshark's TCP
analysis counts must agree with fctlab's own counters: packets per captured link with the links
table's `pkts_sent`, payload bytes per flow with its size plus `retx_bytes`, data segments,
retransmitted segments (and bytes) and ACKs with SACK blocks per flow with what the endpoints
counted (`Simulation.flow_counters`). With the Lua dissector (tools/wireshark/fctlab.lua)
the shim's fields must be the values fctlab logged: RCP's rate against the router's rate in the
series, HPCC's records against the time the port stamped them.

tshark must be installed (scripts/test.sh installs it on Debian); without it these tests fail.
"""

from __future__ import annotations

import importlib
import shutil
import struct
import subprocess
from collections import defaultdict
from pathlib import Path

import polars as pl
import pytest

import fctlab
from fctlab.errors import ScenarioError
from fctlab.procs import Interrupted
from realcore import REPO, fake  # noqa: F401  (fake: the compiled core)

LUA = REPO / "tools" / "wireshark" / "fctlab.lua"
PORT_BASE = 49152


def tshark(path: Path, display_filter: str, fields: list[str], lua: bool = False) -> list[list[str]]:
    """The rows of `fields` of the frames of `path` matching `display_filter`."""
    exe = shutil.which("tshark")
    assert exe, "tshark is not installed (Debian: apt-get install tshark; scripts/test.sh does it)"
    argv = [exe, "-n", "-r", str(path), "-Y", display_filter, "-T", "fields", "-E", "separator=\t"]
    if lua:
        argv += ["-X", f"lua_script:{LUA}"]
    for f in fields:
        argv += ["-e", f]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return [line.split("\t") for line in out.stdout.splitlines()]


def flow_of(sport: str, dport: str, forward: bool = True) -> int:
    """The flow id of a segment's ports (crates/fctlab-core/src/capture/frame.rs)."""
    s, r = (int(sport), int(dport)) if forward else (int(dport), int(sport))
    return (s - PORT_BASE) | (r - PORT_BASE) << 14


def lossy_dumbbell(**output) -> dict:
    """Four TCP flows through a 100 Mb/s bottleneck with a 20-packet buffer: losses, SACK
    recoveries and some timeouts."""
    flows = [
        {"src": f"l{i}", "dst": f"r{i}", "start": f"{i}ms", "size": s}
        for i, s in enumerate([600_000, 400_000, 200_000, 50_000])
    ]
    return {
        "name": "pcap-lossy",
        "seed": 7,
        "duration": "200ms",
        "topology": {
            "kind": "dumbbell",
            "hosts_per_side": 4,
            "bottleneck_rate": "100Mbps",
            "bottleneck_delay": "5ms",
            "access_rate": "1Gbps",
            "access_delay": "1ms",
        },
        "queues": {"router": {"kind": "droptail", "limit_packets": 20}},
        "transport": {"protocol": "tcp", "cc": "newreno"},
        "workload": [{"kind": "flows", "flows": flows}],
        "output": output,
    }


#: The senders' access links (interfaces 0-3: every transmission of a flow crosses its own, none
#: dropped before) and the receivers' (4-7: every ACK they send).
ACCESS = [f"l{i}->rl" for i in range(4)] + [f"r{i}->rr" for i in range(4)]


def run_capturing(spec: dict, path: Path) -> tuple[fctlab.Result, dict]:
    """Runs `spec` through the core's own calls, capturing to `path`; (result, flow counters)."""
    sim, spec = importlib.import_module("fctlab.run").build(spec)
    sim.start_capture(str(path))
    while not sim.run_until(1e9):
        pass
    sim.finish_capture()
    return fctlab.Result.from_core(sim.results(), spec), sim.flow_counters()


def test_every_frame_parses_and_tcp_analysis_agrees_with_fctlab_s_counters(tmp_path):
    spec = lossy_dumbbell(pcap={"links": [*ACCESS, "bottleneck"]})
    cap = tmp_path / "capture.pcapng"
    r, counters = run_capturing(spec, cap)
    assert fctlab.run_to(spec, tmp_path / "out").capture_file.read_bytes() == cap.read_bytes(), (
        "run_to writes the same capture"
    )
    bad = tshark(cap, "_ws.malformed || _ws.expert.severity == error", ["frame.number", "_ws.expert.message"])
    assert bad == [], f"frames tshark cannot read: {bad[:5]}"

    # Packets per interface = packets the link put on the wire (no random loss; drained run).
    per_if = defaultdict(int)
    for (i,) in tshark(cap, "frame", ["frame.interface_id"]):
        per_if[int(i)] += 1
    sent = dict(zip(r.links["name"], r.links["pkts_sent"]))
    names = [*ACCESS, "bottleneck"]
    assert {names[i]: n for i, n in per_if.items()} == {n: sent[n] for n in names}

    # Per flow, on its sender's access link: the data segments tshark counts are the packets
    # the sender sent, the payload bytes its size plus its retransmitted bytes, and the segments
    # tshark finds retransmitted the sender's retransmissions, packets and bytes. Wireshark
    # calls a retransmission sent within one RTT of newer data "out-of-order"; on the sender's
    # own link nothing is reordered, so both count.
    assert r.flows["retx_bytes"].sum() > 0, "the scenario should lose packets"
    segs, payload, retx, retx_bytes, sacks = (defaultdict(int) for _ in range(5))
    rows = tshark(
        cap,
        "frame.interface_id < 4 && tcp.len > 0",
        ["tcp.srcport", "tcp.dstport", "tcp.len", "tcp.analysis.retransmission", "tcp.analysis.out_of_order"],
    )
    for sport, dport, n, is_retx, ooo in rows:
        f = flow_of(sport, dport)
        segs[f] += 1
        payload[f] += int(n)
        if is_retx or ooo:
            retx[f] += 1
            retx_bytes[f] += int(n)
    # Per flow, on its receiver's access link: the ACKs carrying SACK blocks are the ones the
    # receiver counted, and each block lies above the cumulative ACK it travels with.
    rows = tshark(
        cap,
        "frame.interface_id >= 4 && frame.interface_id < 8 && tcp.options.sack_le",
        ["tcp.srcport", "tcp.dstport", "tcp.ack", "tcp.options.sack_le", "tcp.options.sack_re"],
    )
    for sport, dport, ack, les, res in rows:
        sacks[flow_of(sport, dport, forward=False)] += 1
        for le, re in zip(les.split(","), res.split(",")):
            assert int(ack) < int(le) < int(re)
    assert sum(sacks.values()) > 0, "losses should make the receivers send SACK blocks"
    for row in r.flows.iter_rows(named=True):
        f = row["id"]
        assert segs[f] == counters["data_pkts"][f], f"flow {f}: data segments"
        assert payload[f] == row["size_bytes"] + row["retx_bytes"], f"flow {f}: payload bytes"
        assert retx[f] == counters["retx_pkts"][f], f"flow {f}: retransmitted segments"
        assert retx_bytes[f] == row["retx_bytes"], f"flow {f}: retransmitted bytes"
        assert sacks[f] == counters["sack_acks"][f], f"flow {f}: ACKs with SACK blocks"


def test_the_same_run_writes_the_same_bytes(tmp_path):
    spec = lossy_dumbbell(pcap={"links": ["bottleneck"], "flows": [1]})
    fctlab.run_to(spec, tmp_path / "a")
    fctlab.run_to(spec, tmp_path / "b")
    a, b = (tmp_path / d / "capture.pcapng" for d in "ab")
    assert a.read_bytes() == b.read_bytes()
    flows = {flow_of(s, d) for s, d in tshark(a, "tcp.len > 0", ["tcp.srcport", "tcp.dstport"])}
    assert flows == {1}, "only the flow asked for"


def test_headers_only_by_default_and_payload_bytes_keeps_more(tmp_path):
    spec = lossy_dumbbell(pcap={"links": ["bottleneck"]})
    fctlab.run_to(spec, tmp_path / "h")
    spec["output"]["pcap"]["payload_bytes"] = 100
    fctlab.run_to(spec, tmp_path / "p")
    for d, kept in (("h", 0), ("p", 100)):
        rows = tshark(tmp_path / d / "capture.pcapng", "tcp.len == 1460", ["frame.cap_len", "frame.len"])
        assert rows
        assert {(int(c), int(n)) for c, n in rows} == {(66 + kept, 66 + 1460)}, d


def test_syns_announce_each_flows_mss_and_tshark_notes_none_missing(tmp_path):
    """SYN and SYN-ACK carry the MSS option, the flow's own `mss`: tshark's expert info used to
    note "The SYN packet does not contain a MSS option" on every one (150 notes in a small
    capture). Two transports, so that the option is the flow's, not a constant."""
    spec = lossy_dumbbell(pcap={"links": ["bottleneck", "bottleneck_rev"]})
    spec["transports"] = {"small": {"protocol": "tcp", "mss": 536}}
    last = spec["workload"][0]["flows"].pop()  # flow 3, the last to start
    spec["workload"].append({"kind": "flows", "transport": "small", "flows": [last]})
    r = fctlab.run_to(spec, tmp_path)
    assert r.flows.filter(pl.col("fct_s").is_null()).height == 0
    cap = r.capture_file
    assert tshark(cap, "tcp.options.mss.absent || tcp.options.mss.present", ["frame.number"]) == []
    notes = tshark(cap, "_ws.expert.severity == note", ["_ws.expert.message"])
    assert not [n for n in notes if "MSS" in n[0]], notes[:5]
    mss = {}
    for sport, dport, ack, value in tshark(
        cap, "tcp.flags.syn == 1", ["tcp.srcport", "tcp.dstport", "tcp.flags.ack", "tcp.options.mss_val"]
    ):
        forward = ack in ("0", "False")
        mss.setdefault(flow_of(sport, dport, forward), set()).add(int(value))
    assert mss == {0: {1460}, 1: {1460}, 2: {1460}, 3: {536}}, mss
    assert tshark(cap, "_ws.malformed || _ws.expert.severity == error", ["frame.number"]) == []


def test_nanosecond_timestamps_and_one_interface_per_link(tmp_path):
    fctlab.run_to(lossy_dumbbell(pcap={"links": ["bottleneck", "bottleneck_rev"]}), tmp_path)
    out = subprocess.run(
        ["capinfos", "-T", "-r", "-a", str(tmp_path / "capture.pcapng")], capture_output=True, text=True
    )
    # capinfos is in tshark's package (wireshark-common).
    info = subprocess.run(["capinfos", str(tmp_path / "capture.pcapng")], capture_output=True, text=True).stdout
    assert out.returncode == 0 and "nanoseconds" in info and "Number of interfaces in file: 2" in info, info
    # The first SYN crosses the bottleneck after 1 ms of access link and 5 ms of bottleneck
    # delay, plus serialization: a nanosecond clock shows it.
    (t,) = tshark(tmp_path / "capture.pcapng", "frame.number == 1", ["frame.time_epoch"])[0]
    assert t.startswith("0.00600") and len(t.split(".")[1]) == 9, t


def test_the_shim_carries_rcp_s_rate_as_the_router_set_it(tmp_path):
    spec = lossy_dumbbell(pcap={"links": ["bottleneck"]}, series={"interval": "500us", "links": ["bottleneck"]})
    spec["queues"] = {"router": {"kind": "rcp", "limit_packets": 200}}
    spec["transport"] = {"protocol": "rcp"}
    r = fctlab.run_to(spec, tmp_path)
    rows = tshark(r.capture_file, "fctlab.tag == 1", ["frame.time_epoch", "fctlab.rcp.rate"], lua=True)
    assert len(rows) > 100, "every forward RCP packet carries the header"
    # Without the dissector nothing names the shim, and TCP still parses every frame.
    assert tshark(r.capture_file, "_ws.malformed || _ws.expert.severity == error", ["frame.number"]) == []
    rates = r.series.filter((pl.col("metric") == "rcp_rate_bps") & (pl.col("target") == "bottleneck"))
    router_kbps = {int(v // 1000) for v in rates["value"]}
    seen = {int(rate) for _, rate in rows}
    # The bottleneck is the path's slowest RCP port: after it, a packet's rate is the rate the
    # router held when the packet left, which the series sampled (it changes once per control
    # interval, far longer than the sampling interval).
    assert seen - {2**32 - 1} <= router_kbps, sorted(seen - router_kbps)[:10]
    assert len(seen) > 3, "the router's rate moved during the run"


def test_hpcc_records_carry_the_time_the_bottleneck_port_stamped(tmp_path):
    spec = lossy_dumbbell(pcap={"links": ["bottleneck"]})
    spec["queues"] = {"router": {"kind": "hpcc", "limit_packets": 200}}
    spec["transport"] = {"protocol": "hpcc", "line_rate": "1Gbps"}
    r = fctlab.run_to(spec, tmp_path)
    rows = tshark(
        r.capture_file,
        "fctlab.tag == 10 && tcp.len > 0",
        ["frame.time_epoch", "fctlab.hpcc.nhop", "fctlab.hpcc.hop.ts", "frame.len"],
        lua=True,
    )
    assert len(rows) > 100
    delay_ns = 5_000_000
    for t, nhop, ts, _ in rows:
        # The data packet left the access port (host NIC, not HPCC) and the bottleneck's HPCC
        # port: one record, stamped when the packet left that port. The capture sees it at the
        # far end: after its serialization (at most 1500 B at 100 Mb/s, 120 us) and the delay.
        assert nhop == "1"
        arrival_ns = round(float(t) * 1e9)
        left = int(ts)
        since = (arrival_ns - delay_ns - left) % (1 << 24)
        assert 0 <= since <= 125_000, (t, ts, since)


def test_bad_capture_tables_name_the_field_and_the_value():
    cases = [
        ({"links": ["nowhere"]}, "output.pcap.links[0]", "nowhere"),
        ({"links": []}, "output.pcap.links", "empty"),
        ({"links": ["bottleneck", "bottleneck"]}, "output.pcap.links[1]", "already captured"),
        ({"links": ["bottleneck"], "payload_bytes": 10_000}, "output.pcap.payload_bytes", "10000"),
        ({"links": ["bottleneck"], "flows": [99]}, "output.pcap.flows[0]", "no flow 99"),
        ({"links": ["bottleneck"], "workloads": [3]}, "output.pcap.workloads[0]", "no workload entry 3"),
        ({"links": ["bottleneck"], "snaplen": 3}, "snaplen", "unknown field"),
    ]
    for pcap, field, text in cases:
        with pytest.raises(ScenarioError) as e:
            fctlab.run(lossy_dumbbell(pcap=pcap))
        assert field in str(e.value) and text in str(e.value), (pcap, str(e.value))


def test_an_interrupted_run_keeps_its_packets_and_the_earlier_capture(tmp_path):
    spec = lossy_dumbbell(pcap={"links": ["bottleneck"]})
    fctlab.run_to(spec, tmp_path)
    before = (tmp_path / "capture.pcapng").read_bytes()
    steps = iter(range(100))
    spec["seed"] = 8
    with pytest.raises(Interrupted) as e:
        fctlab.run_to(spec, tmp_path, stop=lambda: next(steps) == 20)
    assert (tmp_path / "capture.pcapng").read_bytes() == before, "an earlier run's capture is untouched"
    partial = tmp_path / "capture.partial.pcapng"
    assert partial.is_file() and "capture.partial.pcapng" in "".join(getattr(e.value.__cause__, "__notes__", []))
    assert tshark(partial, "_ws.malformed || _ws.expert.severity == error", ["frame.number"]) == []
    assert (
        0
        < len(tshark(partial, "frame", ["frame.number"]))
        < len(tshark(tmp_path / "capture.pcapng", "frame", ["frame.number"]))
    )
    assert not list(tmp_path.glob(".capture*")), "no temporary file left"
    fctlab.run_to(spec, tmp_path)
    assert not partial.exists(), "a complete run supersedes the partial capture"


def test_an_in_memory_run_says_it_captured_nothing():
    r = fctlab.run(lossy_dumbbell(pcap={"links": ["bottleneck"]}))
    assert any("output.pcap" in n for n in r.notices), r.notices
    assert r.capture_file is None


def test_ecn_marks_travel_in_the_ip_header_and_the_echo_in_tcp_flags(tmp_path):
    spec = lossy_dumbbell(
        pcap={"links": ["bottleneck", "bottleneck_rev"]}, series={"interval": "1ms", "links": ["bottleneck"]}
    )
    spec["queues"] = {"router": {"kind": "step", "k_packets": 10, "limit_packets": 200}}
    spec["transport"] = {"protocol": "tcp", "cc": "dctcp"}
    r = fctlab.run_to(spec, tmp_path)
    marks = r.series.filter((pl.col("metric") == "ecn_marks") & (pl.col("target") == "bottleneck"))["value"].max()
    assert marks > 0, "the step queue should mark"
    # Every packet the bottleneck marked CE crossed it, and only those carry CE after it.
    ce = tshark(r.capture_file, "frame.interface_id == 0 && ip.dsfield.ecn == 3", ["frame.number"])
    assert len(ce) == marks
    assert (
        tshark(r.capture_file, "frame.interface_id == 0 && tcp.len > 0 && ip.dsfield.ecn == 0", ["frame.number"]) == []
    ), "DCTCP's data leaves ECN-capable"
    assert tshark(r.capture_file, "frame.interface_id == 1 && tcp.flags.ece == 1", ["frame.number"]), (
        "the receivers echo the marks"
    )


def test_rc3_s_low_priority_band_travels_in_the_dscp_bits(tmp_path):
    spec = lossy_dumbbell(pcap={"links": ["bottleneck"]})
    spec["queues"] = {"router": {"kind": "prio", "limit_packets": 200}}
    spec["transport"] = {"protocol": "rc3", "cc": "newreno"}
    r = fctlab.run_to(spec, tmp_path)
    dscp = defaultdict(int)
    for (d,) in tshark(r.capture_file, "tcp.len > 0", ["ip.dsfield.dscp"]):
        dscp[int(d)] += 1
    assert dscp[0] > 0 and set(dscp) - {0}, f"RC3 sends low-priority copies in bands 1 and up: {dict(dscp)}"
    assert max(dscp) <= 4, "three buckets: bands 1 to 4 at most"


def test_with_the_whole_payload_kept_every_checksum_verifies(tmp_path):
    spec = lossy_dumbbell(pcap={"links": ["bottleneck", "bottleneck_rev"], "payload_bytes": 9000})
    spec["queues"] = {"router": {"kind": "rcp", "limit_packets": 200}}
    spec["transport"] = {"protocol": "rcp"}
    r = fctlab.run_to(spec, tmp_path)
    exe = shutil.which("tshark")
    assert exe
    argv = [exe, "-n", "-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE", "-r", str(r.capture_file)]
    statuses = subprocess.run(
        [*argv, "-T", "fields", "-e", "ip.checksum.status", "-e", "tcp.checksum.status"], capture_output=True, text=True
    ).stdout.split()
    assert statuses and set(statuses) == {"1"}, "1: good (0 bad, 2 unverified)"


#: Explicit protocols: (transport, router queue, the shim's forward tag, its echo tag or None).
EXPLICIT = {
    "xcp": ({"protocol": "xcp"}, {"kind": "xcp", "limit_packets": 200}, 3, 4),
    "jetmax": ({"protocol": "jetmax"}, {"kind": "jetmax", "limit_packets": 200}, 5, 6),
    "piqi": ({"protocol": "piqi"}, {"kind": "piqi", "limit_packets": 200}, 7, 8),
    "pfabric": ({"protocol": "tcp", "cc": "pfabric"}, {"kind": "pfabric", "limit_packets": 200}, 9, None),
    "hpcc": ({"protocol": "hpcc", "line_rate": "1Gbps"}, {"kind": "hpcc", "limit_packets": 200}, 10, 11),
}


@pytest.mark.parametrize("protocol", list(EXPLICIT))
def test_every_explicit_header_rides_in_a_shim_the_dissector_reads(tmp_path, protocol):
    transport, queue, fwd, echo = EXPLICIT[protocol]
    spec = lossy_dumbbell(pcap={"links": ["bottleneck", "bottleneck_rev"]})
    spec["queues"] = {"router": queue}
    spec["transport"] = transport
    r = fctlab.run_to(spec, tmp_path)
    # With the dissector loaded too, nothing is malformed and no Lua error is raised.
    bad = tshark(r.capture_file, "_ws.malformed || _ws.expert.severity == error", ["_ws.expert.message"], lua=True)
    assert bad == [], bad[:3]
    tags = defaultdict(int)
    rows = tshark(r.capture_file, "tcp.flags.syn == 0", ["frame.interface_id", "fctlab.tag", "tcp.len"], lua=True)
    for iface, tag, data in rows:
        tags[(iface, tag, int(data) > 0)] += 1
    # Every data packet (retransmissions included) carries the forward header, every ACK the
    # echo (pFabric's ACKs carry nothing), wherever the shim rides.
    assert {k for k in tags if k[0] == "0"} == {("0", str(fwd), True)}, dict(tags)
    assert tags[("0", str(fwd), True)] > 100
    assert {k for k in tags if k[0] == "1"} == {("1", str(echo) if echo else "", False)}, dict(tags)


@pytest.mark.parametrize(
    ("protocol", "metric", "field"),
    [("jetmax", "jetmax_rate_bps", "fctlab.jetmax.rate"), ("piqi", "piqi_rate_bps", "fctlab.piqi.rate")],
)
def test_the_shim_carries_the_router_s_rate(tmp_path, protocol, metric, field):
    transport, queue, fwd, _ = EXPLICIT[protocol]
    spec = lossy_dumbbell(pcap={"links": ["bottleneck"]}, series={"interval": "500us", "links": ["bottleneck"]})
    spec["queues"] = {"router": queue}
    spec["transport"] = transport
    r = fctlab.run_to(spec, tmp_path)
    rows = tshark(r.capture_file, f"fctlab.tag == {fwd} && tcp.len > 0", [field], lua=True)
    seen = {float(v) for (v,) in rows if v not in ("inf", "")}
    series = r.series.filter((pl.col("metric") == metric) & (pl.col("target") == "bottleneck"))["value"]
    # The shim holds the rate as a 32-bit float: compare at that precision.
    router = {float(struct.unpack("f", struct.pack("f", v))[0]) for v in series}
    assert seen and len(seen - router) <= len(seen) // 20, sorted(seen - router)[:10]


def test_a_partitioned_run_refuses_a_capture():
    spec = lossy_dumbbell(pcap={"links": ["bottleneck"]})
    spec["parallel"] = {"partitions": 2}
    with pytest.raises(ScenarioError, match=r"parallel\.partitions.*output\.pcap"):
        fctlab.run(spec)
