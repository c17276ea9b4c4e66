"""A link problem of the links method (`fctlab.tools.linksim.link_problem`): its senders join at
the rate the links before the problem's link leave them in the network, the time a slower sender
adds alone is taken off the flow's delay, and every flow's window is bounded."""

from __future__ import annotations

import pytest

from fctlab.result import Result
from fctlab.run import build
from fctlab.tools import linksim
from realcore import fake  # noqa: F401  (fake: the compiled core)

MBPS = 1_000_000
#: Hosts a and x behind router r1, c on r1 too, b behind r2; every link 100 Mb/s. a sends to b
#: (over r1 -> r2) and to c (not over it): in r1 -> r2's problem, a's flows to b meet the load
#: its flows to c put on a's link. x sends only to b.
SPEC = {
    "name": "chain",
    "seed": 1,
    "duration": "1s",
    "topology": {
        "kind": "graph",
        "nodes": [{"name": n, "kind": "host"} for n in ("a", "x", "b", "c")]
        + [{"name": n, "kind": "router"} for n in ("r1", "r2")],
        "links": [
            {"a": "a", "b": "r1", "rate": "100Mbps", "delay": "1ms"},
            {"a": "x", "b": "r1", "rate": "100Mbps", "delay": "1ms"},
            {"a": "c", "b": "r1", "rate": "100Mbps", "delay": "1ms"},
            {"a": "r1", "b": "r2", "rate": "100Mbps", "delay": "1ms"},
            {"a": "r2", "b": "b", "rate": "100Mbps", "delay": "1ms"},
        ],
    },
    "queues": {"router": {"kind": "droptail", "limit_packets": 100}},
    "workload": [
        {
            "kind": "flows",
            "flows": [
                {"src": "a", "dst": "b", "start": 0.0, "size": 100_000},
                {"src": "a", "dst": "c", "start": 0.1, "size": 3_000_000},
                {"src": "x", "dst": "b", "start": 0.2, "size": 50_000},
                {"src": "a", "dst": "b", "start": 0.5, "size": 20_000},
            ],
        }
    ],
}


def problem_of(src: str, dst: str):
    sim, spec = build(SPEC)
    planned = Result.from_core(dict(sim.results()), spec)
    flows, links = planned.flows.sort("id"), planned.links
    lid = links.filter((links["src"] == src) & (links["dst"] == dst))["id"].item()
    crossing = flows.filter(flows["path"].list.contains(lid))
    hosts = set(flows["src"]) | set(flows["dst"])
    transports = linksim.Transports(spec, linksim.window_bound(spec, flows, links))
    overrides, keyed, slower = linksim.link_problem(
        links.row(lid, named=True), crossing, links, hosts, transports, linksim.Offered.of(flows, links)
    )
    return flows, overrides, keyed, slower, transports


def test_a_sender_joins_at_what_its_other_flows_leave_of_its_link():
    flows, overrides, keyed, slower, _ = problem_of("r1", "r2")
    span = 0.5  # the flows start from 0 to 0.5 s
    rho_other = 3_000_000 * 8 / span / (100 * MBPS)  # a's flow to c, which is not in this problem
    edges = overrides["topology"]["links"]
    senders = {e["a"]: e["rate"] for e in edges if e["b"] == "u"}
    by_host = {}
    for entry in overrides["workload"]:
        for f in entry["flows"]:
            by_host.setdefault(f["src"], set()).add(senders[f["src"]])
    rates = sorted(r for rs in by_host.values() for r in rs)
    # Two senders: a at 100 Mb/s less the load of its flow to c; x at its full rate.
    assert rates == [pytest.approx(100 * MBPS * (1 - rho_other), abs=1), 100 * MBPS]
    # Only a's flows to b are slower alone there, by their wire bits at the lower rate.
    ab = flows.filter((flows["src"] == "a") & (flows["dst"] == "b"))
    assert set(slower) == set(ab["id"].to_list())
    for row in ab.iter_rows(named=True):
        packets = -(-row["size_bytes"] // row["mss_bytes"])
        wire = (row["size_bytes"] + packets * row["header_bytes"]) * 8
        assert slower[row["id"]] == pytest.approx(wire / min(rates) - wire / (100 * MBPS))


def test_what_flows_offer_a_link_is_their_bytes_over_the_span_of_their_starts():
    sim, spec = build(SPEC)
    planned = Result.from_core(dict(sim.results()), spec)
    offered = linksim.Offered.of(planned.flows, planned.links)
    links = planned.links
    hop = links.filter((links["src"] == "r1") & (links["dst"] == "r2"))["id"].item()
    # Three flows cross r1 -> r2 (100 KB, 50 KB, 20 KB); they start from 0 to 0.5 s.
    assert offered.bps[hop] == pytest.approx(170_000 * 8 / 0.5)


def test_every_flow_of_a_problem_has_its_window_bounded():
    for ends in (("r1", "r2"), ("a", "r1"), ("r2", "b")):
        _, overrides, keyed, _, transports = problem_of(*ends)
        assert transports.rwnd is not None
        entries = overrides["workload"]
        assert entries and all(e.get("transport") == linksim.Transports.BOUNDED for e in entries), ends
        assert overrides[f"transports.{linksim.Transports.BOUNDED}"]["rwnd"] == transports.rwnd
        assert sum(len(e["flows"]) for e in entries) == sum(map(len, keyed.values()))


def test_a_host_link_problem_keeps_its_senders_flows_at_the_host():
    _, overrides, _, slower, _ = problem_of("a", "r1")
    assert not slower
    assert {f["src"] for e in overrides["workload"] for f in e["flows"]} == {"u"}
