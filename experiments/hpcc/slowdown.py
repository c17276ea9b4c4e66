"""FCT slowdown by flow size as the HPCC authors compute it (`analysis/fct_analysis.py` of their
repository), and the size bins of their published figures.

**The authors' bins.** The flows, sorted by size, are cut into 20 groups of 5% of the flows each;
each group is labelled by its largest size, and its slowdowns' 50th, 95th and 99th percentiles
are the `sorted[int(n p)]` element. A flow's slowdown is its FCT over its standalone FCT, at
least 1 (`slow < 1 ? 1 : slow`).

**The paper's axis.** The authors' results page plots the same percentiles against six size
ranges (`LABELS`), from which `PAPER_P95` was read (to about 10%).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

#: Upper edges of the size ranges of the authors' figures (bytes), and their labels.
EDGES = [20_000, 73_000, 200_000, 1_000_000, 5_000_000]
LABELS = ["<20K", "20K-73K", "73K-200K", "200K-1M", "1M-5M", ">5M"]
#: 95th-percentile slowdown read off the authors' published figures (hpcc-group.github.io,
#: "HPCC key results", web search, HPCC-INT and DCTCP, 100 Gb/s fat tree), at the middle of
#: each range of LABELS, to about 10%: {protocol: {load: values}}.
PAPER_P95: dict[str, dict[float, list[float]]] = {
    "hpcc": {0.3: [1.3, 1.8, 2.3, 3.2, 4.1, 4.3], 0.5: [1.6, 2.4, 3.6, 5.8, 8.5, 9.5]},
    "dctcp": {0.3: [2.6, 2.6, 2.7, 3.8, 4.2, 3.6], 0.5: [3.7, 3.8, 4.0, 7.0, 8.7, 6.8]},
}
#: The authors' analysis: groups of STEP percent of the flows.
STEP = 5


def size_bin(size: pl.Expr) -> pl.Expr:
    """The label of LABELS for a flow size."""
    e = pl.when(size < EDGES[0]).then(pl.lit(LABELS[0]))
    for edge, label in zip(EDGES[1:], LABELS[1:-1], strict=True):
        e = e.when(size < edge).then(pl.lit(label))
    return e.otherwise(pl.lit(LABELS[-1]))


def pctl(values: list[float], p: float) -> float:
    """The authors' percentile: the `int(n p)`-th of the sorted values."""
    return values[int(len(values) * p)]


@dataclass(frozen=True)
class Group:
    """One group of the authors' analysis."""

    #: Upper end of the group, as a fraction of the flows (0.05 ... 1.0).
    upto: float
    #: The largest flow size in it.
    size: int
    p50: float
    p95: float
    p99: float
    count: int


def groups(sizes: list[int], slowdowns: list[float], step: int = STEP) -> list[Group]:
    """The authors' table of flows of `sizes` and `slowdowns` (same order): sorted by size (a
    stable sort, as `sort -n -k 2` keeps equal sizes in file order), cut into groups of `step`
    percent, each with its largest size and its 50th/95th/99th percentile slowdown (at least 1)."""
    rows = sorted(zip(sizes, (max(s, 1.0) for s in slowdowns), strict=True), key=lambda r: r[0])
    n = len(rows)
    out = []
    for i in range(0, 100, step):
        part = rows[i * n // 100 : (i + step) * n // 100]
        if not part:
            continue
        s = sorted(r[1] for r in part)
        out.append(Group((i + step) / 100, part[-1][0], pctl(s, 0.5), pctl(s, 0.95), pctl(s, 0.99), len(part)))
    return out


def by_range(sizes: list[int], slowdowns: list[float], p: float) -> dict[str, tuple[float | None, int]]:
    """The `p` percentile (the authors' rule) of the slowdowns in each range of LABELS, and the count."""
    schema = {"size": pl.Int64, "slow": pl.Float64}
    frame = pl.DataFrame({"size": sizes, "slow": [max(s, 1.0) for s in slowdowns]}, schema=schema)
    frame = frame.with_columns(bin=size_bin(pl.col("size")))
    out: dict[str, tuple[float | None, int]] = {}
    for b in LABELS:
        v = sorted(frame.filter(pl.col("bin") == b)["slow"].to_list())
        out[b] = (pctl(v, p), len(v)) if v else (None, 0)
    return out
