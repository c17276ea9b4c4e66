"""The RCP thesis's curves (experiments/rcp/models.py: eq. 3.5, Appendix A's 'U' curve, M/M/1/K):
closed-form identities and limits each must meet."""

from __future__ import annotations

import math

import pytest

from realcore import paper_code

models = paper_code("rcp", "models")

C = 150e6
PKT = 8000.0


def test_eq_3_5_with_exponential_sizes_is_the_mm1_sojourn_time():
    """For exponential sizes E[L^2] = 2 E[L]^2 and eq. 3.5 is E[L] / (C (1 - rho)) (Fig. 3.6's line)."""
    mean = 50 * PKT
    lam = 175.0
    rho = lam * mean / C
    got = models.mg1_fcfs_duration(mean, 2 * mean**2, lam, C)
    assert got == pytest.approx(mean / (C * (1 - rho)), rel=1e-12)
    with pytest.raises(ValueError, match="offered load"):
        models.mg1_fcfs_duration(mean, 2 * mean**2, 2 * C / mean, C)


def test_poisson_cdf_sums_the_probabilities():
    mean = 3.7
    direct = sum(math.exp(-mean) * mean**i / math.factorial(i) for i in range(6))
    assert models.poisson_cdf(5.9, mean) == pytest.approx(direct, rel=1e-12)
    assert models.poisson_cdf(-0.5, mean) == 0.0
    assert models.poisson_cdf(200, 40.0) == pytest.approx(1.0, abs=1e-12)


#: Bounded-Pareto-like moments (packets of 8000 bits): mean 25, E[L^2] = 17,600 packets^2,
#: 99.6% of the flows below M / 20, 600 flows/s on 150 Mb/s (rho = 0.8), as in Figs. 3.7 / A.3.
MEAN, SECOND, SMALL, LAM = 25 * PKT, 17_600 * PKT**2, 0.996, 600.0


def u_curve(rate: float) -> float:
    return models.fixed_rate_duration(rate, C, LAM, MEAN, SECOND, SMALL)


def test_u_curve_model_meets_its_limits_and_is_continuous_at_c():
    """R -> 0: E[L] / R; R = C: eq. A.11 (K = 1, P(blocking) = 1) and eq. A.12 agree;
    R -> infinity: the queueing term lambda E[L^2] / (2 C^2 (1 - rho))."""
    tiny = C / 1e4
    assert u_curve(tiny) == pytest.approx(MEAN / tiny, rel=1e-3)
    below, above = u_curve(C * (1 - 1e-12)), u_curve(C)
    assert below == pytest.approx(above, rel=1e-9)
    wq = LAM * SECOND / (2 * C**2 * (1 - 0.8))
    assert u_curve(1e6 * C) == pytest.approx(wq, rel=1e-4)


def test_u_curve_model_has_its_minimum_below_the_link_rate():
    """The thesis's point (sec. 3.3): with heavy-tailed sizes one rate R < C minimizes E[tau]."""
    rates = [C * f for f in (0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 2.0, 5.0)]
    values = [u_curve(r) for r in rates]
    best = min(range(len(rates)), key=values.__getitem__)
    assert 0 < best and rates[best] < C
    assert values[0] > values[best] and values[-1] > values[best]


def test_bad_fraction_is_refused():
    with pytest.raises(ValueError, match="small_fraction"):
        models.fixed_rate_duration(C, C, LAM, MEAN, SECOND, 1.0)


def test_mm1k_loss_by_hand_and_at_its_limits():
    # K = 1: an arrival is lost iff the server is busy: rho / (1 + rho).
    assert models.mm1k_loss(0.5, 1) == pytest.approx(0.5 / 1.5)
    # K = 2, rho = 0.5: pi_2 = 0.25 / (1 + 0.5 + 0.25).
    assert models.mm1k_loss(0.5, 2) == pytest.approx(0.25 / 1.75)
    assert models.mm1k_loss(1.0, 4) == pytest.approx(0.2)
    assert models.mm1k_loss(0.999999, 4) == pytest.approx(0.2, rel=1e-5)
    # More buffer, less loss; more load, more loss.
    assert models.mm1k_loss(0.8, 21) < models.mm1k_loss(0.8, 6) < models.mm1k_loss(0.9, 6)
    assert models.mm1k_loss(0.0, 3) == 0.0
    with pytest.raises(ValueError, match="capacity_pkts"):
        models.mm1k_loss(0.5, 0)
