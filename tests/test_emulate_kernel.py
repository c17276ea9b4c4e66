"""The kernel's own TCP (`stack = "linux"`) as an endpoint of `fctlab emulate`.

The runs need root and iproute2/ethtool (CI runs as root) and skip otherwise, saying why; the
checks of the scenario fields and of the modes run anywhere.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from fctlab import _core
from fctlab.emulate import child, emulate
from fctlab.emulate import kernel as kernel_tcp
from fctlab.emulate.iproute import list_namespaces
from fctlab.emulate.kernel import MAX_FRAME, available_cc, initcwnd
from fctlab.emulate.netns import HostIface, netns_available
from fctlab.errors import ScenarioError
from fctlab.run import run
from realcore import fake  # noqa: F401  (fake: the compiled core)

NETNS, WHY = netns_available()
ETHTOOL = shutil.which("ethtool") is not None
needs_kernel_tcp = pytest.mark.skipif(
    not (NETNS and ETHTOOL), reason=f"kernel TCP emulation needs namespaces ({WHY or 'ok'}) and ethtool"
)

RATE_BPS = 10e6
RTT_S = 0.02


def kernel_flows(sizes: list[int], *, cc: str = "cubic", limit_packets: int = 200, gap_s: float = 0.5) -> dict:
    """Kernel TCP flows of `sizes` bytes, one at a time, l0 -> r0, 10 Mb/s x 20 ms RTT."""
    flows = [{"src": "l0", "dst": "r0", "start": f"{gap_s * i}s", "size": s} for i, s in enumerate(sizes)]
    return {
        "seed": 1,
        "duration": f"{gap_s * len(sizes)}s",
        "topology": {
            "kind": "dumbbell",
            "hosts_per_side": 1,
            "bottleneck_rate": "10Mbps",
            "bottleneck_delay": "10ms",
            "access_rate": "100Mbps",
            "access_delay": "0ms",
        },
        "queues": {"router": {"kind": "droptail", "limit_packets": limit_packets}},
        "transport": {"stack": "linux", "cc": cc},
        "workload": [{"kind": "flows", "flows": flows}],
    }


def our_processes() -> list[int]:
    """Emulation processes started by this test process."""
    pids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"fctlab.emulate.child" in cmd and str(os.getpid()).encode() in cmd:
            pids.append(int(d.name))
    return pids


def kernel_report(result) -> dict:
    return result.meta["emulation"]["reports"]["router"]["kernel"]


def test_simulation_refuses_the_kernel_stack():
    with pytest.raises(
        ScenarioError, match=r"field `transport.stack`: stack = \"linux\" runs only in `fctlab emulate`"
    ):
        run(kernel_flows([1460]))


def test_loopback_mode_refuses_the_kernel_stack():
    with pytest.raises(ScenarioError, match=r"field `transport.stack`: stack = \"linux\" needs --mode netns"):
        emulate(kernel_flows([1460]), mode="loopback")


def test_long_lived_kernel_flows_are_refused_before_anything_starts():
    spec = kernel_flows([1460])
    spec["workload"] = [{"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": "0s", "stop": "1s"}]}]
    with pytest.raises(ScenarioError, match=r"field `transport.stack`: stack = \"linux\" needs flows of a given size"):
        emulate(spec, mode="loopback")


def test_a_named_transport_is_named_and_fctlab_fields_are_refused():
    spec = kernel_flows([1460])
    spec["transport"] = {"cc": "newreno"}
    spec["transports"] = {"kern": {"stack": "linux", "cc": "bbr"}}
    spec["workload"][0]["transport"] = "kern"
    with pytest.raises(ScenarioError, match=r"field `transports.kern.stack`"):
        run(spec)
    spec["transports"]["kern"]["min_rto"] = "1ms"
    with pytest.raises(ScenarioError, match=r"field `transports.kern.min_rto`: set, but stack = \"linux\" takes only"):
        run(spec)
    spec = kernel_flows([1460])
    spec["transport"]["protocol"] = "rcp"
    with pytest.raises(ScenarioError, match=r"field `transport.protocol`: expected \"tcp\" with stack = \"linux\""):
        run(spec)
    spec = kernel_flows([1460], cc="Cubic!")
    with pytest.raises(ScenarioError, match=r"field `transport.cc`: expected a kernel congestion control name"):
        run(spec)
    spec = kernel_flows([1460], cc="bbr")
    spec["transport"]["stack"] = "fctlab"
    expected = r"field `transport.cc`: expected \"newreno\", \"cubic\", \"dctcp\", \"pfabric\", \"swift\" or a plug-in"
    with pytest.raises(ScenarioError, match=expected):
        run(spec)


def test_one_initial_window_for_all_kernel_flows():
    assert initcwnd([("transport.stack", "cubic", None)]) is None
    assert initcwnd([("a.stack", "cubic", 4), ("b.stack", "reno", 4)]) == 4
    with pytest.raises(ScenarioError, match=r"field `iw`: expected one initial window.*\[4, 10\]"):
        initcwnd([("a.stack", "cubic", 4), ("b.stack", "reno", 10)])


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        (
            {"ifname": "r0123456789abcdef"},
            ValueError,
            r"field `kernel_link.ifname`: expected a Linux interface name "
            r"\(1 to 15 bytes.*got \"r0123456789abcdef\" \(17 bytes\)",
        ),
        ({"ifname": ""}, ValueError, r"field `kernel_link.ifname`: expected a Linux interface name"),
        ({"ifname": "r 3"}, ValueError, r"field `kernel_link.ifname`:.*got \"r 3\""),
        (
            {"host_ip": "198.18.0.256"},
            ValueError,
            r"field `kernel_link.host_ip`: expected an IPv4 address.*198\.18\.0\.256",
        ),
        ({"host_ip": "fe80::1"}, ValueError, r"field `kernel_link.host_ip`: expected an IPv4 address"),
        ({"host_mac": "02:00:00:00:00"}, ValueError, r"field `kernel_link.host_mac`: expected a MAC address \(six"),
        ({"host_mac": "zz:00:00:00:00:03"}, ValueError, r"field `kernel_link.host_mac`:.*got \"zz:00:00:00:00:03\""),
        ({"host_mac": "ff:ff:ff:ff:ff:ff"}, ValueError, r"field `kernel_link.host_mac`: expected a unicast MAC"),
        ({"host_mac": b"\x02\x00"}, ValueError, r"field `kernel_link.host_mac`: expected 6 bytes.*\(2 bytes\)"),
        ({"node": -1}, ValueError, r"field `kernel_link.node`: expected a node id.*got -1"),
        ({"node": "3"}, TypeError, r"field `kernel_link.node`: expected a node id.*got '3'"),
        ({"host_ip": None}, TypeError, r"field `kernel_link.host_ip`: expected an IPv4 address \(str\), got None"),
    ],
)
def test_a_kernel_link_is_checked_when_made(fields, error, message):
    """The router's view of a kernel TCP host is checked in the orchestrator, naming the field."""
    good = {"node": 3, "ifname": "r3", "host_ip": "198.18.0.14", "host_mac": "02:00:00:00:00:03"}
    link = _core.KernelLink(**good)
    assert (link.node, link.ifname, link.host_ip, link.host_mac) == tuple(good.values())
    assert _core.KernelLink(**{**good, "host_mac": b"\x02\x00\x00\x00\x00\x03"}) == link
    with pytest.raises(error, match=message):
        _core.KernelLink(**{**good, **fields})


class _Topo:
    """What `kernel.router_args` reads of a NetnsTopology: each host's interface."""

    def iface(self, node: int) -> HostIface:
        return HostIface(node, f"fctlab-1-h{node}", f"198.18.0.{4 * node + 2}", f"198.18.0.{4 * node + 1}")


def test_the_kernel_links_reach_the_router_as_json(tmp_path, monkeypatch):
    """The orchestrator writes the links as JSON; the router process reads back the same
    objects, and an entry changed on the way is refused naming it."""
    monkeypatch.setattr(kernel_tcp, "_mac", lambda netns, dev: f"02:00:00:00:00:0{dev[1:]}")
    path = tmp_path / "kernel-links.json"
    argv = kernel_tcp.router_args(_Topo(), [1, 2], path)
    assert argv == ["--kernel-links", str(path)]
    assert json.loads(path.read_text()) == [
        {"node": 1, "ifname": "r1", "host_ip": "198.18.0.6", "host_mac": "02:00:00:00:00:01"},
        {"node": 2, "ifname": "r2", "host_ip": "198.18.0.10", "host_mac": "02:00:00:00:00:02"},
    ]
    args = child._parser().parse_args(
        ["router", "--spec", "s", "--base", ".", "--bind", "0.0.0.0", "--scale", "1", "--max-wall", "1"]
        + ["--parent", "1", "--report", "r", *argv]
    )
    links = _core.KernelLink.list_from_json(args.kernel_links.read_text())
    assert links == kernel_tcp.router_links(_Topo(), [1, 2])
    assert repr(links[0]) == 'KernelLink(node=1, ifname="r1", host_ip="198.18.0.6", host_mac="02:00:00:00:00:01")'
    tampered = json.loads(path.read_text())
    tampered[1]["host_ip"] = "198.18.0"
    with pytest.raises(ValueError, match=r"field `kernel_links\[1\].host_ip`: expected an IPv4 address"):
        _core.KernelLink.list_from_json(json.dumps(tampered))
    with pytest.raises(ValueError, match=r"field `kernel_links`: invalid type: string"):
        _core.KernelLink.list_from_json(json.dumps("1,r1,198.18.0.6,02:00:00:00:00:01"))


@needs_kernel_tcp
def test_a_cc_the_kernel_lacks_is_named():
    with pytest.raises(
        ScenarioError, match=r"field `transport.cc`: the kernel does not offer congestion control 'nope"
    ):
        emulate(kernel_flows([1460], cc="nope"), mode="netns")


@needs_kernel_tcp
def test_a_kernel_flow_crosses_the_emulated_links():
    """100 KB of kernel CUBIC over the 10 Mb/s x 20 ms dumbbell: complete, with an FCT between
    the ideal and three times it; its segments counted on the bottleneck; every frame one
    segment (<= 1514 bytes) with valid checksums; the router's kernel silent."""
    size = 100_000
    result = emulate(kernel_flows([size]), mode="netns")
    flow = result.flows.to_dicts()[0]
    assert flow["protocol"] == "linux-cubic"
    assert flow["delivered_bytes"] == size and flow["finish_s"] is not None
    ideal = flow["ideal_fct_s"]
    assert ideal < flow["fct_s"] < 3 * ideal, flow
    assert flow["retx_bytes"] == 0, "nothing dropped, nothing retransmitted"
    segments = -(-size // 1460)
    links = {row["name"]: row for row in result.links.to_dicts()}
    assert segments <= links["bottleneck"]["pkts_sent"] < 2 * segments, links["bottleneck"]
    assert links["bottleneck"]["bytes_sent"] >= size + 40 * segments
    assert links["bottleneck_rev"]["pkts_sent"] > 0, "the ACKs cross the reverse path"
    k = kernel_report(result)
    assert k["frames_in"] == k["frames_out"] > segments
    assert 0 < k["max_frame"] <= MAX_FRAME, "offloads off: one segment per frame"
    assert (k["bad_checksums"], k["foreign"], k["stale"], k["lost_sends"]) == (0, 0, 0, 0), k
    assert (k["router_icmp"], k["router_tcp"]) == (0, 0), "the router namespace's kernel must not answer"
    assert not result.meta["emulation"]["warnings"] or all(
        "kernel TCP" not in w for w in result.meta["emulation"]["warnings"]
    )


@needs_kernel_tcp
def test_a_small_drop_tail_queue_drops_kernel_segments_and_the_flow_recovers():
    size = 300_000
    result = emulate(kernel_flows([size], limit_packets=4), mode="netns")
    flow = result.flows.to_dicts()[0]
    assert flow["delivered_bytes"] == size and flow["finish_s"] is not None, flow
    links = {row["name"]: row for row in result.links.to_dicts()}
    assert links["bottleneck"]["drops_pkts"] > 0, links["bottleneck"]
    assert flow["retx_bytes"] > 0, "the kernel retransmitted what the queue dropped (TCP_INFO)"
    assert flow["fct_s"] > flow["ideal_fct_s"]


@needs_kernel_tcp
def test_a_kernel_flow_and_an_fctlab_flow_share_the_bottleneck():
    """Kernel CUBIC from l1 and fctlab's CUBIC from l0 at once: both complete, both counted on
    the one bottleneck, and sharing it makes each slower than alone."""
    size = 200_000
    spec = kernel_flows([])
    spec["topology"]["hosts_per_side"] = 2
    spec["transport"] = {"cc": "cubic", "iw": 10}
    spec["transports"] = {"kern": {"stack": "linux", "cc": "cubic"}}
    spec["workload"] = [
        {"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": "0s", "size": size}]},
        {"kind": "flows", "transport": "kern", "flows": [{"src": "l1", "dst": "r1", "start": "0s", "size": size}]},
    ]
    spec["duration"] = "1s"
    result = emulate(spec, mode="netns")
    flows = result.flows.sort("id").to_dicts()
    assert [f["protocol"] for f in flows] == ["tcp-cubic-iw10", "kern"]
    assert [f["delivered_bytes"] for f in flows] == [size, size], flows
    alone = size * 8 / RATE_BPS
    assert all(f["fct_s"] > 1.2 * alone for f in flows), "two flows share 10 Mb/s"
    links = {row["name"]: row for row in result.links.to_dicts()}
    assert links["bottleneck"]["bytes_sent"] >= 2 * size
    assert kernel_report(result)["frames_in"] > size // 1460


@needs_kernel_tcp
@pytest.mark.skipif("bbr" not in available_cc() and "reno" not in available_cc(), reason="no reno/bbr here")
def test_other_kernel_controllers_run():
    cc = "bbr" if "bbr" in available_cc() else "reno"
    result = emulate(kernel_flows([14_600], cc=cc), mode="netns")
    flow = result.flows.to_dicts()[0]
    assert flow["protocol"] == f"linux-{cc}" and flow["delivered_bytes"] == 14_600


def test_nothing_is_left_behind():
    """The runs above removed their namespaces and processes."""
    assert not [n for n in list_namespaces() if n.startswith(f"fctlab-{os.getpid()}-")]
    assert our_processes() == []
