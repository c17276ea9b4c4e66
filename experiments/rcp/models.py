"""The RCP thesis's queueing models of a flow's duration: the FCFS limit (eq. 3.5), the 'U' curve
of flows sent at one fixed rate (Appendix A, eqs. A.11 and A.12; the fixed-rate experiments of
`fixed_rate.py`), and M/M/1/K's blocking probability (sec. 6.3.1, Fig. 6.24).

Sizes in bits, rates in bit/s, times in seconds.
"""

from __future__ import annotations

import math


def mg1_fcfs_duration(mean_bits: float, second_moment_bits2: float, arrival_rate: float, capacity: float) -> float:
    """Mean flow duration when every flow enters a FCFS queue of `capacity` at once (the RCP
    thesis's eq. 3.5, the limit R -> infinity): E[L] / C + lambda E[L^2] / (2 C^2 (1 - rho))."""
    rho = arrival_rate * mean_bits / capacity
    if not 0.0 <= rho < 1.0:
        raise ValueError(f"offered load: expected 0 <= lambda E[L] / C < 1, got {rho}")
    return mean_bits / capacity + arrival_rate * second_moment_bits2 / (2.0 * capacity**2 * (1.0 - rho))


def mm1k_loss(load: float, capacity_pkts: int) -> float:
    """Blocking probability of an M/M/1/K queue (K packets in the system, the one in service
    included): (1 - rho) rho^K / (1 - rho^(K + 1)), 1 / (K + 1) at rho = 1. The RCP thesis
    compares small flows' loss against buffer size and load with an M/M/1/B-FCFS system
    (sec. 6.3.1, Fig. 6.24); a buffer of B packets plus the packet on the wire is K = B + 1."""
    if not load >= 0.0:
        raise ValueError(f"load: expected rho >= 0, got {load}")
    if capacity_pkts < 1:
        raise ValueError(f"capacity_pkts: expected K >= 1 packets in the system, got {capacity_pkts}")
    if load == 1.0:
        return 1.0 / (capacity_pkts + 1)
    return (1.0 - load) * load**capacity_pkts / (1.0 - load ** (capacity_pkts + 1))


def poisson_cdf(k: float, mean: float) -> float:
    """P(X <= k) for X Poisson with `mean` (0 for k < 0; k is floored)."""
    if k < 0:
        return 0.0
    if mean <= 0.0:
        return 1.0
    total, log_term = 0.0, -mean
    for i in range(int(math.floor(k)) + 1):
        if i > 0:
            log_term += math.log(mean) - math.log(i)
        total += math.exp(log_term)
    return min(total, 1.0)


def fixed_rate_duration(
    rate: float,
    capacity: float,
    arrival_rate: float,
    mean_bits: float,
    second_moment_bits2: float,
    small_fraction: float,
) -> float:
    """Mean flow duration (first packet in to last packet out, propagation left out) when every
    flow is sent at one fixed `rate` into a FCFS link: the RCP thesis's model of the 'U' curve
    (Appendix A), eq. A.11 for R < C and eq. A.12 for R >= C.

    For R < C (K = C / R servers of an M/Pareto/K system, eqs. A.7 - A.11) the flows split into
    small ones (a fraction `small_fraction`, the thesis's alpha: sizes between the minimum m and
    M / 20) of mean A and large ones of mean B; P(blocking) = 1 - F_Poisson(rho_l K)(K (1 - rho_s) - 1).
    """
    rho = arrival_rate * mean_bits / capacity
    if not 0.0 <= rho < 1.0:
        raise ValueError(f"offered load: expected 0 <= lambda E[L] / C < 1, got {rho}")
    if not 0.0 < small_fraction < 1.0:
        raise ValueError(f"small_fraction: expected a fraction in (0, 1), got {small_fraction}")
    if rate >= capacity:
        # Eq. A.12.
        return mean_bits / rate + arrival_rate * second_moment_bits2 / (2.0 * capacity) * (
            1.0 / ((1.0 - rho) * capacity) - 1.0 / rate
        )
    k = capacity / rate
    var = max(second_moment_bits2 - mean_bits**2, 0.0)
    a = mean_bits - math.sqrt(var * (1.0 - small_fraction) / small_fraction)
    b = mean_bits + math.sqrt(var * small_fraction / (1.0 - small_fraction))
    rho_s = small_fraction * a / mean_bits * rho
    rho_l = (1.0 - small_fraction) * b / mean_bits * rho
    # Eq. A.8.
    p_blocking = 1.0 - poisson_cdf(k * (1.0 - rho_s) - 1.0, rho_l * k)
    # Eq. A.11.
    return (
        mean_bits * k / capacity
        + arrival_rate * second_moment_bits2 * rho / (2.0 * (1.0 - rho) * capacity**2) * p_blocking
    )
