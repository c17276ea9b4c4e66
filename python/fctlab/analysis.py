"""FCT statistics from the per-flow table (polars only): `summarize` one run, `compare` two.

Which flows count: FCT statistics use the *measured* flows (started inside the measurement
window) that completed, excluding long-lived flows (`size_bytes == -1`, no FCT by design).
Measured flows that did not complete are counted (`measured_incomplete`), never silently
dropped from the counts: a non-zero value means the means are biased low.

Percentiles interpolate linearly between order statistics (numpy's default), so p50 of
1..100 is 50.5.

Size bins: one bin per distinct size when the sample has at most 32 distinct sizes (empirical
CDF workloads such as RC3's 11-point table), else log2 bins of 1460-byte segments:
[1], [2, 3], [4, 7], ... segments, a flow of s bytes having ceil(s / 1460) segments (>= 1).

`ecdf` gives a sample's empirical CDF (thinned to a number of points for plots), and
`slowdown_by_bin` the mean and p99 slowdown (FCT over ideal FCT) per size bin.

`compare` reports the RC3 paper's metric: percent reduction (A - B) / A * 100 of mean FCT,
over flows, over bytes (the byte-weighted mean sum(size * fct) / sum(size)), and per size bin.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

import polars as pl

SEGMENT_BYTES = 1460
MAX_EXACT_BINS = 32
LONG_LIVED = -1


Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)


def fct_sample(flows: Frame) -> Frame:
    """The flows FCT statistics are over: measured, finite size, completed."""
    return flows.filter(pl.col("measured") & (pl.col("size_bytes") >= 0) & pl.col("fct_s").is_not_null())


def summarize(flows: pl.DataFrame | pl.LazyFrame) -> dict[str, Any]:
    """Counts and FCT statistics of one run's flow table, JSON-ready (None where undefined).

    `flows` may be lazy (`pl.scan_parquet` of a flows.parquet): then only the counts and the
    sample's three columns are ever in memory, not the table. Either way the statistics are
    computed on the sample as one chunk, so that sums add up in one order: the same table gives
    the same numbers, bit for bit, however it was read.
    """
    finite = pl.col("size_bytes") >= 0
    lazy = flows.lazy()
    counts = (
        lazy.select(
            flows_started=pl.len(),
            flows_completed=pl.col("finish_s").is_not_null().sum(),
            long_lived=(~finite).sum(),
            measured=(pl.col("measured") & finite).sum(),
            measured_incomplete=(pl.col("measured") & finite & pl.col("fct_s").is_null()).sum(),
        )
        .collect()
        .row(0, named=True)
    )
    sample = fct_sample(lazy).select("size_bytes", "fct_s", "ideal_fct_s").collect().rechunk()
    out: dict[str, Any] = {
        "flows_started": int(counts["flows_started"]),
        "flows_completed": int(counts["flows_completed"] or 0),
        "flows_incomplete": int(counts["flows_started"]) - int(counts["flows_completed"] or 0),
        "long_lived": int(counts["long_lived"] or 0),
        "measured": int(counts["measured"] or 0),
        "measured_incomplete": int(counts["measured_incomplete"] or 0),
        **_fct_stats(sample),
    }
    bins = SizeBins.for_sizes(sample["size_bytes"])
    out["bins"] = [
        {
            **bins.bounds(row["key"]),
            "count": row["count"],
            "mean_fct_s": row["mean_fct_s"],
            "p99_fct_s": row["p99_fct_s"],
        }
        for row in _per_bin(sample, bins).iter_rows(named=True)
    ]
    return out


def _fct_stats(sample: pl.DataFrame) -> dict[str, float | None]:
    fct, size = pl.col("fct_s"), pl.col("size_bytes")
    slow = sample.filter(pl.col("ideal_fct_s") > 0)
    row = sample.select(
        completed_measured=pl.len(),
        mean_fct_s=fct.mean(),
        bytes_weighted=(size.cast(pl.Float64) * fct).sum(),
        bytes_total=size.sum(),
        p50_fct_s=fct.quantile(0.50, interpolation="linear"),
        p90_fct_s=fct.quantile(0.90, interpolation="linear"),
        p99_fct_s=fct.quantile(0.99, interpolation="linear"),
    ).row(0, named=True)
    weighted = row["bytes_weighted"] / row["bytes_total"] if row["bytes_total"] else None
    return {
        "completed_measured": int(row["completed_measured"]),
        "mean_fct_s": row["mean_fct_s"],
        "mean_fct_bytes_weighted_s": weighted,
        "p50_fct_s": row["p50_fct_s"],
        "p90_fct_s": row["p90_fct_s"],
        "p99_fct_s": row["p99_fct_s"],
        "mean_slowdown": slow.select((pl.col("fct_s") / pl.col("ideal_fct_s")).mean()).item() if slow.height else None,
    }


def _per_bin(sample: pl.DataFrame, bins: SizeBins) -> pl.DataFrame:
    return (
        sample.with_columns(key=bins.key_expr())
        .group_by("key")
        .agg(
            count=pl.len(),
            mean_fct_s=pl.col("fct_s").mean(),
            p99_fct_s=pl.col("fct_s").quantile(0.99, interpolation="linear"),
        )
        .sort("key")
    )


@dataclass(frozen=True)
class SizeBins:
    """How flows are grouped by size: `exact` (key = size in bytes) or log2 segment bins (key = k)."""

    exact: bool

    @classmethod
    def for_sizes(cls, sizes: pl.Series) -> SizeBins:
        """Exact bins for at most 32 distinct sizes, else log2 segment bins."""
        return cls(exact=sizes.n_unique() <= MAX_EXACT_BINS)

    def key_expr(self) -> pl.Expr:
        """Bin key of each row's `size_bytes`: the size itself, or k with 2^k <= segments < 2^(k+1)."""
        if self.exact:
            return pl.col("size_bytes")
        segs = ((pl.col("size_bytes") + SEGMENT_BYTES - 1) // SEGMENT_BYTES).clip(lower_bound=1)
        guess = segs.cast(pl.Float64).log(2).floor().cast(pl.Int64)
        # The float log can land one off at exact powers of two; correct with integer powers.
        low = pl.lit(2, dtype=pl.Int64).pow(guess)
        return pl.when(low * 2 <= segs).then(guess + 1).when(low > segs).then(guess - 1).otherwise(guess)

    def bounds(self, key: int) -> dict[str, Any]:
        """`label`, `lo_bytes`, `hi_bytes` (inclusive) of the bin with this key."""
        if self.exact:
            return {"label": f"{key} B", "lo_bytes": key, "hi_bytes": key}
        lo, hi = 1 << key, (1 << (key + 1)) - 1
        label = f"{lo} seg" if lo == hi else f"{lo}-{hi} seg"
        return {"label": label, "lo_bytes": (lo - 1) * SEGMENT_BYTES + 1, "hi_bytes": hi * SEGMENT_BYTES}


def ecdf(values: pl.Series, max_points: int | None = None) -> tuple[list[float], list[float]]:
    """The empirical CDF of `values` (nulls left out) as (x, F(x)) at the sorted values, F of the
    i-th smallest (from 1) being i / n. With `max_points`, at most that many points, at evenly
    spaced ranks with the smallest and largest kept: the same values give the same points."""
    xs = values.drop_nulls().sort()
    n = xs.len()
    if max_points is None or n <= max_points:
        ranks = list(range(n))
    else:
        ranks = sorted({round(k * (n - 1) / (max_points - 1)) for k in range(max_points)})
    # Only the chosen values leave polars: a run of 10^7 flows costs no list of 10^7 floats.
    return [float(x) for x in xs.gather(ranks)], [(i + 1) / n for i in ranks]


def slowdown_by_bin(flows: pl.DataFrame, bins: SizeBins | None = None) -> pl.DataFrame:
    """Slowdown (`fct_s / ideal_fct_s`) of the FCT sample per size bin: `label`, `lo_bytes`,
    `hi_bytes`, `count`, `mean_slowdown`, `p99_slowdown`; flows without an ideal FCT (0) are left
    out. Bins as `summarize` chooses them on this sample, unless given (to group runs alike)."""
    sample = fct_sample(flows).filter(pl.col("ideal_fct_s") > 0)
    bins = bins or SizeBins.for_sizes(sample["size_bytes"])
    slow = pl.col("fct_s") / pl.col("ideal_fct_s")
    per = (
        sample.with_columns(key=bins.key_expr())
        .group_by("key")
        .agg(count=pl.len(), mean_slowdown=slow.mean(), p99_slowdown=slow.quantile(0.99, interpolation="linear"))
        .sort("key")
    )
    rows = [{**bins.bounds(r["key"]), **{k: v for k, v in r.items() if k != "key"}} for r in per.iter_rows(named=True)]
    schema = {"label": pl.String, "lo_bytes": pl.Int64, "hi_bytes": pl.Int64, "count": pl.Int64}
    return pl.DataFrame(rows, schema={**schema, "mean_slowdown": pl.Float64, "p99_slowdown": pl.Float64})


def reduction_pct(a: float | None, b: float | None) -> float | None:
    """(a - b) / a * 100: how much smaller b is than a, in percent; None if undefined."""
    if a is None or b is None or a == 0:
        return None
    return (a - b) / a * 100.0


def compare(a_flows: Any, b_flows: Any) -> dict[str, Any]:
    """Percent reduction of mean FCT from A to B: over flows, over bytes, per size bin.

    Accepts flow DataFrames or Results. Bins are chosen on the union of both samples' sizes,
    so both sides are grouped the same way.
    """
    a, b = fct_sample(_flows_of(a_flows)), fct_sample(_flows_of(b_flows))
    sa, sb = _fct_stats(a), _fct_stats(b)
    bins = SizeBins.for_sizes(pl.concat([a["size_bytes"], b["size_bytes"]]))
    per_a = {r["key"]: r for r in _per_bin(a, bins).iter_rows(named=True)}
    per_b = {r["key"]: r for r in _per_bin(b, bins).iter_rows(named=True)}
    rows = []
    for key in sorted(per_a.keys() | per_b.keys()):
        ra, rb = per_a.get(key), per_b.get(key)
        ma = ra["mean_fct_s"] if ra else None
        mb = rb["mean_fct_s"] if rb else None
        rows.append(
            {
                **bins.bounds(key),
                "count_a": ra["count"] if ra else 0,
                "count_b": rb["count"] if rb else 0,
                "mean_fct_a_s": ma,
                "mean_fct_b_s": mb,
                "reduction_pct": reduction_pct(ma, mb),
            }
        )
    return {
        "count_a": sa["completed_measured"],
        "count_b": sb["completed_measured"],
        "mean_fct_a_s": sa["mean_fct_s"],
        "mean_fct_b_s": sb["mean_fct_s"],
        "over_flows_pct": reduction_pct(sa["mean_fct_s"], sb["mean_fct_s"]),
        "mean_fct_bytes_weighted_a_s": sa["mean_fct_bytes_weighted_s"],
        "mean_fct_bytes_weighted_b_s": sb["mean_fct_bytes_weighted_s"],
        "over_bytes_pct": reduction_pct(sa["mean_fct_bytes_weighted_s"], sb["mean_fct_bytes_weighted_s"]),
        "bins": rows,
    }


def compare_table(comparison: dict[str, Any]) -> pl.DataFrame:
    """The per-bin part of a `compare` result as a DataFrame (for notebooks and plots)."""
    cols = ["label", "lo_bytes", "hi_bytes", "count_a", "count_b", "mean_fct_a_s", "mean_fct_b_s", "reduction_pct"]
    return pl.DataFrame(
        comparison["bins"],
        schema={
            "label": pl.String,
            "lo_bytes": pl.Int64,
            "hi_bytes": pl.Int64,
            "count_a": pl.Int64,
            "count_b": pl.Int64,
            "mean_fct_a_s": pl.Float64,
            "mean_fct_b_s": pl.Float64,
            "reduction_pct": pl.Float64,
        },
    ).select(cols)


def _flows_of(x: Any) -> pl.DataFrame:
    return x.flows if hasattr(x, "flows") else x


def loss_probability(links: pl.DataFrame, name: str) -> float:
    """Packet loss probability at one link of a links table: drops / arrivals, with arrivals =
    `pkts_sent` + `drops_pkts` (every packet offered to the link's queue is either sent or
    dropped; packets still queued at the end are not counted, none in a drained run). Random
    losses on the wire (`[[loss]]`), counted in both columns, would count twice: the links
    table suits queue drops. Raises if the link is unknown; 0 for a link that saw no packet."""
    row = links.filter(pl.col("name") == name)
    if row.height != 1:
        raise ValueError(f"links table: expected one link named {name!r}, found {row.height}")
    sent, drops = int(row["pkts_sent"].item()), int(row["drops_pkts"].item())
    arrivals = sent + drops
    return drops / arrivals if arrivals else 0.0
