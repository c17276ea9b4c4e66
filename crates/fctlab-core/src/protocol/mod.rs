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
//! | `cubic/` | CUBIC (RFC 9438), HyStart and HyStart++ (RFC 9406) | window host law, slow-start exit |
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
//! This file is the registry: [`PROTOCOLS`] describes each protocol (its scenario names,
//! header bytes, metrics and folder), and the closed lists below dispatch to each part
//! statically (a `match`, no virtual call on the hot path): [`Controller`] the window host
//! laws, [`RateLaw`] the rate host laws, [`Law`] the router laws; the table of `registry.rs`
//! generates [`Hook`], the loops beside the window (`hooks.rs`), and [`EcnEcho`], the
//! receivers' exact ECN echoes (`echo.rs`); `header.rs` holds
//! [`header_to_wire`] / [`header_from_wire`], the headers' wire encodings (over the words and
//! checks of `wire.rs`). Each config says what the layers below would otherwise ask a
//! protocol's name for: [`CcConfig::label`] and [`RateConfig::label`] the flow table's
//! `protocol` label (each window protocol's folder gives its own `label()`, over `label.rs`),
//! [`CcConfig::stamps_remaining`] whether segments carry their flow's remaining bytes. The
//! transport, the world and the plug-in host import these types, never a protocol's folder
//! (`tests/test_protocols_on_top.py`), and the interfaces the protocols implement import
//! nothing of the registry. `keys.rs` lists
//! each `protocol = "..."` with the struct of its keys, and `tcp.rs` holds `protocol = "tcp"`'s
//! (the loss-based window's `cc` and `hystart`). Adding a protocol is its folder, its arms
//! here and in `keys.rs`, its header variants (`net/packet.rs`) and its queue kind
//! (`scenario/queues.rs`); `docs/protocols.md` counts the files.

pub mod cubic;
pub mod dctcp;
pub mod echo;
pub mod header;
pub mod hooks;
pub mod hpcc;
pub mod jetmax;
pub mod keys;
pub mod label;
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

use crate::metrics::series::Metric;
use crate::net::packet::{CongestionHeader, Packet};
use crate::plugin::{HostInit, HostPlugin, PluginCc, PluginLaw};
use crate::qdisc::law::{PortCtx, RouterLaw};
use crate::transport::cc::{CcState, CongestionControl, EcnAck, Feedback, HeaderCtx, RttSample};
use crate::transport::paced::law::{LawCtx, RateControl};
use crate::units::{Rate, Time};
use cubic::Cubic;
pub use cubic::HyStartMode;
use dctcp::{Dctcp, DctcpConfig};
pub use echo::EcnEcho;
pub use header::{header_from_wire, header_to_wire};
pub use hooks::{Hook, HookConfig};
use hpcc::{Hpcc, HpccConfig, HpccLaw};
use jetmax::{JetMaxHost, JetMaxLaw};
pub use label::LabelCtx;
use newreno::NewReno;
use pfabric::PFabric;
use piqi::{PiqiHost, PiqiLaw};
use rcp::{FixedRate, RcpHost, RcpLaw};
use rtcp::{Rtcp, RtcpConfig};
pub use wire::Words;
use xcp::{Xcp, XcpLaw};

/// What the registry knows of a protocol.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ProtocolInfo {
    /// Its name, as `transport.protocol` or `transport.cc` spells it.
    pub name: &'static str,
    /// What it is, and where it comes from.
    pub title: &'static str,
    /// The scenario key that selects it on hosts (`transport.protocol = ...` or `transport.cc = ...`).
    pub host_key: &'static str,
    /// The queue kind of its router law (`queues.*.kind`), if it has one.
    pub queue: Option<&'static str>,
    /// Its congestion header's bytes on the wire, on top of TCP/IP's (0: none).
    pub header_bytes: u32,
    /// The series metrics its router law emits, in order.
    pub metrics: &'static [&'static str],
    /// Its folder under `crates/fctlab-core/src/protocol/`.
    pub folder: &'static str,
    /// The wire tags of its congestion header, forward and echo (empty: no header).
    pub wire_tags: &'static [u8],
}

/// Every protocol fctlab has.
pub const PROTOCOLS: [ProtocolInfo; 11] = [
    ProtocolInfo {
        name: "newreno",
        title: "TCP NewReno with SACK (RFC 5681, RFC 6582, RFC 6675)",
        host_key: "transport.cc",
        queue: None,
        header_bytes: 0,
        metrics: &[],
        folder: "newreno",
        wire_tags: &[],
    },
    ProtocolInfo {
        name: "cubic",
        title: "TCP CUBIC (RFC 9438) with HyStart (Linux) or HyStart++ (RFC 9406)",
        host_key: "transport.cc",
        queue: None,
        header_bytes: 0,
        metrics: &[],
        folder: "cubic",
        wire_tags: &[],
    },
    ProtocolInfo {
        name: "dctcp",
        title: "DCTCP, Data Center TCP (Alizadeh et al. 2010; RFC 8257)",
        host_key: "transport.cc",
        queue: Some("step"),
        header_bytes: 0,
        metrics: &[],
        folder: "dctcp",
        wire_tags: &[],
    },
    ProtocolInfo {
        name: "pfabric",
        title: "pFabric, minimal near-optimal datacenter transport (Alizadeh et al. 2013)",
        host_key: "transport.cc",
        queue: Some("pfabric"),
        header_bytes: 0,
        metrics: &[],
        folder: "pfabric",
        wire_tags: &[pfabric::header::TAG],
    },
    ProtocolInfo {
        name: "hpcc",
        title: "HPCC, high precision congestion control (Li et al. 2019)",
        host_key: "transport.protocol",
        queue: Some("hpcc"),
        header_bytes: HPCC_HEADER,
        metrics: &[],
        folder: "hpcc",
        wire_tags: &[hpcc::header::TAG, hpcc::header::TAG_ECHO],
    },
    ProtocolInfo {
        name: "rc3",
        title: "RC3, recursively cautious congestion control (the RC3 paper)",
        host_key: "transport.protocol",
        queue: Some("prio"),
        header_bytes: 0,
        metrics: &[],
        folder: "rc3",
        wire_tags: &[],
    },
    ProtocolInfo {
        name: "rcp",
        title: "RCP, the rate control protocol (Dukkipati's thesis)",
        host_key: "transport.protocol",
        queue: Some("rcp"),
        header_bytes: RCP_HEADER,
        metrics: rcp::router::METRICS,
        folder: "rcp",
        wire_tags: &[rcp::header::TAG, rcp::header::TAG_ECHO],
    },
    ProtocolInfo {
        name: "rtcp",
        title: "R-TCP, TCP with RCP's rate as its window (RCP thesis sec. 6.1.1)",
        host_key: "transport.protocol",
        queue: Some("rcp"),
        header_bytes: RCP_HEADER,
        metrics: &[],
        folder: "rtcp",
        wire_tags: &[rcp::header::TAG, rcp::header::TAG_ECHO],
    },
    ProtocolInfo {
        name: "xcp",
        title: "XCP, the explicit control protocol (Katabi et al. 2002; seed 003)",
        host_key: "transport.protocol",
        queue: Some("xcp"),
        header_bytes: XCP_HEADER,
        metrics: &[],
        folder: "xcp",
        wire_tags: &[xcp::header::TAG, xcp::header::TAG_ECHO],
    },
    ProtocolInfo {
        name: "jetmax",
        title: "JetMax (Zhang, Leonard, Loguinov; seed 003)",
        host_key: "transport.protocol",
        queue: Some("jetmax"),
        header_bytes: JETMAX_HEADER,
        metrics: jetmax::router::METRICS,
        folder: "jetmax",
        wire_tags: &[jetmax::header::TAG, jetmax::header::TAG_ECHO],
    },
    ProtocolInfo {
        name: "piqi",
        title: "PIQI-RCP (Jain and Loguinov, IWQoS 2007; seed 003)",
        host_key: "transport.protocol",
        queue: Some("piqi"),
        header_bytes: PIQI_HEADER,
        metrics: piqi::router::METRICS,
        folder: "piqi",
        wire_tags: &[piqi::header::TAG, piqi::header::TAG_ECHO],
    },
];

/// The protocol named `name`, if fctlab has it.
pub fn info(name: &str) -> Option<&'static ProtocolInfo> {
    PROTOCOLS.iter().find(|p| p.name == name)
}

/// Bytes of the RCP header (rate, reverse rate, RTT, protocol; thesis Fig. 6.2) on top of the
/// TCP/IP headers, for RCP and R-TCP.
pub const RCP_HEADER: u32 = 12;
/// Bytes of the XCP header (cwnd, RTT, feedback; seed 003) on top of the TCP/IP headers.
pub const XCP_HEADER: u32 = 20;
/// JetMax's congestion header (seed 003 sec. III-D: 32 bytes, the fields of both directions).
pub const JETMAX_HEADER: u32 = 32;
/// HPCC's telemetry header (sec. 4.1 and the authors' simulator: a 2-byte hop count and five
/// 8-byte records).
pub const HPCC_HEADER: u32 = 42;
/// PIQI-RCP's congestion header (seed 003 sec. III-E: 24 bytes, RCP's fields plus Interval
/// Number, Reverse Interval Number and ID).
pub const PIQI_HEADER: u32 = 24;

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

// ---------------------------------------------------------------------------------------------
// Router laws.

/// The router laws fctlab has, dispatched statically.
#[derive(Debug)]
pub enum Law {
    /// RCP: one fair rate per interval, stamped into forward packets.
    Rcp(RcpLaw),
    /// XCP: per-packet window feedback from efficiency and fairness controllers.
    Xcp(XcpLaw),
    /// JetMax: eq. 4's fair rate for the flows bottlenecked here, bottleneck selection.
    JetMax(JetMaxLaw),
    /// PIQI-RCP: eq. 6's PI rate on the virtual capacity, with interval numbers.
    Piqi(PiqiLaw),
    /// HPCC: a telemetry record per departing data packet.
    Hpcc(HpccLaw),
    /// A router law plug-in (`crate::plugin`).
    Plugin(PluginLaw),
}

macro_rules! each_law {
    ($self:ident, $l:ident => $body:expr) => {
        match $self {
            Law::Rcp($l) => $body,
            Law::Xcp($l) => $body,
            Law::JetMax($l) => $body,
            Law::Piqi($l) => $body,
            Law::Hpcc($l) => $body,
            Law::Plugin($l) => $body,
        }
    };
}

impl RouterLaw for Law {
    #[inline]
    fn on_arrival(&mut self, ctx: &PortCtx, now: Time, pkt: &Packet, queued_bytes_before: u64) {
        each_law!(self, l => l.on_arrival(ctx, now, pkt, queued_bytes_before))
    }
    #[inline]
    fn on_departure(&mut self, ctx: &PortCtx, now: Time, pkt: &mut Packet, queued_bytes_after: u64) {
        each_law!(self, l => l.on_departure(ctx, now, pkt, queued_bytes_after))
    }
    fn first_tick(&self) -> Option<Time> {
        each_law!(self, l => l.first_tick())
    }
    fn tick(&mut self, ctx: &PortCtx, now: Time, queued_bytes: u64) -> Option<Time> {
        each_law!(self, l => l.tick(ctx, now, queued_bytes))
    }
    fn metric_count(&self) -> usize {
        each_law!(self, l => l.metric_count())
    }
    fn metrics(&self, ctx: &PortCtx, out: &mut impl FnMut(Metric, f64)) {
        each_law!(self, l => l.metrics(ctx, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::JETMAX_NO_ROUTER;
    use crate::net::packet::{
        JetMaxEcho, JetMaxHeader, PFabricHeader, PiqiEcho, PiqiHeader, RcpEcho, RcpHeader, XcpEcho, XcpHeader,
    };
    use crate::qdisc::cost::LAWS;
    use crate::qdisc::law::{JetMaxParams, PiqiParams, RcpParams, XcpParams};

    #[test]
    fn names_and_folders_are_unique() {
        for (i, p) in PROTOCOLS.iter().enumerate() {
            assert!(PROTOCOLS[..i].iter().all(|q| q.name != p.name && q.folder != p.folder), "{}", p.name);
            assert_eq!(info(p.name), Some(p));
        }
        assert_eq!(info("bbr"), None);
    }

    /// Every header crosses the wire and comes back bit for bit, under a tag no other
    /// protocol uses.
    #[test]
    fn every_header_round_trips_through_its_wire_encoding() {
        let headers = [
            CongestionHeader::None,
            CongestionHeader::Rcp(RcpHeader { rate_kbps: u32::MAX, rtt_us: 20_000, age_kib: 5 }),
            CongestionHeader::RcpFeedback(RcpEcho { rate_kbps: 10_000 }),
            CongestionHeader::Xcp(XcpHeader { cwnd: 14600.0, rtt_us: 40_000, feedback: -3.5 }),
            CongestionHeader::XcpFeedback(XcpEcho { feedback: 12.25 }),
            CongestionHeader::JetMax(JetMaxHeader { rt: 4, rs: JETMAX_NO_ROUTER, rate: f32::INFINITY, ipi: 0.001 }),
            CongestionHeader::JetMaxFeedback(JetMaxEcho { rs: 2, rate: 1e7 }),
            CongestionHeader::Piqi(PiqiHeader { rate: f32::INFINITY, interval: 9, id: 3 }),
            CongestionHeader::PiqiFeedback(PiqiEcho { rate: 5e6, interval: 10, id: 4 }),
            CongestionHeader::PFabric(PFabricHeader { remaining: 123_456 }),
            CongestionHeader::Hpcc { nhop: 3, hops: Default::default() },
            CongestionHeader::HpccFeedback { nhop: 0, hops: Default::default() },
            CongestionHeader::Plugin { tag: 128, words: [u32::MAX, 0, 7] },
            CongestionHeader::Plugin { tag: 255, words: [1, 2, 3] },
        ];
        let mut tags = Vec::new();
        for h in headers {
            let (tag, w) = header_to_wire(h);
            assert!(!tags.contains(&tag), "tag {tag} used twice");
            tags.push(tag);
            assert_eq!(header_from_wire(tag, w), Ok(h));
        }
        assert_eq!(header_from_wire(12, [0; 3]), Err("cc_tag"));
        assert_eq!(header_from_wire(pfabric::header::TAG, [1, 2, 0]), Err("cc"));
        assert_eq!(header_from_wire(0, [0, 1, 0]), Err("cc"));
        assert_eq!(header_from_wire(xcp::header::TAG, [f32::NAN.to_bits(), 0, 0]), Err("cc.cwnd"));
        // Non-finite numbers are refused as NaN is, but where infinity means "no rate yet".
        for x in [f32::INFINITY, f32::NEG_INFINITY] {
            assert_eq!(header_from_wire(xcp::header::TAG, [x.to_bits(), 0, 0]), Err("cc.cwnd"));
            assert_eq!(header_from_wire(xcp::header::TAG, [0, 0, x.to_bits()]), Err("cc.feedback"));
            assert_eq!(header_from_wire(xcp::header::TAG_ECHO, [x.to_bits(), 0, 0]), Err("cc.feedback"));
            assert_eq!(header_from_wire(jetmax::header::TAG, [0, 0, x.to_bits()]), Err("cc.ipi"));
        }
        for tag in [jetmax::header::TAG, jetmax::header::TAG_ECHO] {
            assert_eq!(header_from_wire(tag, [0, f32::NEG_INFINITY.to_bits(), 0]), Err("cc.rate"));
            assert_eq!(header_from_wire(tag, [0, f32::NAN.to_bits(), 0]), Err("cc.rate"));
            assert!(header_from_wire(tag, [0, f32::INFINITY.to_bits(), 0]).is_ok(), "no rate yet");
        }
        for tag in [piqi::header::TAG, piqi::header::TAG_ECHO] {
            assert_eq!(header_from_wire(tag, [f32::NEG_INFINITY.to_bits(), 0, 0]), Err("cc.rate"));
            assert!(header_from_wire(tag, [f32::INFINITY.to_bits(), 0, 0]).is_ok(), "no rate yet");
        }
        assert_eq!(header_from_wire(rcp::header::TAG_ECHO, [1, 2, 0]), Err("cc"));
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
            assert!(
                LAWS.contains(&info(name).unwrap().queue.unwrap()),
                "{name} missing from the router-cost benchmark"
            );
        }
    }
}
