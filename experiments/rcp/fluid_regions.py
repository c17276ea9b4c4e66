"""The RCP thesis's fluid-model stability regions (sec. 5.1.2 - 5.2, App. E), as Figs. 5.4 and 5.5
compute them: App. E's link and (alpha, beta) grid, the settling rule, a model's region run as
continuous equations, the linear analysis's verdict on the grid, and a row's settled alphas.

Models and verdicts come from `experiments/rcp/stability/fluid.py`; the continuous equations run by Heun's
method, 25 steps per round trip.
"""

from __future__ import annotations

import numpy as np

from fctlab_experiments.rcp.stability import fluid, linear

#: App. E's link.
APP_E = fluid.Link()
#: Steps per round trip of the continuous equations (Heun): 25 gives the verdicts of 200.
CONTINUOUS = 25


def setup(quick: bool) -> tuple[np.ndarray, fluid.Settling]:
    """App. E's grid (0.1 to 2 in steps of 0.1; quick: 0.2) and the settling rule."""
    step = 0.2 if quick else 0.1
    grid = np.round(np.arange(step, 2.0 + 1e-9, step), 2)
    rule = fluid.Settling(horizon=600.0, window=30.0) if quick else fluid.Settling()
    return grid, rule


def continuous(model: str, grid: np.ndarray, rule: fluid.Settling, link: fluid.Link = APP_E) -> np.ndarray:
    """A model's region as continuous equations (Heun)."""
    return fluid.region(grid, grid, model=model, link=link, steps=CONTINUOUS, method="heun", rule=rule)


def linear_stable(grid: np.ndarray) -> np.ndarray:
    """The linear analysis's verdict on the grid, [beta, alpha]."""
    return np.array([[linear.bode(float(a), float(b)).stable for a in grid] for b in grid])


def edge(region: np.ndarray, grid: np.ndarray, j: int) -> str:
    """The largest settled alpha of row `j` (and the smallest, when it is not the grid's first)."""
    ok = np.nonzero(region[j] == fluid.SETTLED)[0]
    if not ok.size:
        return "none"
    top = f"{grid[ok[-1]]:.1f}"
    return top if ok[0] == 0 else f"{grid[ok[0]]:.1f} - {top}"
