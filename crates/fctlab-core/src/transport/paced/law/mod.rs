//! The rate law of a paced sender: what a rate-based protocol's end host decides.
//!
//! A law stamps the congestion header of every packet the sender emits and turns the header the
//! receiver echoes into the rate the sender paces at. Everything else (handshake, segments,
//! SACK scoreboard, retransmission timer, probes, pacing clock) is the sender's
//! ([`super::PacedSender`]), shared by every law. Dispatch is static through [`RateLaw`].
//!
//! This file is the list of rate laws: adding one is a file `law/<name>.rs` with a struct
//! implementing [`RateControl`], its module line here, one [`RateConfig`] variant (its
//! parameters and `label`) and one [`RateLaw`] variant with its arm in `each_law!`.

pub mod jetmax;
pub mod piqi;
pub mod rcp;

use crate::net::packet::{CongestionHeader, PacketKind};
use crate::units::{Rate, Time};
use jetmax::JetMaxHost;
use piqi::PiqiHost;
use rcp::{FixedRate, RcpHost};

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

/// The hooks of a rate-based end host.
pub trait RateControl {
    /// The rate before any feedback, bit/s.
    fn initial_rate(&self) -> f64;
    /// The congestion header of an outgoing packet.
    fn header(&self, ctx: LawCtx) -> CongestionHeader;
    /// The header a SYN-ACK or ACK echoes, at `now`; returns the new rate (bit/s), or `None`
    /// to keep the current one.
    fn on_feedback(&mut self, now: Time, echo: CongestionHeader, srtt: Option<Time>) -> Option<f64>;
    /// False if the SYN-ACK's echoed header shows that no router of the law's kind is on the
    /// path (RCP: the rate still "unlimited"), so the sender may fall back to TCP.
    fn path_has_routers(&self, _echo: CongestionHeader) -> bool {
        true
    }
}

/// Which law a paced sender runs (config, not state).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum RateConfig {
    /// RCP (thesis sec. 3.1): the rate the routers stamped; `unlimited` when none did.
    Rcp {
        /// The rate used when no router on the path stamped one.
        unlimited: Rate,
    },
    /// One rate for every flow, feedback ignored (the thesis's fixed-rate study).
    Fixed(Rate),
    /// JetMax (seed 003 eq. 3): gain `tau`; `unlimited` on a path without JetMax routers.
    JetMax {
        /// The gain tau, 0 < tau < 2 (seed 003: 0.6).
        tau: f64,
        /// The rate used when no router offered one.
        unlimited: Rate,
    },
    /// PIQI-RCP (seed 003 eqs. 7-8): gains `tau1`, `tau2`; `unlimited` on a path without
    /// PIQI-RCP routers.
    Piqi {
        /// Gain on the gap to the router's rate (seed 003: 0.01).
        tau1: f64,
        /// Gain on the router's last change of rate (seed 003: 0.1).
        tau2: f64,
        /// The rate used when no router gave one.
        unlimited: Rate,
    },
}

impl RateConfig {
    /// The flow table's `protocol` label of the default transport.
    pub fn label(&self) -> String {
        match self {
            RateConfig::Rcp { .. } => "rcp".to_string(),
            RateConfig::Fixed(r) => format!("fixed-{}bps", r.bps()),
            RateConfig::JetMax { .. } => "jetmax".to_string(),
            RateConfig::Piqi { .. } => "piqi".to_string(),
        }
    }
}

/// A paced sender's law, statically dispatched.
#[derive(Clone, Debug)]
pub enum RateLaw {
    /// RCP.
    Rcp(RcpHost),
    /// A fixed rate.
    Fixed(FixedRate),
    /// JetMax.
    JetMax(JetMaxHost),
    /// PIQI-RCP.
    Piqi(PiqiHost),
}

impl RateLaw {
    /// A fresh law.
    pub fn new(cfg: RateConfig) -> RateLaw {
        match cfg {
            RateConfig::Rcp { unlimited } => RateLaw::Rcp(RcpHost::new(unlimited)),
            RateConfig::Fixed(r) => RateLaw::Fixed(FixedRate::new(r)),
            RateConfig::JetMax { tau, unlimited } => RateLaw::JetMax(JetMaxHost::new(tau, unlimited)),
            RateConfig::Piqi { tau1, tau2, unlimited } => RateLaw::Piqi(PiqiHost::new(tau1, tau2, unlimited)),
        }
    }
}

macro_rules! each_law {
    ($self:ident, $l:ident => $body:expr) => {
        match $self {
            RateLaw::Rcp($l) => $body,
            RateLaw::Fixed($l) => $body,
            RateLaw::JetMax($l) => $body,
            RateLaw::Piqi($l) => $body,
        }
    };
}

impl RateControl for RateLaw {
    fn initial_rate(&self) -> f64 {
        each_law!(self, l => l.initial_rate())
    }
    #[inline]
    fn header(&self, ctx: LawCtx) -> CongestionHeader {
        each_law!(self, l => l.header(ctx))
    }
    #[inline]
    fn on_feedback(&mut self, now: Time, echo: CongestionHeader, srtt: Option<Time>) -> Option<f64> {
        each_law!(self, l => l.on_feedback(now, echo, srtt))
    }
    fn path_has_routers(&self, echo: CongestionHeader) -> bool {
        each_law!(self, l => l.path_has_routers(echo))
    }
}
