"""Analytic references: the RC3 paper's performance model (sec. 3, Fig. 4), the slow-start,
processor-sharing and lower-bound curves of the RCP work, and the RCP thesis's fixed-rate flow
duration: the FCFS limit (eq. 3.5) and the 'U' curve model (Appendix A, eqs. A.11 and A.12).

Sizes are in segments of `mss` payload bytes carried in `mss + header` bytes on the wire;
rates in bit/s; times in seconds.
"""

from __future__ import annotations

import math


def _wire_bits(segments: float, mss: int, header: int) -> float:
    return segments * (mss + header) * 8.0


def tcp_model_fct(
    segments: float, bw: float, utilization: float, rtt: float, iw: int, mss: int = 1460, header: int = 40
) -> float:
    """FCT of one TCP flow in the RC3 model (sec. 3): a handshake round trip, then slow start
    in rounds of one RTT (window iw, 2 iw, ...) until the flow is sent or the window reaches the
    available capacity A x RTT (A = (1 - u) BW), the rest at A; plus the last byte's one-way
    trip. Queueing, losses and other flows are ignored, as in the paper."""
    a = (1.0 - utilization) * bw
    bdp_segments = a * rtt / ((mss + header) * 8.0)
    sent, window, t = 0.0, float(iw), rtt  # the handshake
    while True:
        if window >= bdp_segments or sent + window >= segments:
            return t + _wire_bits(segments - sent, mss, header) / a + rtt / 2.0
        sent += window
        t += rtt
        window *= 2.0


def rc3_model_fct(
    segments: float, bw: float, utilization: float, rtt: float, mss: int = 1460, header: int = 40
) -> float:
    """FCT of one RC3 flow in the model: the handshake, then the whole flow at the available
    capacity A (RC3 "utilizes all of the available capacity"), plus the one-way trip."""
    a = (1.0 - utilization) * bw
    return rtt + _wire_bits(segments, mss, header) / a + rtt / 2.0


def rc3_model_reduction(
    segments: float, bw: float, utilization: float, rtt: float, iw: int = 4, mss: int = 1460, header: int = 40
) -> float:
    """Expected FCT reduction of RC3 over TCP with initial window `iw`, in percent (Fig. 4)."""
    tcp = tcp_model_fct(segments, bw, utilization, rtt, iw, mss, header)
    return (tcp - rc3_model_fct(segments, bw, utilization, rtt, mss, header)) / tcp * 100.0


def larger_iw_model_reduction(
    segments: float,
    bw: float,
    utilization: float,
    rtt: float,
    iw: int = 4,
    new_iw: int = 10,
    mss: int = 1460,
    header: int = 40,
) -> float:
    """Expected FCT reduction of TCP with initial window `new_iw` over `iw`, in percent (Fig. 4)."""
    base = tcp_model_fct(segments, bw, utilization, rtt, iw, mss, header)
    return (base - tcp_model_fct(segments, bw, utilization, rtt, new_iw, mss, header)) / base * 100.0


def slow_start_fct(size_pkts: float, capacity: float, rtpd: float, packet_bits: float, iw: int = 1) -> float:
    """TCP without loss, the RCP thesis's form: (ceil(log2(L/i + 1)) + 1/2) RTPD + L/C."""
    rounds = math.ceil(math.log2(size_pkts / iw + 1.0))
    return (rounds + 0.5) * rtpd + size_pkts * packet_bits / capacity


def ps_fct(size_pkts: float, capacity: float, rtpd: float, load: float, packet_bits: float) -> float:
    """Processor sharing on one link: 1.5 RTPD + L / (C (1 - rho))."""
    return 1.5 * rtpd + size_pkts * packet_bits / (capacity * (1.0 - load))


def lower_bound_fct(size_pkts: float, capacity: float, rtpd: float, packet_bits: float) -> float:
    """No flow can beat 1.5 RTPD + L / C."""
    return 1.5 * rtpd + size_pkts * packet_bits / capacity


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
