"""Many link problems in one run: the batches of `fctlab estimate --method links`.

A link problem is small (a link, its feeders, a few dozen to a few thousand flows), and a run
of its own costs a process task, a scenario built and six result files written: on a
6,144-host fabric with 18,000 busy links that overhead, not the simulation, took the time
(about 29 ms a problem). So problems are run side by side in one scenario: each problem's
graph keeps its own nodes, renamed `p<link>_<node>`, the graphs stay apart (no link joins
two), and one run simulates them all; a flow's packets never leave its own problem's graph,
so each problem runs as it would alone (the queues and transports are deterministic: the
same completion times to the bit, `test_links_batched_or_not_gives_the_same_bytes`).

Problems go into batches in link order, a new batch when the next problem would take it past
`BATCH_FLOWS` flows or `BATCH_PROBLEMS` problems, so the batches (and the estimate) do not
depend on how many workers run them. Batches stay small because a run's cost per packet grows
with its world: on that fabric's link problems of 25 flows each, 10 problems side by side took
0.26 s against 0.47 s one by one (their simulations 0.27 s, the rest the runs' overhead), 50
took 1.55 s against 2.15 s, but 200 took 9.7 s against 8.3 s (4.3 s of simulation).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

#: A batch holds at most this many flows ...
BATCH_FLOWS = 1_000
#: ... and this many problems.
BATCH_PROBLEMS = 50


def flow_key(src: str, dst: str, start_s: float, size: int) -> tuple:
    """What tells a problem's flows apart in its run's flows table: ends, start (to the
    picosecond) and size (flows alike in all four are interchangeable)."""
    return (src, dst, round(start_s * 1e12), size)


@dataclass
class Problem:
    """One link's problem: the link, its overrides (topology, workload, transports) and its
    flows' ids by their key in its run (`flow_key`)."""

    link: int
    overrides: dict[str, Any]
    keyed: dict[tuple, list[int]]

    @property
    def flows(self) -> int:
        return sum(map(len, self.keyed.values()))


@dataclass
class Batch:
    """Problems run as one: its name, overrides, and by flow key in its run the (link, flow id)
    pairs that key stands for."""

    name: str
    overrides: dict[str, Any]
    keyed: dict[tuple, list[tuple[int, int]]]


def batches(problems: list[Problem]) -> Iterator[Batch]:
    """The problems in batches, in order, at most `BATCH_FLOWS` flows and `BATCH_PROBLEMS`
    problems each (see the module doc)."""
    max_flows, max_problems = BATCH_FLOWS, BATCH_PROBLEMS
    group: list[Problem] = []
    flows = 0
    for p in problems:
        if group and (flows + p.flows > max_flows or len(group) >= max_problems):
            yield merge(group)
            group, flows = [], 0
        group.append(p)
        flows += p.flows
    if group:
        yield merge(group)


def merge(group: list[Problem]) -> Batch:
    """One scenario's overrides running every problem of `group` side by side."""
    nodes: list[dict] = []
    edges: list[dict] = []
    workload: list[dict] = []
    tables: dict[str, Any] = {}
    keyed: dict[tuple, list[tuple[int, int]]] = {}
    for p in group:
        pre = f"p{p.link}_"
        topo = p.overrides["topology"]
        nodes += [{**n, "name": pre + n["name"]} for n in topo["nodes"]]
        for e in topo["links"]:
            edge = {**e, "a": pre + e["a"], "b": pre + e["b"]}
            if "name" in e:
                edge["name"] = pre + e["name"]
            edges.append(edge)
        for entry in p.overrides["workload"]:
            flows = [{**f, "src": pre + f["src"], "dst": pre + f["dst"]} for f in entry["flows"]]
            workload.append({**entry, "flows": flows})
        tables.update({k: v for k, v in p.overrides.items() if k not in ("topology", "workload")})
        for (src, dst, start, size), ids in p.keyed.items():
            keyed.setdefault((pre + src, pre + dst, start, size), []).extend((p.link, f) for f in ids)
    overrides = {"topology": {"kind": "graph", "nodes": nodes, "links": edges}, "workload": workload, **tables}
    return Batch(f"links{group[0].link}", overrides, keyed)
