"""A link problem of the links method (`fctlab.tools.linksim.link_problem`): which flows have
their windows bounded there, where their losses and marks happen on other hops."""

from __future__ import annotations

from fctlab.result import Result
from fctlab.run import build
from fctlab.tools import linksim
from fctlab.tools.linkbatch import flow_key
from realcore import fake  # noqa: F401  (fake: the compiled core)

#: Hosts a and x (100 Mb/s) and f (1 Gb/s) behind router r1, b behind r2; r1 -> r2 -> b at
#: 100 Mb/s. Each sends to b.
SPEC = {
    "name": "chain",
    "seed": 1,
    "duration": "1s",
    "topology": {
        "kind": "graph",
        "nodes": [{"name": n, "kind": "host"} for n in ("a", "x", "f", "b")]
        + [{"name": n, "kind": "router"} for n in ("r1", "r2")],
        "links": [
            {"a": "a", "b": "r1", "rate": "100Mbps", "delay": "1ms"},
            {"a": "x", "b": "r1", "rate": "100Mbps", "delay": "1ms"},
            {"a": "f", "b": "r1", "rate": "1Gbps", "delay": "1ms"},
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
                {"src": "x", "dst": "b", "start": 0.2, "size": 50_000},
                {"src": "f", "dst": "b", "start": 0.3, "size": 80_000},
            ],
        }
    ],
}


def bounded_senders(src: str, dst: str) -> dict[str, bool]:
    """By sending host, whether its flow is on the bounded transport in link src -> dst's problem."""
    sim, spec = build(SPEC)
    planned = Result.from_core(dict(sim.results()), spec)
    flows, links = planned.flows.sort("id"), planned.links
    lid = links.filter((links["src"] == src) & (links["dst"] == dst))["id"].item()
    crossing = flows.filter(flows["path"].list.contains(lid))
    hosts = set(flows["src"]) | set(flows["dst"])
    transports = linksim.Transports(spec, linksim.window_bound(spec, flows, links))
    assert transports.rwnd is not None
    overrides, keyed = linksim.link_problem(links.row(lid, named=True), crossing, links, hosts, transports)
    by_id = dict(crossing.select("id", "src").iter_rows())
    out = {}
    for entry in overrides["workload"]:
        bounded = entry.get("transport") == linksim.Transports.BOUNDED
        if bounded:
            assert overrides[f"transports.{linksim.Transports.BOUNDED}"]["rwnd"] == transports.rwnd
        for f in entry["flows"]:
            for fid in keyed[flow_key(f["src"], f["dst"], f["start"], f["size"])]:
                out[by_id[fid]] = bounded
    return out


def test_a_sender_no_faster_than_the_link_has_its_window_bounded_a_faster_one_not():
    # a and x send at the link's 100 Mb/s: the excess of their windows would wait in their host
    # queues, which have no limit. f sends at 1 Gb/s: its losses happen at the link, as in the
    # network.
    assert bounded_senders("r1", "r2") == {"a": True, "x": True, "f": False}
    assert bounded_senders("r2", "b") == {"a": True, "x": True, "f": False}


def test_a_host_links_flows_are_bounded_whatever_its_rate():
    assert bounded_senders("a", "r1") == {"a": True}
    assert bounded_senders("f", "r1") == {"f": True}
