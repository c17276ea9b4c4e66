"""The RC3 reproduction's shared check helpers (`experiments/rc3/comparison.py`), on hand-made
flow tables: the paper's numbers they declare, and that fctlab values near them match while values
far from them miss."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from fctlab.reproduce.checks import MATCH, MISS, Check
from fctlab.reproduce.framework import Context, Runs
from realcore import experiment_code, paper_code

common = paper_code("rc3", "common")
comparison = paper_code("rc3", "comparison")
SEG = common.SEG

#: Flow sizes of the hand-made runs (segments): nine 1-segment flows and one of 1000, so that a
#: run's mean FCT over bytes can be far above its mean over flows, as in the paper's tables.
SMALL, LARGE, N_SMALL = 1, 1000, 9


def _fcts(over_flows: float, over_bytes: float) -> tuple[float, float]:
    """FCTs (small flows, the large flow) giving these means over flows and over bytes."""
    # n f1 + f2 = (n + 1) F;  n s f1 + L f2 = (n s + L) B, with s = SMALL, L = LARGE.
    n, s, big = N_SMALL, SMALL, LARGE
    f2 = ((n * s + big) * over_bytes - s * (n + 1) * over_flows) / (big - s)
    f1 = ((n + 1) * over_flows - f2) / n
    assert f1 > 0 and f2 > 0
    return f1, f2


def _write(root: Path, name: str, seed: int, sizes_segments: list[int], fcts: list[float]) -> None:
    d = root / name / f"seed{seed}"
    d.mkdir(parents=True)
    pl.DataFrame(
        {
            "measured": [True] * len(fcts),
            "size_bytes": [k * SEG for k in sizes_segments],
            "fct_s": fcts,
            "finish_s": [3.0 + f for f in fcts],
        }
    ).write_parquet(d / "flows.parquet")


def _pair_runs(root: Path, tcp: tuple[float, float], rc3: tuple[float, float], seeds=(1, 2)) -> Runs:
    """Runs `tcp` and `rc3` with these (over flows, over bytes) mean FCTs in every seed."""
    sizes = [SMALL] * N_SMALL + [LARGE]
    for s in seeds:
        for name, (mf, mb) in (("tcp", tcp), ("rc3", rc3)):
            f1, f2 = _fcts(mf, mb)
            _write(root, name, s, sizes, [f1] * N_SMALL + [f2])
    return Runs(root, ["tcp", "rc3"], list(seeds))


def _ctx(tmp_path: Path) -> Context:
    return Context(out=tmp_path, quick=False, seeds=[1, 2])


def test_two_way_table_declares_the_papers_six_numbers_of_a_row(tmp_path):
    paper = common.FIG8[30]  # 0.135 / 0.443 s regular, 0.076 / 0.114 s RC3, 43.54 / 74.35 %
    runs = _pair_runs(tmp_path / "runs", tcp=(0.136, 0.445), rc3=(0.075, 0.113))
    ctx = _ctx(tmp_path)
    text = comparison.two_way_table(runs, [("30% load", "tcp", "rc3", paper)], ctx, "Fig. 8")
    assert "**43.54**" in text
    assert [c.figure for c in ctx.checks] == ["Fig. 8"] * 6
    assert [c.paper for c in ctx.checks] == list(paper)
    assert all(c.quantity.startswith("30% load: ") for c in ctx.checks)
    got = {c.quantity.removeprefix("30% load: "): c.fctlab for c in ctx.checks}
    assert got["regular TCP: mean FCT over flows (s)"] == pytest.approx(0.136)
    assert got["RC3: mean FCT over bytes (s)"] == pytest.approx(0.113)
    assert got["FCT reduction over flows (%)"] == pytest.approx((0.136 - 0.075) / 0.136 * 100)
    assert [c.status for c in ctx.checks] == [MATCH] * 6, [(c.quantity, c.fctlab) for c in ctx.checks]


def test_two_way_table_misses_an_rc3_without_gain(tmp_path):
    runs = _pair_runs(tmp_path / "runs", tcp=(0.135, 0.443), rc3=(0.135, 0.443))
    ctx = _ctx(tmp_path)
    comparison.two_way_table(runs, [("30% load", "tcp", "rc3", common.FIG8[30])], ctx, "Fig. 8")
    status = {c.quantity.removeprefix("30% load: "): c.status for c in ctx.checks}
    assert status["regular TCP: mean FCT over flows (s)"] == MATCH
    for q in (
        "RC3: mean FCT over flows (s)",
        "RC3: mean FCT over bytes (s)",
        "FCT reduction over flows (%)",
        "FCT reduction over bytes (%)",
    ):
        assert status[q] == MISS, q


def test_two_way_table_declares_nothing_for_a_row_without_the_papers_numbers(tmp_path):
    runs = _pair_runs(tmp_path / "runs", tcp=(0.135, 0.443), rc3=(0.076, 0.114))
    ctx = _ctx(tmp_path)
    text = comparison.two_way_table(runs, [("Abilene", "tcp", "rc3", None)], ctx, "Table 1")
    assert ctx.checks == [] and "Abilene" in text


def _class_runs(root: Path, tcp: dict[int, float], rc3: dict[int, float]) -> Runs:
    """Runs `tcp` and `rc3`: one flow of each size (segments -> FCT), seeds 1 and 2 alike."""
    for s in (1, 2):
        for name, fct in (("tcp", tcp), ("rc3", rc3)):
            _write(root, name, s, list(fct), list(fct.values()))
    return Runs(root, ["tcp", "rc3"], [1, 2])


def test_class_reduction_pools_the_flows_of_a_class_and_is_judged_by_partial_wqos_numbers(tmp_path):
    pw = experiment_code("rc3", "partial-wqos")
    tcp = {1: 0.050, 3: 0.070, 5: 0.100, 267: 0.400, 1187: 0.600, 2107: 0.800}
    # Small flows 6.5% slower, medium flows' mean 36% faster, large flows' mean 73% faster: the
    # paper's numbers at 50% of the routers without priorities.
    near = {1: 0.050 * 1.065, 3: 0.070 * 1.065, 5: 0.064, 267: 0.256, 1187: 0.162, 2107: 0.216}
    runs = _class_runs(tmp_path / "near", tcp, near)
    got = {c: comparison.class_reduction(runs, "tcp", "rc3", *pw.CLASSES[c]) for c in pw.CLASSES}
    assert got["small"] == pytest.approx([-6.5, -6.5])
    assert got["medium"] == pytest.approx([36.0, 36.0])
    assert got["large"] == pytest.approx([73.0, 73.0])
    for c in pw.CLASSES:
        assert Check("sec. 6", c, pw.PAPER_HALF[c], got[c][0]).status == MATCH, c
    # Every class 20% faster: the small flows gain instead of losing, the others gain far less.
    far = {k: v * 0.8 for k, v in tcp.items()}
    runs = _class_runs(tmp_path / "far", tcp, far)
    for c in pw.CLASSES:
        value = comparison.class_reduction(runs, "tcp", "rc3", *pw.CLASSES[c])[0]
        assert value == pytest.approx(20.0)
        assert Check("sec. 6", c, pw.PAPER_HALF[c], value).status == MISS, c


def test_class_reduction_skips_a_seed_without_flows_of_the_class(tmp_path):
    runs = _class_runs(tmp_path, {1: 0.05, 5: 0.1}, {1: 0.05, 5: 0.05})
    assert comparison.class_reduction(runs, "tcp", "rc3", 685, 10**6) == []
    assert comparison.class_reduction(runs, "tcp", "rc3", 5, 684) == pytest.approx([50.0, 50.0])
