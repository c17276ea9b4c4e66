"""Plot specs (for `plot.js`) from result tables: FCT CDFs, slowdown by size bin, time series.

Each function takes labelled tables, one per run, and returns the spec of one plot (None when
no run has anything to show), its data cut down deterministically so that a report stays small
whatever the run's size: a CDF to at most CDF_POINTS points per curve (`analysis.ecdf`), a time
series to at most SERIES_POINTS (the smallest and largest value of each of SERIES_POINTS / 2
equal slices of the samples, so peaks survive). Axes carry their base unit ("s", "B", "b/s"),
which the page prints with SI prefixes; a time series' curves carry their target and run as
facets, which the page offers as selectors.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import polars as pl

from fctlab.analysis import SizeBins, ecdf, fct_sample, slowdown_by_bin

CDF_POINTS = 1000
SERIES_POINTS = 2000
#: Curves of one run in one time-series plot at most (the first targets, in sampling order).
MAX_TARGETS = 10

Labelled = Sequence[tuple[str, pl.DataFrame]]

#: (metric, plot title, unit) of the link series and of the flow series a report plots.
LINK_METRICS = [
    ("queue_bytes", "queue", "B"),
    ("throughput_bps", "throughput", "b/s"),
    ("drops_bytes", "drops since the start", "B"),
]
FLOW_METRICS = [("cwnd_bytes", "congestion window", "B"), ("send_rate_bps", "sending rate", "b/s")]
#: The facet a time series' curves are told apart by, besides the run: the sampled link or flow.
TARGET_FACET = {**{m: "link" for m, _, _ in LINK_METRICS}, **{m: "flow" for m, _, _ in FLOW_METRICS}}


def fct_cdf(flows: Labelled, title: str = "FCT CDF") -> dict[str, Any] | None:
    """CDF of the FCTs of each run's sample (measured, finite, completed flows), log time axis."""
    series = []
    for label, f in flows:
        x, y = ecdf(fct_sample(f)["fct_s"], CDF_POINTS)
        if x:
            series.append({"name": label, "x": x, "y": y})
    if not series:
        return None
    return {
        "title": title,
        "x": {"label": "FCT", "unit": "s", "log": True},
        "y": {"label": "fraction of flows", "min": 0, "max": 1},
        "step": True,
        "series": series,
    }


def slowdown_bins(flows: Labelled) -> dict[str, Any] | None:
    """Mean slowdown per size bin of each run, bins chosen on all runs' sizes together (as
    `analysis.compare` does); a point at each bin's geometric middle size, log axes."""
    sizes = [fct_sample(f)["size_bytes"] for _, f in flows]
    if not sizes or not sum(s.len() for s in sizes):
        return None
    bins = SizeBins.for_sizes(pl.concat(sizes))
    series = []
    for label, f in flows:
        t = slowdown_by_bin(f, bins)
        if t.height:
            series.append(
                {
                    "name": label,
                    "x": [math.sqrt(lo * hi) for lo, hi in zip(t["lo_bytes"], t["hi_bytes"])],
                    "y": t["mean_slowdown"].to_list(),
                    "text": [f"{b}, {n} flows" for b, n in zip(t["label"], t["count"])],
                }
            )
    if not series:
        return None
    return {
        "title": "mean slowdown (FCT / ideal FCT) by flow size",
        "x": {"label": "flow size", "unit": "B", "log": True},
        "y": {"label": "slowdown", "log": True},
        "markers": True,
        "series": series,
    }


def time_series(series: Labelled, metric: str, title: str, unit: str) -> dict[str, Any] | None:
    """One metric of the series tables over time: a curve per (run, target) that has it, with
    the target (link or flow) and the run as its facets."""
    target_facet = TARGET_FACET.get(metric, "target")
    curves, left_out = [], 0
    for label, s in series:
        rows = s.filter((pl.col("metric") == metric) & pl.col("value").is_finite())
        targets = rows["target"].unique(maintain_order=True).to_list()
        left_out += max(0, len(targets) - MAX_TARGETS)
        for target in targets[:MAX_TARGETS]:
            one = rows.filter(pl.col("target") == target)
            x, y = thin(one["time_s"].to_list(), one["value"].to_list(), SERIES_POINTS)
            curves.append(
                {
                    "name": target if len(series) == 1 else f"{label}: {target}",
                    "x": x,
                    "y": y,
                    "facets": {target_facet: str(target), "run": label},
                }
            )
    if not curves:
        return None
    more = f" (first {MAX_TARGETS} per run; {left_out} more not shown)" if left_out else ""
    return {
        "title": title + more,
        "x": {"label": "time", "unit": "s"},
        "y": {"label": title, "unit": unit},
        "facets": [target_facet, "run"],
        "series": curves,
    }


def series_plots(series: Labelled) -> list[dict[str, Any]]:
    """The link plots (queue, throughput, drops), then the flow plots (window, rate) that have data."""
    specs = [time_series(series, m, t, u) for m, t, u in (*LINK_METRICS, *FLOW_METRICS)]
    return [s for s in specs if s is not None]


def thin(xs: list[float], ys: list[float], max_points: int) -> tuple[list[float], list[float]]:
    """At most `max_points` of the points (xs, ys), in order: of each of max_points / 2 equal
    slices, the points with the smallest and the largest y (the first of equals)."""
    n = len(xs)
    if n <= max_points:
        return xs, ys
    slices = max_points // 2
    keep: list[int] = []
    for k in range(slices):
        part = range(k * n // slices, (k + 1) * n // slices)
        lo, hi = min(part, key=ys.__getitem__), max(part, key=ys.__getitem__)
        keep += sorted({lo, hi})
    return [xs[i] for i in keep], [ys[i] for i in keep]
