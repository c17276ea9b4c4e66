"""Writes the large-graph scenario of the benchmark: `graph-1000.toml` and its graph `graph-1000.json`.

A connected random graph of 1,000 routers: a random recursive tree (router i joins a uniformly
drawn earlier router, so every router is reachable) plus 1,000 more links between random pairs
of routers not yet linked, for 1,999 links (mean degree about 4). Every core link is 10 Gb/s
with a one-way delay drawn uniformly from 0.1 - 2 ms (whole microseconds); every router has two
hosts on 1 Gb/s links. Poisson arrivals of Pareto-sized flows (as the dumbbell benchmark) between
hosts on different routers. The size of the network, not the load, is what this file measures:
routing tables for 2,000 hosts on 1,000 routers, paths of several hops.

Usage: python benchmarks/scenarios/make_graph.py
The graph is drawn from a fixed seed, so the files are the same on every machine.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

ROUTERS = 1000
EXTRA_LINKS = 1000
SEED = 1000

SCENARIO = """\
# Benchmark: a connected random graph of {routers:,} routers and {links:,} 10 Gb/s links, two
# hosts per router on 1 Gb/s links, Poisson arrivals of Pareto-sized flows (shape 1.2, mean 25
# segments) between hosts on different routers, NewReno with IW 4.
# Written by benchmarks/scenarios/make_graph.py.
name = "graph-1000"
seed = 1
duration = "2s"

[topology]
kind = "graph"
file = "graph-1000.json"
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


def graph() -> dict:
    """The routers and core links: {"nodes": [...], "links": [...]} as `kind = "graph"` reads it."""
    rng = random.Random(SEED)
    edges: set[tuple[int, int]] = set()
    for i in range(1, ROUTERS):
        edges.add((rng.randrange(i), i))
    added = 0
    while added < EXTRA_LINKS:
        a, b = sorted(rng.sample(range(ROUTERS), 2))
        if (a, b) not in edges:
            edges.add((a, b))
            added += 1
    links = []
    for a, b in sorted(edges):
        delay_us = rng.randint(100, 2000)
        links.append({"a": f"r{a}", "b": f"r{b}", "rate": "10Gbps", "delay": f"{delay_us}us"})
    nodes = [{"name": f"r{i}", "kind": "router"} for i in range(ROUTERS)]
    return {"nodes": nodes, "links": links}


def write(folder: Path) -> None:
    g = graph()
    # One node or link per line: readable, and a diff names the links that changed.
    rows = {key: ",\n".join("  " + json.dumps(x) for x in g[key]) for key in ("nodes", "links")}
    text = '{\n"nodes": [\n' + rows["nodes"] + '\n],\n"links": [\n' + rows["links"] + "\n]\n}\n"
    (folder / "graph-1000.json").write_text(text)
    (folder / "graph-1000.toml").write_text(SCENARIO.format(routers=ROUTERS, links=len(g["links"])))


if __name__ == "__main__":
    write(Path(__file__).resolve().parent)
