//! Queue disciplines: the `[queues]` schema, each kind's port, and the build step that gives
//! every link its port (per-link overrides, routers without priorities).

use super::names::{resolve_link, unknown_link};
use super::transports::pick_fraction;
use crate::error::{SpecError, SpecResult};
use crate::net::link::{FifoSchedule, Link, Port};
use crate::net::packet::JETMAX_NO_ROUTER;
use crate::qdisc::{
    Classify, CoexistMode, Drr, ExplicitQueue, JetMaxLaw, JetMaxParams, Law, Limit, PiqiLaw, PiqiParams, PortCtx, Prio,
    Qdisc, RcpLaw, RcpParams, RcpTcpParams, RcpTcpQueue, RcpVariant, TcRule, XcpLaw, XcpParams,
};
use crate::quantity::{BytesQ, TimeQ};
use crate::rng::Rng;
use crate::topology::{NodeKind, Topology};
use serde::Deserialize;
use std::collections::BTreeMap;

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
    /// JetMax's router (seed 003 eq. 4): a drop-tail FIFO that offers each flow its fair
    /// rate and names the path's bottleneck.
    Jetmax {
        /// Limit in bytes (wire size).
        #[serde(default)]
        limit: Option<BytesQ>,
        /// Limit in packets.
        #[serde(default)]
        limit_packets: Option<u64>,
        /// Desired utilization gamma (default 0.98).
        #[serde(default)]
        gamma: Option<f64>,
        /// Control interval (default 100 ms).
        #[serde(default)]
        interval: Option<TimeQ>,
    },
    /// PIQI-RCP's router (seed 003 eq. 6): a drop-tail FIFO whose PI controller stamps one
    /// rate and its interval number.
    Piqi {
        /// Limit in bytes (wire size).
        #[serde(default)]
        limit: Option<BytesQ>,
        /// Limit in packets.
        #[serde(default)]
        limit_packets: Option<u64>,
        /// Virtual capacity as a fraction of C (default 0.95).
        #[serde(default)]
        gamma: Option<f64>,
        /// Control interval (default 10 ms).
        #[serde(default)]
        interval: Option<TimeQ>,
        /// Gain on the current error (default 0.5).
        #[serde(default)]
        kappa1: Option<f64>,
        /// Gain on the previous error (default -0.25).
        #[serde(default)]
        kappa2: Option<f64>,
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
        /// Whose router: `"thesis"` (default), `"seed003"` (fixed interval, d averaged the
        /// same way up and down), `"appendix-f"`, `"unknown-rate"` (eq. 6.2) or `"fixed-gain"` (the
        /// original per-packet RTT average).
        #[serde(default)]
        variant: Option<RcpVariantSpec>,
        /// Eq. 6.2's theta (`variant = "unknown-rate"` only; default 1).
        #[serde(default)]
        theta: Option<f64>,
    },
    /// RCP sharing the port with TCP by the RCP thesis's coexistence scheme (sec. 6.2.1):
    /// RCP and TCP queues served by WFQ with adaptive weights, RCP's law on C_R(t)
    /// (`protocol/rcp/coexist.rs`).
    #[serde(rename = "rcp-tcp")]
    RcpTcp {
        /// Limit in bytes (wire size): each queue's in two-queue mode, the shared one's in
        /// single-queue mode.
        #[serde(default)]
        limit: Option<BytesQ>,
        /// Limit in packets (as `limit`).
        #[serde(default)]
        limit_packets: Option<u64>,
        /// RCP's gain on spare capacity (default 0.1).
        #[serde(default)]
        alpha: Option<f64>,
        /// RCP's gain on its queue (default 1.0).
        #[serde(default)]
        beta: Option<f64>,
        /// RCP's target utilization of C_R (default 1.0).
        #[serde(default)]
        eta: Option<f64>,
        /// RCP's longest control interval (default 10 ms).
        #[serde(default)]
        interval: Option<TimeQ>,
        /// RCP's initial rate as a fraction of the link rate (default 0.05).
        #[serde(default)]
        initial_rate: Option<f64>,
        /// RCP's initial average RTT d (default 0.2 s).
        #[serde(default)]
        initial_rtt: Option<TimeQ>,
        /// Smoothing of the weight update, 0 < theta < 1 (default 0.1).
        #[serde(default)]
        theta: Option<f64>,
        /// Control update period T_c (default 500 ms).
        #[serde(default)]
        tc: Option<TimeQ>,
        /// Entries of each class's zombie list (default 1000).
        #[serde(default)]
        zombie_size: Option<usize>,
        /// Probability that a miss overwrites an entry of a full zombie list (default 0.25).
        #[serde(default)]
        zombie_overwrite: Option<f64>,
        /// w_R before the first update, in [0.01, 0.99] (default 0.5).
        #[serde(default)]
        initial_weight: Option<f64>,
        /// `"two-queue"` (default: WFQ over an RCP and a TCP queue) or `"single-queue"` (one
        /// FIFO, the weights only set C_R).
        #[serde(default)]
        mode: Option<CoexistModeSpec>,
        /// `"tc-star"` (default: the weights move only once T_c* has passed since they last
        /// moved) or `"fixed"` (every `tc`).
        #[serde(default)]
        tc_rule: Option<TcRuleSpec>,
    },
    /// Deficit round robin: weighted fair queuing over classes sharing one buffer.
    Drr {
        /// One weight per class, each > 0 (2 to 32 classes).
        weights: Vec<f64>,
        /// How packets are sorted into classes: `"priority"` (default; class = the packet's
        /// priority mark) or `"header"` (class 0: explicit-feedback packets, 1: the rest).
        #[serde(default)]
        classify: Option<ClassifySpec>,
        /// Shared limit in bytes (wire size).
        #[serde(default)]
        limit: Option<BytesQ>,
        /// Shared limit in packets.
        #[serde(default)]
        limit_packets: Option<u64>,
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

/// How a `drr` queue sorts packets into classes.
#[derive(Copy, Clone, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClassifySpec {
    /// By priority mark.
    Priority,
    /// Explicit-feedback header or not.
    Header,
}

/// How an `rcp-tcp` queue holds its two classes.
#[derive(Copy, Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CoexistModeSpec {
    /// An RCP and a TCP queue served by WFQ.
    TwoQueue,
    /// One shared FIFO.
    SingleQueue,
}

/// When an `rcp-tcp` queue's weights may move.
#[derive(Copy, Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TcRuleSpec {
    /// Every T_c.
    Fixed,
    /// Not before T_c* has passed.
    TcStar,
}

/// Which description of the RCP router a port follows.
#[derive(Copy, Clone, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RcpVariantSpec {
    /// The RCP thesis.
    Thesis,
    /// Seed 003's router.
    Seed003,
    /// The thesis's Appendix F specification.
    #[serde(rename = "appendix-f")]
    AppendixF,
    /// The thesis's original fixed-gain per-packet RTT average (sec. 3.5, 5.3).
    #[serde(rename = "fixed-gain")]
    FixedGain,
    /// Eq. 6.2: a link of unknown or varying rate.
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
    fn build(&self, ignore_priorities: bool, ctx: PortCtx, seed: u64) -> SpecResult<Port> {
        match self {
            QueueSpec::RcpTcp {
                limit,
                limit_packets,
                theta,
                tc,
                zombie_size,
                zombie_overwrite,
                initial_weight,
                mode,
                tc_rule,
                ..
            } => {
                let d = RcpTcpParams::default();
                let p = RcpTcpParams {
                    rcp: self.rcp_params(),
                    theta: theta.unwrap_or(d.theta),
                    tc: tc.map_or(d.tc, |t| t.0),
                    zombie_size: zombie_size.unwrap_or(d.zombie_size),
                    zombie_overwrite: zombie_overwrite.unwrap_or(d.zombie_overwrite),
                    initial_weight: initial_weight.unwrap_or(d.initial_weight),
                    mode: match mode {
                        None | Some(CoexistModeSpec::TwoQueue) => CoexistMode::TwoQueue,
                        Some(CoexistModeSpec::SingleQueue) => CoexistMode::SingleQueue,
                    },
                    tc_rule: match tc_rule {
                        None | Some(TcRuleSpec::TcStar) => TcRule::AtLeastTcStar,
                        Some(TcRuleSpec::Fixed) => TcRule::Fixed,
                    },
                };
                p.validate(ctx.capacity)?;
                let rng = Rng::stream(seed, &format!("queues.rcp-tcp.link{}", ctx.link));
                let q = RcpTcpQueue::new(ctx, Self::limit(limit, limit_packets)?, p, rng);
                Ok(Port::Qdisc(Qdisc::RcpTcp(Box::new(q))))
            }
            QueueSpec::Xcp { limit, limit_packets, alpha, beta, gamma } => {
                let d = XcpParams::default();
                let p = XcpParams {
                    alpha: alpha.unwrap_or(d.alpha),
                    beta: beta.unwrap_or(d.beta),
                    gamma: gamma.unwrap_or(d.gamma),
                    ..d
                };
                p.validate()?;
                Ok(explicit(ctx, Self::limit(limit, limit_packets)?, Law::Xcp(XcpLaw::new(p))))
            }
            QueueSpec::Rcp { limit, limit_packets, variant, theta, .. } => {
                if theta.is_some() && !matches!(variant, Some(RcpVariantSpec::UnknownRate)) {
                    return Err(SpecError::new("theta", "only meaningful with variant = \"unknown-rate\" (eq. 6.2)"));
                }
                let p = self.rcp_params();
                p.validate(ctx.capacity)?;
                Ok(explicit(ctx, Self::limit(limit, limit_packets)?, Law::Rcp(RcpLaw::new(ctx.capacity, p))))
            }
            QueueSpec::Jetmax { limit, limit_packets, gamma, interval } => {
                let d = JetMaxParams::default();
                let p =
                    JetMaxParams { gamma: gamma.unwrap_or(d.gamma), interval: interval.map_or(d.interval, |t| t.0) };
                p.validate()?;
                if ctx.router >= JETMAX_NO_ROUTER as u32 {
                    return Err(SpecError::new(
                        "kind",
                        format!(
                            "a jetmax queue on router node {}: expected routers with node ids below {JETMAX_NO_ROUTER}, \
                             the most JetMax's 16-bit router fields carry",
                            ctx.router
                        ),
                    ));
                }
                Ok(explicit(ctx, Self::limit(limit, limit_packets)?, Law::JetMax(JetMaxLaw::new(p))))
            }
            QueueSpec::Piqi { limit, limit_packets, gamma, interval, kappa1, kappa2 } => {
                let d = PiqiParams::default();
                let p = PiqiParams {
                    gamma: gamma.unwrap_or(d.gamma),
                    interval: interval.map_or(d.interval, |t| t.0),
                    kappa1: kappa1.unwrap_or(d.kappa1),
                    kappa2: kappa2.unwrap_or(d.kappa2),
                };
                p.validate()?;
                Ok(explicit(ctx, Self::limit(limit, limit_packets)?, Law::Piqi(PiqiLaw::new(ctx.capacity, p))))
            }
            QueueSpec::Drr { weights, classify, limit, limit_packets } => {
                if !(2..=32).contains(&weights.len()) {
                    return Err(SpecError::new("weights", format!("expected 2 to 32 weights, got {}", weights.len())));
                }
                if let Some(w) = weights.iter().find(|w| !(**w > 0.0 && w.is_finite())) {
                    return Err(SpecError::new("weights", format!("expected every weight > 0, got {w}")));
                }
                let classify = match classify {
                    None | Some(ClassifySpec::Priority) => Classify::Priority,
                    Some(ClassifySpec::Header) => {
                        if weights.len() != 2 {
                            return Err(SpecError::new(
                                "weights",
                                format!("expected 2 weights with classify = \"header\", got {}", weights.len()),
                            ));
                        }
                        Classify::Header
                    }
                };
                Ok(Port::Qdisc(Qdisc::Drr(Drr::new(weights, classify, Self::limit(limit, limit_packets)?))))
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

    /// The RCP law's parameters of an `rcp` or `rcp-tcp` queue: its fields over the thesis
    /// defaults (unchecked). An `rcp-tcp` queue runs the thesis's law without differential
    /// sharing.
    fn rcp_params(&self) -> RcpParams {
        let d = RcpParams::default();
        let (alpha, beta, eta, interval, initial_rate, initial_rtt) = match self {
            QueueSpec::Rcp { alpha, beta, eta, interval, initial_rate, initial_rtt, .. }
            | QueueSpec::RcpTcp { alpha, beta, eta, interval, initial_rate, initial_rtt, .. } => {
                (alpha, beta, eta, interval, initial_rate, initial_rtt)
            }
            _ => return d,
        };
        let base = RcpParams {
            alpha: alpha.unwrap_or(d.alpha),
            beta: beta.unwrap_or(d.beta),
            eta: eta.unwrap_or(d.eta),
            max_interval: interval.map_or(d.max_interval, |t| t.0),
            initial_fraction: initial_rate.unwrap_or(d.initial_fraction),
            initial_rtt: initial_rtt.map_or(d.initial_rtt, |t| t.0),
            ..d
        };
        let QueueSpec::Rcp { differential, variant, theta, .. } = self else {
            return base;
        };
        RcpParams {
            differential: differential.as_ref().map(|s| (s.threshold.0, s.theta)),
            variant: match variant {
                None | Some(RcpVariantSpec::Thesis) => RcpVariant::Thesis,
                Some(RcpVariantSpec::Seed003) => RcpVariant::Seed003,
                Some(RcpVariantSpec::AppendixF) => RcpVariant::AppendixF,
                Some(RcpVariantSpec::FixedGain) => RcpVariant::FixedGain,
                // Validated in f32: a value that only f64 tells from 0 is refused as 0.
                Some(RcpVariantSpec::UnknownRate) => RcpVariant::UnknownRate { theta: theta.unwrap_or(1.0) as f32 },
            },
            ..base
        }
    }
}

/// An explicit-feedback port: a FIFO of `limit` run by `law`.
fn explicit(ctx: PortCtx, limit: Limit, law: Law) -> Port {
    Port::Qdisc(Qdisc::Explicit(ExplicitQueue::new(ctx, limit, law)))
}

/// Build step: every link of `topo` with its port: the link's override from
/// `queues.links`, else the router or host default.
pub(super) fn build_links(queues: &QueuesSpec, topo: &Topology, seed: u64) -> SpecResult<Vec<Link>> {
    let router_q = queues.router.clone().unwrap_or(QueueSpec::Droptail { limit: None, limit_packets: Some(1000) });
    let host_q = queues.host.clone().unwrap_or(QueueSpec::Droptail { limit: None, limit_packets: None });
    let link_q = link_overrides(queues, topo)?;
    let plain_router = routers_without_priorities(queues, topo, seed)?;
    let mut links = Vec::with_capacity(topo.links.len());
    for (id, ld) in topo.links.iter().enumerate() {
        let from_host = topo.nodes[ld.from].kind == NodeKind::Host;
        let (q, field) = match link_q[id] {
            Some(q) => (q, format!("queues.links.{}", ld.name)),
            None if from_host => (&host_q, "queues.host".to_string()),
            None => (&router_q, "queues.router".to_string()),
        };
        let ctx = PortCtx { router: ld.from as u32, link: id as u32, capacity: ld.rate };
        let qd = q.build(plain_router[ld.from], ctx, seed).map_err(|e| e.within(&field))?;
        links.push(Link::new(ld.from as u32, ld.to as u32, ld.rate, ld.delay, qd));
    }
    Ok(links)
}

/// Each link's override from `queues.links`, by link id.
fn link_overrides<'a>(queues: &'a QueuesSpec, topo: &Topology) -> SpecResult<Vec<Option<&'a QueueSpec>>> {
    let mut link_q: Vec<Option<&QueueSpec>> = vec![None; topo.links.len()];
    for (name, q) in &queues.links {
        let id = resolve_link(topo, name).ok_or_else(|| unknown_link(&format!("queues.links.{name}"), name, topo))?;
        link_q[id] = Some(q);
    }
    Ok(link_q)
}

/// By node id: whether the node is a router chosen (by the seed) to ignore priorities.
fn routers_without_priorities(queues: &QueuesSpec, topo: &Topology, seed: u64) -> SpecResult<Vec<bool>> {
    let mut plain_router = vec![false; topo.nodes.len()];
    if let Some(f) = queues.routers_without_priorities {
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
    Ok(plain_router)
}
