//! R-TCP (RCP thesis sec. 6.1.1): TCP whose congestion window comes from RCP's rate feedback.
//!
//! The thesis splits congestion control into (a) modulating the flow's rate and window and
//! (b) choosing which packets to send (new, outstanding, known lost). R-TCP replaces (a) only:
//!
//! - Every packet carries the 12-byte RCP header ([`forward_header`]): the SYN and data ask for an unlimited rate
//!   and carry the sender's smoothed RTT (zero before the first sample) so RCP routers stamp
//!   their fair rate and average the RTT; the receiver echoes the path's smallest rate in the
//!   SYN-ACK and in every ACK.
//! - On each echoed rate the window becomes (sec. 6.1.1)
//!   `snd_wnd = rcp_rate x rtt / (MSS + RCP header + IP header)` packets, at least one
//!   segment and at most the receive window, overriding slow start and congestion
//!   avoidance. `rtt` is TCP's smoothed RTT (RFC 6298 SRTT), whose first sample is the
//!   SYN / SYN-ACK exchange that also brings the first rate, so the window is never computed
//!   without one.
//! - Packets (new data and retransmissions) are paced at `wire bits / rate`
//!   ([`crate::transport::tcp::pacer::Pacer`]); the thesis writes `MSS / rate`, the wire size includes
//!   the headers the link serializes.
//! - Loss recovery is TCP's (SACK per RFC 6675, RTO per RFC 6298) deciding *which* packets go.
//!   The window is the rate's alone: a loss neither halves it nor, on a timeout, collapses it
//!   to one segment (the thesis leaves rate modulation wholly to RCP; its own RCP simulations
//!   likewise resend at the current rate). The thesis does not say what Linux's R-TCP did
//!   here; this is the reading that keeps "RCP only modifies the rate" literal.
//! - Nothing but the SYN leaves before the first feedback (the SYN-ACK), as in RCP. If no
//!   RCP router is on the path the echoed rate is still "unlimited"; like the `rcp` sender,
//!   R-TCP without the fallback then uses `unlimited_rate` (10 Gb/s by default).
//!
//!
//! Fallback to TCP (thesis sec. 6.2.2), on by default (`RtcpConfig::fallback`):
//! - A SYN-ACK without a valid rate (no RCP router on the path) switches the flow to TCP
//!   congestion control (NewReno) from its first window.
//! - Later, the flow switches when it sees either sign of a queue that RCP is not draining,
//!   "without a corresponding decrease in the received RCP rate": its smoothed RTT reaches
//!   twice its smallest, or it detects a loss (fast retransmit or timeout), while the echoed
//!   rate is still at least `RATE_KEPT` of the rate it had when the RTT was last near its
//!   smallest. An RCP bottleneck that queues also cuts its rate (the beta q / d term of eq. 3.3),
//!   so it does not trigger the switch; a drop-tail bottleneck fills without changing the rate.
//! - The switch is one way. From it the window follows NewReno (a switch on RTT halves it, as a
//!   TCP would on congestion; a switch on a loss lets the loss reaction do it), pacing stops
//!   and packets carry no RCP header.
//!
//! [`Rtcp`] is this law as a congestion controller: it stamps the header, takes the echoed
//! rate as feedback, gives the pacing rate, and does not react to loss until it falls back.

use crate::net::packet::CongestionHeader;
use crate::protocol::label::LabelCtx;
use crate::protocol::rcp::header::RcpEcho;
use crate::protocol::rcp::host::{echoed_rate, forward_header};
use crate::protocol::{CcKind, LossBased, WindowConfig, WindowCtx};
use crate::transport::cc::hystart::HyStartMode;
use crate::transport::cc::{CcState, CongestionControl, Feedback, HeaderCtx};
use crate::units::{Rate, Time};

/// R-TCP settings beyond TCP's.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RtcpConfig {
    /// The rate used when the echoed rate is "unlimited" (no RCP router stamped the packet)
    /// and the flow does not fall back.
    pub unlimited_rate: Rate,
    /// Fall back to TCP on a path without RCP routers or with a non-RCP bottleneck (sec. 6.2.2).
    pub fallback: bool,
}

impl Default for RtcpConfig {
    fn default() -> RtcpConfig {
        RtcpConfig { unlimited_rate: Rate::from_gbps(10), fallback: true }
    }
}

impl WindowConfig for RtcpConfig {
    type Controller = Rtcp;

    fn build(self, ctx: WindowCtx) -> Rtcp {
        Rtcp::new(self, ctx.mss, ctx.header, ctx.rwnd)
    }

    /// `rtcp`.
    fn label(&self, _at: LabelCtx) -> String {
        "rtcp".to_string()
    }
}

/// The fraction of the rate at the smallest RTT that the echoed rate must keep for a doubled
/// RTT or a loss to count as a non-RCP bottleneck: a 10% cut is RCP reacting to its queue.
pub const RATE_KEPT: f64 = 0.9;

/// R-TCP's window and pacing law (thesis sec. 6.1.1), with its fallback to TCP (sec. 6.2.2).
#[derive(Clone, Debug)]
pub struct Rtcp {
    cfg: RtcpConfig,
    /// Some once the flow has fallen back to TCP: the controller it runs from then on.
    tcp: Option<LossBased>,
    /// The smallest smoothed RTT seen.
    min_rtt: Option<Time>,
    /// The echoed rate when the smoothed RTT was last within 25% of its smallest.
    rate_at_min_rtt: Option<Rate>,
    /// The rate the last feedback gave, the pacing rate.
    rate: Rate,
    /// Payload bytes per segment.
    mss: u32,
    /// Every header byte a packet carries (TCP/IP and RCP).
    header: u32,
    /// The receive window, bytes.
    rwnd: u64,
}

impl Rtcp {
    /// A controller for segments of `mss` payload bytes under `header` bytes of headers, within
    /// a receive window of `rwnd` bytes; it paces at `cfg.unlimited_rate` until feedback comes.
    pub fn new(cfg: RtcpConfig, mss: u32, header: u32, rwnd: u64) -> Rtcp {
        Rtcp { cfg, tcp: None, min_rtt: None, rate_at_min_rtt: None, rate: cfg.unlimited_rate, mss, header, rwnd }
    }

    /// True once the flow runs TCP congestion control.
    pub fn fell_back(&self) -> bool {
        self.tcp.is_some()
    }

    fn fall_back(&mut self) {
        self.tcp = Some(LossBased::new(CcKind::NewReno, HyStartMode::Off));
    }

    /// True if the echoed rate has not dropped with the queue the RTT or a loss shows.
    fn rate_kept(&self) -> bool {
        self.rate_at_min_rtt.is_some_and(|r| self.rate.bps_f64() >= RATE_KEPT * r.bps_f64())
    }

    /// Sec. 6.2.2's RTT test on a new SRTT: a doubled RTT at an unchanged rate means a queue
    /// RCP does not see. Returns true if the flow falls back.
    fn rtt_test(&mut self, srtt: Time) -> bool {
        let min = self.min_rtt.map_or(srtt, |m| m.min(srtt));
        self.min_rtt = Some(min);
        if srtt.ps() * 4 <= min.ps() * 5 {
            self.rate_at_min_rtt = Some(self.rate);
            return false;
        }
        srtt.ps() >= 2 * min.ps() && self.rate_kept()
    }
}

// Until it falls back the window is the rate's alone: no ACK-clocked growth, no reaction to
// loss (the sender calls the loss hooks only when `reacts_to_loss`); after, NewReno's.
impl CongestionControl for Rtcp {
    fn on_ack(&mut self, st: &mut CcState, now: Time, acked: u64, srtt: Option<Time>) {
        if let Some(c) = &mut self.tcp {
            c.on_ack(st, now, acked, srtt);
        }
    }
    fn on_congestion(&mut self, st: &mut CcState, now: Time, flight: u64) {
        if let Some(c) = &mut self.tcp {
            c.on_congestion(st, now, flight);
        }
    }
    fn on_timeout(&mut self, st: &mut CcState, now: Time, flight: u64) {
        if let Some(c) = &mut self.tcp {
            c.on_timeout(st, now, flight);
        }
    }
    fn on_recovery_end(&mut self, st: &mut CcState, now: Time) {
        if let Some(c) = &mut self.tcp {
            c.on_recovery_end(st, now);
        }
    }

    /// A loss at a rate RCP has not cut: a non-RCP bottleneck (sec. 6.2.2).
    fn on_loss_signal(&mut self, _st: &mut CcState, _now: Time) {
        if self.cfg.fallback && self.tcp.is_none() && self.rate_kept() {
            self.fall_back();
        }
    }

    fn header(&self, _st: &CcState, ctx: HeaderCtx) -> CongestionHeader {
        if self.tcp.is_some() {
            return CongestionHeader::None;
        }
        forward_header(ctx.srtt, ctx.sent_bytes)
    }

    /// An echoed rate sets the pacing rate and, once there is an SRTT, the window
    /// ([`rate_window`]), in and out of recovery; with the fallback on, a SYN-ACK without a
    /// rate or a doubled RTT at an unchanged rate switches to TCP instead.
    fn on_feedback(&mut self, st: &mut CcState, fb: &Feedback) -> bool {
        let (echo, srtt) = (fb.echo, fb.srtt);
        if self.tcp.is_some() {
            return false;
        }
        let Some(rate) = echoed_rate(self.cfg.unlimited_rate, echo) else { return true };
        if self.cfg.fallback
            && self.min_rtt.is_none()
            && echo == (CongestionHeader::RcpFeedback(RcpEcho { rate_kbps: u32::MAX }))
        {
            // The handshake brought no rate: no RCP router on the path.
            self.fall_back();
            return false;
        }
        self.rate = rate;
        if let Some(srtt) = srtt {
            if self.cfg.fallback && self.rtt_test(srtt) {
                self.fall_back();
                st.ssthresh = (st.cwnd / 2).max(2 * st.mss);
                st.cwnd = st.ssthresh;
                return false;
            }
            st.cwnd = rate_window(rate, srtt, self.mss, self.header, self.rwnd);
        }
        true
    }

    fn pacing_rate(&self) -> Option<Rate> {
        self.tcp.is_none().then_some(self.rate)
    }

    fn reacts_to_loss(&self) -> bool {
        self.tcp.is_some()
    }
}

/// The R-TCP window in bytes (thesis sec. 6.1.1):
/// `snd_wnd = rate x rtt / (MSS + headers)` packets of `mss` payload bytes, rounded down to
/// a byte, at least one `mss`, at most `rwnd`. `header` is every header byte a packet
/// carries (TCP/IP and RCP).
pub fn rate_window(rate: Rate, rtt: Time, mss: u32, header: u32, rwnd: u64) -> u64 {
    let wire = (mss as u128 + header as u128).max(1);
    // bits x ps / (8 x 1e12) = bytes on the wire in one RTT at the rate.
    let wire_bytes_per_rtt = rate.bps() as u128 * rtt.ps() as u128 / 8_000_000_000_000;
    let payload = (wire_bytes_per_rtt * mss as u128 / wire).min(u64::MAX as u128) as u64;
    payload.max(mss as u64).min(rwnd.max(mss as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_is_rate_times_rtt_in_wire_sized_packets() {
        // 12 Mb/s x 100 ms = 150,000 wire bytes = 100 packets of 1460 + 40 bytes.
        let w = rate_window(Rate::from_mbps(12), Time::from_ms(100), 1460, 40, u64::MAX);
        assert_eq!(w, 100 * 1460);
        // The RCP header makes each packet bigger, so fewer fit: 150000 / 1512 = 99.2 packets.
        let w = rate_window(Rate::from_mbps(12), Time::from_ms(100), 1460, 52, u64::MAX);
        assert_eq!(w, 150_000 * 1460 / 1512);
    }

    #[test]
    fn window_is_at_least_one_segment_and_at_most_the_receive_window() {
        assert_eq!(rate_window(Rate::from_bps(1000), Time::from_ms(1), 1460, 52, u64::MAX), 1460);
        assert_eq!(rate_window(Rate::from_gbps(10), Time::from_ms(100), 1460, 52, 64 * 1024), 64 * 1024);
        assert_eq!(rate_window(Rate::from_gbps(10), Time::from_ms(100), 1460, 52, 100), 1460, "one segment beats rwnd");
    }

    #[test]
    fn unlimited_feedback_means_the_configured_rate() {
        let cfg = RtcpConfig::default();
        assert_eq!(
            echoed_rate(cfg.unlimited_rate, CongestionHeader::RcpFeedback(RcpEcho { rate_kbps: u32::MAX })),
            Some(Rate::from_gbps(10))
        );
        assert_eq!(
            echoed_rate(cfg.unlimited_rate, CongestionHeader::RcpFeedback(RcpEcho { rate_kbps: 25_000 })),
            Some(Rate::from_mbps(25))
        );
        assert_eq!(
            echoed_rate(cfg.unlimited_rate, CongestionHeader::RcpFeedback(RcpEcho { rate_kbps: 0 })),
            Some(Rate::from_bps(1000))
        );
        assert_eq!(echoed_rate(cfg.unlimited_rate, CongestionHeader::None), None);
    }
}
