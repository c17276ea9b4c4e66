"""experiments/datacenter/dctcp-benchmark (DCTCP sec. 4.3): the query schedule, query completion times
from a flows table, the short-message statistics and the verdicts, on hand-made input."""

from __future__ import annotations

import polars as pl
import pytest

from realcore import experiment_code

b = experiment_code("datacenter", "dctcp-benchmark")


def flows_table() -> pl.DataFrame:
    """Two measured queries and an unmeasured one, plus background flows.

    Query A (to h0 at 0.2 s): responses of 1.0, 3.0 and 12.0 ms, the last after a timeout.
    Query B (to h1 at 0.3 s): 1.5 ms and a response that never completed.
    Query C (to h0 at 0.05 s, before the measured window): 2.0 ms.
    A background flow into h0 is under way when query A starts; the one into h1 ended before B.
    Workers h2 and h3 are sending background flows when A starts; h2 sends another, which never
    completes, from before B.
    """
    rows = [
        # workload, src, dst, start, size, fct, timeouts, measured
        ("query", "h1", "h0", 0.2, 2000, 1.0e-3, 0, True),
        ("query", "h2", "h0", 0.2, 2000, 3.0e-3, 0, True),
        ("query", "h3", "h0", 0.2, 2000, 12.0e-3, 1, True),
        ("query", "h0", "h1", 0.3, 2000, 1.5e-3, 0, True),
        ("query", "h2", "h1", 0.3, 2000, None, 2, True),
        ("query", "h1", "h0", 0.05, 2000, 2.0e-3, 0, False),
        ("background", "h4", "h5", 0.25, 60_000, 4.0e-3, 0, True),
        ("background", "h5", "h4", 0.26, 900_000, 10.0e-3, 0, True),
        ("background", "h5", "h6", 0.27, 40_000, 0.5e-3, 0, True),
        ("background", "h6", "h7", 0.28, 5_000_000, 60.0e-3, 0, True),
        ("background", "h7", "h6", 0.01, 100_000, 8.0e-3, 0, False),
        # Into query A's aggregator across its start; one into h1 that ended before query B.
        ("background", "h8", "h0", 0.19, 3_000_000, 30.0e-3, 0, True),
        ("background", "h8", "h1", 0.20, 3_000_000, 30.0e-3, 0, True),
        # Two of query A's workers upload while it starts: h3, whose response timed out, and h2.
        ("background", "h3", "h9", 0.15, 2_000_000, 100.0e-3, 0, True),
        ("background", "h2", "h9", 0.18, 2_000_000, 50.0e-3, 0, True),
        # One that never completed, from h2 again: under way when query B starts.
        ("background", "h2", "h9", 0.29, 50_000_000, None, 0, True),
    ]
    cols = ["workload", "src", "dst", "start_s", "size_bytes", "fct_s", "timeouts", "measured"]
    return pl.DataFrame(rows, schema=cols, orient="row").with_columns(finish_s=pl.col("start_s") + pl.col("fct_s"))


def test_queries_group_responses_by_aggregator_and_start():
    q = b.queries(flows_table())
    assert q["start_s"].to_list() == [0.05, 0.2, 0.3]
    assert q["dst"].to_list() == ["h0", "h0", "h1"]
    assert q["responses"].to_list() == [1, 3, 2]
    assert q["completed"].to_list() == [1, 3, 1]
    # The last response's FCT; a query with a response missing has none.
    assert q["qct_s"].to_list() == [2.0e-3, 12.0e-3, None]
    assert q["timeouts"].to_list() == [0, 1, 2]
    assert q["measured"].to_list() == [False, True, True]


def test_query_stats_count_only_measured_queries():
    s = b.query_stats(flows_table())
    assert (s["n"], s["incomplete"], s["timed_out"]) == (2, 1, 2)
    assert s["share"] == 1.0
    # One completed measured query (A): every statistic is its 12 ms.
    assert s["mean"] == pytest.approx(12.0e-3)
    assert s["p0.99"] == pytest.approx(12.0e-3)


def test_message_stats_take_short_messages_between_50kb_and_1mb():
    s = b.message_stats(flows_table())
    assert s["short_n"] == 2  # 60 KB and 900 KB; 40 KB is too small, the 100 KB one unmeasured
    assert s["short_mean"] == pytest.approx(7.0e-3)
    assert s["short_p95"] == pytest.approx(10.0e-3)
    assert (s["large_n"], s["large_mean"]) == (5, pytest.approx(54.0e-3))


def test_in_context_finds_the_nearest_query_and_the_background_at_the_aggregator():
    flows = flows_table()
    q = b.in_context(b.queries(flows), flows)
    assert q["start_s"].to_list() == [0.05, 0.2, 0.3]
    assert q["gap_s"].to_list() == [pytest.approx(0.15), pytest.approx(0.15), None]
    assert q["background_in"].to_list() == [0, 1, 0]
    assert q["uploading"].to_list() == [0, 2, 1]
    assert q["late_uploading"].to_list() == [0, 1, 1]
    s = b.query_stats(flows)
    # Measured: A (timeout from an uploading worker, background flow in, the other query 150 ms
    # away) and B (its incomplete response's worker uploading).
    assert (s["late_background"], s["late_uploading"], s["late_other_query"]) == (1, 2, 0)
    assert (s["background"], s["uploading"], s["other_query"]) == (1, 2, 0)


def test_statistics_of_a_table_without_queries_are_empty_not_errors():
    empty = flows_table().filter(pl.col("workload") == "nothing")
    s = b.query_stats(empty)
    assert (s["n"], s["share"], s["mean"], s["p0.999"]) == (0, None, None, None)
    assert b.message_stats(empty)["short_mean"] is None


def test_quantile_is_nearest_rank_over_non_null_values():
    v = pl.Series([5.0, None, 1.0, 3.0, 2.0, 4.0])
    assert b.quantile(v, 0.5) == 3.0
    assert b.quantile(v, 0.99) == 5.0
    assert b.quantile(pl.Series([None], dtype=pl.Float64), 0.5) is None


def test_query_flows_fan_in_from_every_other_host_at_one_instant():
    hosts = ["a", "b", "c", "d"]
    flows = b.query_flows(rate=1000.0, stop=0.5, response=2000, hosts=hosts, seed=1)
    assert flows == b.query_flows(rate=1000.0, stop=0.5, response=2000, hosts=hosts, seed=1)
    starts = sorted({f["start"] for f in flows})
    assert len(flows) == 3 * len(starts) and 400 < len(starts) < 600  # about 500 queries in 0.5 s
    assert all(0 < t < 0.5 for t in starts)
    for t in starts[:50]:
        q = [f for f in flows if f["start"] == t]
        assert len({f["dst"] for f in q}) == 1
        assert sorted(f["src"] for f in q) == sorted(h for h in hosts if h != q[0]["dst"])
        assert {f["size"] for f in q} == {2000}


def test_verdicts():
    tcp = {"p0.99": 30e-3, "p0.999": 40e-3, "share": 0.2}
    assert b.tail_verdict(tcp, {"p0.99": 2e-3, "p0.999": 10e-3, "share": 0.002}) == "matches"
    assert b.tail_verdict(tcp, {"p0.99": 2e-3, "p0.999": 10e-3, "share": 0.05}) == "partial"
    assert b.tail_verdict(tcp, {"p0.99": 2e-3, "p0.999": 50e-3, "share": 0.002}) == "does not match"
    assert b.tail_verdict(tcp, {"p0.99": None, "p0.999": None, "share": None}) == "no data"
    assert b.lower_verdict([(3.0, 2.0), (10.0, 7.0)]) == "matches"
    assert b.lower_verdict([(3.0, 2.0), (10.0, 11.0)]) == "partial"
    assert b.lower_verdict([(3.0, 4.0), (None, 1.0)]) == "does not match"
    base = {"p0.95": 1.0e-3, "share": 0.0}
    assert b.unhurt_verdict(base, {"p0.95": 1.2e-3, "share": 0.001}) == "matches"
    assert b.unhurt_verdict(base, {"p0.95": 2.0e-3, "share": 0.001}) == "partial"
    assert b.unhurt_verdict(base, {"p0.95": 2.0e-3, "share": 0.5}) == "does not match"
    assert b.cause_verdict({"timed_out": 10, "late_background": 6}) == "matches"
    assert b.cause_verdict({"timed_out": 10, "late_background": 1}) == "partial"
    assert b.cause_verdict({"timed_out": 10, "late_background": 0}) == "does not match"
    assert b.cause_verdict({"timed_out": 0, "late_background": 0}) == "no data"


def test_points_share_one_query_schedule_and_set_dctcp_queues():
    pts = dict(b.points())
    assert set(pts) == {f"{s}-{p}" for s in b.SCENARIOS for p in b.PROTOCOLS}
    assert pts["baseline-tcp"]["workload.1.flows"] == pts["baseline-dctcp"]["workload.1.flows"]
    assert {f["size"] for f in pts["query-10x-dctcp"]["workload.1.flows"]} == {20_000}
    assert pts["background-10x-dctcp"]["workload.0.load"] == 0.5
    assert pts["baseline-dctcp"]["queues.router"] == {"kind": "step", "k_packets": 20, "limit": 150_000}
    q = b.quick("baseline-dctcp", pts["query-10x-dctcp"])
    assert q["duration"] == b.QUICK_DURATION
    assert max(f["start"] for f in q["workload.1.flows"]) < b.QUICK_DURATION
    assert {f["size"] for f in q["workload.1.flows"]} == {20_000}
