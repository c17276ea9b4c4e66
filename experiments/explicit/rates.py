"""What seed 003's figures plot, read from a run's series: each flow's sending rate, the input
rate of a router port, its utilization and queue (phases, spans, crossings and settling times
are `fctlab.reproduce.series`).

Seed 003 averages a rate-based sender's rate over two RTTs and takes cwnd / srtt for XCP
(footnote 3); `flow_rates` and `input_rate` are the one place that reads them.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from fctlab.reproduce.framework import Runs
from fctlab.reproduce.series import capacity, link_series, smooth
from fctlab_experiments.explicit.protocols import PROTOCOLS, WIRE

#: Router input rates are averaged over 100 ms, two round trips of Figs. 7 and 8's 50 ms setups.
AVERAGE_S = 0.1


def protocols_in(runs: Runs) -> list[str]:
    """The protocols of `PROTOCOLS` that have a run of that name, in table order."""
    return [p for p in PROTOCOLS if p in runs.names]


def port_series(runs: Runs, name: str, seed: int, link: str) -> pl.DataFrame:
    """A port's series plus `util` (departures / C) and `queue_pkts` (1500-byte packets)."""
    cap = capacity(runs, name, seed, link)
    frame = link_series(runs.series(name, seed), link)
    return frame.with_columns(util=pl.col("throughput_bps") / cap, queue_pkts=pl.col("queue_bytes") / WIRE)


def flow_rates(runs: Runs, name: str, seed: int, ids: Sequence[int]) -> pl.DataFrame:
    """Seed 003's sending rate of each flow in `ids` (bit/s): time_s, then `flow<id>` columns."""
    rates = runs.series(name, seed).filter(pl.col("metric") == "send_rate_bps")
    wanted = [f"flow{i}" for i in ids]
    wide = rates.filter(pl.col("target").is_in(wanted)).pivot("target", index="time_s", values="value").sort("time_s")
    if "time_s" not in wide.columns:
        wide = pl.DataFrame({"time_s": []}, schema={"time_s": pl.Float64})
    # A flow that never sent in the run (a very short run) has no rows: its column is null.
    missing = [pl.lit(None, dtype=pl.Float64).alias(c) for c in wanted if c not in wide.columns]
    return wide.with_columns(missing).select("time_s", *wanted)


def input_rate(series: pl.DataFrame, link: str) -> pl.DataFrame:
    """time_s, input_bps: the bits offered to a port's queue per sampling interval, over that interval."""
    return link_series(series, link).select("time_s", "input_bps")


def bottleneck_input(runs: Runs, p: str, seed: int) -> pl.DataFrame:
    """The bottleneck's input rate over `AVERAGE_S`."""
    return smooth(input_rate(runs.series(p, seed), "bottleneck"), AVERAGE_S)
