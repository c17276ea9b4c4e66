"""Analysis helpers of the RCP thesis's chapter 4 (flow completion times against processor
sharing): flows in packets, log2 size bins, per-bin AFCT and its ratio to PS, the thesis's
reference curves, and the number of active flows over time. `MSS` is the payload of the
thesis's 1000-byte packets, which chapter 3's experiments count in too.

Sizes are counted in packets as the thesis counts them: a flow of s payload bytes in segments
of `mss` is ceil(s / mss) packets. A size bin is [2^k, 2^(k+1)) packets. The PS reference of a
flow is `fctlab.reference.ps_fct` (the exact max-min fluid of the run's own flows + 1.5 RTPD);
the thesis's eq. 4.1 curve (1.5 RTPD + L / (C (1 - rho)), the M/G/1-PS mean) is given beside it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from fctlab.reference import ps_fct, reference_curves
from fctlab.reproduce.framework import Runs, fmt

#: Payload bytes of the thesis's 1000-byte data packets (under 40 bytes of headers), what sizes
#: are counted in.
MSS = 960
#: The window called "near 2,000 packets" in the reports: [1000, 3000) packets.
NEAR_2000 = (1000, 3000)


def with_packets(flows: pl.DataFrame, mss: int = MSS) -> pl.DataFrame:
    """Adds `pkts` (ceil(size / mss), at least 1) and `bin` (floor(log2(pkts)))."""
    pkts = ((pl.col("size_bytes") + mss - 1) // mss).clip(lower_bound=1)
    return flows.with_columns(pkts=pkts).with_columns(bin=pl.col("pkts").log(2).floor().cast(pl.Int64))


def flow_table(
    runs: Runs, name: str, seed: int, capacity: float, load: float, *, iw: int = 2, workload: str | None = None
) -> pl.DataFrame:
    """Measured, completed flows of one run with their PS FCT (`ps_fct_s`, exact fluid on all
    of the run's flows), the eq. 4.1 curve (`ps_curve_s`), the lower bound and the slow-start
    curve from `iw` (`slow_start_s`), and `pkts` / `bin`; only the flows of the `workload` entry
    (label) when given."""
    flows = runs.flows(name, seed)
    links = runs.links(name, seed)
    # Wire bits in each flow's own packets (the runs' 960 + 40 bytes, flows table `mss_bytes`, `header_bytes`).
    ps = ps_fct(flows, links)
    curves = reference_curves(flows, capacity, load, iw=iw).drop("size_bytes")
    sample = runs.sample(name, seed).join(ps, on="id").join(curves, on="id")
    if workload is not None:
        sample = sample.filter(pl.col("workload") == workload)
    return with_packets(sample).with_columns(seed=pl.lit(seed))


def pooled(
    runs: Runs, name: str, capacity: float, load: float, *, iw: int = 2, workload: str | None = None
) -> pl.DataFrame:
    """`flow_table` of every seed of a run, stacked."""
    return pl.concat([flow_table(runs, name, s, capacity, load, iw=iw, workload=workload) for s in runs.seeds_of(name)])


def per_bin(table: pl.DataFrame) -> pl.DataFrame:
    """Per size bin: flows, mean size, AFCT, max FCT, mean PS FCT (exact and eq. 4.1), the
    slow-start curve, and `ratio` = AFCT / mean exact PS FCT of the same flows."""
    return (
        table.group_by("bin")
        .agg(
            n=pl.len(),
            mean_pkts=pl.col("pkts").mean(),
            afct=pl.col("fct_s").mean(),
            max_fct=pl.col("fct_s").max(),
            ps=pl.col("ps_fct_s").mean(),
            ps_curve=pl.col("ps_curve_s").mean(),
            slow_start=pl.col("slow_start_s").mean(),
        )
        .sort("bin")
        .with_columns(
            lo=(2 ** pl.col("bin")).cast(pl.Int64),
            hi=(2 ** (pl.col("bin") + 1) - 1).cast(pl.Int64),
            ratio=pl.col("afct") / pl.col("ps"),
            ratio_curve=pl.col("afct") / pl.col("ps_curve"),
        )
    )


def window_ratio(table: pl.DataFrame, lo: int, hi: int) -> tuple[int, float | None, float | None]:
    """(flows, AFCT / mean exact PS, AFCT / mean eq. 4.1) over flows of lo <= pkts < hi."""
    w = table.filter((pl.col("pkts") >= lo) & (pl.col("pkts") < hi))
    if w.height == 0:
        return 0, None, None
    afct = float(w["fct_s"].mean())
    return w.height, afct / float(w["ps_fct_s"].mean()), afct / float(w["ps_curve_s"].mean())


def window_afct(table: pl.DataFrame, lo: int, hi: int) -> float | None:
    """AFCT (s) of the flows of lo <= pkts < hi; None without any."""
    w = table.filter((pl.col("pkts") >= lo) & (pl.col("pkts") < hi))
    return float(w["fct_s"].mean()) if w.height else None


def split_afct(table: pl.DataFrame, threshold: int) -> dict[str, float | None]:
    """AFCT, mean exact PS and mean eq. 4.1 of the flows below and at or above `threshold` packets."""
    out: dict[str, float | None] = {}
    for side, cond in (("small", pl.col("pkts") < threshold), ("large", pl.col("pkts") >= threshold)):
        w = table.filter(cond)
        none = w.height == 0
        out[f"{side}_n"] = float(w.height)
        out[f"{side}_afct"] = None if none else float(w["fct_s"].mean())
        out[f"{side}_ps"] = None if none else float(w["ps_fct_s"].mean())
        out[f"{side}_curve"] = None if none else float(w["ps_curve_s"].mean())
    return out


def on_slow_start(table: pl.DataFrame, tolerance: float = 0.25) -> tuple[float, float]:
    """(fraction of flows whose FCT is within `tolerance` of their slow-start curve, i.e.
    FCT <= (1 + tolerance) x curve, the median of FCT / curve). The tolerance leaves room for
    queueing; a flow that lost a packet and went into AIMD or a timeout lands far above."""
    if table.height == 0:
        return float("nan"), float("nan")
    ratio = table["fct_s"] / table["slow_start_s"]
    return float((ratio <= 1.0 + tolerance).mean()), float(ratio.median())


def active_flows(flows: pl.DataFrame, times: Sequence[float]) -> list[int]:
    """Number of finite flows in the system (started, not finished) at each of `times`."""
    f = flows.filter(pl.col("size_bytes") >= 0)
    starts = sorted(f["start_s"].to_list())
    ends = sorted(x if x is not None else math.inf for x in f["finish_s"].to_list())
    out = []
    i = j = 0
    for t in sorted(times):
        while i < len(starts) and starts[i] <= t:
            i += 1
        while j < len(ends) and ends[j] <= t:
            j += 1
        out.append(i - j)
    return out


def ratio_rows(tables: dict[str, pl.DataFrame], max_pkts: int | None = None) -> tuple[list[str], list[list[str]]]:
    """A per-bin table: size range, flows, PS (exact), eq. 4.1, then each protocol's AFCT and
    ratio to PS. Bins are those of the first protocol (the same flows for every protocol)."""
    bins = {p: per_bin(t) for p, t in tables.items()}
    first = next(iter(bins.values()))
    header = ["packets", "flows", "PS (s)", "eq. 4.1 (s)"]
    for p in tables:
        header += [f"{p} AFCT (s)", f"{p}/PS"]
    rows = []
    for r in first.iter_rows(named=True):
        if max_pkts is not None and r["lo"] >= max_pkts:
            continue
        row = [f"{r['lo']}-{r['hi']}", str(r["n"]), fmt(r["ps"], ".3f"), fmt(r["ps_curve"], ".3f")]
        for b in bins.values():
            m = b.filter(pl.col("bin") == r["bin"])
            row += ["-", "-"] if m.height == 0 else [fmt(m["afct"][0], ".3f"), fmt(m["ratio"][0], ".2f")]
        rows.append(row)
    return header, rows
