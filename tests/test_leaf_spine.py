"""experiments/datacenter/leaf-spine: pFabric's ranking of small-flow slowdowns (pFabric < DCTCP <
TCP, Figs. 9-10) as a table and as checks, on hand-made input."""

from __future__ import annotations

from fctlab.reproduce.checks import MATCH, MISS, PARTIAL
from fctlab.reproduce.framework import Context
from realcore import experiment_code

ls = experiment_code("datacenter", "leaf-spine")


def _table(pfabric: float, dctcp: float, tcp: float) -> dict:
    return {
        ("websearch", 0.5, p): {"small": (v, 2 * v, 10)}
        for p, v in (("pfabric", pfabric), ("dctcp", dctcp), ("tcp", tcp))
    }


def test_the_ranking_agrees_when_pfabric_beats_dctcp_and_dctcp_beats_tcp(tmp_path):
    table = _table(1.2, 4.0, 9.0)
    assert "| websearch | 0.5 | pfabric 1.20 < dctcp 4.00 < tcp 9.00 | agrees |" in ls._ranking(table)
    ctx = Context(out=tmp_path, quick=True, seeds=[1])
    ls._check_ranking(table, ctx)
    assert [(c.fctlab, c.status) for c in ctx.checks] == [(4.0 / 1.2, MATCH), (9.0 / 4.0, MATCH)]


def test_a_near_tie_is_partial_and_a_reversal_misses(tmp_path):
    ctx = Context(out=tmp_path, quick=True, seeds=[1])
    ls._check_ranking(_table(1.2, 1.15, 0.9), ctx)
    assert [c.status for c in ctx.checks] == [PARTIAL, MISS]
    assert "differs" in ls._ranking(_table(1.2, 1.15, 0.9))
