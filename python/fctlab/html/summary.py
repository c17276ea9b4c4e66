"""A run's summary row and its notebook view, from the run's parts (flows table, summary,
scenario) rather than from a `Result`: `fctlab.result` sits below the HTML reports, and
`Result._repr_html_` renders through this module without the reports (`fctlab.html.results`)
importing back into it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from fctlab.html import figures
from fctlab.html.page import fragment, plots, table
from fctlab.html.units import number, quantity

#: The summary table's columns.
HEADER = [
    "run",
    "scenario",
    "flows",
    "sample",
    "measured, incomplete",
    "mean FCT",
    "p50 FCT",
    "p99 FCT",
    "mean slowdown",
]


def summary_row(label: str, summary: Mapping[str, Any], scenario: Mapping[str, Any]) -> list[Any]:
    """One run's row of the summary table: its scenario, flow counts and FCT statistics, each time
    with its unit."""

    def s(x: float | None) -> str | None:
        return None if x is None else quantity(x, "s")

    return [
        label,
        scenario.get("name", "-"),
        summary["flows_started"],
        summary["completed_measured"],
        summary["measured_incomplete"],
        s(summary["mean_fct_s"]),
        s(summary["p50_fct_s"]),
        s(summary["p99_fct_s"]),
        None if summary["mean_slowdown"] is None else number(summary["mean_slowdown"]),
    ]


def summary_table(rows: Sequence[list[Any]]) -> str:
    """The summary table of runs, one `summary_row` each."""
    return table(HEADER, list(rows))


def run_html(label: str, flows: pl.DataFrame, summary: Mapping[str, Any], scenario: Mapping[str, Any]) -> str:
    """A run as a notebook shows it: its summary table and FCT CDF, as a page fragment."""
    spec = figures.fct_cdf([(label, flows)])
    body = summary_table([summary_row(label, summary, scenario)]) + "\n"
    return fragment(body + (plots([spec]) if spec else note("no measured flow completed")))


def note(text: str) -> str:
    """A remark in place of a figure or a section."""
    return f'<p class="fctlab-note">{text}</p>'
