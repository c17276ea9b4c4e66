"""fctlab.tools.hpcc_files: HPCC's ns-3 topology and flow files run through the compiled core, and the
run written back as HPCC's fct.txt, every field checked against values worked out by hand."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from types import SimpleNamespace

import polars as pl
import pytest

import fctlab
from fctlab.errors import ScenarioError
from fctlab.tools import hpcc_files
from realcore import REPO, cli, fake  # noqa: F401  (fake: the compiled core, not conftest's stand-in)

# Hosts 0 and 1 on switch 4, hosts 2 and 3 on switch 5; the switches joined at 40 Gb/s. The
# delays are written in three of ns-3's spellings of one microsecond, and one of two.
TOPOLOGY = """\
6 2 5
4 5
0 4 100Gbps 0.001ms 0
1 4 100Gbps 1000ns 0
4 5 40Gbps 0.002ms 0
5 2 25Gbps 1us 0
5 3 25Gbps 0.001ms 0
"""

# src dst pg dport size start_time. Flows 0 and 2 share the pair 0 -> 2 (source ports 10000 and
# 10001); flow 2 is an "incast" flow for HPCC's analysis (dport 200).
FLOWS = """\
5
0 2 3 100 2500 2
1 3 3 100 1000000 2.0000001
0 2 3 200 1 2.0000001
2 0 3 100 30000 2.000003
1 0 3 100 4500 2.5
"""

# Start times in ns as HPCC's clock has them: ns-3 truncates the double's exact value, and the
# doubles nearest 2.0000001 and 2.000003 lie just below them (2.00000009999999994... and
# 2.00000299999999979...), so they land one nanosecond early.
STARTS_NS = [2_000_000_000, 2_000_000_099, 2_000_000_099, 2_000_002_999, 2_500_000_000]
SIZES = [2500, 1_000_000, 1, 30000, 4500]
DPORTS = [100, 100, 200, 100, 100]
SPORTS = [10000, 10000, 10001, 10000, 10000]
# HPCC's address of node i: 0x0b000001 + (i / 256) * 0x10000 + (i % 256) * 0x100.
IPS = {0: "0b000001", 1: "0b000101", 2: "0b000201", 3: "0b000301"}
ENDS = [(0, 2), (1, 3), (0, 2), (2, 0), (1, 0)]


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write(tmp_path / "topology.txt", TOPOLOGY), write(tmp_path / "flow.txt", FLOWS)


def parse_fct(path: Path) -> list[dict]:
    """fct.txt read back by hand: eight fields per line, as third.cc prints them."""
    rows = []
    for line in path.read_text().splitlines():
        f = line.split(" ")
        assert len(f) == 8, line
        assert len(f[0]) == 8 and len(f[1]) == 8, line  # "%08x"
        rows.append(
            {
                "sip": f[0],
                "dip": f[1],
                "sport": int(f[2]),
                "dport": int(f[3]),
                "size": int(f[4]),
                "start": int(f[5]),
                "fct": int(f[6]),
                "standalone": int(f[7]),
            }
        )
    return rows


# --- reading ---------------------------------------------------------------------------------


def test_topology_is_a_graph_with_hpcc_node_ids(files):
    topo = hpcc_files.read_topology(files[0])
    assert topo["kind"] == "graph"
    assert [n["name"] for n in topo["nodes"]] == ["n0", "n1", "n2", "n3", "n4", "n5"]
    assert [n["kind"] for n in topo["nodes"]] == ["host"] * 4 + ["router"] * 2
    # Every spelling of 1 us is 1 us; rates are whole Gb/s.
    assert topo["links"] == [
        {"a": "n0", "b": "n4", "rate": "100Gbps", "delay": "1us"},
        {"a": "n1", "b": "n4", "rate": "100Gbps", "delay": "1us"},
        {"a": "n4", "b": "n5", "rate": "40Gbps", "delay": "2us"},
        {"a": "n5", "b": "n2", "rate": "25Gbps", "delay": "1us"},
        {"a": "n5", "b": "n3", "rate": "25Gbps", "delay": "1us"},
    ]


def test_flows_keep_file_order_and_hpcc_start_times(files):
    workload = hpcc_files.read_flows(files[1], hpcc_files.read_topology(files[0]))
    assert len(workload) == 1 and workload[0]["kind"] == "flows"
    flows = workload[0]["flows"]
    assert [(f["src"], f["dst"]) for f in flows] == [(f"n{a}", f"n{b}") for a, b in ENDS]
    assert [f["size"] for f in flows] == SIZES
    assert [f["start"] for f in flows] == [f"{ns}ns" for ns in STARTS_NS]


def test_ns3_time_conversion_truncates_as_ns3_does():
    """Worked out by hand from ns-3's 64.64 fixed point (doubles truncated, not rounded)."""
    assert hpcc_files.ns3_time_ns(0.001, -3) == 1000  # "0.001ms"
    assert hpcc_files.ns3_time_ns(2.5, 0) == 2_500_000_000
    # 0.0001 s: its fraction times 2^64 is 1844674407370955.16..., truncated, so a hair under.
    assert hpcc_files.ns3_time_ns(0.0001, 0) == 99_999
    assert hpcc_files.ns3_time_ns(1500.0, -12) == 1  # "1500ps": whole ns only
    assert hpcc_files.ns3_time_ns(1000.0, -12) == 1  # "1000ps": the inverse is rounded up to make this 1
    assert hpcc_files.ns3_time_ns(999.0, -12) == 0


def test_node_ip_is_hpcc_encoding():
    assert f"{hpcc_files.node_ip(0):08x}" == "0b000001"
    assert f"{hpcc_files.node_ip(17):08x}" == "0b001101"
    assert f"{hpcc_files.node_ip(300):08x}" == "0b012c01"  # 300 = 1 x 256 + 44 (0x2c)


def test_scenario_is_runnable_and_says_how(files):
    spec = hpcc_files.scenario(*files, transport={"cc": "dctcp"})
    assert spec["routing"] == {"ecmp": True} and spec["drain"] is True
    assert spec["duration"] == f"{STARTS_NS[-1] + 1}ns"  # every flow starts inside it: all measured
    # The flows' priority group (3 in every line) is their priority: their class in a fabric.
    assert spec["transport"] == {"mss": 1000, "header": 48, "priority": 3, "cc": "dctcp"}
    assert "loss" not in spec and "transports" not in spec


def test_priority_groups_become_priorities_and_keep_the_flows_in_file_order(tmp_path):
    """Flows of another pg than the first flow's name a transport of that priority; the entries
    follow the file so flow i is still line i (ties in start time included), and write_fct
    still knows the packet sizes."""
    mixed = FLOWS.replace("0 2 3 200 1", "0 2 1 200 1").replace("2 0 3 100", "2 0 1 100")
    spec = hpcc_files.scenario(write(tmp_path / "t.txt", TOPOLOGY), write(tmp_path / "f.txt", mixed))
    assert spec["transport"]["priority"] == 3
    assert spec["transports"] == {"pg1": {"priority": 1}}
    entries = [(w.get("transport"), [f["size"] for f in w["flows"]]) for w in spec["workload"]]
    assert entries == [(None, [2500, 1000000]), ("pg1", [1, 30000]), (None, [4500])]
    result = fctlab.run(spec)
    flows = result.flows.sort("id")
    assert flows["size_bytes"].to_list() == [2500, 1000000, 1, 30000, 4500]
    assert flows["protocol"].to_list()[2:4] == ["pg1", "pg1"]
    out = tmp_path / "fct.txt"
    hpcc_files.write_fct(result, out, tmp_path / "f.txt")
    assert len(parse_fct(out)) == 5


def test_error_rates_become_loss_on_both_directions(tmp_path):
    topo = write(tmp_path / "t.txt", TOPOLOGY.replace("4 5 40Gbps 0.002ms 0", "4 5 40Gbps 0.002ms 0.001"))
    spec = hpcc_files.scenario(topo, write(tmp_path / "f.txt", FLOWS))
    assert spec["loss"] == [{"link": "n4->n5", "p": 0.001}, {"link": "n5->n4", "p": 0.001}]


def test_crlf_files_and_extra_lines_when_asked(tmp_path):
    """A byte-order mark is no field. HPCC's own mix/topology.txt is CRLF and holds more links
    than its header declares; its simulator reads the declared count and ignores the rest."""
    topo = write(tmp_path / "t.txt", "\ufeff" + (TOPOLOGY + "0 5 1Gbps 0 0\n").replace("\n", "\r\n"))
    with pytest.raises(ScenarioError, match=r"t\.txt line 8: expected the end of the file after the 5 links"):
        hpcc_files.read_topology(topo)
    assert len(hpcc_files.read_topology(topo, extra_lines="ignore")["links"]) == 5


# --- the round trip --------------------------------------------------------------------------


def test_round_trip_through_the_core(files, tmp_path):
    topo, flow_file = files
    result = fctlab.run(hpcc_files.scenario(topo, flow_file))
    flows = result.flows.sort("id")
    # Flow i of the file is fctlab's flow i.
    assert flows["src"].to_list() == [f"n{a}" for a, _ in ENDS]
    assert flows["size_bytes"].to_list() == SIZES
    assert [round(s * 1e9) for s in flows["start_s"]] == STARTS_NS
    assert flows["fct_s"].null_count() == 0

    out = tmp_path / "fct.txt"
    assert hpcc_files.write_fct(result, out, flow_file) == 5
    rows = parse_fct(out)
    assert len(rows) == 5
    by_flow, written = {}, []
    for row in rows:
        matches = [
            i for i, (a, b) in enumerate(ENDS) if (IPS[a], IPS[b], SPORTS[i]) == (row["sip"], row["dip"], row["sport"])
        ]
        assert len(matches) == 1, row  # (sip, dip, sport) names one flow
        by_flow[matches[0]] = row
        written.append(matches[0])
    assert sorted(by_flow) == [0, 1, 2, 3, 4]
    for i, row in by_flow.items():
        assert row["dport"] == DPORTS[i]
        assert row["size"] == SIZES[i]
        assert row["start"] == STARTS_NS[i]
        # HPCC's simulator ends a flow when its last ACK reaches the sender.
        assert row["fct"] == round((flows["acked_s"][i] - flows["start_s"][i]) * 1e9)
    # Lines in completion order, as HPCC writes them.
    acked = flows["acked_s"].to_list()
    assert [acked[i] for i in written] == sorted(acked)

    # standalone_fct by hand. Flow 0, host 0 -> host 2: links 0-4 (100 Gb/s, 1 us), 4-5 (40 Gb/s,
    # 2 us), 5-2 (25 Gb/s, 1 us). Base RTT: twice the 4 us of delay, plus one 1000-byte payload
    # per link (80 + 200 + 320 ns). Bytes: 2500 + 3 packets x 48 = 2644, at 25 Gb/s: 846.08 ns.
    assert by_flow[0]["standalone"] == 2 * (1000 + 2000 + 1000) + (80 + 200 + 320) + 846
    # Flow 1, host 1 -> host 3, the same kinds of links: 1,000,000 + 1000 x 48 bytes at 25 Gb/s.
    assert by_flow[1]["standalone"] == 8000 + 600 + 1_048_000 * 8 // 25
    # Flow 4, host 1 -> host 0 through switch 4 only: 2 x 2 us + 2 x 80 ns; 4500 + 5 x 48 bytes
    # at 100 Gb/s = 379.2 ns.
    assert by_flow[4]["standalone"] == 4000 + 160 + 379


def test_the_sender_sees_the_end_a_return_trip_after_the_receiver(files, tmp_path):
    """fct.txt ends a flow at the last ACK's arrival (acked_s); `completion="receiver"` writes
    fct_s. The ACK of flow 0 (host 0 -> host 2) comes back over 4 us of propagation and three
    ACK serializations, so the two differ by at least 4 us and at most a few us more."""
    result = fctlab.run(hpcc_files.scenario(*files))
    flows = result.flows.sort("id")
    sender, receiver = tmp_path / "sender.txt", tmp_path / "receiver.txt"
    hpcc_files.write_fct(result, sender, files[1])
    hpcc_files.write_fct(result, receiver, files[1], completion="receiver")
    by_size = {r["size"]: r["fct"] for r in parse_fct(receiver)}
    assert sorted(by_size.items()) == sorted((s, round(f * 1e9)) for s, f in zip(flows["size_bytes"], flows["fct_s"]))
    lag = {r["size"]: r["fct"] - by_size[r["size"]] for r in parse_fct(sender)}
    assert 4000 <= lag[SIZES[0]] <= 6000, lag
    assert all(v > 0 for v in lag.values()), lag
    with pytest.raises(ScenarioError, match=r"completion: expected one of sender, receiver, got 'ack'"):
        hpcc_files.write_fct(result, sender, files[1], completion="ack")
    # A run without the sender's completion (as an emulation's) is refused, not written empty.
    no_acks = SimpleNamespace(
        flows=result.flows.with_columns(acked_s=None), links=result.links, scenario=result.scenario
    )
    with pytest.raises(ScenarioError, match=r"recorded no sender completion .*--completion receiver"):
        hpcc_files.write_fct(no_acks, sender, files[1])
    assert hpcc_files.write_fct(no_acks, receiver, files[1], completion="receiver") == 5


def test_standalone_fctlab_writes_the_ideal_fct(files, tmp_path):
    result = fctlab.run(hpcc_files.scenario(*files))
    out = tmp_path / "fct.txt"
    hpcc_files.write_fct(result, out, files[1], standalone="fctlab")
    ideal = {s: round(i * 1e9) for s, i in zip(result.flows["size_bytes"], result.flows["ideal_fct_s"])}
    rows = parse_fct(out)
    assert {r["size"]: r["standalone"] for r in rows} == ideal


def test_incomplete_flows_are_left_out(files, tmp_path):
    """The last flow (4500 B at 2.5 s, about 10 us) is cut off by a hard stop 5 us after it starts."""
    spec = hpcc_files.scenario(*files)
    result = fctlab.run(spec, overrides={"max_time": "2500005us"})
    assert result.flows.filter(pl.col("fct_s").is_null())["id"].to_list() == [4]
    out = tmp_path / "fct.txt"
    assert hpcc_files.write_fct(result, out, files[1]) == 4
    assert sorted(r["size"] for r in parse_fct(out)) == sorted(SIZES[:4])


def test_write_fct_refuses_another_flow_file(files, tmp_path):
    result = fctlab.run(hpcc_files.scenario(*files))
    other = write(tmp_path / "other.txt", FLOWS.replace("1 0 3 100 4500 2.5", "1 0 3 100 4501 2.5"))
    with pytest.raises(ScenarioError, match=r"other\.txt line 6: flow 4 is 1 -> 0, 4501 B .* expected the flow file"):
        hpcc_files.write_fct(result, tmp_path / "fct.txt", other)
    assert not (tmp_path / "fct.txt").exists()


def test_packet_sizes_follow_the_run(files, tmp_path):
    """The formula's payload and header are the run's mss and header unless given."""
    result = fctlab.run(hpcc_files.scenario(*files, transport={"mss": 500, "header": 40}))
    out = tmp_path / "fct.txt"
    hpcc_files.write_fct(result, out, files[1])
    row = next(r for r in parse_fct(out) if r["size"] == 2500)
    # Five 500-byte packets: 2 x 4 us + (40 + 100 + 160) ns per-link payload, (2500 + 5 x 40) B at 25 Gb/s.
    assert row["standalone"] == 8000 + 300 + 864


# --- malformed files -------------------------------------------------------------------------

TOPO_CASES = {
    "link count short": (
        TOPOLOGY.replace("6 2 5", "6 2 6"),
        ["line 1", "`link_num`", "6 link lines", "got 5 (the file ends at line 7)"],
    ),
    "unknown node": (
        TOPOLOGY.replace("5 3 25Gbps", "5 7 25Gbps"),
        ["line 7", "`dst`", "node_num on line 1 is 6", 'got "7"'],
    ),
    "bad rate unit": (
        TOPOLOGY.replace("40Gbps", "40Gbs"),
        ["line 5", "`rate`", 'a rate > 0 like "100Gbps"', 'got "40Gbs"'],
    ),
    "rate with exponent": (TOPOLOGY.replace("40Gbps", "4e10bps"), ["line 5", "`rate`", 'got "4e10bps"']),
    "bad delay unit": (
        TOPOLOGY.replace("0.002ms", "0.002sec"),
        ["line 5", "`delay`", 'a delay >= 0 like "0.001ms"', 'got "0.002sec"'],
    ),
    "negative delay": (TOPOLOGY.replace("0.002ms", "-0.002ms"), ["line 5", "`delay`", ">= 0", 'got "-0.002ms"']),
    "non-numeric node": (
        TOPOLOGY.replace("0 4 100Gbps", "zero 4 100Gbps"),
        ["line 3", "`src`", "a node id", 'got "zero"'],
    ),
    "non-numeric header": (TOPOLOGY.replace("6 2 5", "6 two 5"), ["line 1", "`switch_num`", 'got "two"']),
    "switch id out of range": (
        TOPOLOGY.replace("4 5\n", "4 9\n"),
        ["line 2", "`switch ids[1]`", "below node_num (6)", 'got "9"'],
    ),
    "switch listed twice": (TOPOLOGY.replace("4 5\n", "4 4\n"), ["line 2", "`switch ids[1]`", "listed once"]),
    "too few switch ids": (TOPOLOGY.replace("4 5\n", "4\n"), ["line 2", "`switch ids`", "2 switch ids", 'got "4"']),
    "missing field": (
        TOPOLOGY.replace("4 5 40Gbps 0.002ms 0", "4 5 40Gbps 0.002ms"),
        ["line 5", "expected 5 fields `src dst rate delay error_rate`", "got 4"],
    ),
    "duplicate link": (TOPOLOGY.replace("5 3 25Gbps", "5 4 25Gbps"), ["line 7", "`dst`", "line 5 already joins"]),
    "self loop": (TOPOLOGY.replace("5 3 25Gbps", "5 5 25Gbps"), ["line 7", "`dst`", "a node other than src"]),
    "error rate of one": (TOPOLOGY.replace("0.002ms 0", "0.002ms 1"), ["line 5", "`error_rate`", "[0, 1)", 'got "1"']),
    "zero rate": (TOPOLOGY.replace("40Gbps", "0Gbps"), ["line 5", "`rate`", "at least 1 bit/s", 'got "0Gbps"']),
    "host without link": (
        TOPOLOGY.replace("6 2 5", "7 2 5"),
        ["line 1", "`node_num`", "every host", "got host 6 on none"],
    ),
    "empty file": ("", ["expected a first line `node_num switch_num link_num`"]),
}


@pytest.mark.parametrize("text, parts", TOPO_CASES.values(), ids=TOPO_CASES.keys())
def test_malformed_topology(tmp_path, text, parts):
    path = write(tmp_path / "topo-bad.txt", text)
    with pytest.raises(ScenarioError) as e:
        hpcc_files.read_topology(path)
    message = str(e.value)
    assert message.startswith(str(path)), message
    for part in parts:
        assert part in message, message
    assert "\n" not in message


FLOW_CASES = {
    "flow count short": (FLOWS.replace("5\n", "6\n", 1), ["line 1", "`flow_num`", "6 flow lines", "got 5"]),
    "negative size": (
        FLOWS.replace("4500", "-4500"),
        ["line 6", "`size`", "a flow size in bytes", "from 1 to 4294967295", 'got "-4500"'],
    ),
    "zero size": (FLOWS.replace("3 200 1 ", "3 200 0 "), ["line 4", "`size`", 'got "0"']),
    "size beyond 32 bits": (FLOWS.replace("4500", "4294967296"), ["line 6", "`size`", "32 bits"]),
    "non-numeric size": (FLOWS.replace("30000", "30KB"), ["line 5", "`size`", 'got "30KB"']),
    "non-numeric start": (FLOWS.replace("2.5", "2.5s"), ["line 6", "`start_time`", "seconds", 'got "2.5s"']),
    "flow from a switch": (
        FLOWS.replace("1 0 3 100 4500", "4 0 3 100 4500"),
        ["line 6", "`src`", "this node is a switch", 'got "4"'],
    ),
    "flow between switches": (
        FLOWS.replace("1 0 3 100 4500", "4 5 3 100 4500"),
        ["line 6", "`src`", "switch", 'got "4"'],
    ),
    "unknown host": (FLOWS.replace("1 0 3 100 4500", "1 9 3 100 4500"), ["line 6", "`dst`", "ids 0 to 5", 'got "9"']),
    "same ends": (FLOWS.replace("1 0 3 100 4500", "1 1 3 100 4500"), ["line 6", "`dst`", "other than src"]),
    "priority group": (FLOWS.replace("1 0 3 100", "1 0 8 100"), ["line 6", "`pg`", "8", 'got "8"']),
    "port beyond 16 bits": (FLOWS.replace("1 0 3 100", "1 0 3 65536"), ["line 6", "`dport`", "65535"]),
    "start before previous": (
        FLOWS.replace("2.000003", "1.5"),
        ["line 5", "`start_time`", "no earlier than the previous flow's (2000000099 ns, line 4)", 'got "1.5"'],
    ),
    "missing field": (FLOWS.replace("30000 2.000003", "30000"), ["line 5", "expected 6 fields", "got 5"]),
    "extra line": (FLOWS + "0 1 3 100 10 3\n", ["line 7", "expected the end of the file after the 5 flows"]),
}


@pytest.mark.parametrize("text, parts", FLOW_CASES.values(), ids=FLOW_CASES.keys())
def test_malformed_flows(files, tmp_path, text, parts):
    path = write(tmp_path / "flow-bad.txt", text)
    with pytest.raises(ScenarioError) as e:
        hpcc_files.scenario(files[0], path)
    message = str(e.value)
    assert message.startswith(str(path)), message
    for part in parts:
        assert part in message, message
    assert "\n" not in message


# Digits and spaces that Python's `\d`, int(), float() and str.split() take but C++'s `>>` does not.
NON_ASCII_CASES = {
    "arabic-indic node id": (
        "topology",
        TOPOLOGY.replace("5 3 25Gbps", "5 \u0663 25Gbps"),
        ["line 7", "`dst`", 'got "\u0663"', "U+0663"],
    ),
    "fullwidth link count": ("topology", TOPOLOGY.replace("6 2 5", "6 2 \uff15"), ["line 1", "`link_num`", "U+FF15"]),
    "arabic-indic rate": (
        "topology",
        TOPOLOGY.replace("40Gbps", "\u0664\u0660Gbps"),
        ["line 5", "`rate`", "U+0664, U+0660"],
    ),
    "fullwidth delay": (
        "topology",
        TOPOLOGY.replace("0.002ms", "0.\uff10\uff10\uff12ms"),
        ["line 5", "`delay`", "U+FF10"],
    ),
    "devanagari error rate": ("topology", TOPOLOGY.replace("0.002ms 0", "0.002ms \u0966"), ["`error_rate`", "U+0966"]),
    "no-break space": (
        "topology",
        TOPOLOGY.replace("4 5 40Gbps", "4\u00a05 40Gbps"),
        ["line 5", "expected 5 fields", "got 4", "U+00A0"],
    ),
    "fullwidth size": ("flows", FLOWS.replace("4500", "\uff14\uff15\uff10\uff10"), ["line 6", "`size`", "U+FF14"]),
    "arabic-indic start": ("flows", FLOWS.replace("2.5", "\u0662.\u0665"), ["line 6", "`start_time`", "U+0662"]),
    "arabic-indic host": (
        "flows",
        FLOWS.replace("1 0 3 100 4500", "1 \u0660 3 100 4500"),
        ["line 6", "`dst`", "U+0660"],
    ),
}


@pytest.mark.parametrize("which, text, parts", NON_ASCII_CASES.values(), ids=NON_ASCII_CASES.keys())
def test_non_ascii_digits_and_spaces_are_refused(files, tmp_path, which, text, parts):
    """HPCC's simulator reads ASCII digits only: a file that Python's Unicode-aware parsing would
    take as the same numbers is refused, the characters named."""
    path = write(tmp_path / f"{which}-unicode.txt", text)
    with pytest.raises(ScenarioError) as e:
        if which == "topology":
            hpcc_files.read_topology(path)
        else:
            hpcc_files.scenario(files[0], path)
    message = str(e.value)
    assert message.startswith(str(path)), message
    for part in parts:
        assert part in message, message
    assert "\n" not in message


def test_missing_file(tmp_path):
    with pytest.raises(ScenarioError, match="topology file not found: .*nope.txt"):
        hpcc_files.read_topology(tmp_path / "nope.txt")


# --- the command -----------------------------------------------------------------------------


def test_cli_runs_end_to_end(files, tmp_path):
    out = tmp_path / "out"
    p = cli("hpcc", "run", str(files[0]), str(files[1]), "-o", str(out), "--transport", "{iw = 10}", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "fct.txt: 5 flows" in p.stderr
    for name in ("flows.parquet", "links.parquet", "summary.json", "scenario.json", "meta.json", "fct.txt"):
        assert (out / name).is_file(), name
    rows = parse_fct(out / "fct.txt")
    flows = pl.read_parquet(out / "flows.parquet").sort("id")
    assert sorted((r["size"], r["fct"]) for r in rows) == sorted(
        (s, round((a - t) * 1e9)) for s, a, t in zip(flows["size_bytes"], flows["acked_s"], flows["start_s"])
    )
    # The scenario the run saw is kept and runs again with `fctlab run`.
    assert fctlab.load(out).scenario["transport"] == {"mss": 1000, "header": 48, "priority": 3, "iw": 10}


def test_cli_errors_are_one_line(files, tmp_path):
    bad = write(tmp_path / "flow.txt", FLOWS.replace("4500", "-4500"))
    p = cli("hpcc", "run", str(files[0]), str(bad), "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {bad} line 6: field `size`"), p.stderr
    assert "Traceback" not in p.stderr
    p = cli("hpcc", "run", str(files[0]), str(files[1]), "-o", str(tmp_path / "o"), "--transport", "dctcp")
    assert p.returncode == 2 and "field `--transport`: expected a TOML inline table" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def fenced(doc: str, lang: str) -> list[str]:
    """The ```lang blocks of a Markdown text."""
    return re.findall(rf"^```{lang}\n(.*?)^```$", doc, flags=re.S | re.M)


def test_the_doc_examples_are_what_the_code_does(files, tmp_path):
    """docs/hpcc-files.md shows these two files, the tables fctlab reads them as, and the fct.txt a
    run of them wrote: they must stay what the code does (fct, measured by the run, aside)."""
    doc = (REPO / "docs" / "hpcc-files.md").read_text()
    text = fenced(doc, "text")
    assert TOPOLOGY in text and FLOWS in text
    tables = [tomllib.loads(block) for block in fenced(doc, "toml")]
    assert {"topology": hpcc_files.read_topology(files[0])} in tables
    assert {"workload": hpcc_files.read_flows(files[1])} in tables
    out = tmp_path / "fct.txt"
    hpcc_files.write_fct(fctlab.run(hpcc_files.scenario(*files)), out, files[1])

    def without_fct(lines: list[str]) -> list[list[str]]:
        return sorted(line.split(" ")[:6] + line.split(" ")[7:] for line in lines)

    shown = next(block for block in text if block.startswith("0b000001 "))
    assert without_fct(shown.splitlines()) == without_fct(out.read_text().splitlines())
