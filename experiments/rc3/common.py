"""The RC3 paper (Mittal et al., "Recursively Cautious Congestion Control", NSDI 2014): what its
experiments share.

Every experiment runs the base scenario `experiments/rc3/internet2.toml` (or another base)
under named overrides. TCP baselines use drop-tail FIFOs of the same buffer: with every packet
at priority 0 a strict-priority queue behaves exactly like one, and the FIFO path is faster.
Paper numbers are copied from the paper's text (figures without numbers in the text are
compared by shape only, and say so).

Here: the segment size, the protocols as overrides (`TCP`, `RC3`, combined with `merged`),
quick mode (`QUICK`), Fig. 8's numbers (the baseline several experiments compare with), and
the runs of Figs. 16/17 (`points_priority`). Other papers use these too: the RCP thesis's
Fig. 14(c) (`TCP`, `RC3`, `QUICK`) and the emulated Figs. 16/17 (`points_priority`).
"""

from __future__ import annotations

from typing import Any

#: Bytes of payload of a full segment (every flow size is a multiple of it).
SEG = 1460
#: Overrides that turn the base scenario into the TCP baseline.
TCP = {
    "transport.protocol": "tcp",
    "queues.router": {"kind": "droptail", "limit": "5MB"},
    "queues.host": {"kind": "droptail"},
}
RC3 = {"transport.protocol": "rc3"}
#: Quick mode: shorter runs (arrivals for 1.5 s, the last second measured).
QUICK = {"duration": "1.5s", "measure_from": "0.5s"}

#: Fig. 8 (and the 1 Gb/s x 40 ms row of Fig. 9): load ->
#: (TCP flows, TCP bytes, RC3 flows, RC3 bytes, % flows, % bytes).
FIG8 = {
    10: (0.125, 0.423, 0.068, 0.091, 45.56, 78.36),
    30: (0.135, 0.443, 0.076, 0.114, 43.54, 74.35),
    50: (0.150, 0.498, 0.088, 0.176, 41.44, 64.88),
}


def merged(*parts: dict[str, Any]) -> dict[str, Any]:
    """The overrides of `parts` in one dict, a later part's value winning."""
    out: dict[str, Any] = {}
    for p in parts:
        out.update(p)
    return out


def points_priority() -> list[tuple[str, dict[str, Any]]]:
    """Figs. 16 and 17's runs: a high- and a low-priority TCP bulk flow through one sender's NIC
    (`nic-*`) or a router's port (`router-*`), the high-priority one first or second."""

    def graph(senders: int) -> dict[str, Any]:
        nodes = [{"name": f"s{i}", "kind": "host"} for i in range(senders)] + [
            {"name": "sw", "kind": "router"},
            {"name": "d0", "kind": "host"},
            {"name": "d1", "kind": "host"},
        ]
        links = [{"a": f"s{i}", "b": "sw", "rate": "1Gbps", "delay": "1ms"} for i in range(senders)]
        links += [
            {"a": "sw", "b": "d0", "rate": "10Gbps", "delay": "1ms", "name": "to_d0"},
            {"a": "sw", "b": "d1", "rate": "10Gbps", "delay": "1ms", "name": "to_d1"},
        ]
        if senders == 2:
            # Through a router: both senders reach the switch at 10 Gb/s, a 1 Gb/s link leaves it.
            links = [{"a": f"s{i}", "b": "sw", "rate": "10Gbps", "delay": "1ms"} for i in range(2)]
            nodes = nodes + [{"name": "sw2", "kind": "router"}]
            links += [
                {"a": "sw", "b": "sw2", "rate": "1Gbps", "delay": "1ms", "name": "shared"},
                {"a": "sw2", "b": "d0", "rate": "10Gbps", "delay": "1ms", "name": "to_d0"},
                {"a": "sw2", "b": "d1", "rate": "10Gbps", "delay": "1ms", "name": "to_d1"},
            ]
        return {"kind": "graph", "nodes": nodes, "links": links}

    pts = []
    for where, senders in (("nic", 1), ("router", 2)):
        for order in ("high-first", "low-first"):
            src_hi, src_lo = ("s0", "s0") if senders == 1 else ("s0", "s1")
            first, second = (
                ((src_hi, "d0", "hi"), (src_lo, "d1", "lo"))
                if order == "high-first"
                else ((src_lo, "d1", "lo"), (src_hi, "d0", "hi"))
            )
            flows = [
                {
                    "kind": "long_lived",
                    "transport": first[2],
                    "label": first[2],
                    "flows": [{"src": first[0], "dst": first[1], "start": "0s", "stop": "3s"}],
                },
                {
                    "kind": "long_lived",
                    "transport": second[2],
                    "label": second[2],
                    "flows": [{"src": second[0], "dst": second[1], "start": "1s", "stop": "2s"}],
                },
            ]
            pts.append(
                (
                    f"{where}-{order}",
                    {
                        "topology": graph(senders),
                        "duration": "3s",
                        "measure_from": "0s",
                        "transport.protocol": "tcp",
                        "transport.iw": 10,
                        "transports.hi": {"priority": 0},
                        "transports.lo": {"priority": 1},
                        # The paper's NIC holds 512 packets; an unlimited one would let a loss-free TCP
                        # grow its window into a backlog that outlives the flow.
                        "queues.router": {"kind": "prio", "limit": "2MB"},
                        "queues.host": {"kind": "prio", "limit_packets": 512},
                        "workload": flows,
                        "output.series": {"interval": "20ms", "links": ["to_d0", "to_d1"]},
                    },
                )
            )
    return pts
