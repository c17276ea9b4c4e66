//! The rate law of a paced sender: what a rate-based protocol's end host decides.
//!
//! A law stamps the congestion header of every packet the sender emits and turns the header the
//! receiver echoes into the rate the sender paces at. Everything else (handshake, segments,
//! SACK scoreboard, retransmission timer, probes, pacing clock) is the sender's
//! ([`super::PacedSender`]), shared by every law. Dispatch is static through the registry's
//! closed list, `crate::protocol::RateLaw`, built from a `crate::protocol::RateConfig`.
//!
//! The laws live with their protocols (`protocol/rcp/host.rs`, `protocol/jetmax/host.rs`,
//! `protocol/piqi/host.rs`); this module is what they implement, and imports none of them.

use crate::net::packet::{CongestionHeader, PacketKind};
use crate::units::Time;

/// What a law's header may carry of the connection.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct LawCtx {
    /// The packet being sent: SYN or data (zero-length probes are data).
    pub kind: PacketKind,
    /// The sender's smoothed RTT, if it has a sample.
    pub srtt: Option<Time>,
    /// Payload bytes sent so far, retransmissions included (not counting this packet).
    pub sent_bytes: u64,
    /// The rate the sender paces at now, bit/s.
    pub rate_bps: f64,
    /// The packet's bytes on the wire.
    pub wire: u32,
}

/// What an ACK (or SYN-ACK) tells a law, beside the header it echoes.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RateFeedback {
    /// When the ACK arrived.
    pub now: Time,
    /// The congestion header it echoes.
    pub echo: CongestionHeader,
    /// The sender's smoothed RTT before this ACK, if it has a sample.
    pub srtt: Option<Time>,
    /// The round trip this ACK measures, now minus the timestamp it echoes: a per-ACK RTT
    /// sample, not smoothed. The receiver echoes the data packet that called for the ACK (out
    /// of order, or in order without delayed ACKs; with them, the newest in-order packet), so
    /// every ACK times one (re)transmission, during a loss recovery too.
    pub rtt: Option<Time>,
    /// ECE: the receiver's ECN echo on this ACK (a congestion notification).
    pub ece: bool,
    /// Payload bytes sent so far, retransmissions included.
    pub sent_bytes: u64,
    /// Payload bytes cumulatively acknowledged, this ACK included.
    pub acked: u64,
}

impl RateFeedback {
    /// Feedback of `echo` at `now` with `srtt`, and nothing else: no RTT sample, no ECE,
    /// nothing sent or acknowledged.
    pub fn of(now: Time, echo: CongestionHeader, srtt: Option<Time>) -> RateFeedback {
        RateFeedback { now, echo, srtt, rtt: None, ece: false, sent_bytes: 0, acked: 0 }
    }
}

/// The hooks of a rate-based end host.
pub trait RateControl {
    /// The rate before any feedback, bit/s.
    fn initial_rate(&self) -> f64;
    /// The congestion header of an outgoing packet.
    fn header(&self, ctx: LawCtx) -> CongestionHeader;
    /// A SYN-ACK or ACK arrived (`fb`); returns the new rate (bit/s), or `None` to keep the
    /// current one.
    fn on_feedback(&mut self, fb: &RateFeedback) -> Option<f64>;
    /// When the law's own timer next fires, if it runs one (DCQCN's rate-increase and alpha
    /// timers); the sender wakes up then and calls [`RateControl::on_timer`].
    fn next_timer(&self) -> Option<Time> {
        None
    }
    /// The law's timer fired at `now`, `sent_bytes` payload bytes sent so far; returns the new
    /// rate (bit/s), or `None` to keep the current one.
    fn on_timer(&mut self, _now: Time, _sent_bytes: u64) -> Option<f64> {
        None
    }
    /// False if the SYN-ACK's echoed header shows that no router of the law's kind is on the
    /// path (RCP: the rate still "unlimited"), so the sender may fall back to TCP.
    fn path_has_routers(&self, _echo: CongestionHeader) -> bool {
        true
    }
}
