//! Queue disciplines: the `[queues]` schema, each kind's port, and the build step that gives
//! every link its port (per-link overrides, routers without priorities).
//!
//! A queue table is the buffer every kind has (`limit` or `limit_packets`) and the keys of its
//! `kind` ([`QueueKind`]). Every kind's keys check themselves and build its port beside its
//! code: a queue discipline's in `qdisc/` (`aqm_keys.rs` for `red` and `step`, `drr_keys.rs`,
//! `prio_keys.rs`); a protocol's in its folder (`protocol/<name>/kind.rs`, implementing
//! [`KindKeys`]). The protocols' kinds are not written here: [`QueueKind`]'s variants for them,
//! and their arms in [`QueueSpec`]'s build, are generated from the `kinds` column of the
//! registry's table (`protocol/registry.rs`, the callback `queue_kinds!`). The build only
//! dispatches on the kind.

use super::names::{resolve_link, unknown_link};
use super::transports::pick_fraction;
use crate::error::{SpecError, SpecResult};
use crate::net::link::{FifoSchedule, Link, Port};
use crate::plugin::{self, Loader};
use crate::protocol::laws::Law;
use crate::protocol::registry::protocols;
use crate::qdisc::aqm_keys::{RedKeys, StepKeys};
use crate::qdisc::drr_keys::DrrKeys;
use crate::qdisc::prio_keys::PrioKeys;
use crate::qdisc::{ExplicitQueue, KindKeys, Limit, PortCtx, Qdisc, RoundRobin};
use crate::quantity::BytesQ;
use crate::rng::Rng;
use crate::spec_de::{field_names, from_table};
use crate::topology::{NodeKind, Topology};
use serde::de::{self, Deserializer};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Queue disciplines: defaults for routers and hosts, and per-link overrides by name.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueuesSpec {
    /// Router output ports (default: drop-tail, 1000 packets).
    #[serde(default)]
    pub router: Option<QueueSpec>,
    /// Host NICs (default: drop-tail, unlimited).
    #[serde(default)]
    pub host: Option<QueueSpec>,
    /// Per-link overrides, keyed by link name ("bottleneck", "r0->r1", ...).
    #[serde(default)]
    pub links: BTreeMap<String, QueueSpec>,
    /// Fraction of routers (chosen by the seed) whose ports ignore priorities: a drop-tail
    /// FIFO of the same buffer that still forwards marked packets (partial deployment).
    #[serde(default)]
    pub routers_without_priorities: Option<f64>,
}

/// One queue discipline: its kind's own keys, and the buffer every kind has.
#[derive(Clone, Debug)]
pub struct QueueSpec {
    /// The kind (`kind = "..."`) with its parameters.
    pub kind: QueueKind,
    /// The buffer (`limit` or `limit_packets`; neither: unlimited).
    pub limit: Limit,
}

/// The buffer keys every queue kind has: at most one of them.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct BufferKeys {
    /// Limit in bytes (wire size).
    #[serde(default)]
    limit: Option<BytesQ>,
    /// Limit in packets.
    #[serde(default)]
    limit_packets: Option<u64>,
}

impl BufferKeys {
    /// The limit these keys give.
    fn limit(&self) -> SpecResult<Limit> {
        Ok(match (self.limit, self.limit_packets) {
            (Some(_), Some(_)) => {
                return Err(SpecError::new("limit", "give `limit` (bytes) or `limit_packets`, not both"))
            }
            (Some(b), None) => Limit::Bytes(b.0),
            (None, Some(p)) => Limit::Packets(p),
            (None, None) => Limit::UNLIMITED,
        })
    }
}

impl<'de> Deserialize<'de> for QueueSpec {
    /// The buffer keys, then `{kind: rest}` into [`QueueKind`] (each error with its path).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<QueueSpec, D::Error> {
        let as_de = |e: SpecError| {
            de::Error::custom(if e.field.is_empty() { e.message } else { format!("{}: {}", e.field, e.message) })
        };
        let mut table = match Value::deserialize(d)? {
            Value::Object(t) => t,
            other => return Err(de::Error::custom(format!("expected a table with a `kind`, got {other}"))),
        };
        let mut buffer = Map::new();
        for k in field_names::<BufferKeys>() {
            if let Some(v) = table.remove(*k) {
                buffer.insert(k.to_string(), v);
            }
        }
        let limit = from_table::<BufferKeys>(buffer).and_then(|b| b.limit()).map_err(as_de)?;
        if let Some(Value::String(spec)) = table.get("kind").filter(|k| k.as_str().is_some_and(plugin::is_plugin)) {
            // A plug-in's law: the table's other keys are its parameters, as JSON text.
            let spec = spec.clone();
            table.remove("kind");
            return Ok(QueueSpec { kind: QueueKind::Plugin { spec, params: Value::Object(table).to_string() }, limit });
        }
        let kind = crate::spec_de::from_value::<QueueKind, serde_json::Error>(Value::Object(table)).map_err(|e| {
            let msg = crate::spec_de::strip_location(&e);
            match msg.contains("unknown field") {
                true => de::Error::custom(format!("{msg} (besides `limit` and `limit_packets`, which every kind has)")),
                false => de::Error::custom(msg),
            }
        })?;
        Ok(QueueSpec { kind, limit })
    }
}

/// Generates [`QueueKind`], the kinds written here and one variant per entry of the table's
/// `kinds` column (`protocol/registry.rs`), and [`QueueSpec::build`], which dispatches on it.
macro_rules! queue_kinds {
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
            loss: $loss:tt,
            window: $window:tt,
            rate: $rate:tt,
            keys: $keys:tt,
            kinds: [$( $K:ident = $kind:literal => $KT:ident ),*],
            $($more:tt)*
        }
    )*) => {
        /// A queue kind and its own keys (beside the buffer's): the queue disciplines' (their
        /// keys in `qdisc/`), then the protocols' (their keys in their folders).
        #[derive(Clone, Debug, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum QueueKind {
            /// FIFO dropping arrivals that do not fit.
            Droptail(Empty),
            /// Deficit round robin: weighted fair queuing over classes sharing one buffer.
            Drr(DrrKeys),
            /// Round robin over flows, one packet each in turn (an RDMA NIC's queue pairs;
            /// `qdisc/round_robin.rs`).
            RoundRobin(Empty),
            /// Strict priority over `bands` bands (default 8, band 0 highest) sharing one buffer,
            /// pushing out the lowest band's tail when a higher-priority packet finds it full.
            Prio(PrioKeys),
            /// RED (Floyd and Jacobson) with ECN: a FIFO that marks ECN-capable packets, and drops
            /// the others, with a probability from its average queue (`qdisc/aqm.rs`).
            Red(RedKeys),
            /// ECN marking at a step: a FIFO that marks ECN-capable packets while the
            /// instantaneous queue exceeds K (DCTCP's switch; `qdisc/aqm.rs`).
            Step(StepKeys),
            $($(
                #[doc = concat!(
                    "`kind = \"", $kind, "\"`, a router of ", $title, " (`protocol/", stringify!($folder),
                    "/`): its keys, [`", stringify!($KT), "`](crate::protocol::", stringify!($folder), "::",
                    stringify!($KT), "), build the port."
                )]
                #[serde(rename = $kind)]
                $K($crate::protocol::$folder::$KT),
            )*)*
            /// A plug-in's router law on a drop-tail FIFO (`kind = "rust:..."` or `"python:..."`,
            /// `crate::plugin`); the table's other keys, as JSON text, are its parameters.
            #[serde(skip)]
            Plugin {
                /// The plug-in's spelling.
                spec: String,
                /// Its parameters.
                params: String,
            },
        }

        impl QueueSpec {
            /// The port `ctx` as this spec describes it; `ignore_priorities` turns a priority
            /// queue into a FIFO of the same buffer (a router without priority support).
            fn build(&self, ignore_priorities: bool, ctx: PortCtx, seed: u64, plugins: &Loader) -> SpecResult<Port> {
                let limit = self.limit;
                match &self.kind {
                    QueueKind::Droptail(_) => Ok(Port::Fifo(FifoSchedule::new(limit))),
                    QueueKind::Drr(keys) => Ok(Port::qdisc(Qdisc::Drr(keys.build(limit)?))),
                    QueueKind::RoundRobin(_) => Ok(Port::qdisc(Qdisc::RoundRobin(RoundRobin::new(limit)))),
                    QueueKind::Prio(_) if ignore_priorities => Ok(Port::Fifo(FifoSchedule::new(limit))),
                    QueueKind::Prio(keys) => Ok(Port::qdisc(Qdisc::Prio(keys.build(limit)?))),
                    QueueKind::Red(keys) => {
                        let rng = Rng::stream(seed, &format!("queues.red.link{}", ctx.link));
                        Ok(Port::qdisc(Qdisc::Aqm(keys.build(limit, ctx.capacity, rng)?)))
                    }
                    QueueKind::Step(keys) => Ok(Port::qdisc(Qdisc::Aqm(keys.build(limit)?))),
                    $($(
                        QueueKind::$K(keys) => keys.build(ctx, limit, seed).map(Port::qdisc),
                    )*)*
                    QueueKind::Plugin { spec, params } => {
                        let law = plugins.router(spec, &plugin::router::port(&ctx), params, "kind")?;
                        Ok(Port::qdisc(Qdisc::Explicit(ExplicitQueue::new(ctx, limit, Law::Plugin(law)))))
                    }
                }
            }
        }
    };
}

protocols!(queue_kinds);

/// A kind without keys of its own.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

impl QueueSpec {
    /// A drop-tail FIFO of `limit`.
    fn droptail(limit: Limit) -> QueueSpec {
        QueueSpec { kind: QueueKind::Droptail(Empty {}), limit }
    }
}

/// Build step: every link of `topo` with its port: the link's override from
/// `queues.links`, else the router or host default.
pub(super) fn build_links(queues: &QueuesSpec, topo: &Topology, seed: u64, plugins: &Loader) -> SpecResult<Vec<Link>> {
    let router_q = queues.router.clone().unwrap_or(QueueSpec::droptail(Limit::Packets(1000)));
    let host_q = queues.host.clone().unwrap_or(QueueSpec::droptail(Limit::UNLIMITED));
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
        let qd = q.build(plain_router[ld.from], ctx, seed, plugins).map_err(|e| e.within(&field))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::xcp::XcpParams;

    fn queue(json: serde_json::Value) -> Result<QueueSpec, String> {
        serde_json::from_value(json).map_err(|e| e.to_string())
    }

    #[test]
    fn every_kind_takes_one_buffer_limit() {
        let q = queue(serde_json::json!({"kind": "xcp", "limit_packets": 50, "alpha": 0.3})).unwrap();
        assert_eq!(q.limit, Limit::Packets(50));
        let QueueKind::Xcp(p) = q.kind else { panic!("an xcp queue") };
        assert_eq!((p.alpha, p.beta), (0.3, XcpParams::default().beta), "unset gains keep their defaults");
        let q = queue(serde_json::json!({"kind": "prio", "limit": "15KB"})).unwrap();
        assert_eq!(q.limit, Limit::Bytes(15_000));
        let e =
            queue(serde_json::json!({"kind": "drr", "weights": [1, 1], "limit": 1, "limit_packets": 1})).unwrap_err();
        assert!(e.starts_with("limit: give `limit` (bytes) or `limit_packets`, not both"), "{e}");
    }

    #[test]
    fn a_key_of_another_kind_is_refused_by_name() {
        let e = queue(serde_json::json!({"kind": "droptail", "gamma": 0.9})).unwrap_err();
        assert!(e.contains("unknown field `gamma`") && e.contains("every kind has"), "{e}");
        let e = queue(serde_json::json!({"kind": "piqi", "interval": "0ms", "kappa3": 1})).unwrap_err();
        assert!(e.contains("kappa3"), "{e}");
        let e = queue(serde_json::json!({"kind": "jetmax", "interval": "-1ms"})).unwrap_err();
        assert!(e.starts_with("interval: "), "the error names the key: {e}");
    }

    #[test]
    fn an_unknown_kind_is_refused_naming_every_kind() {
        // serde lists the variants in the enum's order: the disciplines', then the table's rows.
        let e = queue(serde_json::json!({"kind": "codel"})).unwrap_err();
        assert!(
            e.starts_with(
                "unknown variant `codel`, expected one of `droptail`, `drr`, `round_robin`, `prio`, `red`, `step`, \
                 `pfabric`, \
                 `hpcc`, `rcp`, `rcp-tcp`, `xcp`, `jetmax`, `piqi`"
            ),
            "{e}"
        );
    }

    #[test]
    fn every_kind_of_the_table_builds_its_port() {
        let ctx = PortCtx { router: 1, link: 2, capacity: crate::units::Rate::from_gbps(1) };
        let loader = Loader::new(std::path::Path::new("."));
        for kind in ["pfabric", "hpcc", "rcp", "rcp-tcp", "xcp", "jetmax", "piqi"] {
            let q = queue(serde_json::json!({"kind": kind, "limit_packets": 10})).unwrap();
            let port = q.build(false, ctx, 7, &loader).unwrap_or_else(|e| panic!("{kind}: {e}"));
            assert!(matches!(port, Port::Qdisc(_)), "{kind}: a discipline's port");
            let e = queue(serde_json::json!({"kind": kind, "colour": 1})).unwrap_err();
            assert!(e.contains("unknown field `colour`"), "{kind}: {e}");
        }
    }
}
