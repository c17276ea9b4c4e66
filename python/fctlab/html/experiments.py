"""The index.html of a reproduced experiment: its README as HTML, plus plots of its runs.

`fctlab reproduce` writes one beside each README.md (`write_index`, called from
`fctlab.reproduce.framework`): the README rendered with its PNGs inlined, and, when the runs
are at hand, an FCT CDF per run and the mean slowdown by size bin of each run (first seed). The
committed experiments' runs are not versioned, so `fctlab pages` rewrites every index.html
under experiments/ from the README and images alone (`write_all`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import polars as pl

from fctlab.html import figures
from fctlab.html.markdown import markdown_html, title_of
from fctlab.html.page import page, plots, write_page

INDEX = "index.html"
#: Marks the index of every experiment (`fctlab reproduce index`, `fctlab.reproduce.index`), so
#: that `fctlab pages` does not replace it with its README rendered.
GENERATOR = '<meta name="generator" content="fctlab reproduce index">'


def is_index_page(path: Path) -> bool:
    """Whether `path` is the index of every experiment (a page with the `GENERATOR` mark)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return GENERATOR in f.read(512)
    except OSError:
        return False


def index_html(readme: Path, flows: Sequence[tuple[str, pl.DataFrame]] = ()) -> str:
    """The index page of the experiment whose README.md is `readme` (and whose runs' flows tables,
    by run name, are `flows`)."""
    text = readme.read_text(encoding="utf-8")
    body = markdown_html(text, readme.parent)
    run_plots = _run_plots(flows)
    if run_plots:
        body += "\n<h2>Runs (first seed)</h2>\n" + plots(run_plots)
    return page(title_of(text, readme.parent.name), body)


def write_index(out: Path, flows: Sequence[tuple[str, pl.DataFrame]] = ()) -> Path:
    """Writes `out/index.html` from `out/README.md` (and the runs' flows tables, if given);
    returns its path."""
    target = out / INDEX
    write_page(target, index_html(out / "README.md", flows))
    return target


def readmes(root: Path) -> Iterator[Path]:
    """Every README.md under `root` (the run cache `.runs` left out), in path order; not the index
    of every experiment (experiments/README.md), whose page `fctlab reproduce index` writes."""
    for path in sorted(root.rglob("README.md")):
        if any(part.startswith(".") for part in path.relative_to(root).parts):
            continue
        if not is_index_page(path.parent / "index.html"):
            yield path


def write_all(root: Path) -> list[Path]:
    """Rewrites the index.html beside every README.md under `root` from it alone; the paths."""
    return [write_index(readme.parent) for readme in readmes(root)]


def _run_plots(flows: Sequence[tuple[str, pl.DataFrame]]) -> list[dict]:
    """FCT CDFs and slowdown by size bin of each run with flows."""
    if not flows:
        return []
    specs = [figures.fct_cdf(list(flows)), figures.slowdown_bins(list(flows))]
    return [s for s in specs if s is not None]
