"""experiments/datacenter/pfabric-buffers: the per-run summary of slowdowns, the relative changes
against pFabric's 36 KB and the checks of the paper's claim, on hand-made input."""

from __future__ import annotations

import polars as pl
import pytest

from realcore import experiment_code

pb = experiment_code("datacenter", "pfabric-buffers")


def slowdowns() -> pl.DataFrame:
    """A `datacenter._slowdowns` table: 100 small flows (slowdown 1 .. 100 / 50), one medium,
    two large."""
    small = [(i, 1_000, 1 + i / 50, "small") for i in range(100)]
    rows = small + [(100, 1_000_000, 3.0, "medium"), (101, 20_000_000, 2.0, "large"), (102, 30_000_000, 4.0, "large")]
    return pl.DataFrame(rows, schema=["id", "size_bytes", "slowdown", "bin"], orient="row")


def test_summary_gives_small_mean_and_p99_large_and_all_means():
    s = pb.summary(slowdowns())
    assert s["small_mean"] == pytest.approx(1 + 49.5 / 50)
    assert s["small_p99"] == pytest.approx(1 + 98 / 50)  # nearest rank of 100 values
    assert (s["small_n"], s["large_n"], s["all_n"]) == (100, 2, 103)
    assert s["large_mean"] == pytest.approx(3.0)
    assert s["all_mean"] == pytest.approx((sum(1 + i / 50 for i in range(100)) + 3 + 2 + 4) / 103)


def test_summary_of_an_empty_table_has_no_values():
    s = pb.summary(slowdowns().filter(pl.col("id") < 0))
    assert (s["small_mean"], s["large_mean"], s["all_mean"], s["all_n"]) == (None, None, None, 0)


def row(small_mean: float, small_p99: float, large_mean: float, all_mean: float) -> dict:
    return {"small_mean": small_mean, "small_p99": small_p99, "large_mean": large_mean, "all_mean": all_mean}


def test_spread_checks_and_smallest_close_buffer(tmp_path):
    from fctlab.reproduce.checks import MATCH, PARTIAL
    from fctlab.reproduce.framework import Context

    got = {
        (0.8, 3_000): row(1.3, 3.0, 4.0, 1.7),
        (0.8, 4_500): row(1.2, 1.6, 3.2, 1.5),
        (0.8, 9_000): row(1.2, 1.5, 3.1, 1.5),
        (0.8, 18_000): row(1.2, 1.5, 3.0, 1.5),
        (0.8, 36_000): row(1.2, 1.5, 3.0, 1.5),
        (0.8, 72_000): row(1.2, 1.5, 3.06, 1.5),
        (0.8, 225_000): row(1.2, 1.44, 3.0, 1.5),
    }
    assert pb.change(3.3, 3.0) == pytest.approx(0.1)
    assert pb.change(None, 3.0) is None
    assert pb._spread(got, 0.8, [72_000, 225_000]) == pytest.approx(0.04)
    # The claim "more buffer gains little", per statistic: the ratio farthest from 1 (0.96 for the
    # small p99 at 225 KB, 1.02 for the large mean at 72 KB) within 5% of 1 matches.
    ctx = Context(out=tmp_path, quick=True, seeds=[1])
    pb._check(got, ctx)
    at_08 = {
        c.quantity.split(": ")[1].split(" slowdown")[0]: c for c in ctx.checks if c.quantity.startswith("load 0.8")
    }
    assert at_08["small p99"].fctlab == pytest.approx(0.96) and at_08["small p99"].status == MATCH
    assert at_08["large mean"].fctlab == pytest.approx(1.02)
    got[(0.8, 225_000)] = row(1.2, 1.5, 3.3, 1.5)
    ctx = Context(out=tmp_path, quick=True, seeds=[1])
    pb._check(got, ctx)
    large = next(c for c in ctx.checks if c.quantity.startswith("load 0.8: large mean"))
    assert large.fctlab == pytest.approx(1.1) and large.status == PARTIAL
    assert all(c.fctlab is None for c in ctx.checks if c.quantity.startswith("load 0.6")), "no 0.6 rows"
    # 9 KB is within 5% of 36 KB (3.1 / 3.0), 4.5 KB is not (1.6 / 1.5): the walk down stops there.
    assert pb.smallest_close(got, 0.8) == 9_000
    assert pb.smallest_close(got, 0.6) is None
