"""What an estimate's results are made of, shared by the estimators (`fctlab.tools.estimate`)
and what corrects them afterwards (`fctlab.tools.correction`): when the run an estimate stands
for would have ended, a flows table's completion columns from estimated FCTs, the slowdown
statistics per size bin both compare, and how many flows a size bin needs for its p99 to be
judged."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from fctlab.analysis import SizeBins, fct_sample

#: The fewest flows a size bin needs on both sides for its p99 to be judged: with fewer, the
#: 99th percentile is (by linear interpolation) within one flow of the bin's largest slowdown,
#: a single flow's luck rather than a tail.
P99_MIN_FLOWS = 100


def end_s(spec: Mapping[str, Any]) -> float:
    """When the packet level would stop this scenario (s): `max_time` when it drains (default
    `duration` + 300 s), else `duration` (docs/scenario.md, "When a run ends")."""
    from fctlab.quantity import parse_time

    duration = parse_time(spec["duration"], "duration")
    if not spec.get("drain", True):
        return duration
    if spec.get("max_time") is not None:
        return parse_time(spec["max_time"], "max_time")
    return duration + 300.0


def with_fct(flows: pl.DataFrame, fct: pl.Series, end: float) -> pl.DataFrame:
    """The flows table (by id) with an estimated FCT per flow: finish, FCT and delivered bytes
    where it finishes by `end` (s) (else open, as the packet level would leave it)."""
    est = flows.with_columns(fct.alias("fct"))
    done = (pl.col("start_s") + pl.col("fct")) <= end
    est = est.with_columns(
        finish_s=pl.when(done).then(pl.col("start_s") + pl.col("fct")),
        fct_s=pl.when(done).then(pl.col("fct")),
        acked_s=pl.lit(None, dtype=pl.Float64),
        first_write_s=pl.lit(None, dtype=pl.Float64),
        delivered_bytes=pl.when(done).then(pl.col("size_bytes")).otherwise(0),
        retx_bytes=pl.lit(0, dtype=pl.Int64),
        timeouts=pl.lit(0, dtype=pl.Int64),
    )
    return est.select(flows.columns)


def bin_stats(flows: pl.DataFrame, bins: SizeBins, **extra: pl.Expr) -> pl.DataFrame:
    """Per size bin (`key`) of a flows table's measured, finished flows with an ideal FCT: the
    `count`, `mean`, `p50` and `p99` slowdown (FCT / ideal FCT), and the `extra` aggregations,
    smallest bin first."""
    slow = pl.col("fct_s") / pl.col("ideal_fct_s")
    sample = fct_sample(flows).filter(pl.col("ideal_fct_s") > 0)
    return (
        sample.with_columns(key=bins.key_expr())
        .group_by("key")
        .agg(
            count=pl.len(),
            mean=slow.mean(),
            p50=slow.quantile(0.5, interpolation="linear"),
            p99=slow.quantile(0.99, interpolation="linear"),
            **extra,
        )
        .sort("key")
    )
