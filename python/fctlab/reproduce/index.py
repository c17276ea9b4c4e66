"""Every experiment of every paper in one table: `experiments/README.md` and `experiments/index.html`.

`fctlab reproduce all` writes them after running every paper, `fctlab reproduce index` from the
reports already on disk (`--quick`: under `results/quick/`). Each row is one number a paper gives
beside fctlab's (an experiment's `checks.json`, `reproduce.checks`), with its status and a link
to the experiment's report; an experiment without checks gets one row saying whether it is an
investigation (no number of the paper's) or has not declared its numbers yet, and one whose
report is missing says that it has not been run. Both files are
deterministic: the same reports give the same bytes.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from fctlab.atomic import write_text
from fctlab.html.experiments import GENERATOR
from fctlab.html.page import page as html_page
from fctlab.html.page import table
from fctlab.reproduce import checks as paper_checks
from fctlab.reproduce.framework import Experiment, md_table

#: Shown for an experiment without a report.
NOT_RUN = "not run"
#: Every status an experiment can have in the index, from best to worst.
STATUSES = (*paper_checks.ORDER, NOT_RUN)


@dataclass(frozen=True)
class Entry:
    """One experiment as the index shows it."""

    paper: str
    name: str
    title: str
    #: The report's directory, relative to the index.
    link: str
    status: str
    checks: tuple[paper_checks.Check, ...]


def gather(root: Path, papers: Mapping[str, Callable[[], list[Experiment]]]) -> list[Entry]:
    """The entries of every paper's experiments, in the papers' order, read from `root/<paper>/<name>/`."""
    entries = []
    for paper, make in papers.items():
        for exp in make():
            folder = root / paper / exp.name
            found = paper_checks.read(folder / paper_checks.CHECKS_FILE)
            if not (folder / "README.md").is_file():
                status = NOT_RUN
            else:
                status = paper_checks.experiment_status(found, exp.investigation)
            entries.append(Entry(paper, exp.name, exp.title, f"{paper}/{exp.name}/", status, tuple(found)))
    return entries


def counts(entries: list[Entry]) -> Counter:
    """Experiments per status."""
    return Counter(e.status for e in entries)


def per_paper(entries: list[Entry]) -> list[list[str]]:
    """One row per paper: its experiments, then how many have each status."""
    rows = []
    for paper in dict.fromkeys(e.paper for e in entries):
        c = Counter(e.status for e in entries if e.paper == paper)
        rows.append([paper, str(sum(c.values())), *(str(c[s]) for s in STATUSES)])
    return rows


PER_PAPER_HEADER = ["paper", "experiments", *STATUSES]


def _summary(entries: list[Entry]) -> str:
    c = counts(entries)
    return ", ".join(f"{c[s]} {s}" for s in STATUSES if c[s]) + f" ({len(entries)} experiments)"


INTRO = (
    "Every figure and table of the source papers that fctlab reproduces, one row per number the paper "
    "gives, with fctlab's value beside it and its status: {match} within the check's tolerance "
    "(10% unless the report says otherwise), {partial} within 30%, {miss} beyond. An {investigation} is "
    "fctlab's own look at a figure (a difference taken apart, a setting the paper does not run), with no "
    "number of the paper's to check. An experiment whose analysis does not yet state its numbers as checks "
    "has one row, {undeclared}: its report has the comparison in prose and tables. Each report says how its "
    "numbers were measured."
)


def _intro(markup: str) -> str:
    """INTRO with its status words marked up as `markup` says ("md" or "html")."""
    if markup == "md":
        words = {
            "match": "**match**",
            "partial": "**partial**",
            "miss": "**miss**",
            "investigation": "*investigation*",
            "undeclared": "*not declared*",
        }
    else:
        words = {
            k: f'<span class="{c}">{w}</span>'
            for k, w, c in (
                ("match", "match", "match"),
                ("partial", "partial", "partial"),
                ("miss", "miss", "miss"),
                ("investigation", "investigation", "investigation"),
                ("undeclared", "not declared", "not-declared"),
            )
        }
    return INTRO.format(**words)


def markdown(entries: list[Entry], quick: bool) -> str:
    """`experiments/README.md`."""
    rows = []
    for e in entries:
        link = f"[{e.name}]({e.link})"
        if not e.checks:
            rows.append([e.paper, link, e.title, "", "", "", e.status])
            continue
        for c in e.checks:
            rows.append([e.paper, link, c.figure, c.quantity, c.paper_text(), c.fctlab_text(), c.status])
    mode = "\n\nMode: quick (shortened runs, fewer seeds: not comparable to the papers)." if quick else ""
    return (
        "# fctlab's reproductions of the papers\n\n"
        + _intro("md")
        + f"\n\nStatus: {_summary(entries)}.{mode} Regenerate with `fctlab reproduce all"
        + (" --quick" if quick else "")
        + "` (runs everything) or `fctlab reproduce index` (this table only, from the reports on disk); "
        + "the same table as a page: [index.html](index.html).\n\n"
        + md_table(PER_PAPER_HEADER, per_paper(entries))
        + "\n\n"
        + md_table(["paper", "experiment", "figure", "quantity", "paper's", "fctlab", "status"], rows)
        + "\n"
    )


#: The index's own rules, beside the reports' style (`fctlab.html.page`).
_STYLE = """
.fctlab table.rows { width: 100%; }
.fctlab table.rows th, .fctlab table.rows td { text-align: left; vertical-align: top; }
.fctlab table.rows th { position: sticky; top: 0; }
.fctlab table.rows td.num { text-align: right; font-variant-numeric: tabular-nums; }
.fctlab table.rows td:last-child { white-space: nowrap; }
.fctlab .match { color: #176a26; font-weight: 600; } .fctlab .partial { color: #9a6700; font-weight: 600; }
.fctlab .miss { color: #b3261e; font-weight: 600; } .fctlab .investigation { color: #3a5a8c; }
.fctlab .not-declared, .fctlab .not-run { color: #777; }
.fctlab #filters label { margin-right: 1em; }
"""

_SCRIPT = """
document.querySelectorAll('#filters input').forEach(function (box) {
  box.addEventListener('change', function () {
    var shown = {};
    document.querySelectorAll('#filters input').forEach(function (b) { shown[b.value] = b.checked; });
    document.querySelectorAll('table.rows tbody tr').forEach(function (row) {
      row.style.display = shown[row.dataset.status] ? '' : 'none';
    });
  });
});
"""


def page(entries: list[Entry], quick: bool) -> str:
    """`experiments/index.html`: the same table, self-contained, with a filter by status."""
    e_ = html.escape
    body = []
    for e in entries:
        link = f'<a href="{e_(e.link)}index.html">{e_(e.name)}</a> (<a href="{e_(e.link)}README.md">md</a>)'
        cls = e.status.replace(" ", "-")
        if not e.checks:
            body.append(
                f'<tr data-status="{e_(e.status)}"><td>{e_(e.paper)}</td><td>{link}</td><td>{e_(e.title)}</td>'
                f'<td></td><td></td><td></td><td class="{cls}">{e_(e.status)}</td></tr>'
            )
            continue
        for c in e.checks:
            body.append(
                f'<tr data-status="{e_(c.status)}"><td>{e_(e.paper)}</td><td>{link}</td><td>{e_(c.figure)}</td>'
                f'<td>{e_(c.quantity)}</td><td class="num">{e_(c.paper_text())}</td>'
                f'<td class="num">{e_(c.fctlab_text())}</td><td class="{c.status}">{e_(c.status)}</td></tr>'
            )
    filters = "".join(f'<label><input type="checkbox" value="{e_(s)}" checked> {e_(s)}</label>' for s in STATUSES)
    mode = " Mode: quick (shortened runs, fewer seeds: not comparable to the papers)." if quick else ""
    title = "fctlab's reproductions of the papers"
    content = (
        f"<style>{_STYLE}</style>\n<h1>{e_(title)}</h1>\n"
        f"<p>{_intro('html')}</p>\n<p>Status: {e_(_summary(entries))}.{e_(mode)}</p>\n"
        + table(PER_PAPER_HEADER, per_paper(entries))
        + f'\n<p id="filters">Show: {filters}</p>\n'
        '<table class="rows"><thead><tr><th>paper</th><th>experiment</th><th>figure</th><th>quantity</th>'
        "<th>paper's</th><th>fctlab</th><th>status</th></tr></thead><tbody>\n"
        + "\n".join(body)
        + f"\n</tbody></table>\n<script>{_SCRIPT}</script>"
    )
    return html_page(title, content, head=GENERATOR)


def write_index(
    root: Path, papers: Mapping[str, Callable[[], list[Experiment]]], *, quick: bool
) -> tuple[Path, Path, list[Entry]]:
    """Writes `root/README.md` and `root/index.html`; returns their paths and the entries."""
    entries = gather(root, papers)
    md, page_path = root / "README.md", root / "index.html"
    write_text(md, markdown(entries, quick))
    write_text(page_path, page(entries, quick))
    return md, page_path, entries
