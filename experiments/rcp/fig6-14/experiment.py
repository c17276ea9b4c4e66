"""The RCP thesis (Dukkipati), sec. 6.2.1, Fig. 6.14: five long RCP and five long TCP flows share a
link 0.5 / 0.5 on the coexistence scheme's single queue ("soft isolation"), and on its two queues.
The runs and their analysis are `coexist_shares`'s; base scenario `experiments/rcp/ch6-coexist.toml`.
"""

from __future__ import annotations

from fctlab.reproduce.framework import Experiment
from fctlab_experiments.rcp.coexist import QUICK_SCALE, scaled
from fctlab_experiments.rcp.coexist_shares import analyze_share, share_points


def experiment() -> Experiment:
    """Fig. 6.14: 5 RCP and 5 TCP flows, the single-queue variant (and the two-queue scheme)."""
    pts = {s: share_points(s, 5, 5, 0.0, 100.0, ["single-queue", "two-queue"]) for s in (1.0, QUICK_SCALE)}
    return Experiment(
        name="fig6-14",
        title="RCP thesis Fig. 6.14: five RCP and five TCP flows, shares 0.5 / 0.5 (single queue)",
        base="ch6-coexist.toml",
        points=list(pts[1.0].items()),
        seeds=1,
        analyze=lambda runs, ctx: analyze_share(runs, ctx, "fig6-14"),
        quick=scaled(pts),
    )
