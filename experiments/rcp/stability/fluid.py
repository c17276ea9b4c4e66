"""RCP's single-bottleneck fluid model (the RCP thesis, eqs. 5.1 - 5.4), the switched and linear
systems of sec. 5.2 (eqs. 5.14, 5.15), and App. E's phase-plane test of which (alpha, beta)
settle at the equilibrium (R, q) = (C / N, 0).

Every model runs as a delay differential equation with a fixed step h = d0 / steps and a ring
buffer holding the last d0 of the state (constant before t = 0), by one of two methods:
- "euler", forward Euler. RCP's own rate update is this step: R <- R (1 + (T / d) (alpha (C -
  y) - beta q / d) / C) once per control interval T (eq. 3.3; App. E writes f(R(t - T), ...)),
  so with h = T it is the router's sampled law (App. E: T = 10 ms, d0 = 0.2 s, 20 steps per
  round trip), not an approximation of it;
- "heun", Heun's second-order method, for the continuous equations. Euler's error makes a
  lightly damped oscillation grow (by about (w h)^2 / 2 per step at frequency w): at 20 - 100
  steps per round trip it turns eq. 5.15 at (alpha, beta) = (1.4, 0.3), which decays by 0.25%
  per round trip, into a growing one. Heun's error is (w h)^4 / 8 per step; 25 steps per round
  trip give the same verdicts as 200.
The queue's switch at q = 0 (eq. 5.4) is applied as a projection after each stage. A DDE
library (ddeint, jitcdde) was not used: their adaptive steps handle that switch badly, they
cannot be the sampled law, and a fixed step runs a whole region (App. E: 20 x 20 pairs x 6
initial states) at once as numpy arrays.

Models take (alpha, beta, initial rate, initial queue) as broadcastable arrays with constant
histories before t = 0, and yield the state after each step in normalized units: the rate in
units of the fair rate C / N (the aggregate y in units of C for eqs. 5.14, 5.15) and the queue
in units of C d0. In these units eqs. 5.1 - 5.4 do not contain C, N or d0, which is why the
stable region is the same for every C, N and d0 (sec. 5.1.2, App. E) as long as the number of
steps per round trip is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice

import numpy as np

#: (rate, queue) arrays after one step, normalized.
State = tuple[np.ndarray, np.ndarray]
#: The lowest rate, in units of C / N, as routers have a minimum rate: a step takes R below 0
#: only when it is coarse and the rate far above C / N (reached with one step per round trip,
#: d0 = T = 10 ms in App. E's variations; never with 20 or more).
MIN_RATE = 1e-6


@dataclass(frozen=True)
class Link:
    """One bottleneck: capacity C (bit/s), round-trip propagation delay d0 (s), N flows.
    The defaults are App. E's."""

    capacity: float = 0.15e9
    d0: float = 0.2
    flows: int = 10

    @property
    def fair_rate(self) -> float:
        """The equilibrium rate R_e = C / N (sec. 5.1)."""
        return self.capacity / self.flows


#: App. E's initial states as (R / (C / N), q / (C d0)): gamma_init = R / C in {0.5, 0.1, 0.01}
#: with N = 10 flows, and q_init in {2 C d0, 0}. Other N keep the same multiples of C / N.
INITIAL_STATES = tuple((gamma * 10.0, q) for gamma in (0.5, 0.1, 0.01) for q in (2.0, 0.0))
#: App. E's control interval T, s.
CONTROL_INTERVAL = 0.01


def control_steps(d0: float, interval: float = CONTROL_INTERVAL) -> int:
    """Steps per round trip when each step is one control interval T = min(interval, d0)."""
    return max(1, round(d0 / min(interval, d0)))


#: Integration methods: "euler" (forward Euler, the router's own update once per step) and
#: "heun" (Heun's second-order method, for the continuous equations).
METHODS = ("euler", "heun")
Derivative = Callable[[tuple[np.ndarray, ...], tuple[np.ndarray, ...]], tuple[np.ndarray, ...]]


def _integrate(
    f: Derivative, state: tuple[np.ndarray, ...], steps: int, h: float, method: str, project: Callable
) -> Iterator[tuple[np.ndarray, ...]]:
    """Runs z' = f(z(t), z(t - d0)) with d0 = steps x h from a constant history, yielding z after
    each step; `project` maps a state back into the model's domain (the queue stops at 0)."""
    if method not in METHODS:
        raise ValueError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    # past[j][k % steps] holds component j at t_k - d0 until step k stores z(t_k) there.
    past = [np.repeat(v[None], steps, axis=0) for v in state]
    k = 0
    while True:
        i = k % steps
        late = tuple(p[i].copy() for p in past)
        for p, v in zip(past, state):
            p[i] = v
        k1 = f(state, late)
        guess = project(tuple(v + h * dv for v, dv in zip(state, k1)))
        if method == "heun":
            # z(t_{k+1} - d0): stored at the next slot (z(t_k) itself when steps = 1).
            k2 = f(guess, tuple(p[(k + 1) % steps] for p in past))
            guess = project(tuple(v + 0.5 * h * (a + b) for v, a, b in zip(state, k1, k2)))
        state = guess
        k += 1
        yield state


def _arrays(*values) -> list[np.ndarray]:
    return np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in values))


def rcp(link: Link, alpha, beta, rate, queue, steps: int, method: str = "euler") -> Iterator[State]:
    """Eqs. 5.1 - 5.4, from R = rate x C / N and q = queue x C d0 (constant before t = 0)."""
    c, n, d0 = link.capacity, link.flows, link.d0
    alpha, beta, r, q = _arrays(alpha, beta, rate, queue)

    def f(now: tuple[np.ndarray, ...], late: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        r, q = now
        y = n * late[0]  # eq. 5.2
        d = d0 + q / c  # eq. 5.3
        return r * (alpha * (c - y) - beta * q / d) / (c * d), y - c  # eqs. 5.1, 5.4

    def project(z: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        # Eq. 5.4: the queue stops at 0 (max(y - C, 0) there).
        return np.maximum(z[0], MIN_RATE * link.fair_rate), np.maximum(z[1], 0.0)

    for rate_now, queue_now in _integrate(f, (r * link.fair_rate, q * c * d0), steps, d0 / steps, method, project):
        yield rate_now / link.fair_rate, queue_now / (c * d0)


def switched(
    link: Link, alpha, beta, rate, queue, steps: int, method: str = "heun", *, linear: bool = False
) -> Iterator[State]:
    """Sec. 5.2's SYSTEM 1 (eq. 5.14: the queue stops at 0) or, with `linear`, eq. 5.15 (the queue
    may go negative), in the aggregate rate y = N R: y' = -(alpha / d0) (y(t - d0) - C) - (beta /
    d0^2) q(t - d0). Starts from y = rate x C and q = queue x C d0."""
    c, d0 = link.capacity, link.d0
    alpha, beta, y, q = _arrays(alpha, beta, rate, queue)

    def f(now: tuple[np.ndarray, ...], late: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        return -(alpha / d0) * (late[0] - c) - (beta / d0**2) * late[1], now[0] - c

    def project(z: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        return z if linear else (z[0], np.maximum(z[1], 0.0))

    for rate_now, queue_now in _integrate(f, (y * c, q * c * d0), steps, d0 / steps, method, project):
        yield rate_now / c, queue_now / (c * d0)


#: Models by name: RCP's eqs. 5.1 - 5.4, SYSTEM 1 (eq. 5.14), the linear system (eq. 5.15).
MODELS: dict[str, Callable[..., Iterator[State]]] = {
    "rcp": rcp,
    "system1": switched,
    "linear": lambda *a, **k: switched(*a, **k, linear=True),
}


#: Verdicts on a trajectory at the end of its run (a point's is its worst trajectory's).
SETTLED, CONVERGING, OSCILLATING = 0, 1, 2
VERDICTS = ("settled", "converging", "oscillating")


@dataclass(frozen=True)
class Settling:
    """App. E calls a point stable when every trajectory "finally ends at the equilibrium state",
    with no tolerance or time. Here, with the deviation max(|rate - 1|, |queue|) (normalized):
    - settled: the deviation stays within `band` over the last `window` round trips of `horizon`;
    - oscillating: not settled, the rate crosses C / N at least twice in that window, and the
      deviation's peak there is more than `shrink` x its peak in the same window at half the
      horizon (a limit cycle or a growing oscillation; an overflow counts too);
    - converging: neither, i.e. still on its way: an oscillation that decays too slowly for
      the horizon, or a drift without crossings (after a queue of thousands of C d0, d = d0 + q
      / C slows eq. 5.1 down by as much)."""

    horizon: float = 2000.0
    window: float = 50.0
    band: float = 0.01
    shrink: float = 0.9


def window_peaks(states: Iterator[State], steps: int, rule: Settling) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per trajectory: the deviation's peak in the window ending at half the horizon, its peak in
    the last window (inf after an overflow), and the rate's crossings of C / N in the last window."""
    total, width = round(rule.horizon * steps), round(rule.window * steps)
    if not 0 < 2 * width <= total:
        raise ValueError(f"window: expected 0 < 2 x window <= horizon, got {rule.window} and {rule.horizon}")
    mid = total // 2
    peak_mid = peak = crossings = above = None
    with np.errstate(over="ignore", invalid="ignore"):
        for k, (r, x) in enumerate(islice(states, total)):
            if k < mid - width or mid <= k < total - width:
                continue
            off = np.maximum(np.abs(r - 1.0), np.abs(x))
            off = np.where(np.isfinite(off), off, np.inf)
            if k < mid:
                peak_mid = off if peak_mid is None else np.maximum(peak_mid, off)
            elif peak is None:
                peak, crossings, above = off, np.zeros(off.shape, int), r > 1.0
            else:
                peak = np.maximum(peak, off)
                crossings += (r > 1.0) != above
                above = r > 1.0
    return peak_mid, peak, crossings


def verdicts(states: Iterator[State], steps: int, rule: Settling) -> np.ndarray:
    """The verdict (SETTLED, CONVERGING, OSCILLATING) on each trajectory of a model's run."""
    peak_mid, peak, crossings = window_peaks(states, steps, rule)
    sustained = (crossings >= 2) & ~(peak <= rule.shrink * peak_mid)
    return np.where(peak <= rule.band, SETTLED, np.where(sustained | np.isinf(peak), OSCILLATING, CONVERGING))


def region(
    alphas,
    betas,
    *,
    model: str = "rcp",
    link: Link = Link(),
    steps: int = 20,
    method: str = "euler",
    rule: Settling = Settling(),
    states: tuple[tuple[float, float], ...] = INITIAL_STATES,
) -> np.ndarray:
    """App. E's stable region: verdicts [beta, alpha], each the worst over the initial states
    (stable = SETTLED from every one)."""
    b, a, s = np.meshgrid(np.asarray(betas, float), np.asarray(alphas, float), np.arange(len(states)), indexing="ij")
    start = np.asarray(states, dtype=float)[s]
    run = MODELS[model](link, a, b, start[..., 0], start[..., 1], steps, method)
    return verdicts(run, steps, rule).max(axis=2)


def trajectory(
    model: str,
    link: Link,
    alpha: float,
    beta: float,
    state: tuple[float, float],
    rtts: float,
    steps: int,
    method: str = "euler",
    every: int = 1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(time in round trips, rate, queue) of one run, normalized, every `every` steps."""
    run = MODELS[model](link, alpha, beta, state[0], state[1], steps, method)
    with np.errstate(over="ignore", invalid="ignore"):
        rows = [(float(r), float(x)) for r, x in islice(run, 0, round(rtts * steps), every)]
    t = (np.arange(len(rows)) * every + 1) / steps
    return t, np.array([r for r, _ in rows]), np.array([x for _, x in rows])
