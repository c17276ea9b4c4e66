"""RCP's linearized single-bottleneck loop (the RCP thesis, sec. 5.1.1 and Apps. C, D): Bode and
Nyquist stability of (alpha, beta).

Frequencies are normalized by the round-trip propagation delay, w = omega d0: eq. 5.7 then
reads G(jw) = e^(-jw) (j alpha w + beta) / (jw)^2, with d0, C and N gone (the thesis's point that
stability does not depend on them).

Two criteria, computed independently:
- Bode (eqs. 5.8 - 5.12, App. C): stable iff the gain crossover w_z comes before the phase
  crossover w_c. Setting w_z = w_c gives the boundary in closed form (not in the thesis, derived
  here from eqs. 5.10 and 5.11): alpha = w sin w, beta = w^2 cos w for 0 < w < pi / 2, so beta
  can be at most max(w^2 cos w) = 0.5498 (at w = 1.0769, alpha = 0.948).
- Nyquist (App. D): the curve of G1(s) = s d0 e^(-s d0) / (s^2 d0^2 + beta e^(-s d0)) must
  encircle -1 / alpha counter-clockwise as many times as G1 has right-half-plane poles. The
  thesis draws G1 with a second-order Pade approximation of the delay; here both that and the
  exact delay are evaluated numerically along the imaginary axis (`DELAYS`).
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: Ways of treating the delay e^(-s d0) in the Nyquist criterion: exactly, or App. D's Pade (2, 2).
DELAYS = ("exact", "pade")
#: Largest alpha the interval searches consider: -1 / alpha closer to 0 than -1 / 3 is ignored,
#: where G1's spiral into the origin crosses the real axis infinitely often.
ALPHA_MAX = 3.0
#: Normalized frequencies at which the Nyquist curves are sampled: geometric from near 0 (the
#: curves' loops at w ~ sqrt(beta) are tight for small beta) to where |G1| < 1 / (2 ALPHA_MAX).
_W = np.geomspace(1e-6, 200.0, 400_001)


def _bisect(f: Callable[[float], float], lo: float, hi: float, iters: int = 100) -> float:
    """A root of `f` in [lo, hi], where f changes sign."""
    f_lo = f(lo)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        f_mid = f(mid)
        if (f_mid > 0.0) == (f_lo > 0.0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


# ---------------------------------------------------------------------------------------------
# Bode (eqs. 5.8 - 5.12, App. C)


def magnitude(w: float, alpha: float, beta: float) -> float:
    """|G(jw)|, eq. 5.8."""
    return math.hypot(beta, alpha * w) / w**2


def phase(w: float, alpha: float, beta: float) -> float:
    """The phase of G(jw) in radians, eq. 5.8: -w + arctan(w alpha / beta) - pi."""
    return -w + math.atan2(alpha * w, beta) - math.pi


def gain_crossover(alpha: float, beta: float) -> float:
    """w_z = omega_z d0 where |G| = 1 (eq. 5.10): sqrt((alpha^2 + sqrt(alpha^4 + 4 beta^2)) / 2)."""
    return math.sqrt((alpha**2 + math.sqrt(alpha**4 + 4.0 * beta**2)) / 2.0)


def phase_crossover(alpha: float, beta: float) -> float | None:
    """w_c = omega_c d0 where the phase comes back to -pi (eq. 5.11: w alpha / beta = tan w), or
    None when there is none: the phase only rises above -pi if alpha / beta > 1 (eq. 5.12, App. C)."""
    ratio = alpha / beta
    if ratio <= 1.0:
        return None
    # tan(w) / w grows from 1 to infinity on (0, pi / 2): one root there.
    return _bisect(lambda w: math.tan(w) / w - ratio, 1e-12, math.pi / 2.0 - 1e-15)


@dataclass(frozen=True)
class Bode:
    """Eqs. 5.9 - 5.12 for one (alpha, beta): crossovers in units of 1 / d0, phase in radians."""

    gain_crossover: float
    phase_crossover: float | None
    #: The phase of G at the gain crossover.
    phase_at_crossover: float

    @property
    def stable(self) -> bool:
        """Eq. 5.10: w_z < w_c (equivalently |G| < 1 where the phase is -pi, eq. 5.9)."""
        return self.phase_crossover is not None and self.gain_crossover < self.phase_crossover

    @property
    def phase_margin(self) -> float:
        """Phase at crossover + pi: positive iff stable."""
        return self.phase_at_crossover + math.pi


def bode(alpha: float, beta: float) -> Bode:
    """The Bode analysis of eq. 5.7 for one (alpha, beta)."""
    wz = gain_crossover(alpha, beta)
    return Bode(wz, phase_crossover(alpha, beta), phase(wz, alpha, beta))


def bode_boundary(w: float) -> tuple[float, float]:
    """The (alpha, beta) at which w_z = w_c = w (eqs. 5.10, 5.11 with equality): |G(jw)| = 1 and
    tan w = w alpha / beta give beta = w^2 cos w and alpha = w sin w."""
    return w * math.sin(w), w * w * math.cos(w)


#: w at the top of the boundary: d/dw (w^2 cos w) = 0, i.e. tan w = 2 / w.
W_TOP = _bisect(lambda w: math.tan(w) - 2.0 / w, 0.5, 1.5)
#: The largest beta with any stable alpha (thesis: "about 0.55").
BETA_MAX = bode_boundary(W_TOP)[1]


def bode_interval(beta: float) -> tuple[float, float] | None:
    """(alpha_min, alpha_max) of the stable alphas for `beta` by the Bode criterion, or None when
    beta > BETA_MAX."""
    if not 0.0 < beta < BETA_MAX:
        return None
    low = _bisect(lambda w: w * w * math.cos(w) - beta, 1e-12, W_TOP)
    high = _bisect(lambda w: w * w * math.cos(w) - beta, W_TOP, math.pi / 2.0)
    return bode_boundary(low)[0], bode_boundary(high)[0]


# ---------------------------------------------------------------------------------------------
# Nyquist (App. D)


def _pade(s: np.ndarray) -> np.ndarray:
    """App. D's second-order Pade approximation of e^(-s) (s normalized by d0)."""
    return (1.0 - s / 2.0 + s * s / 12.0) / (1.0 + s / 2.0 + s * s / 12.0)


def g1(w: np.ndarray, beta: float, delay: str = "exact") -> np.ndarray:
    """App. D's G1(s) = s e^(-s) / (s^2 + beta e^(-s)) at s = jw (normalized by d0)."""
    s = 1j * w
    e = np.exp(-s) if delay == "exact" else _pade(s)
    return s * e / (s * s + beta * e)


def _winding(curve: np.ndarray, point: float) -> int:
    """Counter-clockwise encirclements of `point` by the closed curve G1(jw), w from -inf to inf,
    given its half for w >= 0 (`curve`, starting at G1(0) = 0 and ending near 0): the other half
    is the mirror image, so the total is twice this half's change of angle, over 2 pi."""
    turn = np.unwrap(np.angle(curve - point))
    return round((turn[-1] - turn[0]) / math.pi)


def rhp_poles(beta: float, delay: str = "exact") -> int:
    """P: right-half-plane poles of G1, the zeros of s^2 + beta e^(-s) (App. D's step 2)."""
    if delay == "pade":
        # s^2 (1 + s/2 + s^2/12) + beta (1 - s/2 + s^2/12), highest power first.
        poly = [1.0 / 12.0, 0.5, 1.0 + beta / 12.0, -beta / 2.0, beta]
        return int(np.sum(np.roots(poly).real > 0.0))
    # Argument principle on the right half-disc: s^2 dominates on the large arc (|e^-s| <= 1
    # there), adding 2 pi; the imaginary axis, by symmetry, adds -2 x the change over w >= 0.
    a = -(_W**2) + beta * np.exp(-1j * _W)
    turn = np.unwrap(np.angle(a))
    return round(1.0 - (turn[-1] - turn[0]) / math.pi)


def _real_axis_crossings(curve: np.ndarray) -> list[float]:
    """Where the curve crosses the negative real axis left of -1 / ALPHA_MAX (linear
    interpolation between samples: within 1e-7 of the Bode boundary's closed form)."""
    im = curve.imag
    idx = np.nonzero(np.signbit(im[:-1]) != np.signbit(im[1:]))[0]
    out = []
    for i in idx:
        f = im[i] / (im[i] - im[i + 1])
        x = float(curve[i].real + f * (curve[i + 1].real - curve[i].real))
        if x < -1.0 / ALPHA_MAX:
            out.append(x)
    return sorted(out)


def nyquist_intervals(beta: float, delay: str = "exact") -> list[tuple[float, float]]:
    """The alpha intervals (up to ALPHA_MAX) in which the closed loop is stable for `beta`, by
    App. D's procedure: -1 / alpha must be encircled counter-clockwise P times."""
    curve = g1(_W, beta, delay)
    poles = rhp_poles(beta, delay)
    edges = [-math.inf, *_real_axis_crossings(curve), -1.0 / ALPHA_MAX]
    out: list[tuple[float, float]] = []
    for left, right in zip(edges, edges[1:]):
        probe = right - 1.0 if left == -math.inf else 0.5 * (left + right)
        if _winding(curve, probe) != poles:
            continue
        lo, hi = -1.0 / left if left != -math.inf else 0.0, -1.0 / right
        if out and math.isclose(out[-1][1], lo):
            out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def nyquist_stable(alpha: float, beta: float, delay: str = "exact") -> bool:
    """Whether (alpha, beta) is stable by App. D's criterion."""
    curve = g1(_W, beta, delay)
    return _winding(curve, -1.0 / alpha) == rhp_poles(beta, delay)


def rightmost_root(alpha: float, beta: float) -> complex:
    """The closed-loop root of eq. D.1, s^2 + (alpha s + beta) e^(-s) = 0 (s normalized by d0),
    that crosses the imaginary axis at the stability boundary: Newton's method from s = j w_z. Near
    the boundary it is the rightmost root (the others of this retarded equation lie farther left),
    and its real part is the growth (> 0) or decay (< 0) rate of the loop's oscillation per d0."""
    s = complex(0.0, gain_crossover(alpha, beta))
    for _ in range(100):
        e = cmath.exp(-s)
        f = s * s + (alpha * s + beta) * e
        df = 2.0 * s + alpha * e - (alpha * s + beta) * e
        step = f / df
        s -= step
        if abs(step) < 1e-14:
            break
    return s
