//! Per-flow TCP settings (config, not state: one value can build many connections).

use crate::protocol::label::LabelCtx;
use crate::protocol::{CcConfig, HookConfig};
use crate::transport::cc::hystart::HyStartMode;
use crate::transport::conn::LossRecovery;
use crate::transport::ecn::EcnMode;
use crate::units::Time;

/// How a TCP connection behaves.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Maximum segment size: payload bytes per data packet.
    pub mss: u32,
    /// Header bytes on every packet (TCP/IP, 40 by default).
    pub header: u32,
    /// Initial window, in segments.
    pub iw: u32,
    /// Initial slow-start threshold in bytes (`u64::MAX`: unlimited).
    pub initial_ssthresh: u64,
    /// Receive window in bytes (`u64::MAX`: unlimited).
    pub rwnd: u64,
    /// RTO before any RTT sample (RFC 6298: 1 s).
    pub initial_rto: Time,
    /// Lower bound of the RTO.
    pub min_rto: Time,
    /// Upper bound of the RTO after backoff.
    pub max_rto: Time,
    /// RFC 6298's clock granularity G in RTO = SRTT + max(G, 4 RTTVAR) (0: exact clock).
    pub rto_granularity: Time,
    /// ACK every this many in-order segments (1: every segment).
    pub delack_count: u32,
    /// Longest an ACK is held back.
    pub delack_timeout: Time,
    /// Appropriate byte counting's limit L (RFC 3465 sec. 2.2), in segments: slow start grows
    /// cwnd by at most `abc` MSS per ACK. 1 (RFC 5681 eq. 2, ns-3) by default; Linux grows by
    /// two segments per delayed ACK however many it covers (RC3 paper sec. 5.2: L = 2).
    pub abc: u32,
    /// Duplicate ACKs / SACKed segments above a hole that signal a loss (RFC 6675 DupThresh).
    pub dupthresh: u32,
    /// The congestion controller: loss-based (NewReno, CUBIC) or explicit-feedback (XCP,
    /// R-TCP); see [`crate::transport::cc`].
    pub cc: CcConfig,
    /// How a loss-based controller leaves slow start early (HyStart; off by default here, on
    /// for CUBIC in scenarios, as in Linux).
    pub hystart: HyStartMode,
    /// ECN (RFC 3168; DCTCP's use of it): which packets are ECN-capable, how the receiver
    /// echoes marks; see [`crate::transport::ecn`].
    pub ecn: EcnMode,
    /// Priority band of the primary (normal) loop's packets.
    pub prio: u8,
    /// A second sending loop beside the primary loop, over the same scoreboard (RC3's
    /// low-priority loop): not a congestion controller but an extension of the sender
    /// (`hook.rs`), so not a [`CcConfig`].
    pub hook: Option<HookConfig>,
    /// An RDMA queue pair (RoCEv2) rather than a TCP connection: no handshake, data from the
    /// first instant, and the path's base RTT known at start (the RTO's first sample, and a
    /// window law's base RTT where it would take the handshake's), as an RDMA NIC is given it.
    pub queue_pair: bool,
    /// How losses are repaired: SACK's selective repeat (TCP's) or go-back-N (a queue pair's
    /// default); see [`LossRecovery`].
    pub recovery: LossRecovery,
    /// Go-back-N's receiver sends at most one NACK per this interval for the same expected
    /// sequence (RoCEv2 NICs: 500 us).
    pub nack_interval: Time,
}

impl TcpConfig {
    /// The flow table's `protocol` label of flows with this configuration (each protocol says
    /// how it labels itself).
    pub fn label(&self) -> String {
        self.cc.label(self.hook.as_ref(), LabelCtx { iw: self.iw, prio: self.prio, ecn: self.ecn == EcnMode::Classic })
    }
}

impl Default for TcpConfig {
    fn default() -> TcpConfig {
        TcpConfig {
            mss: 1460,
            header: 40,
            iw: 4,
            initial_ssthresh: u64::MAX,
            rwnd: u64::MAX,
            initial_rto: Time::from_secs(1),
            min_rto: Time::from_ms(200),
            max_rto: Time::from_secs(60),
            rto_granularity: Time::ZERO,
            delack_count: 1,
            delack_timeout: Time::from_ms(40),
            abc: 1,
            dupthresh: 3,
            cc: CcConfig::default(),
            hystart: HyStartMode::Off,
            ecn: EcnMode::Off,
            prio: 0,
            hook: None,
            queue_pair: false,
            recovery: LossRecovery::Selective,
            nack_interval: Time::from_us(500),
        }
    }
}
