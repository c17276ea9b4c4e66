"""fctlab.reproduce.series: what several papers read from a run's time series (phases between
flow arrivals and departures, crossings, settling), on synthetic input."""

from __future__ import annotations

import polars as pl

from fctlab.reproduce import series


def test_settle_time_is_when_the_values_stay_within_the_band():
    times = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    values = [1.0, 9.0, 10.5, 12.0, 10.2, 9.5]
    # Outside 10 +- 1 last at t = 3: settled from t = 4, 4 s after the start at 0.
    assert series.settle_time(times, values, 10.0, 0.0, 6.0) == 4.0
    assert series.settle_time(times, values, 10.0, 4.0, 6.0) == 0.0
    assert series.settle_time(times, values, 10.0, 0.0, 4.0) is None, "still outside at the span's last sample"


def test_phases_split_at_every_arrival_and_departure():
    flows = [(0.0, 90.0), (30.0, 120.0), (60.0, 120.0)]
    got = series.phases(flows, 120.0)
    assert [(p.start, p.end, p.flows) for p in got] == [
        (0.0, 30.0, [0]),
        (30.0, 60.0, [0, 1]),
        (60.0, 90.0, [0, 1, 2]),
        (90.0, 120.0, [1, 2]),
    ]
    assert got[1].steady() == (45.0, 60.0)


def test_clears_and_first_reach():
    f = pl.DataFrame({"time_s": [1.0, 2.0, 3.0, 4.0, 5.0], "q": [0.0, 500.0, 200.0, 50.0, 20.0]})
    assert series.clears(f, "q", 100.0, 0.0, 5.0) == 4.0
    assert series.clears(f, "q", 10.0, 0.0, 5.0) is None, "still above at the span's last sample"
    assert series.first_reach(f, "q", 300.0, 0.0) == 2.0
    assert series.first_reach(f, "q", 900.0, 0.0) is None
    assert series.span_stat(f, "missing", 0.0, 5.0) is None


def test_link_series_pivots_one_targets_metrics_into_columns():
    rows = [
        (0.2, "queue_bytes", "bottleneck", 3.0),
        (0.1, "queue_bytes", "bottleneck", 1.0),
        (0.1, "throughput_bps", "bottleneck", 100.0),
        (0.1, "queue_bytes", "other", 7.0),
        (0.2, "throughput_bps", "bottleneck", 90.0),
    ]
    frame = pl.DataFrame(rows, schema=["time_s", "metric", "target", "value"], orient="row")
    got = series.link_series(frame, "bottleneck")
    assert got.columns == ["time_s", "queue_bytes", "throughput_bps"]
    assert got["time_s"].to_list() == [0.1, 0.2], "sorted by time"
    assert got["queue_bytes"].to_list() == [1.0, 3.0], "the other target's samples left out"


def test_window_mean_takes_the_start_and_leaves_the_end_to_the_next_window():
    f = pl.DataFrame({"time_s": [1.0, 2.0, 3.0], "x": [10.0, 20.0, 40.0]})
    assert series.window_mean(f, "x", 1.0, 3.0) == 15.0
    assert series.window_mean(f, "x", 2.0, 4.0) == 30.0
