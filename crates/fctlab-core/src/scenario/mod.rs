//! The scenario schema (one place) and the build from a validated spec to a runnable [`World`].
//!
//! Python turns the TOML file into JSON; this module parses it with serde (unknown fields are
//! errors) through `serde_path_to_error`, so every error names the field path, the value and
//! what was expected. Field-by-field documentation lives in `docs/scenario.md`.

use crate::error::{SpecError, SpecResult};
use crate::limits::{
    shown, Memory, BYTES_PER_FLOW, BYTES_PER_RLP_SEGMENT, BYTES_PER_ROUTE_ENTRY, BYTES_PER_SERIES_ROW,
    MAX_FLOW_SEGMENTS, MAX_HEADER, MAX_MSS,
};
use crate::metrics::{FlowRecord, SeriesRecorder};
use crate::net::link::Link;
use crate::net::link::{FifoSchedule, Port};
use crate::qdisc::{ExplicitQueue, Law, Limit, PortCtx, Prio, Qdisc, RcpLaw, RcpParams, RouterLaw, XcpLaw, XcpParams};
use crate::quantity::{BytesQ, RateQ, TimeQ};
use crate::rng::Rng;
use crate::routing::{flow_hash, Routes};
use crate::topology::{NodeKind, Topology, TopologySpec};
use crate::transport::app::LONG_LIVED_CHUNK;
use crate::transport::cc::{CcConfig, CcKind, RtcpConfig};
use crate::transport::paced::law::RateConfig;
use crate::transport::paced::PacedConfig;
use crate::transport::rc3::Rc3Config;
use crate::transport::tcp::TcpConfig;
use crate::units::{Rate, Time};
use crate::workload::{self, WorkloadCtx, WorkloadEntry};
use crate::world::{AppTemplate, FlowPlan, Profile, RunLimits, World};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

fn default_seed() -> u64 {
    1
}
fn yes() -> bool {
    true
}

/// A whole scenario: topology, queues, transports, workload, run limits, outputs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    /// Free-form name, copied into the results.
    #[serde(default)]
    pub name: Option<String>,
    /// Free-form description.
    #[serde(default)]
    pub description: Option<String>,
    /// Seed of every random stream of the run.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Flow arrivals happen in [0, duration).
    pub duration: TimeQ,
    /// Keep running after `duration` until every finite flow completes (default true).
    #[serde(default = "yes")]
    pub drain: bool,
    /// Hard stop (default: duration + 300 s).
    #[serde(default)]
    pub max_time: Option<TimeQ>,
    /// Flows starting before this are not `measured` (warm-up), default 0.
    #[serde(default)]
    pub measure_from: Option<TimeQ>,
    /// The network.
    pub topology: TopologySpec,
    /// Routing options.
    #[serde(default)]
    pub routing: RoutingSpec,
    /// Queue disciplines of router ports and host NICs.
    #[serde(default)]
    pub queues: QueuesSpec,
    /// The default transport of every flow.
    #[serde(default)]
    pub transport: TransportSpec,
    /// Named transports (each overrides fields of `transport`), chosen by `workload[i].transport`.
    #[serde(default)]
    pub transports: BTreeMap<String, TransportSpec>,
    /// Flow sources.
    #[serde(deserialize_with = "crate::spec_de::tagged_vec")]
    pub workload: Vec<WorkloadEntry>,
    /// Transports chosen by source host (flows of entries without their own `transport`).
    #[serde(default)]
    pub host_transport: Vec<HostTransportSpec>,
    /// Random loss on links.
    #[serde(default)]
    pub loss: Vec<LossSpec>,
    /// Optional outputs.
    #[serde(default)]
    pub output: OutputSpec,
}

/// Routing options.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoutingSpec {
    /// Spread flows over equal-cost paths by flow hash.
    #[serde(default)]
    pub ecmp: bool,
}

/// Queue disciplines: defaults for routers and hosts, and per-link overrides by name.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueuesSpec {
    /// Router output ports (default: drop-tail, 1000 packets).
    #[serde(default, deserialize_with = "crate::spec_de::tagged_opt")]
    pub router: Option<QueueSpec>,
    /// Host NICs (default: drop-tail, unlimited).
    #[serde(default, deserialize_with = "crate::spec_de::tagged_opt")]
    pub host: Option<QueueSpec>,
    /// Per-link overrides, keyed by link name ("bottleneck", "r0->r1", ...).
    #[serde(default, deserialize_with = "crate::spec_de::tagged_map")]
    pub links: BTreeMap<String, QueueSpec>,
    /// Fraction of routers (chosen by the seed) whose ports ignore priorities: a drop-tail
    /// FIFO of the same buffer that still forwards marked packets (partial deployment).
    #[serde(default)]
    pub routers_without_priorities: Option<f64>,
}

/// One queue discipline.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueSpec {
    /// FIFO dropping arrivals that do not fit; at most one of the limits (none: unlimited).
    Droptail {
        /// Limit in bytes (wire size).
        #[serde(default)]
        limit: Option<BytesQ>,
        /// Limit in packets.
        #[serde(default)]
        limit_packets: Option<u64>,
    },
    /// XCP's router: a drop-tail FIFO whose controllers write per-packet window feedback.
    Xcp {
        /// Limit in bytes (wire size).
        #[serde(default)]
        limit: Option<BytesQ>,
        /// Limit in packets.
        #[serde(default)]
        limit_packets: Option<u64>,
        /// Efficiency gain on spare bandwidth (default 0.4).
        #[serde(default)]
        alpha: Option<f64>,
        /// Efficiency gain on the persistent queue (default 0.226).
        #[serde(default)]
        beta: Option<f64>,
        /// Shuffling fraction (default 0.1).
        #[serde(default)]
        gamma: Option<f64>,
    },
    /// RCP's router: a drop-tail FIFO that computes the fair rate (eq. 3.3) and stamps it.
    Rcp {
        /// Limit in bytes (wire size).
        #[serde(default)]
        limit: Option<BytesQ>,
        /// Limit in packets.
        #[serde(default)]
        limit_packets: Option<u64>,
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
        /// Differential sharing: flows older than `threshold` bytes get `theta` x R.
        #[serde(default)]
        differential: Option<DifferentialSpec>,
    },
    /// Strict priority over `bands` bands (default 8, band 0 highest) sharing one buffer,
    /// pushing out the lowest band's tail when a higher-priority packet finds it full.
    Prio {
        /// Number of bands.
        #[serde(default)]
        bands: Option<usize>,
        /// Shared limit in bytes (wire size).
        #[serde(default)]
        limit: Option<BytesQ>,
        /// Shared limit in packets.
        #[serde(default)]
        limit_packets: Option<u64>,
    },
}

impl QueueSpec {
    fn limit(limit: &Option<BytesQ>, limit_packets: &Option<u64>) -> SpecResult<Limit> {
        Ok(match (limit, limit_packets) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new("limit", "give `limit` (bytes) or `limit_packets`, not both"))
            }
            (Some(b), None) => Limit::Bytes(b.0),
            (None, Some(p)) => Limit::Packets(*p),
            (None, None) => Limit::Bytes(u64::MAX / 4),
        })
    }

    /// The port `ctx` as this spec describes it; `ignore_priorities` turns a priority queue
    /// into a FIFO of the same buffer (a router without priority support).
    fn build(&self, ignore_priorities: bool, ctx: PortCtx) -> SpecResult<Port> {
        let rate = ctx.capacity;
        match self {
            QueueSpec::Xcp { limit, limit_packets, alpha, beta, gamma } => {
                let d = XcpParams::default();
                let p = XcpParams {
                    alpha: alpha.unwrap_or(d.alpha),
                    beta: beta.unwrap_or(d.beta),
                    gamma: gamma.unwrap_or(d.gamma),
                    ..d
                };
                p.validate()?;
                let law = Law::Xcp(XcpLaw::new(p));
                Ok(Port::Qdisc(Qdisc::Explicit(ExplicitQueue::new(ctx, Self::limit(limit, limit_packets)?, law))))
            }
            QueueSpec::Rcp {
                limit,
                limit_packets,
                alpha,
                beta,
                eta,
                interval,
                initial_rate,
                initial_rtt,
                differential,
            } => {
                let d = RcpParams::default();
                let p = RcpParams {
                    alpha: alpha.unwrap_or(d.alpha),
                    beta: beta.unwrap_or(d.beta),
                    eta: eta.unwrap_or(d.eta),
                    max_interval: interval.map_or(d.max_interval, |t| t.0),
                    initial_fraction: initial_rate.unwrap_or(d.initial_fraction),
                    initial_rtt: initial_rtt.map_or(d.initial_rtt, |t| t.0),
                    differential: differential.as_ref().map(|s| (s.threshold.0, s.theta)),
                    ..d
                };
                p.validate(rate)?;
                let law = Law::Rcp(RcpLaw::new(rate, p));
                Ok(Port::Qdisc(Qdisc::Explicit(ExplicitQueue::new(ctx, Self::limit(limit, limit_packets)?, law))))
            }
            QueueSpec::Droptail { limit, limit_packets } => {
                Ok(Port::Fifo(FifoSchedule::new(Self::limit(limit, limit_packets)?)))
            }
            QueueSpec::Prio { bands, limit, limit_packets } => {
                let lim = Self::limit(limit, limit_packets)?;
                if ignore_priorities {
                    return Ok(Port::Fifo(FifoSchedule::new(lim)));
                }
                let n = bands.unwrap_or(8);
                if !(1..=32).contains(&n) {
                    return Err(SpecError::new("bands", format!("expected 1 to 32 bands, got {n}")));
                }
                Ok(Port::Qdisc(Qdisc::Prio(Prio::new(n, lim))))
            }
        }
    }
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

/// Transport protocols.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// TCP with SACK.
    #[default]
    Tcp,
    /// RC3: TCP plus the recursive low-priority loop.
    Rc3,
    /// RCP: paced at the rate routers stamp (needs `rcp` queues on the path).
    Rcp,
    /// XCP: window moved by the routers' feedback, no slow start (needs `xcp` queues).
    Xcp,
    /// R-TCP: TCP whose window is RCP's rate x RTT, paced at that rate (needs `rcp` queues).
    Rtcp,
}

/// Delayed-ACK settings.
#[derive(Copy, Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelayedAckSpec {
    /// ACK every `count` in-order segments.
    pub count: u32,
    /// Longest wait before an ACK.
    #[serde(default)]
    pub timeout: Option<TimeQ>,
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

/// A transport profile; every field is optional and falls back to `[transport]`, then to
/// the defaults (NewReno, IW 4, MSS 1460, 40-byte headers, RTO 1 s initial / 200 ms min).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportSpec {
    /// Protocol.
    #[serde(default)]
    pub protocol: Option<Protocol>,
    /// Congestion controller.
    #[serde(default)]
    pub cc: Option<CcKind>,
    /// Initial window, segments.
    #[serde(default)]
    pub iw: Option<u32>,
    /// Payload bytes per segment.
    #[serde(default)]
    pub mss: Option<BytesQ>,
    /// Header bytes per packet.
    #[serde(default)]
    pub header: Option<BytesQ>,
    /// Initial slow-start threshold (default unlimited).
    #[serde(default)]
    pub ssthresh: Option<BytesQ>,
    /// Receive window (default unlimited).
    #[serde(default)]
    pub rwnd: Option<BytesQ>,
    /// RTO before the first RTT sample.
    #[serde(default)]
    pub initial_rto: Option<TimeQ>,
    /// RTO floor.
    #[serde(default)]
    pub min_rto: Option<TimeQ>,
    /// RTO ceiling.
    #[serde(default)]
    pub max_rto: Option<TimeQ>,
    /// Delayed ACKs (default: an ACK for every segment).
    #[serde(default)]
    pub delayed_ack: Option<DelayedAckSpec>,
    /// Priority band of the flow's packets (0 = highest).
    #[serde(default)]
    pub priority: Option<u8>,
    /// RC3's low-priority buckets in segments from the tail (default [40, 400, 4000]: P1..P4).
    #[serde(default)]
    pub rc3_buckets: Option<Vec<u32>>,
    /// RCP: send every flow at this rate and ignore feedback (the thesis's fixed-rate study).
    #[serde(default)]
    pub fixed_rate: Option<RateQ>,
    /// Open with a SYN / SYN-ACK exchange (default true); false only for fixed-rate RCP.
    #[serde(default)]
    pub handshake: Option<bool>,
    /// Application model (default bulk).
    #[serde(default, deserialize_with = "crate::spec_de::tagged_opt")]
    pub app: Option<AppSpec>,
}

impl TransportSpec {
    /// `self` with every unset field taken from `base` (RC3's buckets only if the result is RC3).
    fn over(&self, base: &TransportSpec) -> TransportSpec {
        macro_rules! pick {
            ($($f:ident),*) => { TransportSpec { $($f: self.$f.clone().or_else(|| base.$f.clone()),)* } };
        }
        let mut t = pick!(
            protocol,
            cc,
            iw,
            mss,
            header,
            ssthresh,
            rwnd,
            initial_rto,
            min_rto,
            max_rto,
            delayed_ack,
            priority,
            rc3_buckets,
            fixed_rate,
            handshake,
            app
        );
        if t.protocol != Some(Protocol::Rc3) && self.rc3_buckets.is_none() {
            t.rc3_buckets = None;
        }
        t
    }

    fn build(&self) -> SpecResult<Profile> {
        let d = TcpConfig::default();
        let iw = self.iw.unwrap_or(d.iw);
        if iw == 0 {
            return Err(SpecError::new("iw", "expected an initial window >= 1 segment, got 0"));
        }
        let mss = self.mss.map_or(d.mss as u64, |b| b.0);
        if mss == 0 || mss > MAX_MSS {
            return Err(SpecError::new("mss", format!("expected 1 B <= mss <= 1 MiB, got {mss}")));
        }
        // Checked before it is narrowed to the packet's u32 (it used to wrap modulo 2^32).
        let header = match self.header {
            Some(BytesQ(h)) if h > MAX_HEADER => {
                return Err(SpecError::new("header", format!("expected a header <= {MAX_HEADER} B (64 KiB), got {h}")))
            }
            Some(BytesQ(h)) => Some(h as u32),
            None => None,
        };
        let (delack_count, delack_timeout) = match self.delayed_ack {
            Some(DelayedAckSpec { count, timeout }) => {
                if count == 0 {
                    return Err(SpecError::new("delayed_ack.count", "expected >= 1, got 0"));
                }
                (count, timeout.map_or(d.delack_timeout, |t| t.0))
            }
            None => (1, d.delack_timeout),
        };
        let mut cfg = TcpConfig {
            mss: mss as u32,
            header: header.unwrap_or(d.header),
            iw,
            initial_ssthresh: self.ssthresh.map_or(d.initial_ssthresh, |b| b.0),
            rwnd: self.rwnd.map_or(d.rwnd, |b| b.0),
            initial_rto: self.initial_rto.map_or(d.initial_rto, |t| t.0),
            min_rto: self.min_rto.map_or(d.min_rto, |t| t.0),
            max_rto: self.max_rto.map_or(d.max_rto, |t| t.0),
            delack_count,
            delack_timeout,
            dupthresh: d.dupthresh,
            cc: self.cc.map_or(d.cc, CcConfig::Loss),
            prio: self.priority.unwrap_or(0),
            rc3: None,
        };
        for (f, t) in [("initial_rto", cfg.initial_rto), ("min_rto", cfg.min_rto), ("max_rto", cfg.max_rto)] {
            if t == Time::ZERO {
                return Err(SpecError::new(f, "expected a duration > 0, got 0"));
            }
        }
        let app = match self.app {
            None | Some(AppSpec::Bulk {}) => None,
            Some(AppSpec::Scheduled { initial, chunk, interval }) => {
                if chunk.0 == 0 || interval.0 == Time::ZERO {
                    return Err(SpecError::new("app", "expected chunk > 0 and interval > 0"));
                }
                Some(AppTemplate::Scheduled { initial: initial.0, chunk: chunk.0, interval: interval.0 })
            }
        };
        let protocol = self.protocol.unwrap_or_default();
        if protocol == Protocol::Rc3 {
            let buckets = self.rc3_buckets.clone().unwrap_or_else(|| vec![40, 400, 4000]);
            let levels = buckets.len() + 1;
            cfg.rc3 = Some(Rc3Config::new(&buckets).ok_or_else(|| {
                SpecError::new("rc3_buckets", format!("expected at most 6 buckets, each >= 1 segment, got {buckets:?}"))
            })?);
            if cfg.prio as usize + levels > 31 {
                return Err(SpecError::new(
                    "priority",
                    format!("priority {} leaves no room for {levels} lower bands", cfg.prio),
                ));
            }
        } else if self.rc3_buckets.is_some() {
            return Err(SpecError::new("rc3_buckets", "only meaningful with protocol = \"rc3\""));
        }
        if protocol == Protocol::Rcp {
            // The RCP header (rate, reverse rate, RTT, protocol: 12 bytes, thesis Fig. 6.2)
            // travels on top of the TCP/IP headers unless `header` says otherwise.
            let header = header.unwrap_or(d.header + 12);
            let rx = TcpConfig { header, ..cfg };
            let handshake = self.handshake.unwrap_or(true);
            if !handshake && self.fixed_rate.is_none() {
                return Err(SpecError::new(
                    "handshake",
                    "expected true without fixed_rate, got false: an RCP sender learns its rate from the SYN-ACK",
                ));
            }
            let law = match self.fixed_rate {
                Some(r) => RateConfig::Fixed(r.0),
                None => RateConfig::Rcp { unlimited: Rate::from_gbps(10) },
            };
            let paced = PacedConfig {
                mss: cfg.mss,
                header,
                initial_rto: self.initial_rto.map_or(Time::from_ms(500), |t| t.0),
                min_rto: cfg.min_rto,
                law,
                handshake,
            };
            return Ok(Profile::Paced { cfg: paced, rx, app });
        }
        if self.fixed_rate.is_some() {
            return Err(SpecError::new("fixed_rate", "only meaningful with protocol = \"rcp\""));
        }
        if self.handshake == Some(false) {
            return Err(SpecError::new("handshake", "expected true, got false: only a fixed-rate RCP sender (protocol = \"rcp\" with fixed_rate) can skip it"));
        }
        if protocol == Protocol::Rtcp {
            // Its packets carry the 12-byte RCP header (thesis Fig. 6.2) on the TCP/IP headers.
            cfg.header = header.unwrap_or(d.header + 12);
            cfg.cc = CcConfig::Rtcp(RtcpConfig::default());
        }
        if protocol == Protocol::Xcp {
            // The XCP header (cwnd, RTT, feedback: 20 bytes in seed 003) rides on TCP/IP's;
            // a new flow starts from one segment unless `iw` says otherwise.
            cfg.header = header.unwrap_or(d.header + 20);
            cfg.iw = self.iw.unwrap_or(1);
            cfg.cc = CcConfig::Xcp { loss: self.cc.unwrap_or(CcKind::NewReno), desired_bps: 100e9 };
        }
        Ok(Profile::Tcp { cfg, app })
    }
}

/// Hosts whose flows use a named transport (e.g. half of the hosts of every router run RC3).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostTransportSpec {
    /// Named transport from `[transports]`.
    pub transport: String,
    /// Host names or group names; default: every host.
    #[serde(default)]
    pub hosts: Option<Vec<String>>,
    /// Fraction of those hosts, taken router by router (rounded), chosen by the seed.
    #[serde(default)]
    pub fraction: Option<f64>,
}

/// Picks `round(fraction * n)` of `items` with a seeded partial shuffle, in their order.
fn pick_fraction(items: &[usize], fraction: f64, rng: &mut Rng) -> Vec<usize> {
    let k = (fraction * items.len() as f64).round() as usize;
    let mut v = items.to_vec();
    for i in 0..k.min(v.len()) {
        let j = i + rng.below((v.len() - i) as u64) as usize;
        v.swap(i, j);
    }
    let mut chosen = v[..k.min(v.len())].to_vec();
    chosen.sort_unstable();
    chosen
}

/// Losses on one link: random, scripted, or both.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossSpec {
    /// Link name ("bottleneck", "r0->r1"), "*" for every link, or "hosts" for every host
    /// uplink (each packet crosses exactly one).
    pub link: String,
    /// Probability that a packet is lost, in [0, 1) (default 0).
    #[serde(default)]
    pub p: f64,
    /// Scripted drops of given data segments.
    #[serde(default)]
    pub drop: Vec<DropSpec>,
}

/// One scripted drop: the `transmission`-th time data segment `segment` of `flow` crosses
/// the link.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropSpec {
    /// Flow id (index in start order).
    pub flow: u32,
    /// Data segment, 1-based.
    pub segment: u64,
    /// Which crossing of that segment to drop (1 = the original transmission).
    #[serde(default = "one")]
    pub transmission: u32,
}

fn one() -> u32 {
    1
}

/// Optional outputs.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Time series.
    #[serde(default)]
    pub series: Option<SeriesSpec>,
}

/// Which series to sample.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeriesSpec {
    /// Sampling interval.
    pub interval: TimeQ,
    /// Links whose queue and throughput are sampled.
    #[serde(default)]
    pub links: Vec<String>,
    /// Flow ids whose cwnd is sampled.
    #[serde(default)]
    pub flows: Vec<u32>,
}

/// Names and labels the result tables need besides the world itself.
#[derive(Clone, Debug)]
pub struct RunInfo {
    /// Node names by node id.
    pub node_names: Vec<String>,
    /// Link names by link id.
    pub link_names: Vec<String>,
    /// Link delays by link id.
    pub link_delays: Vec<Time>,
    /// Protocol label of each profile: derived for the default transport ("tcp-newreno-iw4"),
    /// the name for named transports.
    pub profile_labels: Vec<String>,
    /// Label of each workload entry.
    pub workload_labels: Vec<String>,
    /// Start of the measurement window.
    pub measure_from: Time,
    /// Arrival window end.
    pub duration: Time,
    /// Scenario seed.
    pub seed: u64,
}

/// Parses a scenario from JSON; errors name the field path.
pub fn parse(json: &str) -> SpecResult<ScenarioSpec> {
    let de = &mut serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let (path, msg) = crate::spec_de::join_path(path, crate::spec_de::json_message(json, e.inner()));
        SpecError::new(path, msg)
    })
}

/// What the build needs of one flow to time it and bound its segments.
struct FlowShape {
    size: Option<u64>,
    start: Time,
    /// When a long-lived flow's writer stops.
    stop: Time,
    mss: u32,
    header: u32,
    handshake: bool,
}

impl FlowShape {
    /// The round-trip propagation delay of the flow's paths, its ideal FCT (the handshake's
    /// round trip if any, then the last byte's one-way trip after the bottleneck serialized
    /// every wire byte), and the most segments it can send. Errors, for the message after the
    /// flow's name: a sum beyond the clock, or more segments than a u32 index counts.
    fn timing(&self, topo: &Topology, fwd: &[u32], rev: &[u32]) -> Result<(Time, Time, u64), String> {
        let beyond_clock = "more than 2^64 ps (213 days), which the clock cannot hold";
        let rtt = fwd.iter().chain(rev).try_fold(0u64, |t, &l| t.checked_add(topo.links[l as usize].delay.ps()));
        let Some(rtt) = rtt else {
            return Err(format!("its paths' propagation delays add up to {beyond_clock}; expected shorter delays"));
        };
        let bottleneck = fwd.iter().map(|&l| topo.links[l as usize].rate).min().unwrap_or(Rate(1));
        let mss = self.mss as u64;
        let segment_limit = |segments: u64, what: String| {
            Err(format!(
                "{what} {segments} segments of {mss} B; expected at most {MAX_FLOW_SEGMENTS} (2^32 - 1) segments per \
                 flow, {} B at this mss",
                MAX_FLOW_SEGMENTS * mss
            ))
        };
        let Some(size) = self.size else {
            // A long-lived flow sends at most what its bottleneck carries until its writer stops.
            let segments = bottleneck.bytes_in(self.stop.saturating_sub(self.start)).div_ceil(mss);
            if segments > MAX_FLOW_SEGMENTS {
                return segment_limit(
                    segments,
                    format!("long-lived at up to {bottleneck} until {}, it can send", self.stop),
                );
            }
            return Ok((Time(rtt), Time::ZERO, segments));
        };
        let segments = size.div_ceil(mss);
        if segments > MAX_FLOW_SEGMENTS {
            return segment_limit(segments, format!("its {size} B are"));
        }
        let wire = size + segments * self.header as u64;
        let fixed = if self.handshake { rtt.checked_add(rtt / 2) } else { Some(rtt / 2) };
        let ideal = fixed.zip(bottleneck.checked_tx_time(wire)).and_then(|(a, b)| a.checked_add(b.ps()));
        let Some(ideal) = ideal else {
            return Err(format!(
                "its ideal FCT at the bottleneck's {bottleneck} is {beyond_clock}; expected a smaller flow"
            ));
        };
        Ok((Time(rtt), Time(ideal), segments))
    }
}

/// Finds a directed link by name: a topology's named link or "<from>-><to>".
pub fn resolve_link(topo: &Topology, name: &str) -> Option<usize> {
    topo.named.get(name).copied().or_else(|| topo.links.iter().position(|l| l.name == name))
}

fn unknown_link(field: &str, name: &str, topo: &Topology) -> SpecError {
    let mut known: Vec<&str> = topo.named.keys().map(|s| s.as_str()).collect();
    known.extend(topo.links.iter().take(6).map(|l| l.name.as_str()));
    SpecError::new(field, format!("unknown link \"{name}\"; known links include: {}", known.join(", ")))
}

/// Builds the world of a scenario given as JSON; file paths are relative to `base_dir`.
pub fn build(json: &str, base_dir: &Path) -> SpecResult<(World, RunInfo)> {
    let spec = parse(json)?;
    build_spec(&spec, base_dir)
}

/// Builds the world of a parsed scenario.
pub fn build_spec(spec: &ScenarioSpec, base_dir: &Path) -> SpecResult<(World, RunInfo)> {
    let seed = spec.seed;
    let duration = spec.duration.0;
    if duration == Time::ZERO {
        return Err(SpecError::new("duration", "expected a duration > 0, got 0"));
    }
    let topo = spec.topology.build(base_dir, seed).map_err(|e| e.within("topology"))?;
    topo.validate().map_err(|e| e.within("topology"))?;
    // Routing memory grows with destination groups x nodes: refuse before allocating.
    let mut routing_memory = Memory::new();
    let entries = Routes::table_entries(&topo);
    routing_memory.add("topology", format!("its routing tables ({entries} entries)"), entries, BYTES_PER_ROUTE_ENTRY);
    routing_memory.check()?;
    let routes = Routes::compute(&topo, spec.routing.ecmp);

    // Queues: per-link override, else the router or host default.
    let router_q = spec.queues.router.clone().unwrap_or(QueueSpec::Droptail { limit: None, limit_packets: Some(1000) });
    let host_q = spec.queues.host.clone().unwrap_or(QueueSpec::Droptail { limit: None, limit_packets: None });
    let mut link_q: Vec<Option<&QueueSpec>> = vec![None; topo.links.len()];
    for (name, q) in &spec.queues.links {
        let id = resolve_link(&topo, name).ok_or_else(|| unknown_link(&format!("queues.links.{name}"), name, &topo))?;
        link_q[id] = Some(q);
    }
    let mut plain_router = vec![false; topo.nodes.len()];
    if let Some(f) = spec.queues.routers_without_priorities {
        if !(0.0..=1.0).contains(&f) {
            return Err(SpecError::new(
                "queues.routers_without_priorities",
                format!("expected a fraction in [0, 1], got {f}"),
            ));
        }
        let routers: Vec<usize> = (0..topo.nodes.len()).filter(|&n| topo.nodes[n].kind == NodeKind::Router).collect();
        for r in pick_fraction(&routers, f, &mut Rng::stream(seed, "queues.routers_without_priorities")) {
            plain_router[r] = true;
        }
    }
    let mut links = Vec::with_capacity(topo.links.len());
    for (id, ld) in topo.links.iter().enumerate() {
        let from_host = topo.nodes[ld.from].kind == NodeKind::Host;
        let (q, field) = match link_q[id] {
            Some(q) => (q, format!("queues.links.{}", ld.name)),
            None if from_host => (&host_q, "queues.host".to_string()),
            None => (&router_q, "queues.router".to_string()),
        };
        let ctx = PortCtx { router: ld.from as u32, link: id as u32, capacity: ld.rate };
        let qd = q.build(plain_router[ld.from], ctx).map_err(|e| e.within(&field))?;
        links.push(Link::new(ld.from as u32, ld.to as u32, ld.rate, ld.delay, qd));
    }
    // Transport profiles: the default, then the named ones.
    let mut profiles = vec![spec.transport.build().map_err(|e| e.within("transport"))?];
    let mut profile_labels = vec![profiles[0].label()];
    let mut profile_ix: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, t) in &spec.transports {
        profile_ix.insert(name, profiles.len());
        profiles.push(t.over(&spec.transport).build().map_err(|e| e.within(&format!("transports.{name}")))?);
        profile_labels.push(name.clone());
    }

    // Workload.
    if spec.workload.is_empty() {
        return Err(SpecError::new("workload", "expected at least one workload entry, got none"));
    }
    let node_names: Vec<String> = topo.nodes.iter().map(|n| n.name.clone()).collect();
    let hosts = topo.hosts();
    let attach = topo.attach();
    let access = topo.access_rate();
    let mut link_rates = BTreeMap::new();
    for (name, &id) in &topo.named {
        link_rates.insert(name.clone(), topo.links[id].rate);
    }
    for l in &topo.links {
        link_rates.insert(l.name.clone(), l.rate);
    }
    let default_pairs = topo.default_pairs.as_ref().map(|(a, b)| (a.as_str(), b.as_str()));
    let ctx = WorkloadCtx {
        node_names: &node_names,
        hosts: &hosts,
        attach: &attach,
        access_rate: &access,
        groups: &topo.groups,
        link_rates: &link_rates,
        default_pairs,
        duration,
        seed,
        base_dir,
    };
    let arrivals = workload::generate(&spec.workload, &ctx)?;
    let mut entry_profile = Vec::with_capacity(spec.workload.len());
    for (i, w) in spec.workload.iter().enumerate() {
        entry_profile.push(match w.transport() {
            None => 0,
            Some(name) => *profile_ix.get(name).ok_or_else(|| {
                let known: Vec<&str> = profile_ix.keys().copied().collect();
                SpecError::new(
                    format!("workload[{i}].transport"),
                    format!("unknown transport \"{name}\"; defined in [transports]: [{}]", known.join(", ")),
                )
            })?,
        });
    }
    let transport_index = |name: &str, field: String| -> SpecResult<usize> {
        profile_ix.get(name).copied().ok_or_else(|| {
            let known: Vec<&str> = profile_ix.keys().copied().collect();
            SpecError::new(
                field,
                format!("unknown transport \"{name}\"; defined in [transports]: [{}]", known.join(", ")),
            )
        })
    };
    let mut mixes: Vec<Vec<(usize, f64)>> = Vec::with_capacity(spec.workload.len());
    for (i, w) in spec.workload.iter().enumerate() {
        let mut mix = Vec::new();
        let mut total = 0.0;
        for (k, m) in w.mix().iter().enumerate() {
            let field = format!("workload[{i}].mix[{k}]");
            if !(m.fraction > 0.0 && m.fraction <= 1.0) {
                return Err(SpecError::new(
                    format!("{field}.fraction"),
                    format!("expected 0 < fraction <= 1, got {}", m.fraction),
                ));
            }
            total += m.fraction;
            mix.push((transport_index(&m.transport, format!("{field}.transport"))?, total));
        }
        if total > 1.0 + 1e-9 {
            return Err(SpecError::new(
                format!("workload[{i}].mix"),
                format!("fractions add up to {total}, more than 1"),
            ));
        }
        mixes.push(mix);
    }
    let mut host_profile: Vec<Option<usize>> = vec![None; topo.nodes.len()];
    for (i, h) in spec.host_transport.iter().enumerate() {
        let field = format!("host_transport[{i}]");
        let profile = transport_index(&h.transport, format!("{field}.transport"))?;
        let mut members: Vec<usize> = match &h.hosts {
            None => hosts.clone(),
            Some(names) => {
                let mut v = Vec::new();
                for (k, name) in names.iter().enumerate() {
                    match (topo.groups.get(name), topo.node_by_name(name)) {
                        (Some(g), _) => v.extend(g.iter().copied()),
                        (None, Some(n)) if topo.nodes[n].kind == NodeKind::Host => v.push(n),
                        _ => {
                            return Err(SpecError::new(
                                format!("{field}.hosts[{k}]"),
                                format!("\"{name}\" is neither a host nor a host group"),
                            ))
                        }
                    }
                }
                v
            }
        };
        members.sort_unstable();
        members.dedup();
        let fraction = h.fraction.unwrap_or(1.0);
        if !(0.0..=1.0).contains(&fraction) {
            return Err(SpecError::new(
                format!("{field}.fraction"),
                format!("expected a fraction in [0, 1], got {fraction}"),
            ));
        }
        let mut rng = Rng::stream(seed, &format!("host_transport{i}"));
        let mut routers: Vec<usize> = members.iter().map(|&m| attach[m]).collect();
        routers.sort_unstable();
        routers.dedup();
        for r in routers {
            let on_r: Vec<usize> = members.iter().copied().filter(|&m| attach[m] == r).collect();
            for m in pick_fraction(&on_r, fraction, &mut rng) {
                host_profile[m] = Some(profile);
            }
        }
    }
    let mut mix_rngs: Vec<Rng> =
        (0..spec.workload.len()).map(|i| Rng::stream(seed, &format!("workload{i}.mix"))).collect();
    let workload_labels: Vec<String> = spec
        .workload
        .iter()
        .enumerate()
        .map(|(i, w)| w.label().map_or_else(|| format!("w{i}"), |s| s.to_string()))
        .collect();

    // Memory that grows with user numbers, estimated before it is allocated (crate::limits).
    let mut memory = Memory::new();
    let mut per_entry = vec![0u64; spec.workload.len()];
    for a in &arrivals {
        per_entry[a.entry] += 1;
    }
    for (i, &n) in per_entry.iter().enumerate() {
        memory.add(format!("workload[{i}]"), format!("its {n} flows"), n, BYTES_PER_FLOW);
    }
    memory.check()?;
    let mut largest_rlp_burst = (0u64, 0usize, 0usize, false);

    let mut plans = Vec::with_capacity(arrivals.len());
    let mut records = Vec::with_capacity(arrivals.len());
    for (f, a) in arrivals.iter().enumerate() {
        if !routes.reachable(a.src, a.dst) || !routes.reachable(a.dst, a.src) {
            return Err(SpecError::new(
                format!("workload[{}]", a.entry),
                format!("no route between hosts \"{}\" and \"{}\"", node_names[a.src], node_names[a.dst]),
            ));
        }
        let mut profile = match (spec.workload[a.entry].transport(), host_profile[a.src]) {
            (None, Some(p)) => p,
            _ => entry_profile[a.entry],
        };
        if !mixes[a.entry].is_empty() {
            let u = mix_rngs[a.entry].uniform();
            if let Some(&(p, _)) = mixes[a.entry].iter().find(|&&(_, edge)| u < edge) {
                profile = p;
            }
        }
        let hash = flow_hash(f as u64, seed);
        let fwd = routes.path(a.src, a.dst, hash);
        let rev = routes.path(a.dst, a.src, hash);
        let (mss, header, handshake, rc3) = match &profiles[profile] {
            Profile::Tcp { cfg, .. } => (cfg.mss, cfg.header, true, cfg.rc3.is_some()),
            Profile::Paced { cfg, .. } => (cfg.mss, cfg.header, cfg.handshake, false),
        };
        let flow = FlowShape { size: a.size, start: a.start, stop: a.stop.unwrap_or(duration), mss, header, handshake };
        let (rtt_prop, ideal, segments) = flow.timing(&topo, &fwd, &rev).map_err(|m| {
            SpecError::new(
                format!("workload[{}]", a.entry),
                format!("flow {f} from \"{}\" to \"{}\": {m}", node_names[a.src], node_names[a.dst]),
            )
        })?;
        // RC3's low-priority loop queues every segment of a write at once (rc3.rs), a
        // long-lived writer's one endless write included.
        let burst = if a.size.is_some() { segments } else { LONG_LIVED_CHUNK.div_ceil(mss as u64) };
        if rc3 && burst > largest_rlp_burst.0 {
            largest_rlp_burst = (burst.min(MAX_FLOW_SEGMENTS), f, a.entry, a.size.is_none());
        }
        plans.push(FlowPlan {
            start: a.start,
            src: a.src,
            dst: a.dst,
            size: a.size,
            stop: a.stop,
            profile,
            workload: a.entry,
        });
        records.push(FlowRecord {
            src: a.src,
            dst: a.dst,
            size: a.size,
            start: a.start,
            finish: None,
            stopped: false,
            rtt_prop,
            ideal,
            first_write: None,
            delivered: 0,
            retx_bytes: 0,
            timeouts: 0,
            profile,
            workload: a.entry,
            path: fwd,
        });
    }

    for (i, ls) in spec.loss.iter().enumerate() {
        let field = format!("loss[{i}]");
        if !(0.0..1.0).contains(&ls.p) {
            return Err(SpecError::new(format!("{field}.p"), format!("expected 0 <= p < 1, got {}", ls.p)));
        }
        let ids: Vec<usize> = if ls.link == "*" {
            (0..links.len()).collect()
        } else if ls.link == "hosts" {
            // Every host uplink: each packet crosses exactly one of them.
            (0..links.len()).filter(|&i| topo.nodes[topo.links[i].from].kind == NodeKind::Host).collect()
        } else {
            vec![resolve_link(&topo, &ls.link).ok_or_else(|| unknown_link(&format!("{field}.link"), &ls.link, &topo))?]
        };
        for (k, d) in ls.drop.iter().enumerate() {
            let dfield = format!("{field}.drop[{k}]");
            let Some(plan) = plans.get(d.flow as usize) else {
                return Err(SpecError::new(
                    format!("{dfield}.flow"),
                    format!("no flow {}: the workload has {} flows", d.flow, plans.len()),
                ));
            };
            if d.segment == 0 || d.transmission == 0 {
                return Err(SpecError::new(dfield, "expected segment >= 1 and transmission >= 1 (both count from 1)"));
            }
            // Its byte offset, (segment - 1) x mss, must not wrap.
            if d.segment > MAX_FLOW_SEGMENTS {
                return Err(SpecError::new(
                    format!("{dfield}.segment"),
                    format!("expected a segment <= {MAX_FLOW_SEGMENTS} (2^32 - 1), got {}", d.segment),
                ));
            }
            let mss = match &profiles[plan.profile] {
                Profile::Tcp { cfg, .. } => cfg.mss,
                Profile::Paced { cfg, .. } => cfg.mss,
            };
            let seq = (d.segment - 1) * mss as u64;
            for &id in &ids {
                links[id].add_scripted_drop(d.flow, seq, d.transmission);
            }
        }
        if ls.p > 0.0 {
            for &id in &ids {
                links[id].set_random_loss(ls.p, Rng::stream(seed, &format!("loss.link{id}")));
            }
        }
    }

    let max_time = spec.max_time.map_or(duration + Time::from_secs(300), |t| t.0);
    if max_time < duration {
        return Err(SpecError::new("max_time", format!("expected max_time >= duration ({duration}), got {max_time}")));
    }
    let (burst, f, entry, long_lived) = largest_rlp_burst;
    let write = if long_lived { "its long-lived writer's one write, " } else { "" };
    memory.add(
        format!("workload[{entry}]"),
        format!("RC3 flow {f}'s {burst} segments ({write}queued at once by its low-priority loop)"),
        burst,
        BYTES_PER_RLP_SEGMENT,
    );
    let series = match &spec.output.series {
        None => SeriesRecorder::none(),
        Some(s) => {
            if s.interval.0 == Time::ZERO {
                return Err(SpecError::new("output.series.interval", "expected a duration > 0, got 0"));
            }
            let mut ls = Vec::new();
            // Rows per sample: queue, throughput and active flows of each link, R and d of an
            // RCP port, one cwnd per flow (series.rs).
            let mut rows_per_sample = s.flows.len() as u64;
            for (i, name) in s.links.iter().enumerate() {
                let id = resolve_link(&topo, name)
                    .ok_or_else(|| unknown_link(&format!("output.series.links[{i}]"), name, &topo))?;
                ls.push((id as u32, name.clone()));
                rows_per_sample += 3 + links[id].law().map_or(0, |l| l.metric_count() as u64);
            }
            let samples = max_time.ps() / s.interval.0.ps();
            memory.add(
                "output.series.interval",
                format!(
                    "{:.3e} series rows ({rows_per_sample} per sample, one every {} s until max_time = {} s)",
                    samples as f64 * rows_per_sample as f64,
                    shown(s.interval.0.as_secs_f64()),
                    shown(max_time.as_secs_f64())
                ),
                samples.saturating_mul(rows_per_sample),
                BYTES_PER_SERIES_ROW,
            );
            for (i, &f) in s.flows.iter().enumerate() {
                if f as usize >= plans.len() {
                    return Err(SpecError::new(
                        format!("output.series.flows[{i}]"),
                        format!("no flow {f}: the workload has {} flows", plans.len()),
                    ));
                }
            }
            SeriesRecorder::new(s.interval.0, ls, s.flows.clone())
        }
    };

    memory.check()?;
    let info = RunInfo {
        link_names: topo.links.iter().map(|l| l.name.clone()).collect(),
        link_delays: topo.links.iter().map(|l| l.delay).collect(),
        node_names,
        profile_labels,
        workload_labels,
        measure_from: spec.measure_from.map_or(Time::ZERO, |t| t.0),
        duration,
        seed,
    };
    let is_host = topo.nodes.iter().map(|n| n.kind == NodeKind::Host).collect();
    let limits = RunLimits { duration, drain: spec.drain, max_time };
    let world = World::new(links, is_host, routes, profiles, plans, records, limits, seed, series);
    Ok((world, info))
}
