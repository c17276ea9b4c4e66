//! The router side of the registry, generated from the table (`registry.rs`): [`Law`], the
//! router laws dispatched statically; [`ProtocolQueue`], the protocols' own queue disciplines,
//! which `crate::qdisc::Qdisc::Protocol` holds; and the router-cost benchmark's ports
//! ([`ROUTER_COST_LAWS`], [`router_cost_port`]).
//!
//! A law is a struct of its folder implementing [`RouterLaw`]; a protocol's discipline one
//! implementing [`QueueDiscipline`] (with its `set_capacity` and `metrics` if it has them).

use crate::metrics::metric::Metric;
use crate::net::packet::{CongestionHeader, Packet};
use crate::plugin::PluginLaw;
use crate::protocol::registry::protocols;
use crate::qdisc::discipline::QueueDiscipline;
use crate::qdisc::law::{PortCtx, RouterLaw};
use crate::units::{Rate, Time};

macro_rules! router_side {
    ($(
        $folder:ident {
            name: $name:literal,
            title: $title:literal,
            host_key: $host_key:literal,
            header: $header:tt,
            carries: $carries:tt,
            law: [$( $L:ident ( $LT:ident ) )?],
            queue: $queue:tt,
            qdisc: [$( $Q:ident ( $QT:ident ) ),*],
            cost: [$( $C:ident at $rank:literal )?],
            $($more:tt)*
        }
    )*) => {
        /// The router laws fctlab has, dispatched statically (one per row of the registry with
        /// a `law`, and the plug-ins').
        #[derive(Debug)]
        pub enum Law {
            $($(
                #[doc = concat!($title, ": `protocol/", stringify!($folder), "/`.")]
                $L($crate::protocol::$folder::$LT),
            )?)*
            /// A router law plug-in (`crate::plugin`).
            Plugin(PluginLaw),
        }

        macro_rules! each_law {
            ($self:ident, $l:ident => $body:expr) => {
                match $self {
                    $($( Law::$L($l) => $body, )?)*
                    Law::Plugin($l) => $body,
                }
            };
        }

        /// The queue disciplines protocols bring (one per entry of the registry's `qdisc`
        /// column), dispatched statically; `crate::qdisc::Qdisc::Protocol` holds one.
        #[derive(Debug)]
        pub enum ProtocolQueue {
            $($(
                #[doc = concat!($title, ": `protocol/", stringify!($folder), "/`.")]
                $Q($crate::protocol::$folder::$QT),
            )*)*
        }

        macro_rules! each_queue {
            ($self:ident, $q:ident => $body:expr) => {
                match $self {
                    $($( ProtocolQueue::$Q($q) => $body, )*)*
                }
            };
        }

        /// The router laws the router-cost benchmark times (`crate::qdisc::cost`): each
        /// protocol's place in the benchmark's table and its name.
        pub const ROUTER_COST_LAWS: &[(u32, &str)] = &[$($( { let _ = stringify!($C); ($rank, $name) }, )?)*];

        /// The law `name` (one of [`ROUTER_COST_LAWS`]) on the port `ctx` with the header its
        /// hosts stamp (its folder's `router::cost_port`); None for another name.
        pub fn router_cost_port(name: &str, ctx: PortCtx) -> Option<(Law, CongestionHeader)> {
            match name {
                $($(
                    $name => {
                        let (law, cc) = $crate::protocol::$folder::router::cost_port(ctx);
                        Some((Law::$C(law), cc))
                    }
                )?)*
                _ => None,
            }
        }
    };
}

protocols!(router_side);

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

impl QueueDiscipline for ProtocolQueue {
    #[inline]
    fn enqueue(&mut self, now: Time, pkt: Packet, drops: &mut Vec<Packet>) {
        each_queue!(self, q => q.enqueue(now, pkt, drops))
    }
    #[inline]
    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        each_queue!(self, q => q.dequeue(now))
    }
    #[inline]
    fn bytes(&self) -> u64 {
        each_queue!(self, q => q.bytes())
    }
    #[inline]
    fn packets(&self) -> usize {
        each_queue!(self, q => q.packets())
    }
    fn tick(&mut self, now: Time) -> Option<Time> {
        each_queue!(self, q => q.tick(now))
    }
    fn first_tick(&self) -> Option<Time> {
        each_queue!(self, q => q.first_tick())
    }
    fn set_capacity(&mut self, capacity: Rate) {
        each_queue!(self, q => q.set_capacity(capacity))
    }
    fn metric_count(&self) -> usize {
        each_queue!(self, q => q.metric_count())
    }
    fn metrics(&self, out: &mut impl FnMut(Metric, f64)) {
        each_queue!(self, q => q.metrics(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::hpcc::HpccLaw;
    use crate::protocol::info;
    use crate::protocol::jetmax::{JetMaxLaw, JetMaxParams};
    use crate::protocol::piqi::{PiqiLaw, PiqiParams};
    use crate::protocol::rcp::{RcpLaw, RcpParams};
    use crate::protocol::xcp::{XcpLaw, XcpParams};

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
