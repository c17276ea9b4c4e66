"""Links alike, run once: the clustering of `fctlab estimate --method links` (Parsimon, Zhao et
al. NSDI'23, section 4.3) and the sampling that gives a clustered link's flows their delays.

**Features.** A busy link is described by what its problem would be made of: its rate and delay,
whether its ends are hosts, the transports of its flows (these must be equal), and the
distributions of its flows' sizes and of the gaps between their starts (`QUANTILES` quantiles
each) and its load (bytes over the span of starts, against its rate).

**Close.** Two links are close when both distributions differ by at most `epsilon` in weighted
mean absolute percentage error (`wmape`: sum |a - b| / sum |a|) and their loads by at most
`epsilon` of the larger. Greedy, as Parsimon: the first link not yet clustered (in id order)
becomes a representative, every link close to it joins its cluster, repeat.

**Or alike as far as their flows can tell** (`noise=True`, the default). A link of a few dozen
flows has distributions and a load that two links of the very same traffic would not share:
100 quantiles of 40 heavy-tailed sizes differ by far more than 10%, so under Parsimon's test
alone no two such links are close, and a fabric cut short (100 ms of 6,144 hosts: 36 flows a
host link) runs every busy link. So a distribution also passes when the two-sample
Kolmogorov-Smirnov distance of the quantile sketches (`ks`, exact between the two step
functions) is within what samples of these sizes leave at 5%, `KS_C sqrt((n + m) / (n m))`, and
a load when the difference is within `LOAD_Z` standard errors: a load measured from `n` flows of
sizes `s_i` has a relative standard error of `sqrt(sum s_i^2) / sum s_i`. With thousands of
flows a link (Parsimon's regime) the bounds are tight, but still join links that Parsimon's
test keeps apart (its WMAPE weighs the largest sizes most): its 6,144-host fabric at 5 s runs
14 problems instead of 28.

**Representatives.** A cluster of links with few flows each is not one link's run: the
representatives are as many of its links as hold `POOL_FLOWS` flows together (at least one;
spread over the cluster's loads, lowest to highest), each runs, and every other member's flows
draw from all of their flows together.

**Sampling.** A member's flows are not in its representatives' runs, so each takes a delay from
theirs: its flows' delays normalised by their packets (Parsimon's "packet-
normalised delay"), one drawn at random from the `NEIGHBOURS` flows nearest in size with at most
`SPREAD` times more or fewer packets (the nearest one if none), and scaled by the flow's
packets. Parsimon draws from buckets of at least 100 flows whose largest size is at least twice
the smallest; on a link of a few hundred flows such a bucket spans a 1-packet flow and a
20,000-packet one, and the first one's queueing delay, scaled by 20,000 packets, made the
estimate of the 32-host leaf-spine 26 times the packet level's. The draw is seeded by the
scenario's seed and the link, so the estimate is the same on any number of workers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Quantiles of the size and gap distributions compared between links (Parsimon: 1000).
QUANTILES = 100
#: Links whose features differ by at most this are clustered (Parsimon's default; 0: every link runs).
EPSILON = 0.1
#: A member's flow draws its delay from this many of the representative's flows nearest in size.
NEIGHBOURS = 20
#: ... among those whose packets are within this factor of its own: a small flow's delay per
#: packet (a queue's wait, spread over few packets) is far above a large one's.
SPREAD = 2.0
#: Kolmogorov-Smirnov's c(alpha) at alpha = 5%: sqrt(-ln(alpha / 2) / 2).
KS_C = 1.358
#: Loads within this many standard errors of each other pass (`noise=True`).
LOAD_Z = 2.0
#: A cluster's representatives hold at least this many flows together (its links allowing).
POOL_FLOWS = 1000
#: Payload bytes of one full packet (the transports' default MSS): a flow's packets, to
#: normalise a delay by them here and to grid sizes by them in `linksolo`.
SEGMENT = 1460


@dataclass(frozen=True)
class LinkFeatures:
    """What decides whether two links' problems are alike (see the module doc)."""

    shape: tuple  # rate, delay, host ends, transports: equal or not alike
    sizes: np.ndarray | None  # QUANTILES quantiles, None under two flows
    gaps: np.ndarray | None
    load: float
    flows: int = 0
    load_se: float = 0.0  # the load's standard error, from its flows' sizes


def features(shape: tuple, starts_s: Sequence[float], sizes: Sequence[int], rate_bps: float) -> LinkFeatures:
    """The features of a link with these flows (starts in seconds, sizes in bytes)."""
    if len(starts_s) < 2:
        return LinkFeatures(shape, None, None, 0.0, len(starts_s))
    order = np.argsort(np.asarray(starts_s), kind="stable")
    starts = np.asarray(starts_s, dtype=float)[order]
    size = np.asarray(sizes, dtype=float)
    span = starts[-1] - starts[0]
    total = size.sum()
    load = float(total * 8 / span / rate_bps) if span > 0 else math.inf
    se = load * float(np.sqrt((size * size).sum()) / total) if total > 0 and math.isfinite(load) else 0.0
    return LinkFeatures(shape, _quantiles(size), _quantiles(np.diff(starts)), load, len(size), se)


def _quantiles(x: np.ndarray) -> np.ndarray:
    # Parsimon's: the value at floor(p * len) of the sorted data, p = 0, 1/Q, ..., (Q-1)/Q.
    s = np.sort(x)
    return s[(np.arange(QUANTILES) * len(s)) // QUANTILES]


def wmape(a: np.ndarray, b: np.ndarray) -> float:
    """Weighted mean absolute percentage error of `b` against `a` (0 when both are zero)."""
    total = float(np.abs(a).sum())
    diff = float(np.abs(a - b).sum())
    return 0.0 if diff == 0 else (math.inf if total == 0 else diff / total)


def ks(a: np.ndarray, b: np.ndarray) -> float:
    """The Kolmogorov-Smirnov distance between the empirical CDFs of two sorted samples."""
    points = np.concatenate([a, b])
    fa = np.searchsorted(a, points, "right") / len(a)
    fb = np.searchsorted(b, points, "right") / len(b)
    return float(np.abs(fa - fb).max())


def ks_bound(n: int | np.ndarray, m: int | np.ndarray) -> Any:
    """The distance two samples of `n` and `m` from one distribution stay within at 5%."""
    return KS_C * np.sqrt((n + m) / (n * m))


def close(a: LinkFeatures, b: LinkFeatures, epsilon: float, noise: bool = True) -> bool:
    """Whether `b`'s problem is alike enough to `a`'s to take `a`'s delays (see the module doc)."""
    if a.shape != b.shape or a.sizes is None or b.sizes is None or a.gaps is None or b.gaps is None:
        return False
    top, diff = max(a.load, b.load), abs(a.load - b.load)
    if top == math.inf or not (diff <= epsilon * top or (noise and diff <= LOAD_Z * math.hypot(a.load_se, b.load_se))):
        return False
    bound = ks_bound(a.flows, b.flows) if noise else -1.0
    return all(wmape(x, y) <= epsilon or ks(x, y) <= bound for x, y in ((a.sizes, b.sizes), (a.gaps, b.gaps)))


def cluster(
    links: Sequence[int], feats: Sequence[LinkFeatures], epsilon: float, noise: bool = True
) -> dict[int, list[int]]:
    """Each cluster's first link with its cluster (itself first), greedily in `links` order
    (see the module doc; `close` on whole arrays: only links of one shape can be close, so the
    greedy pass runs shape by shape)."""
    out: dict[int, list[int]] = {}
    shapes: dict[tuple, list[int]] = {}
    for i, f in enumerate(feats):
        if f.sizes is None or epsilon <= 0:
            out[links[i]] = [links[i]]
        else:
            shapes.setdefault(f.shape, []).append(i)
    for group in shapes.values():
        g = _Group([feats[i] for i in group], noise)
        left = np.ones(len(group), bool)
        for r in range(len(group)):
            if not left[r]:
                continue
            near = g.close_to(r, left, epsilon)
            near[r] = True
            left &= ~near
            out[links[group[r]]] = [links[group[j]] for j in np.flatnonzero(near)]
    return dict(sorted(out.items()))


class _Group:
    """The features of links of one shape as arrays, for `close` of one link against all."""

    def __init__(self, feats: Sequence[LinkFeatures], noise: bool) -> None:
        self.noise = noise
        self.load = np.asarray([f.load for f in feats])
        self.load_se = np.asarray([f.load_se for f in feats])
        self.flows = np.asarray([f.flows for f in feats], dtype=float)
        self.dists = []
        for name in ("sizes", "gaps"):
            x = np.stack([getattr(f, name) for f in feats]).astype(float)
            self.dists.append((x, *_steps(x)))

    def close_to(self, r: int, rows: np.ndarray, epsilon: float) -> np.ndarray:
        """`close(feats[r], feats[j])` for every row j where `rows` holds (False elsewhere)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            load = self.load
            top, diff = np.maximum(load[r], load), np.abs(load - load[r])
            fine = diff <= epsilon * top
            if self.noise:
                fine |= diff <= LOAD_Z * np.hypot(self.load_se[r], self.load_se)
            ok = rows & np.isfinite(top) & fine
            for x, below, upto in self.dists:
                total, d = np.abs(x[r]).sum(), np.abs(x - x[r]).sum(axis=1)
                fine = (d == 0) | (d <= epsilon * total)
                test = np.flatnonzero(ok & ~fine) if self.noise else np.empty(0, int)
                if test.size:
                    dist = _ks_rows(x[r], x[test], below[test], upto[test])
                    fine[test] = dist <= ks_bound(self.flows[r], self.flows[test])
                ok &= fine
        return ok


def _steps(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of sorted values and per value: how many of the row's values are below it, and
    how many are at most it (ties counted once per run)."""
    q = x.shape[1]
    idx = np.broadcast_to(np.arange(q), x.shape)
    start = np.ones(x.shape, bool)
    start[:, 1:] = x[:, 1:] != x[:, :-1]
    end = np.ones(x.shape, bool)
    end[:, :-1] = x[:, :-1] != x[:, 1:]
    below = np.maximum.accumulate(np.where(start, idx, 0), axis=1)
    upto = np.minimum.accumulate(np.where(end, idx, q)[:, ::-1], axis=1)[:, ::-1] + 1
    return below, upto


def _ks_rows(a: np.ndarray, x: np.ndarray, below: np.ndarray, upto: np.ndarray) -> np.ndarray:
    """`ks(a, row)` for every row of `x` (sorted rows, their `_steps`): a row's step function is
    flat between its values and `a`'s only rises, so the largest gap is at one of the row's
    values, from the left (counts below) or the right (counts at most)."""
    q = x.shape[1]
    right = np.searchsorted(a, x.ravel(), "right").reshape(x.shape) / len(a)
    left = np.searchsorted(a, x.ravel(), "left").reshape(x.shape) / len(a)
    return np.maximum(np.abs(right - upto / q), np.abs(left - below / q)).max(axis=1)


def representatives(clusters: Mapping[int, list[int]], feats: Mapping[int, LinkFeatures]) -> dict[int, list[int]]:
    """Per cluster (by its first link), the links that run: the first, and as many more as bring
    their flows to `POOL_FLOWS`, spread evenly over the others in load order (see the module
    doc)."""
    out = {}
    for first, members in clusters.items():
        per = max(1.0, sum(feats[m].flows for m in members) / len(members))
        k = min(len(members), max(1, math.ceil(POOL_FLOWS / per)))
        others = sorted(members[1:], key=lambda m: (feats[m].load, m))
        picks = [others[min(len(others) - 1, int((i + 0.5) * len(others) / (k - 1)))] for i in range(k - 1)]
        out[first] = [first, *sorted(set(picks))]
    return out


def packets(size: Any) -> Any:
    """Packets of a flow of `size` bytes (an int, or elementwise on an array): at least one."""
    return np.maximum(1, -(-size // SEGMENT))


class Neighbours:
    """A representative's packet-normalised delays by flow size, to draw from (see the module doc)."""

    def __init__(self, records: Sequence[tuple[int, float]]) -> None:
        """`records`: (size in bytes, delay in seconds) of the representative's flows."""
        data = sorted((size, delay / packets(size)) for size, delay in records)
        self.sizes = np.asarray([size for size, _ in data], dtype=np.int64)
        self.packets = packets(self.sizes)
        self.values = np.asarray([value for _, value in data])

    def __bool__(self) -> bool:
        return len(self.values) > 0

    def sample(self, size: int, rng: np.random.Generator) -> float:
        """`sample_many` of one flow."""
        return float(self.sample_many(np.asarray([size], dtype=np.int64), rng)[0])

    def sample_many(self, sizes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A delay (s) for each flow of `sizes` bytes: one of the `NEIGHBOURS` flows nearest in
        size (or of every flow of that very size, if more) whose packets are within `SPREAD`
        times its own (the nearest in packets if none is), drawn at random, its delay scaled to
        the flow's packets."""
        m = len(self.values)
        k = min(NEIGHBOURS, m)
        p = packets(sizes)
        eq_lo, eq_hi = np.searchsorted(self.sizes, sizes, "left"), np.searchsorted(self.sizes, sizes, "right")
        # The flows within SPREAD in packets, [a, b).
        a = np.searchsorted(self.packets, p / SPREAD, "left")
        b = np.searchsorted(self.packets, p * SPREAD, "right")
        # k flows centred on those of this size (or where they would be), as many smaller as
        # larger, then kept within [a, b).
        lo = np.clip((eq_lo + eq_hi - k + 1) // 2, 0, m - k)
        hi = lo + k
        lo, hi = np.maximum(lo, a), np.minimum(hi, b)
        many = eq_hi - eq_lo >= k
        lo, hi = np.where(many, eq_lo, lo), np.where(many, eq_hi, hi)
        # None within SPREAD: the nearest in packets.
        none = hi <= lo
        if none.any():
            below = np.clip(a[none] - 1, 0, m - 1)
            above = np.clip(b[none], 0, m - 1)
            ratio = np.log(p[none])
            take_below = np.abs(np.log(self.packets[below]) - ratio) <= np.abs(np.log(self.packets[above]) - ratio)
            nearest = np.where(take_below, below, above)
            lo[none], hi[none] = nearest, nearest + 1
        pick = lo + (rng.random(len(sizes)) * (hi - lo)).astype(np.int64)
        return self.values[pick] * p
