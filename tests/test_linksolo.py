"""The solo problem of the links method (`fctlab.tools.linksolo`): which sizes run, and that a
flow's time alone interpolated on the grid is its exact one."""

from __future__ import annotations

import numpy as np
import pytest

from fctlab.tools import linksolo
from fctlab.tools.estimate import estimate_to
from realcore import fake, small_dumbbell  # noqa: F401  (fake: the compiled core)


def test_few_sizes_run_each_and_many_run_both_ends_of_a_packet_count_and_a_grid_above():
    sizes = np.asarray([100, 100, 5000])
    points, lo, hi, w = linksolo._points(sizes)
    assert points.tolist() == [100, 5000] and lo.tolist() == hi.tolist() == [0, 0, 1] and not w.any()
    many = np.arange(1, linksolo.EXACT_SIZES + 2) * 977
    points, lo, hi, w = linksolo._points(many)
    assert len(points) < len(many)
    # Every size lies between its two points, at its weight.
    assert (points[lo] <= many).all() and (many <= points[hi]).all()
    assert np.allclose(points[lo] + w * (points[hi] - points[lo]), many)
    # Up to EXACT_PACKETS packets the two points are one packet count's ends.
    small = many <= linksolo.EXACT_PACKETS * linksolo.SEGMENT
    pk = -(-many[small] // linksolo.SEGMENT)
    assert (points[hi][small] == pk * linksolo.SEGMENT).all()
    # Above, grid points at most GRID_STEP apart (plus one packet).
    big = points[points > linksolo.EXACT_PACKETS * linksolo.SEGMENT] // linksolo.SEGMENT
    assert (np.diff(big) <= np.maximum(1, np.ceil(big[:-1] * (linksolo.GRID_STEP - 1)) + 1)).all()


@pytest.mark.parametrize("delay", ["5ms", "50ms"])
def test_a_flows_time_alone_on_the_grid_is_its_exact_time(tmp_path, monkeypatch, delay):
    """Flows far apart on the small dumbbell (each alone, so its estimate is its time alone),
    sizes from 1 byte to 3 MB, the largest losing packets at the end of slow start: forcing the
    grid on them gives every FCT within 0.2% of running each size. The queue counts packets:
    with a limit in bytes, whether the last packet fits depends on its size, and one flow was
    1.3% off. At 50 ms the path holds 890 packets and the flows of up to 2,000 packets are in
    slow start (a queue of 2,000 packets: none lost): one more round trip at each doubling, which
    the grid must not interpolate over (grid points from 256 packets on put two flows 2.8% off
    at 5 ms and 47% at 50 ms). Where a lone flow loses packets at 50 ms, which of them it loses
    turns on the microseconds its last packet's size moves it by: no interpolation holds there
    (7% off)."""
    rng = np.random.default_rng(5)
    sizes = np.concatenate([rng.integers(1, 300_000, 40), rng.integers(300_000, 3_000_000, 150)])
    flows = [{"src": "l0", "dst": "r0", "start": 2.0 * i, "size": int(s)} for i, s in enumerate(sizes)]
    queues = {"router": {"kind": "droptail", "limit_packets": 170 if delay == "5ms" else 2000}}
    spec = small_dumbbell(workload=[{"kind": "flows", "flows": flows}], duration="381s", queues=queues)
    spec["topology"]["bottleneck_delay"] = delay
    exact = estimate_to(spec, tmp_path / "exact", method="links", jobs=1)
    monkeypatch.setattr(linksolo, "EXACT_SIZES", 0)
    grid = estimate_to(spec, tmp_path / "grid", method="links", jobs=1)
    assert grid.meta["estimate"]["solo_chains"] != exact.meta["estimate"]["solo_chains"] == len(set(sizes.tolist()))
    got, want = grid.flows.sort("id")["fct_s"].to_numpy(), exact.flows.sort("id")["fct_s"].to_numpy()
    assert got == pytest.approx(want, rel=2e-3)


def test_the_chains_are_dealt_to_parts_of_about_equal_cost():
    """Each chain in one part; the costliest first to the least loaded part, so no part costs
    more than the mean plus the costliest chain."""
    costs = [1000, 10, 10, 500, 400, 300, 20, 5, 5, 700]
    chains = [([], [], {}, "", c) for c in costs]
    parts = linksolo._deal(chains)
    assert len(parts) == linksolo.PARTS
    assert sorted(c for p in parts for c in p) == list(range(len(costs)))
    loads = [sum(costs[c] for c in p) for p in parts]
    assert max(loads) <= sum(costs) / len(parts) + max(costs)
    assert linksolo._deal(chains[:2]) == [[0], [1]], "no empty part"
