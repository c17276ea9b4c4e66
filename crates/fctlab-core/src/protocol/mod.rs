//! The protocol registry: every protocol fctlab has, one folder each, joined to the rest here.
//!
//! A protocol is at most three parts behind the project's interfaces, plus its scenario keys
//! and metric names:
//!
//! | part | interface | what it decides |
//! |---|---|---|
//! | host law, window | [`crate::transport::cc::CongestionControl`] | cwnd (and a pacing rate) from ACKs, RTT samples, losses, timeouts and the echoed header |
//! | host law, rate | [`crate::transport::paced::law::RateControl`] | the pacing rate from each ACK (its echoed header, ECE and RTT sample) and from a timer of the law's own |
//! | loop beside the window | [`crate::transport::tcp::hook::WindowHook`] | a second sending loop over the window's connection (RC3's low-priority loop) |
//! | ECN echo | [`crate::transport::ecn::EcnMode::Exact`], [`crate::transport::exact_echo::ExactEcho`] | the receiver's ECE from the CE of the data packets (DCTCP's: of the packets each ACK covers; DCQCN's: a CNP at most once per interval) |
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
//! | `swift/` | Swift (Kumar et al. 2020) | window and pacing host law (delay against a target); any queue |
//! | `dcqcn/` | DCQCN (Zhu et al. 2015) | rate host law (the RP), ECN echo (the NP's CNPs); any ECN marking queue |
//! | `timely/` | TIMELY (Mittal et al. 2015) | rate host law (per-ACK RTT samples); any queue |
//!
//! This file is the registry. Its table, `registry.rs` (`protocols!`, one row per protocol),
//! generates the closed lists that dispatch to each part statically (a `match`, no virtual
//! call on the hot path): [`CongestionHeader`] with its echo and wire encoding
//! ([`header_to_wire`] / [`header_from_wire`], `header.rs`), [`Law`] the router laws and
//! [`ProtocolQueue`] the protocols' own queue disciplines (`laws.rs`), [`PROTOCOLS`], what
//! each protocol is (`info.rs`), [`Hook`], the loops beside the window (`hooks.rs`),
//! [`EcnEcho`], the receivers' exact ECN echoes (`echo.rs`), and the host laws (`hosts.rs`):
//! [`CcKind`] and [`LossBased`], the loss-based windows, [`CcConfig`] and [`Controller`], the
//! window laws, [`RateConfig`] and [`RateLaw`], the rate laws. `keys.rs` lists each
//! `protocol = "..."` with the struct of its keys, and `tcp.rs` holds `protocol = "tcp"`'s
//! (the loss-based window's `cc` and `hystart`, and `ecn`); the other windows its `cc` chooses
//! (DCTCP, pFabric), their own keys and their `TcpConfig` are the table's `tcp_cc` column
//! (`tcp_cc.rs`, [`tcp_cc::CcKeys`] in the folder's `params.rs`).
//!
//! Each config says what the layers below would otherwise ask a protocol's name for, through
//! the interface of `host.rs` that each protocol's config implements in its folder
//! ([`WindowConfig`] for a window law, [`RateLawConfig`] for a rate law): [`CcConfig::label`]
//! and [`RateConfig::label`] the flow table's `protocol` label (over `label.rs`),
//! [`CcConfig::stamps_remaining`] whether segments carry their flow's remaining bytes. The
//! layers below (`net`, `qdisc`, `capture`, `sched`, `routing`, `metrics`, `transport`,
//! `world`, `plugin`) use these types and never a protocol's folder
//! (`tests/test_protocols_on_top.py`), and the interfaces the protocols implement import
//! nothing of the registry.
//!
//! Adding a protocol: its folder (`<name>/`: `header.rs`, a leaf importing only `wire.rs`;
//! `router.rs`; `host.rs`, with its config implementing [`WindowConfig`] or [`RateLawConfig`];
//! `params.rs`; `kind.rs`, its queue kind's keys implementing [`crate::qdisc::KindKeys`]; a
//! `mod.rs` exporting what its row names), its row in `registry.rs`, and its `pub mod <name>;`
//! line below; `docs/protocols.md` has the steps, and a tutorial the test suite builds. The `pub mod` lines stay written by hand, not generated
//! from the table: rustfmt and rust-analyzer follow only written `mod` lines.

pub mod cubic;
pub mod dcqcn;
pub mod dctcp;
pub mod echo;
pub mod header;
pub mod hooks;
pub mod host;
pub mod hosts;
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
pub mod swift;
pub mod tcp;
pub mod tcp_cc;
pub mod timely;
pub mod wire;
pub mod xcp;

pub use cubic::HyStartMode;
pub use echo::EcnEcho;
pub use header::{
    header_extension, header_from_wire, header_to_wire, tag_has_extension, with_header_extension, CongestionHeader,
};
pub use hooks::{Hook, HookConfig};
pub use host::{RateLawConfig, WindowConfig, WindowCtx, UNLIMITED_RATE};
pub use hosts::{CcConfig, CcKind, Controller, LossBased, RateConfig, RateLaw};
pub use info::{info, ProtocolInfo, PROTOCOLS};
pub use label::LabelCtx;
pub use laws::{router_cost_port, Law, ProtocolQueue, ROUTER_COST_LAWS};
pub use wire::Words;
