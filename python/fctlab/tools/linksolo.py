"""A flow alone on its path: the solo problem of `fctlab estimate --method links`
(`fctlab.tools.linksim`), whose FCT, `alone_f`, every link run's delay is measured against.

Flows with the same transport and the same path rates and delays (a *path class*: in a fat tree
every path between two pods is one) alone take a time that depends on their size only. The
solo problem has a chain per (class, size) it needs, its flow alone on it, its chains dealt to
`PARTS` runs of about equal cost (packets times hops, largest first to the least loaded), so
that on several cores it is not the one long run the link problems wait for:

- **exact**: a class with at most `EXACT_SIZES` distinct sizes runs each of them;
- **grid**: a class with more (web-search sizes are drawn from a continuous CDF, so 10^6 flows
  have about 10^6 sizes) runs, for flows of up to `EXACT_PACKETS` packets, both ends of their
  packet count (one byte into the last packet and all of it), or of up to `SLOW_START_BDPS`
  bandwidth-delay products of the path if more, and above that a grid of packet counts
  `GRID_STEP` apart; a flow's time is interpolated linearly in its size between the two points
  around it. Within one packet count a lone flow's packets leave at the same times whatever the
  last one carries, so only that packet's serialisation changes, linearly; past slow start a
  lone flow adds one packet's serialisation at its bottleneck per packet, so its time is linear
  in its size between grid points. (With grid points from 256 packets on whatever the path, 2 of
  150 lone flows of 0.3-3 MB on a 100 Mb/s dumbbell were off by up to 2.8% at a 14 ms round
  trip and 47% at 104 ms: a slow-start step inside their grid interval.)

A lone flow that loses packets is the exception: which ones it loses can turn on the
microseconds its last packet's size moves it by (or on whether that packet fits a queue counted
in bytes), and its time is not linear within a packet count; measured 1.3-7% off on the
dumbbell. Lossless lone flows (a queue of the path's bandwidth-delay product or more) are exact
to 0.2%.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from fctlab.tools.linkbatch import flow_key
from fctlab.tools.linkclusters import SEGMENT, packets

#: A path class with at most this many distinct flow sizes runs every one of them.
EXACT_SIZES = 2048
#: Above `EXACT_SIZES`, flows of up to this many packets run at both ends of their packet count ...
EXACT_PACKETS = 256
#: ... or, if more, this many of its path's bandwidth-delay products (in packets): a lone flow
#: in slow start takes one more round trip at each doubling, a step no grid can interpolate.
SLOW_START_BDPS = 8
#: Larger flows run between grid points of packet counts this factor apart.
GRID_STEP = 1.01
#: The solo problem's chains run in this many runs (fewer if it has fewer chains).
PARTS = 4


@dataclass
class Solo:
    """The solo problem: the overrides of its runs, the chain each flow key of their runs stands
    for, and each flow's two chains and weight (by row of the flows table it was built from)."""

    parts: list[dict]
    chain_of_key: dict[tuple, int]
    lo: np.ndarray
    hi: np.ndarray
    weight: np.ndarray

    @property
    def chains(self) -> int:
        return len(self.chain_of_key)


def exact_packets(rates: list[float], delays: list[float]) -> int:
    """Up to how many packets a flow of this path runs at both ends of its packet count:
    `EXACT_PACKETS`, or `SLOW_START_BDPS` of the path's bandwidth-delay products if more."""
    bdp = min(rates) * 2 * sum(delays) / 8 / SEGMENT
    return max(EXACT_PACKETS, math.ceil(SLOW_START_BDPS * bdp))


def _points(sizes: np.ndarray, exact: int = EXACT_PACKETS) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For one path class's flow sizes: the point sizes to run, and for each flow the indices of
    the two points around its size and its weight on the second (see the module doc); flows of
    up to `exact` packets run at both ends of their packet count."""
    distinct = np.unique(sizes)
    if len(distinct) <= EXACT_SIZES:
        at = np.searchsorted(distinct, sizes)
        return distinct, at, at, np.zeros(len(sizes))
    pk = packets(sizes)
    small = pk <= exact
    lo_size = np.where(small, np.where(pk == 1, 1, (pk - 1) * SEGMENT + 1), 0)
    hi_size = np.where(small, pk * SEGMENT, 0)
    if (~small).any():
        top = int(pk.max())
        grid, g = [exact], float(exact)
        while grid[-1] < top:
            g *= GRID_STEP
            grid.append(max(grid[-1] + 1, round(g)))
        grid_sizes = np.asarray(grid, dtype=np.int64) * SEGMENT
        j = np.searchsorted(grid_sizes, sizes[~small])  # grid_sizes[j - 1] < size <= grid_sizes[j]
        lo_size[~small] = grid_sizes[j - 1]
        hi_size[~small] = grid_sizes[j]
    points = np.unique(np.concatenate([lo_size, hi_size]))
    lo, hi = np.searchsorted(points, lo_size), np.searchsorted(points, hi_size)
    weight = np.where(hi_size > lo_size, (sizes - lo_size) / np.maximum(hi_size - lo_size, 1), 0.0)
    return points, lo, hi, weight


def solo_problem(flows: pl.DataFrame, links: pl.DataFrame, transports: Any) -> Solo:
    """The solo problem of `flows` (see the module doc); `transports` names each chain's
    transport (`linksim.Transports`)."""
    hops = pl.DataFrame(
        {
            "path": pl.Series(range(links.height), dtype=flows["path"].dtype.inner),
            "r": links["rate_bps"],
            "d": links["delay_s"],
        }
    )
    per_flow = (
        flows.select("path", "protocol", "size_bytes")
        .with_row_index("row")
        .explode("path")
        .join(hops, on="path", how="left", maintain_order="left")
        .group_by("row", maintain_order=True)
        .agg(pl.col("protocol").first(), pl.col("size_bytes").first(), pl.col("r"), pl.col("d"))
    )
    classes = per_flow.group_by("protocol", "r", "d", maintain_order=True).agg("row", "size_bytes")
    n = flows.height
    lo, hi, weight = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n)
    # Per chain: its nodes, edges, flow, transport label and cost.
    chains: list[tuple[list[dict], list[dict], dict, str, int]] = []
    chain_of_key: dict[tuple, int] = {}
    for label, rates, delays, rows, sizes in classes.iter_rows():
        rows = np.asarray(rows)
        points, plo, phi, w = _points(np.asarray(sizes, dtype=np.int64), exact_packets(rates, delays))
        first = len(chains)
        for size in points.tolist():
            c = len(chains)
            names = [f"a{c}"] + [f"r{c}_{i}" for i in range(1, len(rates))] + [f"b{c}"]
            nodes = [{"name": x, "kind": "host" if i in (0, len(names) - 1) else "router"} for i, x in enumerate(names)]
            edges = [
                {"a": names[i], "b": names[i + 1], "rate": r, "delay": d}
                for i, (r, d) in enumerate(zip(rates, delays, strict=True))
            ]
            entry = {"src": names[0], "dst": names[-1], "start": 0, "size": size}
            chains.append((nodes, edges, entry, label, int(packets(size)) * len(rates)))
            chain_of_key[flow_key(names[0], names[-1], 0.0, size)] = c
        lo[rows], hi[rows], weight[rows] = first + plo, first + phi, w
    return Solo([_part(chains, p, transports) for p in _deal(chains)], chain_of_key, lo, hi, weight)


def _deal(chains: list[tuple]) -> list[list[int]]:
    """The chains of each part, in chain order: the costliest first, each to the part with the
    least cost so far (the first such part on a tie)."""
    parts: list[list[int]] = [[] for _ in range(max(1, min(PARTS, len(chains))))]
    load = [0] * len(parts)
    for c in sorted(range(len(chains)), key=lambda c: (-chains[c][4], c)):
        p = load.index(min(load))
        parts[p].append(c)
        load[p] += chains[c][4]
    return [sorted(p) for p in parts]


def _part(chains: list[tuple], which: list[int], transports: Any) -> dict:
    """The overrides of one run holding the chains `which`."""
    nodes = [n for c in which for n in chains[c][0]]
    edges = [e for c in which for e in chains[c][1]]
    workload = transports.entries([chains[c][2] for c in which], [chains[c][3] for c in which])
    return {"topology": {"kind": "graph", "nodes": nodes, "links": edges}, "workload": workload}


def alone(solo: Solo, run_dirs: list[Path]) -> np.ndarray:
    """Each flow's time alone (s, NaN where a chain did not finish), by row of the flows table
    `solo` was built from, read from the solo runs in `run_dirs` (one per part)."""
    from fctlab.errors import ScenarioError

    columns = ["src", "dst", "start_s", "size_bytes", "fct_s"]
    t = pl.concat([pl.read_parquet(d / "flows.parquet", columns=columns) for d in run_dirs])
    fct = np.full(solo.chains, np.nan)
    for src, dst, start, size, f in t.iter_rows():
        c = solo.chain_of_key.get(flow_key(src, dst, start, size))
        if c is None:
            raise ScenarioError(f"{run_dirs}: a flow of the solo runs matches no chain: {(src, dst, start, size)}")
        fct[c] = np.nan if f is None else f
    return fct[solo.lo] * (1 - solo.weight) + fct[solo.hi] * solo.weight
