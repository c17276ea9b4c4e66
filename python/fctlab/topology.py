"""Real backbone graphs from the `topohub` package, turned into the core's `kind = "graph"`.

topohub ships NetworkX node-link dicts (Topology Zoo, SNDlib, CAIDA, ...): nodes with
(lon, lat), edges with great-circle length `dist` in km, and no capacities or delays. A
scenario asks for one with

    [topology]
    kind = "topohub"
    name = "topozoo/Abilene"
    hosts_per_router = 10
    access_rate = "1Gbps"
    access_delay = "1ms"
    core_rate = "10Gbps"
    mean_rtt = "40ms"        # optional

Core link delays come from distance at 5 us/km (light in fibre); with `mean_rtt` all core
delays are scaled by one factor so that the mean round-trip propagation over host pairs on
different routers, access links included, equals it (what the RC3 paper did to its Internet-2
graph). One common factor keeps the delay-shortest paths the core will route on, so the mean
is computed on the same paths before and after scaling.
"""

from __future__ import annotations

import difflib
import heapq
import re
from collections.abc import Mapping
from typing import Any

from fctlab.errors import ScenarioError, field_error
from fctlab.quantity import parse_rate, parse_time

#: Propagation delay per km of fibre (about 2/3 c).
SECONDS_PER_KM = 5e-6

_FIELDS = ("kind", "name", "hosts_per_router", "access_rate", "access_delay", "core_rate", "mean_rtt")


def expand_topohub(spec: Mapping[str, Any], field: str = "topology") -> dict:
    """The `kind = "graph"` spec (inline routers and core links) for a `kind = "topohub"` spec."""
    unknown = [k for k in spec if k not in _FIELDS]
    if unknown:
        raise ScenarioError(f"field `{field}.{unknown[0]}`: unknown field; expected one of {', '.join(_FIELDS)}")
    for required in ("name", "access_rate", "core_rate"):
        if required not in spec:
            raise ScenarioError(f"field `{field}.{required}`: missing; topohub topologies need {required}")
    name = spec["name"]
    if not isinstance(name, str):
        raise field_error(f"{field}.name", 'a topohub key like "topozoo/Abilene"', name)
    hosts = spec.get("hosts_per_router", 1)
    if isinstance(hosts, bool) or not isinstance(hosts, int) or hosts < 1:
        raise field_error(f"{field}.hosts_per_router", "an integer >= 1", hosts)
    parse_rate(spec["access_rate"], f"{field}.access_rate")
    parse_rate(spec["core_rate"], f"{field}.core_rate")
    access_delay = parse_time(spec.get("access_delay", 0.0), f"{field}.access_delay")

    routers, edges = _read_graph(topohub_graph(name, f"{field}.name"))
    delays = [km * SECONDS_PER_KM for _, _, km in edges]
    core = _mean_core_delay(len(routers), [(a, b, d) for (a, b, _), d in zip(edges, delays)])
    if core is None:
        raise field_error(f"{field}.name", "a connected topology", f"{name} (some routers cannot reach others)")
    if "mean_rtt" in spec:
        target = parse_time(spec["mean_rtt"], f"{field}.mean_rtt")
        # Mean RTT over host pairs on different routers = 2 * (2 * access_delay + mean core delay),
        # since every router has the same number of hosts.
        wanted_core = target / 2 - 2 * access_delay
        if wanted_core <= 0:
            raise field_error(
                f"{field}.mean_rtt",
                f"more than the access links' share 4 * access_delay = {4 * access_delay * 1e3:g} ms",
                spec["mean_rtt"],
            )
        if core == 0:
            raise field_error(
                f"{field}.name", "a topology with core link lengths to scale", f"{name} (all lengths are 0 km)"
            )
        scale = wanted_core / core
        delays = [d * scale for d in delays]

    out: dict[str, Any] = {
        "kind": "graph",
        "nodes": [{"name": r, "kind": "router"} for r in routers],
        # Delays in seconds, rounded to the core's picosecond resolution.
        "links": [
            {"a": routers[a], "b": routers[b], "rate": spec["core_rate"], "delay": round(d, 12)}
            for (a, b, _), d in zip(edges, delays)
        ],
        "hosts_per_router": hosts,
        "access_rate": spec["access_rate"],
    }
    if "access_delay" in spec:
        out["access_delay"] = spec["access_delay"]
    return out


def topohub_graph(name: str, field: str = "topology.name") -> dict:
    """The node-link dict topohub stores under `name`; a ScenarioError with close names if none."""
    try:
        import topohub
    except ImportError:
        raise ScenarioError(
            f'field `{field}`: kind = "topohub" needs the topohub package (pip install "fctlab[topo]")'
        ) from None
    try:
        return topohub.get(name)
    except (KeyError, OSError, ValueError):
        close = difflib.get_close_matches(name, topohub_names(), n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ScenarioError(
            f'field `{field}`: unknown topohub topology "{name}"; expected a key like "topozoo/Abilene"{hint}'
        ) from None


def topohub_names() -> list[str]:
    """Every key topohub can load ("topozoo/Abilene", "caida/2024-08/1221", ...)."""
    try:
        import importlib.resources

        import topohub
    except ImportError:
        return []
    names: list[str] = []

    def walk(node: Any, prefix: str) -> None:
        for child in node.iterdir():
            if child.is_dir():
                walk(child, f"{prefix}{child.name}/")
            elif child.name.endswith(".json"):
                names.append(prefix + child.name[: -len(".json")])

    walk(importlib.resources.files(topohub) / "data", "")
    return sorted(names)


def _read_graph(g: Mapping[str, Any]) -> tuple[list[str], list[tuple[int, int, float]]]:
    """Router names (made safe for link names and unique) and edges (a, b, km) by index."""
    index: dict[str, int] = {}
    routers: list[str] = []
    for i, node in enumerate(g["nodes"]):
        index[str(node["id"])] = i
        base = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(node.get("name") or "")).strip("_") or f"n{node['id']}"
        # Some CAIDA and backbone graphs repeat names; the id keeps them apart.
        routers.append(base if base not in routers else f"{base}_{node['id']}")
    edges: list[tuple[int, int, float]] = []
    for e in g["edges"]:
        a, b = index[str(e["source"])], index[str(e["target"])]
        if a != b:
            edges.append((a, b, float(e.get("dist", 0.0))))
    return routers, edges


def _mean_core_delay(n: int, edges: list[tuple[int, int, float]]) -> float | None:
    """Mean one-way delay of delay-shortest paths over ordered router pairs; None if disconnected."""
    adj: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    for a, b, d in edges:
        adj[a].append((b, d))
        adj[b].append((a, d))
    total = 0.0
    for src in range(n):
        dist = _dijkstra(adj, src)
        if any(d is None for d in dist):
            return None
        total += sum(d for d in dist if d is not None)
    return total / (n * (n - 1)) if n > 1 else 0.0


def _dijkstra(adj: list[list[tuple[int, float]]], src: int) -> list[float | None]:
    dist: list[float | None] = [None] * len(adj)
    dist[src] = 0.0
    heap = [(0.0, src)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:  # type: ignore[operator]  # a popped node always has a distance
            continue
        for v, w in adj[u]:
            nd = d + w
            if dist[v] is None or nd < dist[v]:
                dist[v] = nd
                heapq.heappush(heap, (nd, v))
    return dist


def mean_rtt(graph: Mapping[str, Any]) -> float:
    """Mean round-trip propagation (s) over host pairs on different routers of an expanded graph spec."""
    names = [n["name"] for n in graph["nodes"]]
    index = {name: i for i, name in enumerate(names)}
    edges = [(index[l["a"]], index[l["b"]], parse_time(l["delay"], "links.delay")) for l in graph["links"]]
    core = _mean_core_delay(len(names), edges)
    if core is None:
        raise ScenarioError("graph is not connected")
    return 2 * (2 * parse_time(graph.get("access_delay", 0.0), "access_delay") + core)
