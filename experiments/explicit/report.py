"""What every seed 003 report shows: the paper-vs-fctlab table (the paper's statement, then
fctlab's value per protocol) and the paper's plot of per-flow rates beside the queue."""

from __future__ import annotations

from typing import Any

import polars as pl

from fctlab.reproduce.framework import Context, figure, md_table


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
    with figure(ctx, file, len(panels), 2, figsize=(11, 2.4 * len(panels)), squeeze=False) as (fig, axes):
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
