"""fctlab.analysis: summary statistics and reductions against hand-computed answers."""

from __future__ import annotations

import json

import polars as pl
import pytest

from fctlab.analysis import (
    SizeBins,
    compare,
    compare_table,
    ecdf,
    loss_probability,
    reduction_pct,
    slowdown_by_bin,
    summarize,
)
from fctlab.result import FLOW_SCHEMA, Result


def flows(rows: list[dict]) -> pl.DataFrame:
    """A flow table with defaults for the columns a test does not care about."""
    base = {
        "src": "a",
        "dst": "b",
        "start_s": 0.0,
        "rtt_prop_s": 0.01,
        "delivered_bytes": 0,
        "retx_bytes": 0,
        "timeouts": 0,
        "protocol": "tcp",
        "workload": "w",
        "measured": True,
    }
    full = []
    for i, r in enumerate(rows):
        row = {**base, "id": i, **r}
        row.setdefault("finish_s", None if row.get("fct_s") is None else row["start_s"] + row["fct_s"])
        row.setdefault("ideal_fct_s", 1.0)
        full.append(row)
    return pl.DataFrame(full, schema=FLOW_SCHEMA)


FOUR = [
    {"size_bytes": s, "fct_s": f, "ideal_fct_s": f / 2} for s, f in [(1000, 1.0), (2000, 2.0), (3000, 3.0), (4000, 4.0)]
]


def test_summary_counts_means_and_exclusions():
    """Unmeasured, long-lived and incomplete flows are counted but kept out of FCT statistics."""
    df = flows(
        FOUR
        + [
            {"size_bytes": 1000, "fct_s": 100.0, "measured": False},  # outside the window
            {"size_bytes": -1, "fct_s": None},  # long-lived
            {"size_bytes": 1000, "fct_s": None},  # measured, never finished
        ]
    )
    s = summarize(df)
    assert (s["flows_started"], s["flows_completed"], s["flows_incomplete"]) == (7, 5, 2)
    assert (s["long_lived"], s["measured"], s["measured_incomplete"], s["completed_measured"]) == (1, 5, 1, 4)
    assert s["mean_fct_s"] == pytest.approx(2.5)
    # sum(size * fct) / sum(size) = (1000 + 4000 + 9000 + 16000) / 10000
    assert s["mean_fct_bytes_weighted_s"] == pytest.approx(3.0)
    assert s["p50_fct_s"] == pytest.approx(2.5)
    assert s["p90_fct_s"] == pytest.approx(3.7)
    assert s["p99_fct_s"] == pytest.approx(3.97)
    assert s["mean_slowdown"] == pytest.approx(2.0)


def test_percentiles_interpolate_linearly():
    """p50/p90/p99 of 1..100 are 50.5, 90.1, 99.01 (numpy's linear definition)."""
    s = summarize(flows([{"size_bytes": 1460, "fct_s": float(i)} for i in range(1, 101)]))
    assert (s["p50_fct_s"], s["p90_fct_s"], s["p99_fct_s"]) == pytest.approx((50.5, 90.1, 99.01))


def test_exact_bins_one_per_distinct_size():
    """At most 32 distinct sizes: one bin each, with count, mean and p99 of that size only."""
    df = flows(
        [{"size_bytes": 1460, "fct_s": 1.0}, {"size_bytes": 1460, "fct_s": 3.0}, {"size_bytes": 2920, "fct_s": 5.0}]
    )
    bins = summarize(df)["bins"]
    assert [(b["lo_bytes"], b["hi_bytes"], b["count"], b["mean_fct_s"]) for b in bins] == [
        (1460, 1460, 2, 2.0),
        (2920, 2920, 1, 5.0),
    ]
    assert bins[0]["p99_fct_s"] == pytest.approx(1.0 + 0.99 * 2.0)


def test_log2_segment_bins_above_32_sizes():
    """40 distinct sizes of 1..40 segments fall in [1], [2,3], [4,7], [8,15], [16,31], [32,63]."""
    df = flows([{"size_bytes": k * 1460, "fct_s": float(k)} for k in range(1, 41)])
    bins = summarize(df)["bins"]
    assert [b["label"] for b in bins] == ["1 seg", "2-3 seg", "4-7 seg", "8-15 seg", "16-31 seg", "32-63 seg"]
    assert [b["count"] for b in bins] == [1, 2, 4, 8, 16, 9]
    assert bins[1]["mean_fct_s"] == pytest.approx(2.5)
    assert (bins[1]["lo_bytes"], bins[1]["hi_bytes"]) == (1461, 3 * 1460)


def test_log2_key_exact_at_segment_boundaries_and_powers_of_two():
    """ceil(size / 1460) segments; powers of two start a new bin even where float log2 is inexact."""
    sizes = [0, 1, 1460, 1461, 2 * 1460, 2 * 1460 + 1, 4 * 1460]
    ks = range(1, 53)  # up to 2^52 segments, where float log2(2^k - 1) rounds up to k
    sizes += [(1 << k) * 1460 for k in ks] + [((1 << k) - 1) * 1460 for k in ks]
    got = pl.DataFrame({"size_bytes": sizes}, schema={"size_bytes": pl.Int64}).select(SizeBins(exact=False).key_expr())
    want = [max(1, -(-s // 1460)).bit_length() - 1 for s in sizes]
    assert got.to_series().to_list() == want


def test_empty_summary_is_json_without_nan():
    """No flows: counts are 0, statistics None, and the summary is valid JSON."""
    s = summarize(pl.DataFrame(schema=FLOW_SCHEMA))
    assert s["flows_started"] == 0 and s["mean_fct_s"] is None and s["bins"] == []
    json.dumps(s, allow_nan=False)


def test_compare_reductions_over_flows_bytes_and_bins():
    """(A - B) / A: 25% over flows, 28.33% over bytes, per size 50/0/0/50%."""
    a = flows(FOUR)
    b = flows([{"size_bytes": s, "fct_s": f} for s, f in [(1000, 0.5), (2000, 2.0), (3000, 3.0), (4000, 2.0)]])
    c = compare(a, b)
    assert c["over_flows_pct"] == pytest.approx(25.0)
    # A: 3.0; B: (500 + 4000 + 9000 + 8000) / 10000 = 2.15
    assert c["over_bytes_pct"] == pytest.approx((3.0 - 2.15) / 3.0 * 100)
    assert [r["reduction_pct"] for r in c["bins"]] == pytest.approx([50.0, 0.0, 0.0, 50.0])
    assert compare_table(c)["reduction_pct"].to_list() == pytest.approx([50.0, 0.0, 0.0, 50.0])


def test_compare_bin_on_one_side_only_and_results_accepted():
    """A size present only in B gets no reduction; Result objects work in place of frames."""
    a = flows([{"size_bytes": 1000, "fct_s": 1.0}])
    b = flows([{"size_bytes": 1000, "fct_s": 1.0}, {"size_bytes": 5000, "fct_s": 2.0}])
    ra = Result(a, pl.DataFrame(), pl.DataFrame(), {}, {})
    c = compare(ra, b)
    assert [(r["label"], r["count_a"], r["count_b"], r["reduction_pct"]) for r in c["bins"]] == [
        ("1000 B", 1, 1, 0.0),
        ("5000 B", 0, 1, None),
    ]


def test_reduction_undefined_without_a_baseline():
    """No A value or a zero A mean: no percentage rather than a division error."""
    assert reduction_pct(None, 1.0) is None and reduction_pct(0.0, 1.0) is None
    assert reduction_pct(2.0, 1.0) == 50.0


def test_loss_probability_is_drops_over_arrivals_of_the_named_link():
    links = pl.DataFrame(
        {"name": ["bottleneck", "bottleneck_rev", "idle"], "pkts_sent": [900, 500, 0], "drops_pkts": [100, 0, 0]}
    )
    assert loss_probability(links, "bottleneck") == pytest.approx(0.1)
    assert loss_probability(links, "bottleneck_rev") == 0.0
    assert loss_probability(links, "idle") == 0.0
    with pytest.raises(ValueError, match="'nowhere'"):
        loss_probability(links, "nowhere")


def test_ecdf_gives_i_over_n_and_thins_to_evenly_spaced_ranks():
    """F at the i-th smallest value is i/n; thinned, the extremes stay and no point is invented."""
    x, y = ecdf(pl.Series([3.0, 1.0, None, 2.0]))
    assert (x, y) == ([1.0, 2.0, 3.0], [1 / 3, 2 / 3, 1.0])
    values = pl.Series([float(v) for v in range(10_000)])
    x, y = ecdf(values, 1000)
    assert len(x) == 1000 and x[0] == 0.0 and x[-1] == 9999.0 and y[-1] == 1.0
    assert set(x) <= set(values.to_list()) and x == sorted(x)
    assert ecdf(values.reverse(), 1000) == (x, y)


def test_slowdown_by_bin_is_fct_over_ideal_per_size():
    """Mean and p99 of fct / ideal per bin, over measured completed flows with an ideal FCT."""
    flows = pl.DataFrame(
        {
            "size_bytes": [1460, 1460, 14600, 14600, 14600],
            "fct_s": [2.0, 4.0, 10.0, None, 1.0],
            "ideal_fct_s": [1.0, 1.0, 2.0, 2.0, 0.0],
            "measured": [True, True, True, True, True],
        }
    )
    t = slowdown_by_bin(flows)
    assert t["label"].to_list() == ["1460 B", "14600 B"]
    assert t["count"].to_list() == [2, 1] and t["mean_slowdown"].to_list() == [3.0, 5.0]
