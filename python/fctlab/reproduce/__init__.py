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
| `rcp_ch3` | the RCP thesis, chapter 3: R and C/R against N (Figs. 3.2 - 3.5) |
| `rcp_ch3_sharing` | the RCP thesis, chapter 3: R(t) under random traffic (Fig. 3.9), differential sharing (sec. 3.6) |
| `rcp_fixed_rate` | the RCP thesis's fixed-rate study (Figs. 3.6 - 3.8), part of chapter 3 |
| `rcp_ch4` | the RCP thesis, chapter 4 (FCT against PS, TCP and XCP), and RC3's Fig. 14(c) |
| `rcp_ch4_misses` | two misses of chapter 4 taken apart: RCP at RTPD 10 ms, TCP at RTPD 1.6 s |
| `rcp_ch4_traces` | the RCP thesis's Fig. 4.3: the progress of single flows under each protocol |
| `rcp_ch5` (+ `rcp_ch5_*`) | the RCP thesis, chapter 5's stability analysis (Figs. 5.2, 5.4, 5.5): analytic, no runs |
| `rcp_ch5_sim` (+ `rcp_settling`) | the RCP thesis, chapter 5's packet simulations (Figs. 5.3, 5.7 - 5.15) |
| `rcp_ch6` | the RCP thesis, chapter 6: the fallback to TCP at a non-RCP bottleneck (Fig. 6.17) |
| `rcp_ch6_testbed` | the RCP thesis, chapter 6: the Linux validation testbed, simulated (Figs. 6.6 - 6.8) |
| `rcp_ch6_coexist` | the RCP thesis, sec. 6.2.1: RCP sharing routers with TCP (Figs. 6.11, 6.13-6.16) |
| `rcp_ch6_buffers` | the RCP thesis, chapter 6: buffer sizing (Figs. 6.18 - 6.24) |
| `rcp_ch6_unknown` | the RCP thesis's eq. 6.2 on a link whose rate changes under the router |
| `rcp_ch7` | the RCP thesis, chapter 7: convergence after the load doubles (Fig. 7.1) |
| `rcp_analysis`, `rcp_reports` | chapter 4's per-size ratios to PS, and its tables and plots |
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fctlab.reproduce.framework import Experiment


def papers(root: Path | str | None = None) -> dict[str, Callable[[], list[Experiment]]]:
    """Paper name -> its experiment list: the papers kept as modules here, then the paper folders
    of `root`'s experiments directory (`reproduce.discover`; default: the current directory)."""
    from fctlab.reproduce import discover

    package = {"rcp": _rcp}
    root = Path.cwd() if root is None else Path(root)
    # A paper kept here may use a paper folder's shared code (`fctlab_experiments.<paper>.<module>`,
    # as an experiment does): the experiments directory is mounted for the package's papers too.
    discover.mount(discover.experiments_dir(root))
    return discover.papers(root, package)


def _rcp() -> list[Experiment]:
    """The RCP thesis (chapters 3 - 7) and the RC3 paper's RCP comparison."""
    from fctlab.reproduce import (
        rcp_ch3,
        rcp_ch3_sharing,
        rcp_ch4,
        rcp_ch4_misses,
        rcp_ch4_traces,
        rcp_ch5,
        rcp_ch5_sim,
        rcp_ch6,
        rcp_ch6_buffers,
        rcp_ch6_coexist,
        rcp_ch6_testbed,
        rcp_ch6_unknown,
        rcp_ch7,
    )

    # In the thesis's order of figures; each chapter's investigations after its figures.
    return (
        rcp_ch3.experiments()
        + rcp_ch3_sharing.experiments()
        + rcp_ch4.experiments()
        + rcp_ch4_traces.experiments()
        + rcp_ch4_misses.experiments()
        + rcp_ch5.experiments()
        + rcp_ch5_sim.experiments()
        + rcp_ch6_testbed.experiments()
        + rcp_ch6_coexist.experiments()
        + rcp_ch6.experiments()
        + rcp_ch6_buffers.experiments()
        + rcp_ch6_unknown.experiments()
        + rcp_ch7.experiments()
    )
