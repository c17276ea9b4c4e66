"""Analytic references: the RC3 paper's performance model (sec. 3, Fig. 4) and the slow-start,
processor-sharing and lower-bound curves of the RCP work.

Sizes are in segments of `mss` payload bytes carried in `mss + header` bytes on the wire;
rates in bit/s; times in seconds.
"""

from __future__ import annotations

import math


def _wire_bits(segments: float, mss: int, header: int) -> float:
    return segments * (mss + header) * 8.0


def tcp_model_fct(segments: float, bw: float, utilization: float, rtt: float, iw: int,
                  mss: int = 1460, header: int = 40) -> float:
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


def rc3_model_fct(segments: float, bw: float, utilization: float, rtt: float,
                  mss: int = 1460, header: int = 40) -> float:
    """FCT of one RC3 flow in the model: the handshake, then the whole flow at the available
    capacity A (RC3 "utilizes all of the available capacity"), plus the one-way trip."""
    a = (1.0 - utilization) * bw
    return rtt + _wire_bits(segments, mss, header) / a + rtt / 2.0


def rc3_model_reduction(segments: float, bw: float, utilization: float, rtt: float, iw: int = 4,
                        mss: int = 1460, header: int = 40) -> float:
    """Expected FCT reduction of RC3 over TCP with initial window `iw`, in percent (Fig. 4)."""
    tcp = tcp_model_fct(segments, bw, utilization, rtt, iw, mss, header)
    return (tcp - rc3_model_fct(segments, bw, utilization, rtt, mss, header)) / tcp * 100.0


def larger_iw_model_reduction(segments: float, bw: float, utilization: float, rtt: float, iw: int = 4,
                              new_iw: int = 10, mss: int = 1460, header: int = 40) -> float:
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
