//! What a protocol builds its profile from ([`Common`]): the TCP part of a transport table
//! (`scenario/transports/tcp_part.rs` parses it) applied to TCP's defaults, and the two ways a
//! protocol turns it into a [`Profile`] (a window or a paced sender); [`ProtocolKeys`], what a
//! protocol's own keys implement to do so.

use super::{AppTemplate, Profile};
use crate::error::SpecResult;
use crate::plugin::Loader;
use crate::protocol::RateConfig;
use crate::transport::ecn::EcnMode;
use crate::transport::paced::PacedConfig;
use crate::transport::tcp::TcpConfig;
use crate::units::Time;
use serde::de::DeserializeOwned;
use std::sync::Arc;

/// A protocol's own part of a transport table (its folder's `params.rs`): the keys that,
/// with the TCP part `c`, describe its transport's profile. [`crate::protocol::keys`] lists
/// the protocols and their structs.
pub trait ProtocolKeys: DeserializeOwned {
    /// The profile of the transport these keys and the TCP part `c` describe.
    fn profile(&self, c: Common) -> SpecResult<Profile>;
}

/// The RTO before the first RTT sample (the SYN's timeout): `initial_rto` if given; else, if
/// `min_rto` is given, [`INITIAL_RTO_PER_MIN_RTO`] x `min_rto`, at most `default` and at least
/// `min_rto`; else `default` (1 s, RFC 6298 sec. 2.1; a paced sender's 500 ms).
///
/// RFC 6298 keeps the first timeout no shorter than the floor every later RTO obeys (sec. 2.1
/// and 2.4: both 1 s), and TCP's defaults here (1 s over a 200 ms floor, Linux's) keep it five
/// floors long: a scenario that lowers the floor for a fabric of microsecond round trips lowers
/// the first timeout with it, instead of leaving a lost SYN waiting a whole second, and setting
/// `min_rto` to its default changes nothing.
pub fn initial_rto(given: Option<Time>, min_rto: Option<Time>, default: Time) -> Time {
    match (given, min_rto) {
        (Some(t), _) => t,
        (None, Some(floor)) => floor.max(default.min(Time(floor.ps().saturating_mul(INITIAL_RTO_PER_MIN_RTO)))),
        (None, None) => default,
    }
}

/// The derived `initial_rto` in floors (`min_rto`): TCP's default initial RTO over its default
/// floor, 1 s / 200 ms.
pub const INITIAL_RTO_PER_MIN_RTO: u64 = 5;

/// What a protocol builds its profile from: the TCP part applied to TCP's defaults, and what
/// the user gave where a protocol has defaults of its own.
#[derive(Clone, Debug)]
pub struct Common {
    /// fctlab's TCP with the part's settings (NewReno, HyStart off: the protocol sets its
    /// controller).
    pub cfg: TcpConfig,
    /// `header`, if given.
    pub header: Option<u32>,
    /// `iw`, if given.
    pub iw: Option<u32>,
    /// `initial_rto`, if given.
    pub initial_rto: Option<Time>,
    /// `min_rto`, if given.
    pub min_rto: Option<Time>,
    /// The application, None for bulk.
    pub app: Option<AppTemplate>,
    /// The build's plug-ins (`transport.cc = "rust:..."`).
    pub plugins: Arc<Loader>,
    /// `nic_pull`: a paced queue pair handed to the NIC a packet at a time.
    pub nic_pull: bool,
}

impl Common {
    /// A window-based profile: `cfg` with its controller set by the protocol.
    pub fn tcp(self, cfg: TcpConfig) -> Profile {
        Profile::Tcp { cfg, app: self.app }
    }

    /// A rate-based profile: a sender paced by `law` whose packets carry `cc_header` bytes on
    /// top of TCP/IP's (unless `header` says otherwise), with a TCP receiver echoing the header;
    /// `fallback` is the TCP it turns into on a path without routers of its kind (its packets
    /// without the congestion header).
    pub fn paced(self, cc_header: u32, law: RateConfig, handshake: bool, fallback: Option<TcpConfig>) -> Profile {
        let header = self.header.unwrap_or(TcpConfig::default().header + cc_header);
        let tcp_header = if header > cc_header { header - cc_header } else { header };
        let paced = PacedConfig {
            mss: self.cfg.mss,
            header,
            initial_rto: initial_rto(self.initial_rto, self.min_rto, Time::from_ms(500)),
            min_rto: self.cfg.min_rto,
            law,
            handshake,
            fallback: fallback.map(|f| TcpConfig { header: tcp_header, ..f }),
            queue_pair: self.cfg.queue_pair,
            nic_pull: self.nic_pull && self.cfg.queue_pair,
            ecn: EcnMode::Off,
            recovery: self.cfg.recovery,
        };
        Profile::Paced { cfg: paced, rx: TcpConfig { header, ..self.cfg }, app: self.app }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_initial_rto_follows_a_lowered_floor_within_the_default_and_the_floor() {
        let (ms, us) = (Time::from_ms, Time::from_us);
        let tcp = Time::from_secs(1);
        assert_eq!(initial_rto(None, None, tcp), tcp);
        assert_eq!(initial_rto(Some(ms(3)), Some(ms(1)), tcp), ms(3), "given, kept");
        assert_eq!(initial_rto(None, Some(ms(1)), tcp), ms(5));
        assert_eq!(initial_rto(None, Some(us(45)), tcp), us(225));
        assert_eq!(initial_rto(None, Some(ms(200)), tcp), tcp, "the default floor: the default");
        assert_eq!(initial_rto(None, Some(ms(500)), tcp), tcp, "at most the default...");
        assert_eq!(initial_rto(None, Some(Time::from_secs(2)), tcp), Time::from_secs(2), "...and at least the floor");
        assert_eq!(initial_rto(None, Some(ms(200)), ms(500)), ms(500), "a paced sender's default");
        assert_eq!(initial_rto(None, Some(Time::MAX), tcp), Time::MAX, "no overflow");
    }
}
