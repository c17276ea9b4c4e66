"""Plain-text tables of summaries and comparisons, for the terminal (FCTs shown in ms)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x * 1e3:.3f}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:+.2f}%"


def _num(x: float | None, fmt: str = ".3f") -> str:
    return "-" if x is None else format(x, fmt)


def table(header: list[str], rows: list[list[str]]) -> str:
    """Left-aligned first column, right-aligned others, widths fitted to the content."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *[line(r) for r in rows]])


def format_summary(s: dict[str, Any], notices: Sequence[str] = ()) -> str:
    """A run's summary (from `fctlab.analysis.summarize`) as text, ending with the run's notices
    (`Result.notices`), one `note:` line each."""
    head = (
        f"flows: {s['flows_started']} started, {s['flows_completed']} completed, {s['flows_incomplete']} incomplete"
        + (f", {s['long_lived']} long-lived" if s.get("long_lived") else "")
    )
    measured = f"measured: {s['measured']} flows, {s['completed_measured']} completed"
    if s["measured_incomplete"]:
        measured += f" ({s['measured_incomplete']} incomplete: FCT statistics exclude them)"
    stats = table(
        ["FCT (ms)", "mean", "over bytes", "p50", "p90", "p99", "slowdown"],
        [
            [
                "all sizes",
                _ms(s["mean_fct_s"]),
                _ms(s["mean_fct_bytes_weighted_s"]),
                _ms(s["p50_fct_s"]),
                _ms(s["p90_fct_s"]),
                _ms(s["p99_fct_s"]),
                _num(s["mean_slowdown"], ".2f"),
            ]
        ],
    )
    bins = table(
        ["size", "flows", "mean FCT (ms)", "p99 FCT (ms)"],
        [[b["label"], str(b["count"]), _ms(b["mean_fct_s"]), _ms(b["p99_fct_s"])] for b in s["bins"]],
    )
    lines = [head, measured, "", stats, "", bins if s["bins"] else "(no completed measured flows)"]
    if notices:
        lines += ["", *(f"note: {n}" for n in notices)]
    return "\n".join(lines)


def format_compare(c: dict[str, Any], a_name: str = "A", b_name: str = "B") -> str:
    """A comparison (from `fctlab.analysis.compare`) as text: reduction = (A - B) / A."""
    top = table(
        ["mean FCT (ms)", "A", "B", "reduction"],
        [
            ["over flows", _ms(c["mean_fct_a_s"]), _ms(c["mean_fct_b_s"]), _pct(c["over_flows_pct"])],
            [
                "over bytes",
                _ms(c["mean_fct_bytes_weighted_a_s"]),
                _ms(c["mean_fct_bytes_weighted_b_s"]),
                _pct(c["over_bytes_pct"]),
            ],
        ],
    )
    bins = table(
        ["size", "flows A", "flows B", "A (ms)", "B (ms)", "reduction"],
        [
            [
                b["label"],
                str(b["count_a"]),
                str(b["count_b"]),
                _ms(b["mean_fct_a_s"]),
                _ms(b["mean_fct_b_s"]),
                _pct(b["reduction_pct"]),
            ]
            for b in c["bins"]
        ],
    )
    legend = f"A = {a_name}, B = {b_name}; reduction = (A - B) / A of mean FCT (positive: B is faster)"
    return "\n".join([legend, "", top, "", bins if c["bins"] else "(no completed measured flows)"])
