"""The RCP thesis (Dukkipati), sec. 6.2.1, Fig. 6.13: 80 long RCP flows from 0 s and 20 long TCP flows
from 10 s share a link equally under the coexistence scheme's two queues (`rcp-tcp`); beside it the
scheme with weights moving every T_c and with 1 MB per queue. The runs and their analysis are
`coexist_shares`'s; base scenario `experiments/rcp/ch6-coexist.toml`.
"""

from __future__ import annotations

from fctlab.reproduce.framework import Experiment
from fctlab_experiments.rcp.coexist import QUICK_SCALE, scaled
from fctlab_experiments.rcp.coexist_shares import analyze_share, share_points


def experiment() -> Experiment:
    """Fig. 6.13: 80 RCP flows from 0 s and 20 TCP flows from 10 s, two-queue scheme."""
    pts = {
        s: share_points(s, 80, 20, 10.0, 100.0, ["two-queue", "two-queue-fixed-tc", "two-queue-1MB"])
        for s in (1.0, QUICK_SCALE)
    }
    return Experiment(
        name="fig6-13",
        title="RCP thesis Fig. 6.13: 80 RCP and 20 TCP flows share a link equally under the coexistence scheme",
        base="ch6-coexist.toml",
        points=list(pts[1.0].items()),
        seeds=1,
        analyze=lambda runs, ctx: analyze_share(runs, ctx, "fig6-13"),
        quick=scaled(pts),
    )
