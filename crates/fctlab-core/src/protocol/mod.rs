//! The protocol registry: every protocol fctlab has, one folder each, joined to the rest here.
//!
//! A protocol is at most three parts behind the project's interfaces, plus its scenario keys
//! and metric names:
//!
//! | part | interface | what it decides |
//! |---|---|---|
//! | host law, window | [`crate::transport::cc::CongestionControl`] | cwnd (and a pacing rate) from ACKs, RTT samples, losses, timeouts and the echoed header |
//! | host law, rate | [`crate::transport::paced::law::RateControl`] | the pacing rate from the echoed header |
//! | loop beside the window | [`crate::transport::tcp::hook::WindowHook`] | a second sending loop over the window's connection (RC3's low-priority loop) |
//! | ECN echo | [`crate::transport::ecn::EcnMode::Exact`] | the receiver's ECE from the CE of the packets each ACK covers (DCTCP's) |
//! | router law | [`crate::qdisc::law::RouterLaw`] | per packet at arrival and departure, per control interval: reads and stamps its header, sees its port's rate and queue, emits its metrics |
//! | header | a [`CongestionHeader`] variant per direction, holding the structs of `<name>/header.rs` (fields, echo, wire encoding) | what routers and hosts tell each other |
//! | scenario keys | [`keys::ProtocolKeys`] (`<name>/params.rs`), the router law's parameters (`<name>/router.rs`) | the `transport` keys beside the TCP part, the queue kind's keys |
//!
//! The connection around a host law (handshake, segments, SACK scoreboard, RTO, what to
//! retransmit) is the transport's connection core (`transport/conn/`), under the window loop
//! (`transport/tcp/`) and the paced loop with its pacing clock (`transport/paced/`),
//! and the FIFO around a router law is [`crate::qdisc::ExplicitQueue`]'s: a protocol never
//! repeats them.
//!
//! | folder | protocol | parts |
//! |---|---|---|
//! | `newreno/` | NewReno (RFC 5681, RFC 6582) | window host law |
//! | `cubic/` | CUBIC (RFC 9438) | window host law (its slow-start exit, HyStart and HyStart++ (RFC 9406), is `transport/cc/hystart.rs`) |
//! | `dctcp/` | DCTCP (Alizadeh et al. 2010, RFC 8257) | window host law, ECN echo; any ECN marking queue |
//! | `pfabric/` | pFabric (Alizadeh et al. 2013) | header (priority), switch (queue discipline), window host law |
//! | `hpcc/` | HPCC (Li et al. 2019) | header (telemetry), router law (telemetry only), window and pacing host law |
//! | `rc3/` | RC3 (the RC3 paper) | the low-priority loop beside TCP's window; priority queues |
//! | `rcp/` | RCP (Dukkipati's thesis) | header, router law (and RCP beside TCP), rate host law (and the fixed rate) |
//! | `rtcp/` | R-TCP (thesis sec. 6.1.1) | window host law over RCP's header and router |
//! | `xcp/` | XCP (Katabi et al.; seed 003) | header, router law, window host law |
//! | `jetmax/` | JetMax (seed 003) | header, router law, rate host law |
//! | `piqi/` | PIQI-RCP (seed 003) | header, router law, rate host law |
//!
//! This file is the registry. Its table, `registry.rs` (`protocols!`, one row per protocol),
//! generates the closed lists that dispatch to each part statically (a `match`, no virtual
//! call on the hot path): [`CongestionHeader`] with its echo and wire encoding
//! ([`header_to_wire`] / [`header_from_wire`], `header.rs`), [`Law`] the router laws and
//! [`ProtocolQueue`] the protocols' own queue disciplines (`laws.rs`), [`PROTOCOLS`], what
//! each protocol is (`info.rs`), [`Hook`], the loops beside the window (`hooks.rs`), and
//! [`EcnEcho`], the receivers' exact ECN echoes (`echo.rs`). Here are the host laws' lists,
//! [`Controller`] and [`RateLaw`], still written by hand; `keys.rs` lists each
//! `protocol = "..."` with the struct of its keys, and `tcp.rs` holds `protocol = "tcp"`'s
//! (the loss-based window's `cc` and `hystart`).
//!
//! Each config says what the layers below would otherwise ask a protocol's name for:
//! [`CcConfig::label`] and [`RateConfig::label`] the flow table's `protocol` label (each window
//! protocol's folder gives its own `label()`, over `label.rs`), [`CcConfig::stamps_remaining`]
//! whether segments carry their flow's remaining bytes. The layers below (`net`, `qdisc`,
//! `capture`, `sched`, `routing`, `metrics`, `transport`, `world`, `plugin`) use these types and
//! never a protocol's folder (`tests/test_protocols_on_top.py`), and the interfaces the
//! protocols implement import nothing of the registry.
//!
//! Adding a protocol: its folder (`<name>/`: `header.rs`, a leaf importing only `wire.rs`;
//! `router.rs`; `host.rs`; `params.rs`) and its row in `registry.rs`, plus its host law's arms
//! here, its line in `keys.rs` and its queue kind (`scenario/queues.rs`); `docs/protocols.md`
//! has the steps.

pub mod cubic;
pub mod dctcp;
pub mod echo;
pub mod header;
pub mod hooks;
pub mod hpcc;
pub mod info;
pub mod jetmax;
pub mod keys;
pub mod label;
pub mod laws;
pub mod newreno;
pub mod pfabric;
pub mod piqi;
pub mod rc3;
pub mod rcp;
pub mod registry;
pub mod rtcp;
pub mod tcp;
pub mod wire;
pub mod xcp;

use crate::plugin::{HostInit, HostPlugin, PluginCc};
use crate::transport::cc::{CcState, CongestionControl, EcnAck, Feedback, HeaderCtx, RttSample};
use crate::transport::paced::law::{LawCtx, RateControl};
use crate::units::{Rate, Time};
use cubic::Cubic;
pub use cubic::HyStartMode;
use dctcp::{Dctcp, DctcpConfig};
pub use echo::EcnEcho;
pub use header::{
    header_extension, header_from_wire, header_to_wire, tag_has_extension, with_header_extension, CongestionHeader,
};
pub use hooks::{Hook, HookConfig};
use hpcc::{Hpcc, HpccConfig};
pub use info::{info, ProtocolInfo, PROTOCOLS};
use jetmax::JetMaxHost;
pub use label::LabelCtx;
pub use laws::{router_cost_port, Law, ProtocolQueue, ROUTER_COST_LAWS};
use newreno::NewReno;
use pfabric::PFabric;
use piqi::PiqiHost;
use rcp::{FixedRate, RcpHost};
use rtcp::{Rtcp, RtcpConfig};
pub use wire::Words;
use xcp::Xcp;

/// Bytes of the RCP header on top of the TCP/IP headers, for RCP and R-TCP.
pub const RCP_HEADER: u32 = rcp::header::BYTES;
/// Bytes of the XCP header on top of the TCP/IP headers.
pub const XCP_HEADER: u32 = xcp::header::BYTES;
/// JetMax's congestion header.
pub const JETMAX_HEADER: u32 = jetmax::header::BYTES;
/// HPCC's telemetry header.
pub const HPCC_HEADER: u32 = hpcc::header::BYTES;
/// PIQI-RCP's congestion header.
pub const PIQI_HEADER: u32 = piqi::header::BYTES;

// ---------------------------------------------------------------------------------------------
// Window host laws.

/// Which controller a flow uses.
///
/// Its scenario spelling (`cc = "newreno"`, `"cubic"`) is read in `tcp.rs`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CcKind {
    /// NewReno (RFC 6582) window growth; loss recovery is SACK-based (RFC 6675).
    NewReno,
    /// CUBIC (RFC 9438).
    Cubic,
}

impl CcKind {
    /// Its scenario spelling (`cc = "..."`).
    pub fn name(&self) -> &'static str {
        match self {
            CcKind::NewReno => "newreno",
            CcKind::Cubic => "cubic",
        }
    }
}

/// How a connection's window moves: the controller it builds (config, not state).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum CcConfig {
    /// A loss-based controller (NewReno, CUBIC).
    Loss(CcKind),
    /// XCP's feedback-driven window over a loss-based reaction, asking for `desired_bps`.
    Xcp {
        /// The reaction to loss.
        loss: CcKind,
        /// The rate the sender asks the routers for, bit/s.
        desired_bps: f64,
    },
    /// R-TCP: RCP's rate x RTT as the window, paced at the rate.
    Rtcp(RtcpConfig),
    /// DCTCP: NewReno's growth, the window cut by alpha on ECN marks.
    Dctcp(DctcpConfig),
    /// pFabric's minimal window, never above `max_cwnd` bytes (its first window, one BDP).
    PFabric {
        /// The ceiling, bytes.
        max_cwnd: u64,
    },
    /// HPCC's window and pacing from the ports' telemetry.
    Hpcc(HpccConfig),
    /// A host law plug-in (`crate::plugin`).
    Plugin(HostPlugin),
}

impl Default for CcConfig {
    /// NewReno, TCP's standard window.
    fn default() -> CcConfig {
        CcConfig::Loss(CcKind::NewReno)
    }
}

impl CcConfig {
    /// True if the segments of this controller's flows carry the bytes their flow has left
    /// ([`HeaderCtx::remaining`], which the connection then keeps): pFabric's priority.
    pub fn stamps_remaining(&self) -> bool {
        matches!(self, CcConfig::PFabric { .. })
    }

    /// The flow table's `protocol` label of window flows under this controller, with `hook`
    /// beside the window: each protocol's folder says how it labels itself.
    pub fn label(&self, hook: Option<&HookConfig>, at: LabelCtx) -> String {
        match *self {
            CcConfig::Loss(kind) => match hook {
                Some(h) => h.label(kind, at),
                None => label::window_label("tcp", kind.name(), at),
            },
            CcConfig::Xcp { loss, .. } => xcp::label(loss.name(), at),
            CcConfig::Rtcp(_) => rtcp::label(),
            CcConfig::Dctcp(_) => dctcp::label(at),
            CcConfig::PFabric { .. } => pfabric::label(at),
            CcConfig::Hpcc(_) => hpcc::label(),
            CcConfig::Plugin(p) => format!("tcp-{}-iw{}", p.0.short_name(), at.iw).to_lowercase(),
        }
    }

    /// The loss-based controller underneath, if any (for labels).
    pub fn loss_kind(&self) -> Option<CcKind> {
        match *self {
            CcConfig::Loss(k) | CcConfig::Xcp { loss: k, .. } => Some(k),
            CcConfig::Rtcp(_)
            | CcConfig::Dctcp(_)
            | CcConfig::PFabric { .. }
            | CcConfig::Hpcc(_)
            | CcConfig::Plugin(_) => None,
        }
    }
}

/// A loss-based controller, statically dispatched (what XCP falls back on for losses).
#[derive(Clone, Debug)]
pub enum LossBased {
    /// NewReno.
    NewReno(NewReno),
    /// CUBIC.
    Cubic(Cubic),
}

impl LossBased {
    /// A fresh controller of the given kind, leaving slow start as `hystart` says.
    pub fn new(kind: CcKind, hystart: HyStartMode) -> LossBased {
        match kind {
            CcKind::NewReno => LossBased::NewReno(NewReno::new(hystart)),
            CcKind::Cubic => LossBased::Cubic(Cubic::new(hystart)),
        }
    }
}

macro_rules! each_loss {
    ($self:ident, $c:ident => $body:expr) => {
        match $self {
            LossBased::NewReno($c) => $body,
            LossBased::Cubic($c) => $body,
        }
    };
}

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

/// A connection's controller, statically dispatched.
#[derive(Debug)]
pub enum Controller {
    /// NewReno or CUBIC.
    Loss(LossBased),
    /// XCP.
    Xcp(Xcp),
    /// R-TCP.
    Rtcp(Rtcp),
    /// DCTCP.
    Dctcp(Dctcp),
    /// pFabric.
    PFabric(PFabric),
    /// HPCC.
    Hpcc(Hpcc),
    /// A host law plug-in.
    Plugin(PluginCc),
}

impl Controller {
    /// A fresh controller for a connection of `mss`-byte segments under `header` bytes of
    /// headers and a receive window of `rwnd` bytes; a loss-based one leaves slow start as
    /// `hystart` says; a plug-in's is made for flow `flow`.
    pub fn new(cfg: CcConfig, hystart: HyStartMode, mss: u32, header: u32, rwnd: u64, flow: u32) -> Controller {
        match cfg {
            CcConfig::Plugin(p) => Controller::Plugin(PluginCc::new(p, HostInit { flow, mss, header, rwnd })),
            CcConfig::Loss(kind) => Controller::Loss(LossBased::new(kind, hystart)),
            CcConfig::Xcp { loss, desired_bps } => Controller::Xcp(Xcp::new(loss, desired_bps)),
            CcConfig::Rtcp(r) => Controller::Rtcp(Rtcp::new(r, mss, header, rwnd)),
            CcConfig::Dctcp(d) => Controller::Dctcp(Dctcp::new(d, hystart)),
            CcConfig::PFabric { max_cwnd } => Controller::PFabric(PFabric::new(max_cwnd)),
            CcConfig::Hpcc(h) => Controller::Hpcc(Hpcc::new(h)),
        }
    }
}

macro_rules! each_cc {
    ($self:ident, $c:ident => $body:expr) => {
        match $self {
            Controller::Loss($c) => $body,
            Controller::Xcp($c) => $body,
            Controller::Rtcp($c) => $body,
            Controller::Dctcp($c) => $body,
            Controller::PFabric($c) => $body,
            Controller::Hpcc($c) => $body,
            Controller::Plugin($c) => $body,
        }
    };
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
    #[inline]
    fn header(&self, st: &CcState, ctx: HeaderCtx) -> CongestionHeader {
        if let Controller::Loss(_) | Controller::Dctcp(_) = self {
            return CongestionHeader::None; // NewReno, CUBIC and DCTCP send no header
        }
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

// ---------------------------------------------------------------------------------------------
// Rate host laws.

/// The rate of a rate-based sender on a path where no router gives one.
pub const UNLIMITED_RATE: Rate = Rate::from_gbps(10);

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

macro_rules! each_rate_law {
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
        each_rate_law!(self, l => l.initial_rate())
    }
    #[inline]
    fn header(&self, ctx: LawCtx) -> CongestionHeader {
        each_rate_law!(self, l => l.header(ctx))
    }
    #[inline]
    fn on_feedback(&mut self, now: Time, echo: CongestionHeader, srtt: Option<Time>) -> Option<f64> {
        each_rate_law!(self, l => l.on_feedback(now, echo, srtt))
    }
    fn path_has_routers(&self, echo: CongestionHeader) -> bool {
        each_rate_law!(self, l => l.path_has_routers(echo))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::law::{PortCtx, RouterLaw};
    use hpcc::HpccLaw;
    use jetmax::{JetMaxLaw, JetMaxParams};
    use piqi::{PiqiLaw, PiqiParams};
    use rcp::{RcpLaw, RcpParams};
    use xcp::{XcpLaw, XcpParams};

    #[test]
    fn names_and_folders_are_unique() {
        for (i, p) in PROTOCOLS.iter().enumerate() {
            assert!(PROTOCOLS[..i].iter().all(|q| q.name != p.name && q.folder != p.folder), "{}", p.name);
            assert_eq!(info(p.name), Some(p));
        }
        assert_eq!(info("bbr"), None);
    }

    /// The registry's metric names are what each router law emits, in order, and every
    /// explicit-feedback router is in the router-cost benchmark.
    #[test]
    fn the_registry_names_each_router_laws_metrics() {
        let ctx = PortCtx { router: 1, link: 0, capacity: Rate::from_gbps(1) };
        let laws = [
            ("rcp", Law::Rcp(RcpLaw::new(ctx.capacity, RcpParams::default()))),
            ("xcp", Law::Xcp(XcpLaw::new(XcpParams::default()))),
            ("jetmax", Law::JetMax(JetMaxLaw::new(JetMaxParams::default()))),
            ("piqi", Law::Piqi(PiqiLaw::new(ctx.capacity, PiqiParams::default()))),
            ("hpcc", Law::Hpcc(HpccLaw::new())),
        ];
        for (name, law) in laws {
            let mut names = Vec::new();
            law.metrics(&ctx, &mut |m, _| names.push(m.name()));
            assert_eq!(names, info(name).unwrap().metrics, "{name}");
            assert_eq!(law.metric_count(), names.len());
            assert!(ROUTER_COST_LAWS.iter().any(|&(_, n)| n == name), "{name} missing from the router-cost benchmark");
        }
    }
}
