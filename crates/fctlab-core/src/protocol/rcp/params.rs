//! RCP's scenario keys: the host's (`protocol = "rcp"`: a fixed rate, the handshake, the
//! fallback to TCP and that TCP's window) and the router's (`kind = "rcp"` and
//! `kind = "rcp-tcp"`, read into [`RcpParams`] and [`RcpTcpParams`] over the thesis's
//! defaults).

use super::header;
use super::{FixedConfig, RcpConfig};
use super::{RcpParams, RcpTcpParams, RcpVariant};
use crate::error::{SpecError, SpecResult};
use crate::plan::{Common, Profile, ProtocolKeys};
use crate::protocol::cubic::HyStartMode;
use crate::protocol::rcp::coexist::{CoexistMode, TcRule};
use crate::protocol::tcp::{CcChoice, LossKeys};
use crate::protocol::{CcKind, RateConfig, UNLIMITED_RATE};
use crate::quantity::{BytesQ, RateQ, TimeQ};
use serde::Deserialize;

fn yes() -> bool {
    true
}

/// RCP's host keys.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RcpKeys {
    /// The fallback TCP's controller, as `protocol = "tcp"`'s.
    #[serde(default)]
    pub cc: Option<CcKind>,
    /// The fallback TCP's slow-start exit, as `protocol = "tcp"`'s.
    #[serde(default)]
    pub hystart: Option<HyStartMode>,
    /// Send every flow at this rate and ignore feedback (the thesis's fixed-rate study).
    #[serde(default)]
    pub fixed_rate: Option<RateQ>,
    /// Open with a SYN / SYN-ACK exchange (default true); false only with `fixed_rate`.
    #[serde(default = "yes")]
    pub handshake: bool,
    /// Fall back to TCP when the handshake finds no RCP router (thesis sec. 6.2.2; default
    /// true, false with `fixed_rate`).
    #[serde(default)]
    pub fallback: Option<bool>,
}

impl ProtocolKeys for RcpKeys {
    fn profile(&self, c: Common) -> SpecResult<Profile> {
        if !self.handshake && self.fixed_rate.is_none() {
            return Err(SpecError::new(
                "handshake",
                "expected true without fixed_rate, got false: an RCP sender learns its rate from the SYN-ACK",
            ));
        }
        let law = match self.fixed_rate {
            Some(_) if self.fallback == Some(true) => {
                return Err(SpecError::new(
                    "fallback",
                    "expected false or unset with fixed_rate, got true: a fixed-rate sender ignores feedback",
                ))
            }
            Some(r) => RateConfig::Fixed(FixedConfig(r.0)),
            None => RateConfig::Rcp(RcpConfig { unlimited: UNLIMITED_RATE }),
        };
        // RCP falls back to TCP (thesis sec. 6.2.2) when the handshake finds no RCP router: the
        // transport's own TCP settings (`iw`, `cc`, ...), its packets without the header.
        let fallback = (matches!(law, RateConfig::Rcp(_)) && self.fallback.unwrap_or(true))
            .then(|| LossKeys { cc: self.cc.map(CcChoice::Builtin), hystart: self.hystart }.apply(c.cfg, &c.plugins))
            .transpose()?;
        Ok(c.paced(header::BYTES, law, self.handshake, fallback))
    }
}

/// Which description of the RCP router a port follows (`variant`).
#[derive(Copy, Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
enum VariantKey {
    #[default]
    Thesis,
    Seed003,
    #[serde(rename = "appendix-f")]
    AppendixF,
    #[serde(rename = "fixed-gain")]
    FixedGain,
    #[serde(rename = "unknown-rate")]
    UnknownRate,
}

/// RCP's differential bandwidth sharing (thesis sec. 3.6).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DifferentialSpec {
    /// Flows that sent more than this are "long".
    pub threshold: BytesQ,
    /// Long flows get theta x R, 0 < theta < 1.
    pub theta: f64,
}

/// The RCP law's keys an `rcp` and an `rcp-tcp` queue share.
macro_rules! rcp_law_keys {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $f:ident: $t:ty,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// Gain on spare capacity (default 0.1).
            #[serde(default)]
            alpha: Option<f64>,
            /// Gain on the queue (default 1.0).
            #[serde(default)]
            beta: Option<f64>,
            /// Target utilization (default 1.0).
            #[serde(default)]
            eta: Option<f64>,
            /// Longest control interval (default 10 ms).
            #[serde(default)]
            interval: Option<TimeQ>,
            /// Initial rate as a fraction of the link rate (default 0.05).
            #[serde(default)]
            initial_rate: Option<f64>,
            /// Initial average RTT d (default 0.2 s).
            #[serde(default)]
            initial_rtt: Option<TimeQ>,
            $($(#[$fdoc])* #[serde(default)] $f: $t,)*
        }

        impl $name {
            /// The law's parameters over the thesis's defaults.
            fn law(&self) -> RcpParams {
                let d = RcpParams::default();
                RcpParams {
                    alpha: self.alpha.unwrap_or(d.alpha),
                    beta: self.beta.unwrap_or(d.beta),
                    eta: self.eta.unwrap_or(d.eta),
                    max_interval: self.interval.map_or(d.max_interval, |t| t.0),
                    initial_fraction: self.initial_rate.unwrap_or(d.initial_fraction),
                    initial_rtt: self.initial_rtt.map_or(d.initial_rtt, |t| t.0),
                    ..d
                }
            }
        }
    };
}

rcp_law_keys!(
    /// An `rcp` queue's keys: a drop-tail FIFO that computes the fair rate (eq. 3.3) and
    /// stamps it (`kind.rs`).
    RcpQueueKeys {
        /// Differential sharing: flows older than `threshold` bytes get `theta` x R.
        differential: Option<DifferentialSpec>,
        /// Whose router: `"thesis"` (default), `"seed003"`, `"appendix-f"`, `"unknown-rate"`
        /// (eq. 6.2) or `"fixed-gain"`.
        variant: Option<VariantKey>,
        /// Eq. 6.2's theta (`variant = "unknown-rate"` only; default 1).
        theta: Option<f64>,
    }
);

rcp_law_keys!(
    /// An `rcp-tcp` queue's keys: RCP's law, then the coexistence scheme's (thesis sec. 6.2.1):
    /// RCP and TCP queues served by WFQ with adaptive weights, RCP's law on C_R(t)
    /// (`coexist.rs`, built in `kind.rs`); the buffer's `limit` is each queue's in two-queue
    /// mode.
    RcpTcpKeys {
        /// Smoothing of the weight update, 0 < theta < 1 (default 0.1).
        theta: Option<f64>,
        /// Control update period T_c (default 500 ms).
        tc: Option<TimeQ>,
        /// Entries of each class's zombie list (default 1000).
        zombie_size: Option<usize>,
        /// Probability that a miss overwrites an entry of a full zombie list (default 0.25).
        zombie_overwrite: Option<f64>,
        /// w_R before the first update, in [0.01, 0.99] (default 0.5).
        initial_weight: Option<f64>,
        /// `"two-queue"` (default) or `"single-queue"`.
        mode: Option<ModeKey>,
        /// `"tc-star"` (default) or `"fixed"`.
        tc_rule: Option<TcRuleKey>,
    }
);

impl RcpQueueKeys {
    /// The law's parameters (unchecked: [`RcpParams::validate`] needs the port's rate).
    pub fn params(&self) -> SpecResult<RcpParams> {
        let variant = match self.variant.unwrap_or_default() {
            VariantKey::Thesis => RcpVariant::Thesis,
            VariantKey::Seed003 => RcpVariant::Seed003,
            VariantKey::AppendixF => RcpVariant::AppendixF,
            VariantKey::FixedGain => RcpVariant::FixedGain,
            // Validated in f32: a value that only f64 tells from 0 is refused as 0.
            VariantKey::UnknownRate => RcpVariant::UnknownRate { theta: self.theta.unwrap_or(1.0) as f32 },
        };
        if self.theta.is_some() && !matches!(variant, RcpVariant::UnknownRate { .. }) {
            return Err(SpecError::new("theta", "only meaningful with variant = \"unknown-rate\" (eq. 6.2)"));
        }
        Ok(RcpParams {
            differential: self.differential.as_ref().map(|s| (s.threshold.0, s.theta)),
            variant,
            ..self.law()
        })
    }
}

/// How an `rcp-tcp` queue holds its two classes.
#[derive(Copy, Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModeKey {
    /// An RCP and a TCP queue served by WFQ.
    TwoQueue,
    /// One shared FIFO.
    SingleQueue,
}

/// When an `rcp-tcp` queue's weights may move.
#[derive(Copy, Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TcRuleKey {
    /// Every T_c.
    Fixed,
    /// Not before T_c* has passed.
    TcStar,
}

impl RcpTcpKeys {
    /// The scheme's parameters (unchecked: [`RcpTcpParams::validate`] needs the port's rate).
    pub fn params(&self) -> RcpTcpParams {
        let d = RcpTcpParams::default();
        RcpTcpParams {
            rcp: self.law(),
            theta: self.theta.unwrap_or(d.theta),
            tc: self.tc.map_or(d.tc, |t| t.0),
            zombie_size: self.zombie_size.unwrap_or(d.zombie_size),
            zombie_overwrite: self.zombie_overwrite.unwrap_or(d.zombie_overwrite),
            initial_weight: self.initial_weight.unwrap_or(d.initial_weight),
            mode: match self.mode {
                None | Some(ModeKey::TwoQueue) => CoexistMode::TwoQueue,
                Some(ModeKey::SingleQueue) => CoexistMode::SingleQueue,
            },
            tc_rule: match self.tc_rule {
                None | Some(TcRuleKey::TcStar) => TcRule::AtLeastTcStar,
                Some(TcRuleKey::Fixed) => TcRule::Fixed,
            },
        }
    }
}
