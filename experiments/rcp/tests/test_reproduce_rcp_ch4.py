"""The RCP chapter-4 analysis helpers (experiments/rcp/analysis.py) on synthetic flows tables:
packet counts and log2 bins, per-bin ratios to PS, size windows, the short/long split, the
slow-start share, active flows; and the runs of chapter 4's experiments (dumbbell.py)."""

from __future__ import annotations

import polars as pl
import pytest

from realcore import experiment_code, paper_code

ra = paper_code("rcp", "analysis")
dumbbell = paper_code("rcp", "dumbbell")
#: Chapter 4's experiments, then the RC3 paper's Fig. 14(c).
CH4 = [
    "fig4-1",
    "fig4-2",
    "fig4-4-5",
    "fig4-6-8",
    "fig4-9",
    "fig4-10",
    "fig4-11-12",
    "fig4-13",
    "fig4-14",
    "fig4-15-16",
    "fig4-17-21",
    "fig4-23-24",
    "rc3-fig14c",
]


def _table(rows: list[tuple[int, float, float]]) -> pl.DataFrame:
    """Flows of (size in bytes, FCT, PS FCT); the eq. 4.1 curve is set to twice PS and the
    slow-start curve to the FCT itself, so each column is told apart."""
    sizes, fct, ps = zip(*rows)
    df = pl.DataFrame({"size_bytes": list(sizes), "fct_s": list(fct), "ps_fct_s": list(ps)})
    return ra.with_packets(df).with_columns(ps_curve_s=2 * pl.col("ps_fct_s"), slow_start_s=pl.col("fct_s"))


def test_packets_round_up_and_bins_are_log2():
    t = ra.with_packets(pl.DataFrame({"size_bytes": [1, 960, 961, 3 * 960, 4 * 960, 1000 * 960]}))
    assert t["pkts"].to_list() == [1, 1, 2, 3, 4, 1000]
    assert t["bin"].to_list() == [0, 0, 1, 1, 2, 9]


def test_per_bin_ratio_is_mean_fct_over_mean_ps_of_the_same_flows():
    t = _table([(960, 0.2, 0.1), (960, 0.4, 0.1), (2 * 960, 0.3, 0.3), (3 * 960, 0.3, 0.1)])
    b = ra.per_bin(t)
    assert b["bin"].to_list() == [0, 1]
    assert b["n"].to_list() == [2, 2]
    assert b["lo"].to_list() == [1, 2] and b["hi"].to_list() == [1, 3]
    # bin 0: mean FCT 0.3 over mean PS 0.1; bin 1: 0.3 over 0.2.
    assert b["ratio"].to_list() == pytest.approx([3.0, 1.5])
    assert b["ratio_curve"].to_list() == pytest.approx([1.5, 0.75])
    assert b["max_fct"].to_list() == pytest.approx([0.4, 0.3])


def test_window_ratio_keeps_only_sizes_in_the_window():
    t = _table([(999 * 960, 9.0, 1.0), (1000 * 960, 2.0, 1.0), (2999 * 960, 4.0, 2.0), (3000 * 960, 9.0, 1.0)])
    n, r_ps, r_curve = ra.window_ratio(t, 1000, 3000)
    assert n == 2
    assert r_ps == pytest.approx(3.0 / 1.5)
    assert r_curve == pytest.approx(3.0 / 3.0)
    assert ra.window_ratio(t, 5000, 6000) == (0, None, None)


def test_split_afct_splits_at_the_threshold():
    t = _table([(499 * 960, 1.0, 0.5), (500 * 960, 3.0, 1.0), (501 * 960, 5.0, 1.0)])
    s = ra.split_afct(t, 500)
    assert (s["small_n"], s["large_n"]) == (1, 2)
    assert s["small_afct"] == pytest.approx(1.0) and s["large_afct"] == pytest.approx(4.0)
    assert s["large_ps"] == pytest.approx(1.0) and s["large_curve"] == pytest.approx(2.0)
    assert ra.split_afct(t, 10_000)["large_afct"] is None


def test_on_slow_start_counts_flows_within_the_tolerance():
    t = pl.DataFrame({"fct_s": [1.0, 1.2, 1.3, 3.0], "slow_start_s": [1.0, 1.0, 1.0, 1.0]})
    frac, median = ra.on_slow_start(t, 0.25)
    assert frac == pytest.approx(0.5)
    assert median == pytest.approx(1.25)


def test_active_flows_counts_started_and_unfinished_flows():
    flows = pl.DataFrame(
        {"size_bytes": [1, 1, 1, -1], "start_s": [0.0, 1.0, 2.0, 0.0], "finish_s": [1.5, None, 2.5, None]}
    )
    # Long-lived flows are not counted; an unfinished flow stays in the system.
    assert ra.active_flows(flows, [0.5, 1.2, 1.5, 2.2, 3.0]) == [1, 2, 1, 2, 1]


def test_protocol_overrides_and_bad_protocol():
    assert dumbbell.protocol("tcp", 30e6, 0.1)["transport.iw"] == 2
    assert dumbbell.protocol("rcp", 30e6, 0.1)["queues.router"]["kind"] == "rcp"
    with pytest.raises(ValueError, match="protocol: expected rcp, tcp or xcp, got 'cubic'"):
        dumbbell.protocol("cubic", 1, 0.1)


def test_quick_mode_shortens_each_run_by_its_own_length():
    shorten = dumbbell.quick_scale(0.5)
    assert shorten("x", {"duration": 40.0, "measure_from": 10.0}) == {"duration": 20.0, "measure_from": 5.0}


def test_every_run_has_the_three_protocols_and_distinct_names():
    for exp in (experiment_code("rcp", n).experiment() for n in CH4):
        names = [n for n, _ in exp.points]
        assert len(names) == len(set(names)), exp.name
        if exp.name.startswith("fig4-"):
            assert len(names) % 3 == 0
            assert {o["transport.protocol"] for _, o in exp.points} == {"rcp", "tcp", "xcp"}
