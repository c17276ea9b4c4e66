"""Reading RCP's rate and queue series for stability and convergence (RCP thesis ch. 5, 7).

`link_series` gives a link's series of a run as (time, value) arrays, one per metric. Two
measures on such arrays, sampled at a fixed interval:

- `swing`: how much a series still moves over a window: (max - min) / reference. The stability
  classifier of Fig. 5.3 (`stable_phase`) calls a phase stable when, over the last part of the
  phase, R swings by at most `R_SWING` of its fair value and the queue stays below `Q_STABLE`
  bandwidth-delay products: a stable loop has settled by then, an unstable one keeps
  oscillating (R between its floor and C, the queue filling and emptying).
- `convergence_time`: Figs. 5.10 - 5.13 and 7.1 define convergence as "the time taken for R and
  q to be within 98% and 99% of their equilibrium values" (004:2656). Here: the first instant
  after the change from which on R stays within `R_TOL` (2%) of its equilibrium and q within
  `Q_TOL` of the bandwidth-delay product of its equilibrium value 0 (a 1% band about q_e = 0
  is empty, so the queue's band is a fraction of the pipe instead). In packet simulation R
  jitters by a few percent from interval to interval (paced packets arriving in bursts move the
  beta q/d term), so the experiments test R's band on `trailing_mean` over one RTT.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from fctlab.reproduce.framework import Runs

#: R's settled band for the convergence time: within 2% of the equilibrium (004:2656, "98%").
R_TOL = 0.02
#: The queue's settled band: at most this fraction of the bandwidth-delay product.
Q_TOL = 0.02
#: Fig. 5.3's classifier: R may swing (max - min) by at most this fraction of its fair value...
R_SWING = 0.2
#: ... and the queue stay below this many bandwidth-delay products, over a phase's last part.
Q_STABLE = 0.2


def link_series(runs: Runs, name: str, seed: int, link: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """metric -> (times, values) of one link's series rows."""
    s = runs.series(name, seed).filter(pl.col("target") == link)
    out = {}
    for (metric,), g in s.sort("time_s").group_by(["metric"], maintain_order=True):
        out[str(metric)] = (g["time_s"].to_numpy(), g["value"].to_numpy())
    return out


def swing(t: np.ndarray, x: np.ndarray, a: float, b: float, ref: float) -> float:
    """(max - min) / ref of x over the samples with a < t <= b (NaN without samples)."""
    w = x[(t > a) & (t <= b)]
    return float("nan") if w.size == 0 else float((w.max() - w.min()) / ref)


def trailing_mean(x: np.ndarray, k: int) -> np.ndarray:
    """The mean of each sample and the k - 1 before it (fewer at the start)."""
    if k <= 1 or x.size == 0:
        return x.astype(float)
    c = np.cumsum(np.insert(x.astype(float), 0, 0.0))
    i = np.arange(1, x.size + 1)
    lo = np.maximum(i - k, 0)
    return (c[i] - c[lo]) / (i - lo)


def peak(t: np.ndarray, x: np.ndarray, a: float, b: float) -> float:
    """max of x over a < t <= b (NaN without samples)."""
    w = x[(t > a) & (t <= b)]
    return float("nan") if w.size == 0 else float(w.max())


@dataclass
class PhaseVerdict:
    """Fig. 5.3's reading of one phase: R's swing (fraction of the fair rate), the queue's peak
    (bandwidth-delay products) over the phase's last part, and whether both are in bounds."""

    r_swing: float
    q_peak: float

    @property
    def stable(self) -> bool:
        return self.r_swing <= R_SWING and self.q_peak <= Q_STABLE


def stable_phase(
    t: np.ndarray, r: np.ndarray, q: np.ndarray, a: float, b: float, r_fair: float, bdp: float
) -> PhaseVerdict:
    """The verdict on the window (a, b]: R (bit/s) against the fair rate `r_fair`, the queue
    (bytes) against `bdp` (bytes)."""
    return PhaseVerdict(swing(t, r, a, b, r_fair), peak(t, q, a, b) / bdp)


def convergence_time(
    t: np.ndarray,
    r: np.ndarray,
    q: np.ndarray,
    start: float,
    r_eq: float,
    q_band: float,
    r_tol: float = R_TOL,
) -> float | None:
    """Time from `start` until R (bit/s) is within r_tol of `r_eq` and the queue at most `q_band`
    (bytes) for good, i.e. up to the last sample; None if the last sample after `start` is
    still outside (never settled in the run)."""
    after = t >= start
    tt, rr, qq = t[after], r[after], q[after]
    if tt.size == 0:
        return None
    bad = (np.abs(rr - r_eq) > r_tol * r_eq) | (qq > q_band)
    if bad[-1]:
        return None
    if not bad.any():
        return 0.0
    last_bad = int(np.nonzero(bad)[0][-1])
    return float(tt[last_bad + 1] - start)
