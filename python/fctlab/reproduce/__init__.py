"""`fctlab reproduce PAPER`: the source papers' experiments, run and reported.

| module | what |
|---|---|
| `framework` | experiments as named overrides x seeds over a base scenario; cached runs; README writing |
| `rc3` | the RC3 paper (NSDI 2014), sec. 5.1 and the simulated side of sec. 5.2 |
| `rcp_ch3` | the RCP thesis, chapter 3: R and C/R against N (Figs. 3.2 - 3.5) |
| `rcp_fixed_rate` | the RCP thesis's fixed-rate study (Figs. 3.6 - 3.8), part of chapter 3 |
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable

from fctlab.reproduce.framework import Experiment


def papers() -> dict[str, Callable[[], list[Experiment]]]:
    """Paper name -> its experiment list."""
    from fctlab.reproduce import rc3, rcp_ch3

    return {"rc3": rc3.experiments, "rcp": lambda: rcp_ch3.experiments() + rcp_ch4_experiments()}


def rcp_ch4_experiments() -> list[Experiment]:
    """The RCP thesis's chapter 4, where that module exists."""
    if importlib.util.find_spec("fctlab.reproduce.rcp_ch4") is None:
        return []
    return importlib.import_module("fctlab.reproduce.rcp_ch4").experiments()
