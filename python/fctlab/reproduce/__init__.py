"""`fctlab reproduce PAPER`: the source papers' experiments, run and reported.

| module | what |
|---|---|
| `framework` | experiments as named overrides x seeds over a base scenario; cached runs; README writing |
| `rc3` | the RC3 paper (NSDI 2014), sec. 5.1 and the simulated side of sec. 5.2 |
| `rcp_ch4` | the RCP thesis, ch. 4 (FCT against PS, TCP and XCP), and RC3's Fig. 14(c) |
"""

from __future__ import annotations

from collections.abc import Callable

from fctlab.reproduce.framework import Experiment


def papers() -> dict[str, Callable[[], list[Experiment]]]:
    """Paper name -> its experiment list."""
    from fctlab.reproduce import rc3

    return {"rc3": rc3.experiments, "rcp": _rcp}


def _rcp() -> list[Experiment]:
    """The RCP thesis: chapter 3 (when present) and chapter 4."""
    from fctlab.reproduce import rcp_ch4

    try:
        from fctlab.reproduce import rcp_ch3
    except ImportError:
        return rcp_ch4.experiments()
    return rcp_ch3.experiments() + rcp_ch4.experiments()
