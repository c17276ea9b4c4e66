"""What the datacenter experiments share: each protocol's queues and transport on pFabric's
leaf-spine fabric (`PROTOCOLS`), the size bins of pFabric's figures, and slowdowns per bin.

A flow's slowdown is its FCT over `ideal_fct_s`, its completion time alone on the empty fabric
(1.5 round trips of propagation plus its wire bytes at its path's bottleneck rate): the
normalization of pFabric's and HPCC's figures.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce.framework import Runs

#: Each protocol's queues and transport, as overrides of the base scenario; hosts' NICs queue
#: as the switches do. TCP and DCTCP run over the 225 KB buffers of pFabric's comparison with
#: an RTO of at least 1 ms (also before the first RTT sample: the papers' simulators have no
#: handshake); DCTCP marks at the paper's K for 10 Gb/s; pFabric's ports hold 36 KB (about two
#: BDPs), its hosts start at one BDP (12 segments) with a 45 us timeout (about three round
#: trips); HPCC's switch ports push telemetry, its hosts' NIC queues are drop-tail (as in its
#: paper), T is the fabric's largest base RTT (15 us) and maxStage 0 (the authors' simulations;
#: `hpcc-fct`); RCP's routers start from a 15 us average RTT.
PROTOCOLS: dict[str, dict[str, Any]] = {
    "tcp": {},
    "dctcp": {
        "queues.router": {"kind": "step", "k_packets": 65, "limit": "225KB"},
        "queues.host": {"kind": "step", "k_packets": 65, "limit": "225KB"},
        "transport.cc": "dctcp",
    },
    "pfabric": {
        "queues.router": {"kind": "pfabric", "limit": "36KB"},
        "queues.host": {"kind": "pfabric", "limit": "1MB"},
        "transport": {
            "protocol": "tcp",
            "cc": "pfabric",
            "iw": 12,
            "min_rto": "45us",
            "initial_rto": "45us",
            "max_rto": "45us",
        },
    },
    "hpcc": {
        "queues.router": {"kind": "hpcc", "limit": "225KB"},
        "queues.host": {"kind": "droptail", "limit": "225KB"},
        "transport": {
            "protocol": "hpcc",
            "line_rate": "10Gbps",
            "base_rtt": "15us",
            "max_stage": 0,
            "min_rto": "1ms",
            "initial_rto": "1ms",
        },
    },
    "rcp": {
        "queues.router": {"kind": "rcp", "limit": "225KB", "initial_rtt": "15us"},
        "queues.host": {"kind": "rcp", "limit": "225KB", "initial_rtt": "15us"},
        "transport": {"protocol": "rcp", "min_rto": "1ms", "initial_rto": "1ms"},
    },
    "rc3": {
        "queues.router": {"kind": "prio", "limit": "225KB"},
        "queues.host": {"kind": "prio", "limit": "225KB"},
        "transport": {"protocol": "rc3", "iw": 10, "min_rto": "1ms", "initial_rto": "1ms"},
    },
}
#: Size bins (bytes): small below 100 KB, large above 10 MB.
SMALL, LARGE = 100_000, 10_000_000
BINS = ["small", "medium", "large"]


def size_bin(size: pl.Expr) -> pl.Expr:
    """ "small", "medium" or "large" by a flow's size in bytes."""
    return (
        pl.when(size < SMALL).then(pl.lit("small")).when(size > LARGE).then(pl.lit("large")).otherwise(pl.lit("medium"))
    )


def bin_stats(frame: pl.DataFrame, column: str) -> dict[str, tuple[float | None, float | None, int]]:
    """(mean, p99, count) of `column` per size bin."""
    out: dict[str, tuple[float | None, float | None, int]] = {}
    for b in BINS:
        v = frame.filter(pl.col("bin") == b)[column]
        out[b] = (
            (float(v.mean()), float(v.quantile(0.99, "nearest")), v.len()) if v.len() else (None, None, 0)  # type: ignore[arg-type]
        )
    return out


def slowdowns(runs: Runs, name: str, seed: int) -> pl.DataFrame:
    """Each measured flow's slowdown and size bin, of one run."""
    s = runs.sample(name, seed)
    return s.select(
        "id", "size_bytes", slowdown=pl.col("fct_s") / pl.col("ideal_fct_s"), bin=size_bin(pl.col("size_bytes"))
    )
