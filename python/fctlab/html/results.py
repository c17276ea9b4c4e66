"""Reports of runs: `fctlab report RESULTS... -o report.html`, and a Result in a notebook.

A report shows a summary table of the runs, the FCT CDFs, the mean slowdown by size bin, the
busiest links, and, for runs with time series (`[output.series]`), each sampled link's queue,
throughput and drops and each sampled flow's window and sending rate over time. A notebook
shows a Result as its summary table and FCT CDF (`Result._repr_html_`, through
`fctlab.html.summary`).
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path

from fctlab.html import figures, summary
from fctlab.html.page import page, plots, table, write_page
from fctlab.html.units import number, quantity
from fctlab.result import Result, load

#: Links per run in the busiest-links table.
BUSIEST = 5


def labels_for(dirs: Sequence[str | os.PathLike]) -> list[str]:
    """A short, distinct label per results directory: its name, or as many of its trailing path
    parts as make the labels distinct (a sweep's `fast/seed1` beside `slow/seed1`)."""
    parts = [Path(os.path.abspath(d)).parts for d in dirs]
    for depth in range(1, max((len(p) for p in parts), default=1) + 1):
        labels = ["/".join(p[-depth:]) for p in parts]
        if len(set(labels)) == len(labels):
            return labels
    return [f"{p[-1]} ({i + 1})" for i, p in enumerate(parts)]  # the same directory twice


def load_labelled(dirs: Sequence[str | os.PathLike]) -> list[tuple[str, Result]]:
    """The results directories read, each with its label (`labels_for`)."""
    return list(zip(labels_for(dirs), (load(d) for d in dirs)))


def summary_table(results: Sequence[tuple[str, Result]]) -> str:
    """One row per run: its scenario, flow counts and FCT statistics, each time with its unit."""
    return summary.summary_table([summary.summary_row(label, r.summary, r.scenario) for label, r in results])


def busiest_links(results: Sequence[tuple[str, Result]]) -> str:
    """The links of each run with the highest utilization, with their queue (a time average, and
    the largest) and drops."""
    rows = []
    for label, r in results:
        top = r.links.sort(["utilization", "id"], descending=[True, False]).head(BUSIEST)
        for link in top.iter_rows(named=True):
            rows.append(
                [
                    label,
                    link["name"],
                    quantity(link["rate_bps"], "b/s"),
                    number(link["utilization"]),
                    quantity(link["queue_avg_bytes"], "B"),
                    quantity(link["queue_max_bytes"], "B"),
                    link["drops_pkts"],
                ]
            )
    header = ["run", "link", "rate", "utilization", "mean queue", "max queue", "drops (packets)"]
    return table(header, rows)


def report_body(results: Sequence[tuple[str, Result]]) -> str:
    """The report's sections (without the page around them)."""
    flows = [(label, r.flows) for label, r in results]
    fct = [s for s in (figures.fct_cdf(flows), figures.slowdown_bins(flows)) if s is not None]
    parts = ["<h2>Summary</h2>", summary_table(results)]
    parts += [summary.note(html.escape(f"{label}: {n}")) for label, r in results for n in _estimate_notes(r)]
    parts += ["<h2>Flow completion times</h2>", plots(fct) if fct else summary.note("no measured flow completed")]
    parts += ["<h2>Busiest links</h2>", busiest_links(results)]
    series = figures.series_plots([(label, r.series) for label, r in results])
    parts.append("<h2>Over time</h2>")
    if series:
        parts.append(plots(series))
    else:
        parts.append(
            summary.note(
                "No time series in these runs: add <code>[output.series]</code> to the scenario "
                "(docs/scenario.md) for the queue, throughput and drops of links and the window and rate of flows."
            )
        )
    return "\n".join(parts)


def _estimate_notes(r: Result) -> list[str]:
    """What the report says of an estimate's results (`fctlab estimate`): that they are one."""
    method = r.estimated_by
    if method is None:
        return []
    return [
        f"an estimate (fctlab estimate --method {method}), not a packet-level run: its completion times come "
        "from the model, and its links carried nothing"
    ]


def report_page(results: Sequence[tuple[str, Result]]) -> str:
    """The whole report of one or more runs, as one self-contained HTML file's text."""
    title = "fctlab report: " + ", ".join(label for label, _ in results)
    return page(title, f"<h1>{html.escape(title)}</h1>\n{report_body(results)}")


def write_report(dirs: Sequence[str | os.PathLike], out: str | os.PathLike) -> Path:
    """Reads the results directories and writes their report to `out`; returns its path."""
    write_page(Path(out), report_page(load_labelled(dirs)))
    return Path(out)
