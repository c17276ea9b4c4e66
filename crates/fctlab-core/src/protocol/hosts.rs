//! The host side of the registry, generated from the table (`registry.rs`): the loss-based
//! windows ([`CcKind`], [`LossBased`], from the `loss` column), the window host laws
//! ([`CcConfig`], [`Controller`], from `window`) and the rate host laws ([`RateConfig`],
//! [`RateLaw`], from `rate`), each dispatched statically (a `match`, no virtual call).
//!
//! A loss-based window is a struct of its folder built by `T::new(hystart)`; a window law's
//! config implements [`WindowConfig`] and a rate law's [`RateLawConfig`] (`host.rs`), so that
//! every arm here is the same call. Beside the rows, two variants are written by hand: the
//! loss-based window under TCP (`CcConfig::Loss`, `Controller::Loss`) and a host law plug-in
//! (`CcConfig::Plugin`, `Controller::Plugin`, `crate::plugin`).

use super::host::{RateLawConfig, WindowConfig, WindowCtx};
use super::label::{window_label, LabelCtx};
use crate::net::packet::CongestionHeader;
use crate::plugin::{HostInit, HostPlugin, PluginCc};
use crate::protocol::registry::protocols;
use crate::protocol::HookConfig;
use crate::transport::cc::hystart::HyStartMode;
use crate::transport::cc::{CcState, CongestionControl, EcnAck, Feedback, HeaderCtx, RttSample};
use crate::transport::paced::law::{LawCtx, RateControl, RateFeedback};
use crate::units::{Rate, Time};

macro_rules! host_side {
    ($(
        $folder:ident {
            name: $name:literal,
            title: $title:literal,
            host_key: $host_key:literal,
            header: $header:tt,
            carries: $carries:tt,
            law: $law:tt,
            queue: $queue:tt,
            qdisc: $qdisc:tt,
            cost: $cost:tt,
            hook: $hook:tt,
            echo: $echo:tt,
            loss: [$( $LV:ident ( $LT:ident ) )?],
            window: [$( $WV:ident ( $WC:ident => $WT:ident ) )?],
            rate: [$( $RV:ident ( $RC:ident => $RT:ident ) ),*],
            $($more:tt)*
        }
    )*) => {
        // -------------------------------------------------------------------------------------
        // Loss-based windows.

        /// Which loss-based window a flow uses (one per row of the registry with a `loss`).
        ///
        /// Its scenario spelling (`cc = "newreno"`, `"cubic"`) is its row's name, read in
        /// `tcp.rs`.
        #[derive(Copy, Clone, Debug, PartialEq, Eq)]
        pub enum CcKind {
            $($(
                #[doc = concat!($title, ": `protocol/", stringify!($folder), "/`.")]
                $LV,
            )?)*
        }

        impl CcKind {
            /// Every loss-based window, in the table's order.
            pub const ALL: &'static [CcKind] = &[$($( CcKind::$LV, )?)*];

            /// Its scenario spelling (`cc = "..."`).
            pub fn name(&self) -> &'static str {
                match self {
                    $($( CcKind::$LV => $name, )?)*
                }
            }

            /// The loss-based window spelled `name`, if any.
            pub fn from_name(name: &str) -> Option<CcKind> {
                CcKind::ALL.iter().copied().find(|k| k.name() == name)
            }
        }

        /// A loss-based controller, statically dispatched (what XCP and R-TCP fall back on).
        #[derive(Clone, Debug)]
        pub enum LossBased {
            $($(
                #[doc = concat!($title, ": `protocol/", stringify!($folder), "/`.")]
                $LV($crate::protocol::$folder::$LT),
            )?)*
        }

        impl LossBased {
            /// A fresh controller of the given kind, leaving slow start as `hystart` says.
            pub fn new(kind: CcKind, hystart: HyStartMode) -> LossBased {
                match kind {
                    $($( CcKind::$LV => LossBased::$LV($crate::protocol::$folder::$LT::new(hystart)), )?)*
                }
            }
        }

        macro_rules! each_loss {
            ($self:ident, $c:ident => $body:expr) => {
                match $self {
                    $($( LossBased::$LV($c) => $body, )?)*
                }
            };
        }

        // -------------------------------------------------------------------------------------
        // Window host laws.

        /// How a connection's window moves: the controller it builds (config, not state).
        #[derive(Copy, Clone, Debug, PartialEq)]
        pub enum CcConfig {
            /// A loss-based controller (NewReno, CUBIC).
            Loss(CcKind),
            $($(
                #[doc = concat!($title, ": `protocol/", stringify!($folder), "/`.")]
                $WV($crate::protocol::$folder::$WC),
            )?)*
            /// A host law plug-in (`crate::plugin`).
            Plugin(HostPlugin),
        }

        impl CcConfig {
            /// True if the segments of this controller's flows carry the bytes their flow has
            /// left ([`HeaderCtx::remaining`], which the connection then keeps): pFabric's
            /// priority.
            pub fn stamps_remaining(&self) -> bool {
                match self {
                    CcConfig::Loss(_) | CcConfig::Plugin(_) => false,
                    $($( CcConfig::$WV(c) => c.stamps_remaining(), )?)*
                }
            }

            /// The flow table's `protocol` label of window flows under this controller, with
            /// `hook` beside the window: each protocol's config says how it labels itself.
            pub fn label(&self, hook: Option<&HookConfig>, at: LabelCtx) -> String {
                match self {
                    CcConfig::Loss(kind) => match hook {
                        Some(h) => h.label(*kind, at),
                        None => window_label("tcp", kind.name(), at),
                    },
                    $($( CcConfig::$WV(c) => c.label(at), )?)*
                    CcConfig::Plugin(p) => format!("tcp-{}-iw{}", p.0.short_name(), at.iw).to_lowercase(),
                }
            }

            /// The loss-based controller underneath, if any (for labels).
            pub fn loss_kind(&self) -> Option<CcKind> {
                match self {
                    CcConfig::Loss(k) => Some(*k),
                    $($( CcConfig::$WV(c) => c.loss_kind(), )?)*
                    CcConfig::Plugin(_) => None,
                }
            }
        }

        /// A connection's controller, statically dispatched.
        #[derive(Debug)]
        pub enum Controller {
            /// NewReno or CUBIC.
            Loss(LossBased),
            $($(
                #[doc = concat!($title, ": `protocol/", stringify!($folder), "/`.")]
                $WV($crate::protocol::$folder::$WT),
            )?)*
            /// A host law plug-in.
            Plugin(PluginCc),
        }

        impl Controller {
            /// A fresh controller for a connection of `mss`-byte segments under `header` bytes
            /// of headers and a receive window of `rwnd` bytes; a loss-based one leaves slow
            /// start as `hystart` says; a plug-in's is made for flow `flow`.
            pub fn new(cfg: CcConfig, hystart: HyStartMode, mss: u32, header: u32, rwnd: u64, flow: u32) -> Controller {
                let ctx = WindowCtx { hystart, mss, header, rwnd, flow };
                match cfg {
                    CcConfig::Loss(kind) => Controller::Loss(LossBased::new(kind, hystart)),
                    $($( CcConfig::$WV(c) => Controller::$WV(c.build(ctx)), )?)*
                    CcConfig::Plugin(p) => Controller::Plugin(PluginCc::new(p, HostInit { flow, mss, header, rwnd })),
                }
            }
        }

        macro_rules! each_cc {
            ($self:ident, $c:ident => $body:expr) => {
                match $self {
                    Controller::Loss($c) => $body,
                    $($( Controller::$WV($c) => $body, )?)*
                    Controller::Plugin($c) => $body,
                }
            };
        }

        // -------------------------------------------------------------------------------------
        // Rate host laws.

        /// Which law a paced sender runs (config, not state).
        #[derive(Copy, Clone, Debug, PartialEq)]
        pub enum RateConfig {
            $($(
                #[doc = concat!("`", stringify!($RC), "`, of ", $title, ": `protocol/", stringify!($folder), "/`.")]
                $RV($crate::protocol::$folder::$RC),
            )*)*
        }

        impl RateConfig {
            /// The flow table's `protocol` label of the default transport.
            pub fn label(&self) -> String {
                match self {
                    $($( RateConfig::$RV(c) => c.label(), )*)*
                }
            }
        }

        /// A paced sender's law, statically dispatched.
        #[derive(Clone, Debug)]
        pub enum RateLaw {
            $($(
                #[doc = concat!("`", stringify!($RT), "`, of ", $title, ": `protocol/", stringify!($folder), "/`.")]
                $RV($crate::protocol::$folder::$RT),
            )*)*
        }

        impl RateLaw {
            /// A fresh law.
            pub fn new(cfg: RateConfig) -> RateLaw {
                match cfg {
                    $($( RateConfig::$RV(c) => RateLaw::$RV(c.build()), )*)*
                }
            }
        }

        macro_rules! each_rate_law {
            ($self:ident, $l:ident => $body:expr) => {
                match $self {
                    $($( RateLaw::$RV($l) => $body, )*)*
                }
            };
        }
    };
}

protocols!(host_side);

impl CongestionControl for LossBased {
    fn wants_feedback(&self) -> bool {
        false
    }
    fn on_rtt_sample(&mut self, st: &mut CcState, s: &RttSample) {
        each_loss!(self, c => c.on_rtt_sample(st, s))
    }
    fn wants_rtt_samples(&self) -> bool {
        each_loss!(self, c => c.wants_rtt_samples())
    }
    fn on_ack(&mut self, st: &mut CcState, now: Time, acked: u64, srtt: Option<Time>) {
        each_loss!(self, c => c.on_ack(st, now, acked, srtt))
    }
    fn on_congestion(&mut self, st: &mut CcState, now: Time, flight: u64) {
        each_loss!(self, c => c.on_congestion(st, now, flight))
    }
    fn on_timeout(&mut self, st: &mut CcState, now: Time, flight: u64) {
        each_loss!(self, c => c.on_timeout(st, now, flight))
    }
    fn on_recovery_end(&mut self, st: &mut CcState, now: Time) {
        each_loss!(self, c => c.on_recovery_end(st, now))
    }
}

impl CongestionControl for Controller {
    #[inline]
    fn on_rtt_sample(&mut self, st: &mut CcState, s: &RttSample) {
        each_cc!(self, c => c.on_rtt_sample(st, s))
    }
    fn wants_rtt_samples(&self) -> bool {
        each_cc!(self, c => c.wants_rtt_samples())
    }
    fn wants_feedback(&self) -> bool {
        each_cc!(self, c => c.wants_feedback())
    }
    #[inline]
    fn on_ack(&mut self, st: &mut CcState, now: Time, acked: u64, srtt: Option<Time>) {
        each_cc!(self, c => c.on_ack(st, now, acked, srtt))
    }
    fn on_loss_signal(&mut self, st: &mut CcState, now: Time) {
        each_cc!(self, c => c.on_loss_signal(st, now))
    }
    fn on_congestion(&mut self, st: &mut CcState, now: Time, flight: u64) {
        each_cc!(self, c => c.on_congestion(st, now, flight))
    }
    fn on_timeout(&mut self, st: &mut CcState, now: Time, flight: u64) {
        each_cc!(self, c => c.on_timeout(st, now, flight))
    }
    fn on_recovery_end(&mut self, st: &mut CcState, now: Time) {
        each_cc!(self, c => c.on_recovery_end(st, now))
    }
    fn on_ecn_ack(&mut self, st: &mut CcState, ack: &EcnAck) {
        each_cc!(self, c => c.on_ecn_ack(st, ack))
    }
    fn on_ecn_echo(&mut self, st: &mut CcState, now: Time, flight: u64) {
        each_cc!(self, c => c.on_ecn_echo(st, now, flight))
    }
    fn cc_metric(&self) -> Option<(&'static str, f64)> {
        each_cc!(self, c => c.cc_metric())
    }
    fn probe_after_timeouts(&self) -> Option<u32> {
        each_cc!(self, c => c.probe_after_timeouts())
    }
    /// Each arm is its controller's own `header`; a controller that sends no header keeps the
    /// interface's default, which the arm inlines to `CongestionHeader::None`.
    #[inline]
    fn header(&self, st: &CcState, ctx: HeaderCtx) -> CongestionHeader {
        each_cc!(self, c => c.header(st, ctx))
    }
    #[inline]
    fn on_feedback(&mut self, st: &mut CcState, fb: &Feedback) -> bool {
        each_cc!(self, c => c.on_feedback(st, fb))
    }
    fn pacing_rate(&self) -> Option<Rate> {
        each_cc!(self, c => c.pacing_rate())
    }
    #[inline]
    fn reacts_to_loss(&self) -> bool {
        each_cc!(self, c => c.reacts_to_loss())
    }
}

impl RateControl for RateLaw {
    fn initial_rate(&self) -> f64 {
        each_rate_law!(self, l => l.initial_rate())
    }
    #[inline]
    fn header(&self, ctx: LawCtx) -> CongestionHeader {
        each_rate_law!(self, l => l.header(ctx))
    }
    #[inline]
    fn on_feedback(&mut self, fb: &RateFeedback) -> Option<f64> {
        each_rate_law!(self, l => l.on_feedback(fb))
    }
    #[inline]
    fn next_timer(&self) -> Option<Time> {
        each_rate_law!(self, l => l.next_timer())
    }
    fn on_timer(&mut self, now: Time, sent_bytes: u64) -> Option<f64> {
        each_rate_law!(self, l => l.on_timer(now, sent_bytes))
    }
    fn path_has_routers(&self, echo: CongestionHeader) -> bool {
        each_rate_law!(self, l => l.path_has_routers(echo))
    }
}
