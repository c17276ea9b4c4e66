"""The clustering of link problems (`fctlab.tools.linkclusters`): which links are alike, the
greedy clusters, and the draw that gives a clustered link's flows their delays."""

from __future__ import annotations

import numpy as np
import pytest

from fctlab.tools.linkclusters import EPSILON, Neighbours, close, cluster, features, packets, wmape

SHAPE = (1e9, 1e-6, False, False, ("",))


def link(scale_gaps: float = 1.0, scale_sizes: float = 1.0, shape: tuple = SHAPE, n: int = 200):
    rng = np.random.default_rng(7)
    starts = np.cumsum(rng.exponential(1e-3, n)) * scale_gaps
    sizes = (rng.pareto(1.2, n) * 10_000 * scale_sizes + 100).astype(int)
    return features(shape, starts.tolist(), sizes.tolist(), shape[0])


def test_wmape_is_the_weighted_error_and_zero_only_when_equal():
    a = np.array([1.0, 2.0, 3.0])
    assert wmape(a, a) == 0
    assert wmape(a, a * 1.1) == pytest.approx(0.1)
    assert wmape(np.zeros(3), a) == float("inf")


def test_links_are_close_only_with_the_same_shape_and_near_distributions_and_load():
    a = link()
    assert close(a, link(), EPSILON)
    assert close(a, link(scale_sizes=1.05), EPSILON)
    # 30% longer gaps: the gaps and the load differ by more than 10%.
    assert not close(a, link(scale_gaps=1.3), EPSILON)
    assert not close(a, link(scale_sizes=1.3), EPSILON)
    assert not close(a, link(shape=(4e10, *SHAPE[1:])), EPSILON)
    assert not close(a, link(shape=(*SHAPE[:4], ("dctcp",))), EPSILON)
    # Under two flows a link has no distributions: it runs on its own.
    assert not close(link(n=1), link(n=1), EPSILON)


def test_greedy_clusters_follow_the_link_order_and_epsilon_zero_runs_every_link():
    feats = [link(), link(scale_gaps=2.0), link(scale_sizes=1.02), link(scale_gaps=2.05)]
    assert cluster([10, 11, 12, 13], feats, EPSILON) == {10: [10, 12], 11: [11, 13]}
    assert cluster([10, 11, 12, 13], feats, 0.0) == {10: [10], 11: [11], 12: [12], 13: [13]}


def test_a_draw_comes_from_the_flows_nearest_in_size_scaled_by_packets():
    """A representative with 100 one-packet flows queued 1 ms each and 100 flows of 1,000
    packets delayed 1 us per packet: a one-packet flow draws about 1 ms, a 2,000-packet flow
    about 2 ms (not 2,000 x 1 ms, which a bucket spanning both kinds would allow)."""
    records = [(1000, 1e-3)] * 100 + [(1460 * 1000, 1e-3)] * 100
    near = Neighbours(records)
    rng = np.random.default_rng(1)
    assert near.sample(500, rng) == pytest.approx(1e-3)
    assert near.sample(1460 * 2000, rng) == pytest.approx(2e-3)
    assert packets(1) == 1 and packets(1461) == 2
    assert not Neighbours([])


def test_the_clusters_are_the_greedy_pass_of_close_over_every_link():
    """`cluster` compares whole arrays shape by shape; the clusters are those of the plain
    greedy pass with `close`, link by link."""
    rng = np.random.default_rng(3)
    shapes = [SHAPE, (4e10, *SHAPE[1:])]
    feats = [
        link(
            scale_gaps=float(rng.choice([1.0, 1.04, 1.3])),
            scale_sizes=float(rng.choice([1.0, 1.05, 1.5])),
            shape=shapes[i % 2],
            n=200 if i % 7 else 1,
        )
        for i in range(40)
    ]
    want: dict[int, list[int]] = {}
    left = list(range(40))
    while left:
        rep, rest = left[0], left[1:]
        members = [j for j in rest if close(feats[rep], feats[j], EPSILON)]
        want[100 + rep] = [100 + rep] + [100 + j for j in members]
        left = [j for j in rest if j not in members]
    got = cluster([100 + i for i in range(40)], feats, EPSILON)
    assert got == want and len(got) < 30
