"""The RC3 paper's performance model (sec. 3, Fig. 4): one flow's FCT under TCP's slow start and
under RC3, which sends the whole flow at the available capacity, and the reduction between them.
Experiments `fig4-model` (the model alone) and `internet2-load` (the model beside the runs).

Sizes are in segments of `mss` payload bytes carried in `mss + header` bytes on the wire;
rates in bit/s; times in seconds.
"""

from __future__ import annotations


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
