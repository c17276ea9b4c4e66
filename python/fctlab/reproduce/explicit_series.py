"""What seed 003's figures plot, read from a run's series: each flow's sending rate, the input
rate of a router port, its queue; the phases between flow arrivals and departures; spans,
crossings and settling times; the paper-vs-fctlab table and the rate/queue plots.

Seed 003 averages a rate-based sender's rate over two RTTs and takes cwnd / srtt for XCP
(footnote 3); `flow_rates` and `input_rate` are the one place that reads them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import polars as pl

from fctlab.quantity import parse_time
from fctlab.reproduce.explicit import PROTOCOLS, WIRE
from fctlab.reproduce.framework import Context, Runs, md_table, plt
from fctlab.reproduce.rcp_ch3 import settle_time


class Phase(NamedTuple):
    """A span between consecutive flow arrivals or departures, and the flows active in it."""

    start: float
    end: float
    flows: list[int]

    def steady(self) -> tuple[float, float]:
        """The phase's second half, where the reports take steady-state values."""
        return (self.start + self.end) / 2, self.end


def protocols_in(runs: Runs) -> list[str]:
    """The protocols of `PROTOCOLS` that have a run of that name, in table order."""
    return [p for p in PROTOCOLS if p in runs.names]


def long_flows(runs: Runs, name: str, seed: int) -> list[tuple[float, float]]:
    """(start, stop) of the run's long-lived flows, in start order (their flow ids when they
    are the first flows to start, as in every figure here)."""
    spec = runs.scenario(name, seed)
    end = parse_time(spec["duration"], "duration")
    out = []
    for w in spec["workload"]:
        if w["kind"] == "long_lived":
            out += [(parse_time(f["start"], "start"), parse_time(f.get("stop", end), "stop")) for f in w["flows"]]
    return sorted(out)


def phases(flows: Sequence[tuple[float, float]], end: float) -> list[Phase]:
    """The spans between consecutive arrivals and departures of `flows`, up to `end`."""
    edges = sorted({0.0, end, *(t for f in flows for t in f if t < end)})
    return [Phase(a, b, [i for i, (s, e) in enumerate(flows) if s <= a and e >= b]) for a, b in zip(edges, edges[1:])]


def link_series(series: pl.DataFrame, link: str) -> pl.DataFrame:
    """One link's series as columns: time_s, queue_bytes, throughput_bps, active_flows, ..."""
    return series.filter(pl.col("target") == link).pivot("metric", index="time_s", values="value").sort("time_s")


def capacity(runs: Runs, name: str, seed: int, link: str) -> float:
    """A link's rate, bit/s."""
    return float(runs.links(name, seed).filter(pl.col("name") == link)["rate_bps"].item())


def port_series(runs: Runs, name: str, seed: int, link: str) -> pl.DataFrame:
    """A port's series plus `util` (departures / C) and `queue_pkts` (1500-byte packets)."""
    cap = capacity(runs, name, seed, link)
    frame = link_series(runs.series(name, seed), link)
    return frame.with_columns(util=pl.col("throughput_bps") / cap, queue_pkts=pl.col("queue_bytes") / WIRE)


def access_link(runs: Runs, name: str, seed: int, flow: int) -> str:
    """The name of a flow's first link (its sender's access link)."""
    links = runs.links(name, seed)
    first = runs.flows(name, seed).row(flow, named=True)["path"][0]
    return str(links.filter(pl.col("id") == first)["name"].item())


def drops(runs: Runs, name: str, seed: int, link: str) -> int:
    """Packets dropped at a link over the run."""
    return int(runs.links(name, seed).filter(pl.col("name") == link)["drops_pkts"].item())


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


def smooth(frame: pl.DataFrame, seconds: float) -> pl.DataFrame:
    """Every column but time_s as a trailing mean over `seconds` (seed 003 averages over 2 RTTs)."""
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


def first_reach(frame: pl.DataFrame, column: str, threshold: float, start: float) -> float | None:
    """Seconds after `start` of the first sample at or above `threshold` (None: never)."""
    hit = frame.filter((pl.col("time_s") > start) & (pl.col(column) >= threshold))
    return None if hit.is_empty() else float(hit["time_s"][0]) - start


def first_below(frame: pl.DataFrame, column: str, threshold: float, start: float) -> float | None:
    """Seconds after `start` of the first sample below `threshold` (None: never)."""
    hit = frame.filter((pl.col("time_s") > start) & (pl.col(column) < threshold))
    return None if hit.is_empty() else float(hit["time_s"][0]) - start


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


def fmt(x: float | None, spec: str = ".0f", scale: float = 1.0) -> str:
    """`x / scale` formatted, or "-" when there is no value."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x / scale, spec)


def paper_table(rows: list[tuple[str, str, dict[str, str]]], protocols: list[str]) -> str:
    """The paper-vs-fctlab table: quantity, the paper's statement, then fctlab per protocol."""
    header = ["quantity", "paper (seed 003)", *(f"fctlab {p}" for p in protocols)]
    return md_table(header, [[q, paper, *(got.get(p, "-") for p in protocols)] for q, paper, got in rows])


def _label(column: str) -> str:
    """flow<id> -> the paper's x<id + 1>; input_bps -> input."""
    return f"x{int(column[4:]) + 1}" if column.startswith("flow") else column.removesuffix("_bps")


def rate_queue_plot(ctx: Context, file: str, panels: dict[str, tuple[pl.DataFrame, pl.DataFrame]], **kw: Any) -> None:
    """One row per protocol: the rate columns of its first frame (Mb/s), and the queue columns of
    its second (packets)."""
    pyplot = plt()
    fig, axes = pyplot.subplots(len(panels), 2, figsize=(11, 2.4 * len(panels)), squeeze=False)
    for (p, (rates, queue)), (ax, qx) in zip(panels.items(), axes):
        for col in rates.columns[1:]:
            ax.plot(rates["time_s"].to_list(), (rates[col] / 1e6).to_list(), lw=0.8, label=_label(col))
        ax.set_ylabel(f"{p}: {kw.get('rate_label', 'sending rate')} (Mb/s)", fontsize=8)
        ax.set_ylim(0, kw.get("rate_max"))
        for k, col in enumerate(queue.columns[1:]):
            qx.plot(queue["time_s"].to_list(), queue[col].to_list(), lw=0.8, color=f"C{3 + k}", label=col)
        qx.set_ylabel(f"{p}: queue (packets)", fontsize=8)
    axes[0][0].legend(fontsize=7, loc="upper right")
    if len(panels) and len(next(iter(panels.values()))[1].columns) > 2:
        axes[0][1].legend(fontsize=7, loc="upper right")
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(ctx.out / file, dpi=110)
    pyplot.close(fig)
