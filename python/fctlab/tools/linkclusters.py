"""Links alike, run once: the clustering of `fctlab estimate --method links` (Parsimon, Zhao et
al. NSDI'23, section 4.3) and the sampling that gives a clustered link's flows their delays.

**Features.** A busy link is described by what its problem would be made of: its rate and delay,
whether its ends are hosts, the transports of its flows (these must be equal), and the
distributions of its flows' sizes and of the gaps between their starts (`QUANTILES` quantiles
each) and its load (bytes over the span of starts, against its rate).

**Close.** Two links are close when both distributions differ by at most `epsilon` in weighted
mean absolute percentage error (`wmape`: sum |a - b| / sum |a|) and their loads by at most
`epsilon` of the larger. Greedy, as Parsimon: the first link not yet clustered (in id order)
becomes a representative, every link close to it joins its cluster, repeat. Only the
representatives run.

**Sampling.** A member's flows are not in its representative's run, so each takes a delay from
the representative's: its flows' delays normalised by their packets (Parsimon's "packet-
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
from collections.abc import Sequence
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


def features(shape: tuple, starts_s: Sequence[float], sizes: Sequence[int], rate_bps: float) -> LinkFeatures:
    """The features of a link with these flows (starts in seconds, sizes in bytes)."""
    if len(starts_s) < 2:
        return LinkFeatures(shape, None, None, 0.0)
    order = np.argsort(np.asarray(starts_s), kind="stable")
    starts = np.asarray(starts_s, dtype=float)[order]
    size = np.asarray(sizes, dtype=float)
    span = starts[-1] - starts[0]
    load = float(size.sum() * 8 / span / rate_bps) if span > 0 else math.inf
    return LinkFeatures(shape, _quantiles(size), _quantiles(np.diff(starts)), load)


def _quantiles(x: np.ndarray) -> np.ndarray:
    # Parsimon's: the value at floor(p * len) of the sorted data, p = 0, 1/Q, ..., (Q-1)/Q.
    s = np.sort(x)
    return s[(np.arange(QUANTILES) * len(s)) // QUANTILES]


def wmape(a: np.ndarray, b: np.ndarray) -> float:
    """Weighted mean absolute percentage error of `b` against `a` (0 when both are zero)."""
    total = float(np.abs(a).sum())
    diff = float(np.abs(a - b).sum())
    return 0.0 if diff == 0 else (math.inf if total == 0 else diff / total)


def close(a: LinkFeatures, b: LinkFeatures, epsilon: float) -> bool:
    """Whether `b`'s problem is alike enough to `a`'s to take `a`'s delays (see the module doc)."""
    if a.shape != b.shape or a.sizes is None or b.sizes is None or a.gaps is None or b.gaps is None:
        return False
    if max(a.load, b.load) == math.inf or abs(a.load - b.load) > epsilon * max(a.load, b.load):
        return False
    return wmape(a.sizes, b.sizes) <= epsilon and wmape(a.gaps, b.gaps) <= epsilon


def cluster(links: Sequence[int], feats: Sequence[LinkFeatures], epsilon: float) -> dict[int, list[int]]:
    """Each representative link with its cluster (itself first), greedily in `links` order
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
        sizes = np.stack([feats[i].sizes for i in group]).astype(float)
        gaps = np.stack([feats[i].gaps for i in group]).astype(float)
        load = np.asarray([feats[i].load for i in group])
        left = np.ones(len(group), bool)
        for r in range(len(group)):
            if not left[r]:
                continue
            near = left & _close_to(r, sizes, gaps, load, epsilon)
            near[r] = True
            left &= ~near
            out[links[group[r]]] = [links[group[j]] for j in np.flatnonzero(near)]
    return dict(sorted(out.items()))


def _close_to(r: int, sizes: np.ndarray, gaps: np.ndarray, load: np.ndarray, epsilon: float) -> np.ndarray:
    """`close(feats[r], feats[j])` for every row j at once."""
    with np.errstate(divide="ignore", invalid="ignore"):
        top = np.maximum(load[r], load)
        ok = np.isfinite(top) & (np.abs(load - load[r]) <= epsilon * top)
        for x in (sizes, gaps):
            total, diff = np.abs(x[r]).sum(), np.abs(x - x[r]).sum(axis=1)
            ok &= (diff == 0) | (diff <= epsilon * total)
    return ok


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
