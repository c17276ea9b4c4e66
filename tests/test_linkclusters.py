"""The clustering of link problems (`fctlab.tools.linkclusters`): which links are alike (by
Parsimon's test, or as far as their flows can tell), the greedy clusters, their
representatives, and the draw that gives a clustered link's flows their delays."""

from __future__ import annotations

import numpy as np
import pytest

from fctlab.tools.linkclusters import (
    EPSILON,
    POOL_FLOWS,
    LinkFeatures,
    Neighbours,
    _ks_rows,
    _steps,
    close,
    cluster,
    features,
    ks,
    packets,
    representatives,
    wmape,
)

SHAPE = (1e9, 1e-6, False, False, ("",))


def link(scale_gaps: float = 1.0, scale_sizes: float = 1.0, shape: tuple = SHAPE, n: int = 200, seed: int = 7):
    rng = np.random.default_rng(seed)
    starts = np.cumsum(rng.exponential(1e-3, n)) * scale_gaps
    sizes = (rng.pareto(1.2, n) * 10_000 * scale_sizes + 100).astype(int)
    return features(shape, starts.tolist(), sizes.tolist(), shape[0])


def test_wmape_is_the_weighted_error_and_zero_only_when_equal():
    a = np.array([1.0, 2.0, 3.0])
    assert wmape(a, a) == 0
    assert wmape(a, a * 1.1) == pytest.approx(0.1)
    assert wmape(np.zeros(3), a) == float("inf")


def test_links_are_close_by_parsimons_test_only_with_the_same_shape_and_near_distributions_and_load():
    a = link()
    assert close(a, link(), EPSILON, noise=False)
    assert close(a, link(scale_sizes=1.05), EPSILON, noise=False)
    # 30% longer gaps: the gaps and the load differ by more than 10%.
    assert not close(a, link(scale_gaps=1.3), EPSILON, noise=False)
    assert not close(a, link(scale_sizes=1.3), EPSILON, noise=False)
    for noise in (False, True):
        assert not close(a, link(shape=(4e10, *SHAPE[1:])), EPSILON, noise)
        assert not close(a, link(shape=(*SHAPE[:4], ("dctcp",))), EPSILON, noise)
        # Under two flows a link has no distributions: it runs on its own.
        assert not close(link(n=1), link(n=1), EPSILON, noise)


def test_links_of_few_flows_are_alike_when_their_flows_cannot_tell_them_apart():
    """Two links of 40 flows each from the same distributions (other draws): Parsimon's test
    finds them apart, the noise bounds do not; with 20,000 flows each, sizes 30% larger are told
    apart by both."""
    a, b = link(n=40, seed=1), link(n=40, seed=2)
    assert not close(a, b, EPSILON, noise=False)
    assert close(a, b, EPSILON)
    big, bigger = link(n=20_000, seed=1), link(n=20_000, seed=2, scale_sizes=1.3)
    assert not close(big, bigger, EPSILON) and not close(big, bigger, EPSILON, noise=False)
    assert close(big, link(n=20_000, seed=2), EPSILON)


def test_ks_is_the_largest_gap_between_the_two_step_functions():
    assert ks(np.array([1.0, 2, 3]), np.array([4.0, 5, 6])) == 1.0
    assert ks(np.array([1.0, 2, 3, 4]), np.array([1.0, 2, 3, 4])) == 0.0
    assert ks(np.array([1.0, 1, 2, 2]), np.array([1.0, 2, 2, 2])) == pytest.approx(0.25)
    rng = np.random.default_rng(5)
    rows = np.sort(rng.integers(0, 30, (50, 100)).astype(float), axis=1)  # ties, as sizes have
    a = np.sort(rng.integers(0, 30, 100).astype(float))
    got = _ks_rows(a, rows, *_steps(rows))
    assert got == pytest.approx([ks(a, row) for row in rows])


def test_greedy_clusters_follow_the_link_order_and_epsilon_zero_runs_every_link():
    feats = [link(), link(scale_gaps=2.0), link(scale_sizes=1.02), link(scale_gaps=2.05)]
    for noise in (False, True):
        assert cluster([10, 11, 12, 13], feats, EPSILON, noise) == {10: [10, 12], 11: [11, 13]}
        assert cluster([10, 11, 12, 13], feats, 0.0, noise) == {10: [10], 11: [11], 12: [12], 13: [13]}


def test_a_cluster_of_small_links_runs_enough_of_them_for_its_pool_spread_over_load():
    """40 links of 100 flows each: POOL_FLOWS / 100 of them run, the first and the rest evenly
    over the others by load; a cluster of links of POOL_FLOWS flows runs its first alone."""
    feats = {i: LinkFeatures(SHAPE, None, None, load=i / 100, flows=100) for i in range(40)}
    got = representatives({0: list(range(40))}, feats)[0]
    k = POOL_FLOWS // 100
    assert len(got) == k and got[0] == 0 and got == [0, *sorted(got[1:])]
    assert min(got[1:]) <= 4 and max(got[1:]) >= 35, "spread over the loads"
    for i in (50, 51, 52):
        feats[i] = LinkFeatures(SHAPE, None, None, load=0.5, flows=POOL_FLOWS)
    assert representatives({50: [50, 51, 52]}, feats) == {50: [50]}


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


@pytest.mark.parametrize("noise", [False, True])
def test_the_clusters_are_the_greedy_pass_of_close_over_every_link(noise):
    """`cluster` compares whole arrays shape by shape; the clusters are those of the plain
    greedy pass with `close`, link by link."""
    rng = np.random.default_rng(3)
    shapes = [SHAPE, (4e10, *SHAPE[1:])]
    feats = [
        link(
            scale_gaps=float(rng.choice([1.0, 1.04, 1.3])),
            scale_sizes=float(rng.choice([1.0, 1.05, 1.5])),
            shape=shapes[i % 2],
            n=(200 if i % 3 else 30) if i % 7 else 1,
            seed=7 + i % 4,
        )
        for i in range(40)
    ]
    want: dict[int, list[int]] = {}
    left = list(range(40))
    while left:
        rep, rest = left[0], left[1:]
        members = [j for j in rest if close(feats[rep], feats[j], EPSILON, noise)]
        want[100 + rep] = [100 + rep] + [100 + j for j in members]
        left = [j for j in rest if j not in members]
    got = cluster([100 + i for i in range(40)], feats, EPSILON, noise)
    assert got == want and len(got) < 30
