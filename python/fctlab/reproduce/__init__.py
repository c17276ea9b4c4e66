"""`fctlab reproduce PAPER`: the source papers' experiments, run and reported.

The experiments themselves are not in this package: each paper is a folder of the checkout's
`experiments/` directory (or of a directory given with `--root`), each experiment's code in its
own folder beside its scenarios and its report (`discover` says how such a folder is laid out):

    experiments/papers.toml                  the papers' order
    experiments/<paper>/paper.toml           its title and experiments, in the paper's order
    experiments/<paper>/<shared>.py          what its experiments share
    experiments/<paper>/<experiment>/experiment.py   one figure: its runs and its analysis
    experiments/<paper>/<experiment>/README.md ...   its report, checks.json, index.html

This package is what every paper's experiments share:

| module | what |
|---|---|
| `framework` | experiments as overrides x seeds of a base scenario; cached runs; reports; `figure`, `fmt` |
| `series` | what several papers read from a run's series: link columns, spans, crossings, settling, phases |
| `checks` | the paper's numbers against fctlab's in each report: `ctx.check(...)`, match / partial / miss |
| `index` | every check of every experiment in one table: `experiments/README.md` and `index.html` |
| `discover` | the paper folders: `experiments/<paper>/paper.toml`, one `experiment.py` per experiment |
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fctlab.reproduce.framework import Experiment


def papers(root: Path | str | None = None) -> dict[str, Callable[[], list[Experiment]]]:
    """Paper name -> its experiment list (loaded when called), for the paper folders of `root`'s
    experiments directory (default: the current directory), in `papers.toml`'s order."""
    from fctlab.reproduce import discover

    return discover.folder_papers(Path.cwd() if root is None else Path(root))
