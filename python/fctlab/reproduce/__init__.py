"""`fctlab reproduce PAPER`: the source papers' experiments, run and reported.

| module | what |
|---|---|
| `framework` | experiments as named overrides x seeds over a base scenario; cached runs; README writing |
| `rc3` | the RC3 paper (NSDI 2014), sec. 5.1 and the simulated side of sec. 5.2 |
"""

from __future__ import annotations

from collections.abc import Callable

from fctlab.reproduce.framework import Experiment


def papers() -> dict[str, Callable[[], list[Experiment]]]:
    """Paper name -> its experiment list."""
    from fctlab.reproduce import rc3

    return {"rc3": rc3.experiments}
