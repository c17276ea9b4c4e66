"""What seed 003's figures plot, read from a run's series: each flow's sending rate, the input
rate of a router port, its queue; the paper-vs-fctlab table and the rate/queue plots
(phases, spans, crossings and settling times are `fctlab.reproduce.series`).

Seed 003 averages a rate-based sender's rate over two RTTs and takes cwnd / srtt for XCP
(footnote 3); `flow_rates` and `input_rate` are the one place that reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from fctlab.reproduce.explicit import PROTOCOLS, WIRE
from fctlab.reproduce.framework import Context, Runs, md_table, plt
from fctlab.reproduce.series import capacity, link_series


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
