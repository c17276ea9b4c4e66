//! The TCP part every fctlab transport shares: segments, headers, windows, timers, ACKs,
//! priority and the application. Each key parses into a type that holds only valid values
//! (an initial window of at least one segment, an MSS of 1 B to 1 MiB, ...), so the build
//! never checks them again.

use crate::error::{SpecError, SpecResult};
use crate::limits::{MAX_HEADER, MAX_MSS};
use crate::plan::{initial_rto, AppTemplate, Common};
use crate::plugin::Loader;
use crate::quantity::{BytesQ, TimeQ};
use crate::transport::conn::LossRecovery;
use crate::transport::tcp::TcpConfig;
use crate::units::Time;
use serde::de::{self, Deserializer};
use serde::Deserialize;
use std::sync::Arc;

/// Largest appropriate-byte-counting limit L (segments per ACK); RFC 3465 recommends 2.
const MAX_ABC: u32 = 64;

/// Defines a newtype over an integer that deserializes only values `check` accepts, with
/// `expected` (and the value seen) as the error.
macro_rules! bounded {
    ($(#[$doc:meta])* $name:ident($t:ty): $v:ident => $ok:expr, $($msg:tt)+) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq)]
        pub struct $name(pub $t);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                let $v = <$t>::deserialize(d)?;
                if $ok {
                    Ok($name($v))
                } else {
                    Err(de::Error::custom(format!($($msg)+)))
                }
            }
        }
    };
}

bounded!(
    /// An initial window, >= 1 segment.
    Iw(u32): v => v >= 1, "expected an initial window >= 1 segment, got {v}"
);
bounded!(
    /// Appropriate byte counting's L, 1 to [`MAX_ABC`] segments per ACK (RFC 3465).
    Abc(u32): v => (1..=MAX_ABC).contains(&v), "expected 1 <= abc <= {MAX_ABC} segments per ACK, got {v}"
);
bounded!(
    /// A delayed-ACK count, >= 1 segment.
    AckEvery(u32): v => v >= 1, "expected >= 1, got {v}"
);

/// A segment's payload: 1 B to [`MAX_MSS`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Mss(pub u32);

impl<'de> Deserialize<'de> for Mss {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Mss, D::Error> {
        let BytesQ(m) = BytesQ::deserialize(d)?;
        if m == 0 || m > MAX_MSS {
            return Err(de::Error::custom(format!("expected 1 B <= mss <= 1 MiB, got {m}")));
        }
        Ok(Mss(m as u32))
    }
}

/// Header bytes per packet, at most [`MAX_HEADER`] (checked before narrowing to the packet's
/// u32: it used to wrap modulo 2^32).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HeaderBytes(pub u32);

impl<'de> Deserialize<'de> for HeaderBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<HeaderBytes, D::Error> {
        let BytesQ(h) = BytesQ::deserialize(d)?;
        if h > MAX_HEADER {
            return Err(de::Error::custom(format!("expected a header <= {MAX_HEADER} B (64 KiB), got {h}")));
        }
        Ok(HeaderBytes(h as u32))
    }
}

/// A timer setting that must be > 0.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Positive(pub Time);

impl<'de> Deserialize<'de> for Positive {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Positive, D::Error> {
        let TimeQ(t) = TimeQ::deserialize(d)?;
        if t == Time::ZERO {
            return Err(de::Error::custom("expected a duration > 0, got 0"));
        }
        Ok(Positive(t))
    }
}

/// Delayed-ACK settings.
#[derive(Copy, Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelayedAckSpec {
    /// ACK every `count` in-order segments.
    pub count: AckEvery,
    /// Longest wait before an ACK.
    #[serde(default)]
    pub timeout: Option<TimeQ>,
}

/// `transport.recovery`: how losses are repaired.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RecoverySpec(pub LossRecovery);

impl<'de> Deserialize<'de> for RecoverySpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RecoverySpec, D::Error> {
        let v = String::deserialize(d)?;
        match v.as_str() {
            "go_back_n" => Ok(RecoverySpec(LossRecovery::GoBackN)),
            "selective" => Ok(RecoverySpec(LossRecovery::Selective)),
            _ => Err(de::Error::custom(format!("expected \"go_back_n\" or \"selective\", got \"{v}\""))),
        }
    }
}

/// What the sending application does.
#[derive(Copy, Clone, Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum AppSpec {
    /// Writes the whole flow at start.
    Bulk {},
    /// Writes `initial` bytes at start, then `chunk` bytes every `interval`, up to the flow size.
    Scheduled {
        /// Bytes at start.
        initial: BytesQ,
        /// Bytes per later write.
        chunk: BytesQ,
        /// Time between later writes.
        interval: TimeQ,
    },
}

/// The keys every fctlab transport has (defaults: IW 4, MSS 1460, 40-byte headers, RTO 1 s
/// initial / 200 ms min, an ACK per segment, bulk application); a protocol's own keys live in
/// its folder (`protocol/<name>/params.rs`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpPart {
    /// Initial window, segments (default 4; XCP's 1).
    #[serde(default)]
    pub iw: Option<Iw>,
    /// Payload bytes per segment.
    #[serde(default)]
    pub mss: Option<Mss>,
    /// Header bytes per packet (default TCP/IP's 40 plus the protocol's congestion header).
    #[serde(default)]
    pub header: Option<HeaderBytes>,
    /// Initial slow-start threshold (default unlimited).
    #[serde(default)]
    pub ssthresh: Option<BytesQ>,
    /// Receive window (default unlimited).
    #[serde(default)]
    pub rwnd: Option<BytesQ>,
    /// RTO before the first RTT sample (default 1 s; a paced sender's 500 ms).
    #[serde(default)]
    pub initial_rto: Option<Positive>,
    /// RTO floor.
    #[serde(default)]
    pub min_rto: Option<Positive>,
    /// RTO ceiling.
    #[serde(default)]
    pub max_rto: Option<Positive>,
    /// RFC 6298's clock granularity G (default 0).
    #[serde(default)]
    pub rto_granularity: Option<TimeQ>,
    /// Delayed ACKs (default: an ACK for every segment).
    #[serde(default)]
    pub delayed_ack: Option<DelayedAckSpec>,
    /// Appropriate byte counting's L in segments (RFC 3465; default 1).
    #[serde(default)]
    pub abc: Option<Abc>,
    /// Priority band of the flow's packets (0 = highest).
    #[serde(default)]
    pub priority: Option<u8>,
    /// Application model (default bulk).
    #[serde(default, deserialize_with = "crate::spec_de::tagged_opt")]
    pub app: Option<AppSpec>,
    /// An RDMA queue pair instead of a TCP connection: no handshake, data from the first
    /// instant, the path's base RTT known at start (default false).
    #[serde(default)]
    pub queue_pair: Option<bool>,
    /// An RDMA NIC's scheduling of a rate-based queue pair: one packet at a time in the NIC, the
    /// next `wire / rate` after the last one left it (default false: paced into the NIC's queue).
    #[serde(default)]
    pub nic_pull: Option<bool>,
    /// How losses are repaired: "go_back_n" (a queue pair's default) or "selective" (SACK;
    /// a TCP connection's, and its only choice).
    #[serde(default)]
    pub recovery: Option<RecoverySpec>,
    /// Go-back-N only: at most one NACK per this interval for the same expected sequence
    /// (default 500 us).
    #[serde(default)]
    pub nack_interval: Option<Positive>,
}

impl TcpPart {
    /// The part over TCP's defaults.
    pub fn common(&self, plugins: &Arc<Loader>) -> SpecResult<Common> {
        let d = TcpConfig::default();
        let (delack_count, delack_timeout) = match self.delayed_ack {
            Some(DelayedAckSpec { count, timeout }) => (count.0, timeout.map_or(d.delack_timeout, |t| t.0)),
            None => (1, d.delack_timeout),
        };
        let cfg = TcpConfig {
            mss: self.mss.map_or(d.mss, |m| m.0),
            header: self.header.map_or(d.header, |h| h.0),
            iw: self.iw.map_or(d.iw, |w| w.0),
            initial_ssthresh: self.ssthresh.map_or(d.initial_ssthresh, |b| b.0),
            rwnd: self.rwnd.map_or(d.rwnd, |b| b.0),
            initial_rto: initial_rto(self.initial_rto.map(|t| t.0), self.min_rto.map(|t| t.0), d.initial_rto),
            min_rto: self.min_rto.map_or(d.min_rto, |t| t.0),
            max_rto: self.max_rto.map_or(d.max_rto, |t| t.0),
            rto_granularity: self.rto_granularity.map_or(d.rto_granularity, |t| t.0),
            delack_count,
            delack_timeout,
            abc: self.abc.map_or(d.abc, |l| l.0),
            prio: self.priority.unwrap_or(0),
            queue_pair: self.queue_pair.unwrap_or(false),
            recovery: self.recovery()?,
            nack_interval: self.nack_interval.map_or(d.nack_interval, |t| t.0),
            ..d
        };
        Ok(Common {
            cfg,
            header: self.header.map(|h| h.0),
            iw: self.iw.map(|w| w.0),
            initial_rto: self.initial_rto.map(|t| t.0),
            min_rto: self.min_rto.map(|t| t.0),
            app: self.app()?,
            plugins: plugins.clone(),
            nic_pull: self.nic_pull.unwrap_or(false),
        })
    }

    /// The loss recovery: go-back-N by default for a queue pair, selective repeat (SACK) for a
    /// TCP connection, which has no other; `nack_interval` only where NACKs are sent.
    fn recovery(&self) -> SpecResult<LossRecovery> {
        let queue_pair = self.queue_pair.unwrap_or(false);
        let recovery = match self.recovery {
            Some(RecoverySpec(LossRecovery::GoBackN)) if !queue_pair => {
                return Err(SpecError::new(
                    "recovery",
                    "expected \"selective\" for a TCP connection (SACK), got \"go_back_n\" (go-back-N is a queue \
                     pair's: set queue_pair = true)",
                ))
            }
            Some(RecoverySpec(r)) => r,
            None if queue_pair => LossRecovery::GoBackN,
            None => LossRecovery::Selective,
        };
        if let (Some(t), LossRecovery::Selective) = (self.nack_interval, recovery) {
            return Err(SpecError::new(
                "nack_interval",
                format!(
                    "set to {}, but only go-back-N recovery sends NACKs (expected recovery = \"go_back_n\" on a queue \
                     pair, or no nack_interval)",
                    t.0
                ),
            ));
        }
        Ok(recovery)
    }

    /// The application, None for bulk.
    fn app(&self) -> SpecResult<Option<AppTemplate>> {
        match self.app {
            None | Some(AppSpec::Bulk {}) => Ok(None),
            Some(AppSpec::Scheduled { initial, chunk, interval }) => {
                if chunk.0 == 0 || interval.0 == Time::ZERO {
                    return Err(crate::error::SpecError::new("app", "expected chunk > 0 and interval > 0"));
                }
                Ok(Some(AppTemplate::Scheduled { initial: initial.0, chunk: chunk.0, interval: interval.0 }))
            }
        }
    }
}
