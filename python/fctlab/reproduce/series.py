"""What several papers' figures read from a run's time series: one link's series as columns,
spans and their statistics, threshold crossings and settling times, and the phases between the
arrivals and departures of long-lived flows.

A run's series (`Runs.series`) is long: one row per (time_s, target, metric, value), sampled
at the scenario's interval; a sample covers the interval before it. The functions here take
either that long frame or one target's columns (`link_series`), and a span is (start, end].
`settle_time` is the one exception, on plain lists, as chapter 3 of the RCP thesis and seed
003 use it ("within 10% of the target from then on").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import polars as pl

from fctlab.quantity import parse_time
from fctlab.reproduce.framework import Runs

#: Default settling band: a value counts as settled within this fraction of its target.
BAND = 0.10


class Phase(NamedTuple):
    """A span between consecutive flow arrivals or departures, and the flows active in it."""

    start: float
    end: float
    flows: list[int]

    def steady(self) -> tuple[float, float]:
        """The phase's second half, where the reports take steady-state values."""
        return (self.start + self.end) / 2, self.end


def phases(flows: Sequence[tuple[float, float]], end: float) -> list[Phase]:
    """The spans between consecutive arrivals and departures of `flows` ((start, stop) each),
    up to `end`, each with the indices of the flows active over all of it."""
    edges = sorted({0.0, end, *(t for f in flows for t in f if t < end)})
    return [Phase(a, b, [i for i, (s, e) in enumerate(flows) if s <= a and e >= b]) for a, b in zip(edges, edges[1:])]


def long_flows(runs: Runs, name: str, seed: int) -> list[tuple[float, float]]:
    """(start, stop) of the run's long-lived flows, in start order (their flow ids when they
    are the first flows to start)."""
    spec = runs.scenario(name, seed)
    end = parse_time(spec["duration"], "duration")
    out = []
    for w in spec["workload"]:
        if w["kind"] == "long_lived":
            out += [(parse_time(f["start"], "start"), parse_time(f.get("stop", end), "stop")) for f in w["flows"]]
    return sorted(out)


def link_series(series: pl.DataFrame, link: str) -> pl.DataFrame:
    """One target's series as columns: time_s, then queue_bytes, throughput_bps, active_flows, ..."""
    return series.filter(pl.col("target") == link).pivot("metric", index="time_s", values="value").sort("time_s")


def capacity(runs: Runs, name: str, seed: int, link: str) -> float:
    """A link's rate, bit/s."""
    return float(runs.links(name, seed).filter(pl.col("name") == link)["rate_bps"].item())


def access_link(runs: Runs, name: str, seed: int, flow: int) -> str:
    """The name of a flow's first link (its sender's access link)."""
    links = runs.links(name, seed)
    first = runs.flows(name, seed).row(flow, named=True)["path"][0]
    return str(links.filter(pl.col("id") == first)["name"].item())


def drops(runs: Runs, name: str, seed: int, link: str) -> int:
    """Packets dropped at a link over the run."""
    return int(runs.links(name, seed).filter(pl.col("name") == link)["drops_pkts"].item())


def smooth(frame: pl.DataFrame, seconds: float) -> pl.DataFrame:
    """Every column but time_s as a trailing mean over `seconds`."""
    if frame.height < 2:
        return frame
    step = float(frame["time_s"].diff().drop_nulls().min())
    k = max(1, round(seconds / step))
    return frame.with_columns(pl.exclude("time_s").rolling_mean(k, min_samples=1))


def span(frame: pl.DataFrame, start: float, end: float) -> pl.DataFrame:
    """Samples in (start, end]: a sample covers the interval before it."""
    return frame.filter((pl.col("time_s") > start) & (pl.col("time_s") <= end))


def span_stat(frame: pl.DataFrame, column: str, start: float, end: float, stat: str = "mean") -> float | None:
    """mean / max / min / a quantile ("q05") of `column` over (start, end]; None for no samples
    (or no such column: a flow that never started has no rate)."""
    if column not in frame.columns:
        return None
    values = span(frame, start, end)[column].drop_nulls()
    if values.is_empty():
        return None
    if stat.startswith("q"):
        return float(values.quantile(int(stat[1:]) / 100))
    return float(getattr(values, stat)())


def window_mean(frame: pl.DataFrame, column: str, start: float, end: float) -> float:
    """Mean of `column` over samples in [start, end) (a sample at a phase's end belongs to the
    next; NaN for none). Chapter 3 of the RCP thesis reads its windows so."""
    return float(frame.filter((pl.col("time_s") >= start) & (pl.col("time_s") < end))[column].mean())


def first_reach(frame: pl.DataFrame, column: str, threshold: float, start: float) -> float | None:
    """Seconds after `start` of the first sample at or above `threshold` (None: never)."""
    hit = frame.filter((pl.col("time_s") > start) & (pl.col(column) >= threshold))
    return None if hit.is_empty() else float(hit["time_s"][0]) - start


def first_below(frame: pl.DataFrame, column: str, threshold: float, start: float) -> float | None:
    """Seconds after `start` of the first sample below `threshold` (None: never)."""
    hit = frame.filter((pl.col("time_s") > start) & (pl.col(column) < threshold))
    return None if hit.is_empty() else float(hit["time_s"][0]) - start


def settle_time(
    times: list[float], values: list[float], target: float, start: float, end: float, band: float = BAND
) -> float | None:
    """Seconds after `start` from which every sample in [start, end) stays within `band` x
    `target` of `target` (None if the last sample of the span is still outside)."""
    inside = [(t, v) for t, v in zip(times, values, strict=True) if start <= t < end]
    last_out = None
    for t, v in inside:
        if abs(v - target) > band * target:
            last_out = t
    if not inside or last_out == inside[-1][0]:
        return None
    if last_out is None:
        return inside[0][0] - start
    return min(t for t, _ in inside if t > last_out) - start


def settles(frame: pl.DataFrame, column: str, target: float, start: float, end: float, band: float) -> float | None:
    """Seconds after `start` from which `column` stays within `band` x `target` up to `end`."""
    s = span(frame, start, end)
    return settle_time(s["time_s"].to_list(), s[column].to_list(), target, start, end, band)


def clears(frame: pl.DataFrame, column: str, below: float, start: float, end: float) -> float | None:
    """Seconds after `start` from which `column` stays below `below` up to `end` (None: never)."""
    s = span(frame, start, end)
    over = s.filter(pl.col(column) >= below)
    if s.is_empty() or (not over.is_empty() and over["time_s"][-1] == s["time_s"][-1]):
        return None
    if over.is_empty():
        return 0.0
    return float(s.filter(pl.col("time_s") > over["time_s"][-1])["time_s"][0]) - start
