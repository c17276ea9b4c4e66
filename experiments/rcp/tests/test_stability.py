"""experiments/rcp/stability against the RCP thesis's sec. 5.1 - 5.2 and Apps. C - E."""

from __future__ import annotations

import math

import numpy as np
import pytest

from realcore import paper_code

fluid = paper_code("rcp", "stability.fluid")
linear = paper_code("rcp", "stability.linear")

# ---------------------------------------------------------------------------------------------
# Linear analysis (sec. 5.1.1, Apps. C, D)


@pytest.mark.parametrize("delay", linear.DELAYS)
def test_beta_03_is_stable_between_the_thesis_alphas(delay):
    # App. D reads A and B off its Nyquist plot of G1 (Pade delay): -2.91 < -1 / alpha < -0.696,
    # i.e. 0.3436 < alpha < 1.436. Here A = -2.918 (both delays), within the plot's 3 digits, so
    # 1% on the lower edge; B = -0.706 (Pade) or -0.711 (exact), 1.5 - 2% from the thesis's
    # -0.696, a difference fig5-2's report shows as such. 3% on the upper edge accepts it and
    # still fails for a wrong criterion (pi / 2, the cap as beta -> 0, is 9% off).
    (interval,) = linear.nyquist_intervals(0.3, delay)
    assert interval[0] == pytest.approx(0.3436, rel=0.01)
    assert interval[1] == pytest.approx(1.436, rel=0.03)


def test_exact_nyquist_interval_is_the_bode_boundary():
    for beta in (0.1, 0.3, 0.5):
        (interval,) = linear.nyquist_intervals(beta, "exact")
        assert interval == pytest.approx(linear.bode_interval(beta), abs=1e-6)


@pytest.mark.parametrize("delay", linear.DELAYS)
def test_no_alpha_is_stable_above_beta_055(delay):
    assert linear.nyquist_intervals(0.54, delay), "just below 0.55 some alpha must be stable"
    for beta in (0.56, 0.6, 0.8, 1.0):
        assert linear.nyquist_intervals(beta, delay) == []
        assert not any(linear.bode(a, beta).stable for a in np.arange(0.05, 2.0, 0.05))
    assert linear.BETA_MAX == pytest.approx(0.55, abs=0.005)


def test_phase_crossover_needs_alpha_over_beta_above_one():
    # App. C, Figs. C.1 and C.2.
    assert linear.phase_crossover(0.2, 0.4) is None
    wc = linear.phase_crossover(0.4, 0.2)
    assert wc is not None and linear.phase(wc, 0.4, 0.2) == pytest.approx(-math.pi, abs=1e-9)
    b = linear.bode(0.6, 0.2)
    assert b.stable and b.phase_margin > 0
    assert linear.magnitude(b.gain_crossover, 0.6, 0.2) == pytest.approx(1.0)


def test_simulated_linear_system_decays_at_the_rightmost_root():
    # Eq. 5.15 run by Heun's method against the root of eq. D.1 that Newton's method finds.
    root = linear.rightmost_root(1.0, 0.3)
    t, rate, _ = fluid.trajectory("linear", fluid.Link(), 1.0, 0.3, (1.5, 0.0), 60, 25, "heun")
    early, late = (float(np.max(np.abs(rate[(t >= a) & (t < a + 8)] - 1.0))) for a in (20, 50))
    assert math.log(late / early) / 30 == pytest.approx(root.real, rel=0.05)


# ---------------------------------------------------------------------------------------------
# Fluid model (eqs. 5.1 - 5.4, App. E)

SHORT = fluid.Settling(horizon=400.0, window=20.0)


def test_stable_pair_reaches_the_equilibrium_from_every_app_e_state():
    # Fig. E.1 (left): (alpha, beta) = (0.6, 0.2) converges to (C / N, 0).
    states = np.asarray(fluid.INITIAL_STATES)
    run = fluid.rcp(fluid.Link(), 0.6, 0.2, states[:, 0], states[:, 1], steps=20)
    assert (fluid.verdicts(run, 20, SHORT) == fluid.SETTLED).all()


def test_pair_outside_the_region_keeps_oscillating():
    # Fig. E.2: (1.4, 0.8) from gamma = 0.01, q = 2 C d0 oscillates around the equilibrium.
    run = fluid.rcp(fluid.Link(), 1.4, 0.8, 0.1, 2.0, steps=20)
    assert fluid.verdicts(run, 20, SHORT) == fluid.OSCILLATING
    t, rate, queue = fluid.trajectory("rcp", fluid.Link(), 1.4, 0.8, (0.1, 2.0), 400, 20)
    tail = t > 300
    assert rate[tail].max() > 1.2 and queue[tail].max() > 0.1


def test_region_does_not_depend_on_capacity_flows_or_delay():
    # Sec. 5.1.2 / App. E: the same trajectory, normalized, for 56 kb/s and 10 flows on 0.2 s as
    # for 1 Tb/s and 5000 flows on 2 s (same steps per round trip).
    small = fluid.trajectory("rcp", fluid.Link(56e3, 0.2, 10), 0.6, 0.8, (5.0, 2.0), 100, 20)
    large = fluid.trajectory("rcp", fluid.Link(1e12, 2.0, 5000), 0.6, 0.8, (5.0, 2.0), 100, 20)
    for a, b in zip(small, large, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    assert abs(small[1][-1] - 1.0) < 0.01, "(0.6, 0.8) converges (Fig. E.1, right)"


def test_switched_system_keeps_the_queue_at_or_above_zero():
    _, _, queue = fluid.trajectory("system1", fluid.Link(), 0.8, 0.55, (0.1, 0.0), 50, 25, "heun")
    _, _, free = fluid.trajectory("linear", fluid.Link(), 0.8, 0.55, (0.1, 0.0), 50, 25, "heun")
    assert queue.min() >= 0.0 and free.min() < -0.1
