"""Writes the large-graph scenarios of the benchmark: `graph-{N}.toml` and its graph `graph-{N}.json`.

A connected random graph of N routers (1,000, and 10,000 for the routing-scale run): a random
recursive tree (router i joins a uniformly drawn earlier router, so every router is reachable)
plus N more links between random pairs of routers not yet linked, for 2N - 1 links (mean degree
about 4). Every core link is 10 Gb/s
with a one-way delay drawn uniformly from 0.1 - 2 ms (whole microseconds); every router has two
hosts on 1 Gb/s links. Poisson arrivals of Pareto-sized flows (as the dumbbell benchmark) between
hosts on different routers. The size of the network, not the load, is what this file measures:
routing tables for 2,000 hosts on 1,000 routers, paths of several hops.

Usage: python benchmarks/scenarios/make_graph.py [N ...]   (default: 1000 10000)
The graph is drawn from a fixed seed, so the files are the same on every machine. The run of
N = 10,000 lasts 0.5 s (10,000 flows, to hosts on most of the routers): what it measures is the
build, the routes and their memory.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

SEED = 1000
#: Simulated seconds of the run of each size (the same arrival rate for every size).
DURATION = {1000: "2s", 10000: "0.5s"}

SCENARIO = """\
# Benchmark: a connected random graph of {routers:,} routers and {links:,} 10 Gb/s links, two
# hosts per router on 1 Gb/s links, Poisson arrivals of Pareto-sized flows (shape 1.2, mean 25
# segments) between hosts on different routers, NewReno with IW 4.
# Written by benchmarks/scenarios/make_graph.py.
name = "graph-{routers}"
seed = 1
duration = "{duration}"

[topology]
kind = "graph"
file = "graph-{routers}.json"
hosts_per_router = 2
access_rate = "1Gbps"
access_delay = "0ms"

[queues.router]
kind = "droptail"
limit = "1MB"

[transport]
cc = "newreno"
iw = 4

[[workload]]
kind = "poisson"
rate = 20000
sizes = {{ kind = "pareto", shape = 1.2, mean = 36500, round_to = 1460 }}
"""


def graph(routers: int) -> dict:
    """The routers and core links: {"nodes": [...], "links": [...]} as `kind = "graph"` reads it."""
    rng = random.Random(SEED)
    edges: set[tuple[int, int]] = set()
    for i in range(1, routers):
        edges.add((rng.randrange(i), i))
    added = 0
    while added < routers:
        a, b = sorted(rng.sample(range(routers), 2))
        if (a, b) not in edges:
            edges.add((a, b))
            added += 1
    links = []
    for a, b in sorted(edges):
        delay_us = rng.randint(100, 2000)
        links.append({"a": f"r{a}", "b": f"r{b}", "rate": "10Gbps", "delay": f"{delay_us}us"})
    nodes = [{"name": f"r{i}", "kind": "router"} for i in range(routers)]
    return {"nodes": nodes, "links": links}


def write(folder: Path, routers: int) -> None:
    g = graph(routers)
    # One node or link per line: readable, and a diff names the links that changed.
    rows = {key: ",\n".join("  " + json.dumps(x) for x in g[key]) for key in ("nodes", "links")}
    text = '{\n"nodes": [\n' + rows["nodes"] + '\n],\n"links": [\n' + rows["links"] + "\n]\n}\n"
    (folder / f"graph-{routers}.json").write_text(text)
    duration = DURATION.get(routers, "1s")
    scenario = SCENARIO.format(routers=routers, links=len(g["links"]), duration=duration)
    (folder / f"graph-{routers}.toml").write_text(scenario)


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:]] or list(DURATION)
    for n in sizes:
        write(Path(__file__).resolve().parent, n)
