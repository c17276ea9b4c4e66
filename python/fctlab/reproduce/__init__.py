"""`fctlab reproduce PAPER`: the source papers' experiments, run and reported.

A paper's experiments live either as modules of this package (below) or, the shape they are
moving to, as folders of the checkout's experiments directory, each experiment's code beside
its scenarios and its report (`discover`; `experiments/datacenter/` is the first paper kept so).

| module | what |
|---|---|
| `framework` | experiments as overrides x seeds over a base scenario; cached runs; reports; `md_table`, `fmt` |
| `series` | what several papers read from a run's series: link columns, spans, crossings, settling, phases |
| `checks`, `index` | the paper's numbers against fctlab's in each report, and the index of every experiment |
| `discover` | papers kept as folders of the checkout: `experiments/<paper>/<experiment>/experiment.py` |
| `rc3` | the RC3 paper (NSDI 2014), sec. 5.1 and the simulated side of sec. 5.2 |
| `explicit` (+ `explicit_*`) | seed 003, explicit congestion control: Figs. 4 - 10, once per protocol of `PROTOCOLS` |
| `emulated` (+ `emulated_*`) | scenarios run both ways, simulated and emulated (`fctlab emulate`), side by side |
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fctlab.reproduce.framework import Experiment


def papers(root: Path | str | None = None) -> dict[str, Callable[[], list[Experiment]]]:
    """Paper name -> its experiment list: the papers kept as modules here, then the paper folders
    of `root`'s experiments directory (`reproduce.discover`; default: the current directory)."""
    from fctlab.reproduce import discover, emulated, explicit, rc3

    package = {"rc3": rc3.experiments, "explicit": explicit.experiments, "emulated": emulated.experiments}
    return discover.papers(Path.cwd() if root is None else Path(root), package)
