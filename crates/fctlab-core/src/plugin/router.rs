//! A router law plug-in on fctlab's drop-tail FIFO: the registry's `Law::Plugin`.
//!
//! The law sees each packet as a [`PacketView`] and may change its header and priority on
//! departure; the header it writes is decoded as one from the wire ([`super::from_plugin`]),
//! so a value fctlab would refuse is a fault, not a packet. After a fault the law is not
//! called again.

use super::{from_plugin, to_plugin, DynRouter, PacketView, Plugin, Port};
use crate::metrics::metric::Metric;
use crate::net::packet::{Packet, PacketKind};
use crate::qdisc::law::{PortCtx, RouterLaw};
use crate::units::Time;

/// One port's router law in a plug-in.
pub struct PluginLaw {
    plugin: &'static Plugin,
    /// The law; None once a hook failed (no more calls).
    law: Option<Box<dyn DynRouter>>,
}

impl std::fmt::Debug for PluginLaw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PluginLaw({})", self.plugin.spec)
    }
}

/// The port as the API names it.
pub fn port(ctx: &PortCtx) -> Port {
    Port { router: ctx.router, link: ctx.link, capacity_bps: ctx.capacity.bps() }
}

fn view(pkt: &Packet) -> PacketView {
    let kind = match pkt.kind {
        PacketKind::Syn => fctlab_plugin::kind::SYN,
        PacketKind::SynAck => fctlab_plugin::kind::SYN_ACK,
        PacketKind::Data => fctlab_plugin::kind::DATA,
        // A plug-in sees a go-back-N NACK as the ACK it also is.
        PacketKind::Ack | PacketKind::Nack => fctlab_plugin::kind::ACK,
    };
    PacketView {
        flow: pkt.flow,
        kind,
        prio: pkt.prio,
        len: pkt.len,
        wire: pkt.wire,
        seq: pkt.seq,
        ack: pkt.ack,
        header: to_plugin(pkt.cc),
    }
}

impl PluginLaw {
    /// The law `law` of plug-in `plugin`.
    pub fn new(plugin: &'static Plugin, law: Box<dyn DynRouter>) -> PluginLaw {
        PluginLaw { plugin, law: Some(law) }
    }

    fn fail(&mut self, hook: &'static str, flow: Option<u32>, ctx: &PortCtx, msg: String) {
        self.law = None;
        self.plugin.fail(hook, flow, Some(ctx.link), msg);
    }
}

impl RouterLaw for PluginLaw {
    #[inline(never)]
    fn on_arrival(&mut self, ctx: &PortCtx, now: Time, pkt: &Packet, queued_bytes_before: u64) {
        let Some(law) = self.law.as_deref_mut() else { return };
        if let Err(msg) = law.on_arrival(&port(ctx), now, &view(pkt), queued_bytes_before) {
            self.fail("on_arrival", Some(pkt.flow), ctx, msg);
        }
    }

    #[inline(never)]
    fn on_departure(&mut self, ctx: &PortCtx, now: Time, pkt: &mut Packet, queued_bytes_after: u64) {
        let Some(law) = self.law.as_deref_mut() else { return };
        let mut v = view(pkt);
        let before = v.header;
        let done = law.on_departure(&port(ctx), now, &mut v, queued_bytes_after).and_then(|()| {
            // A header the plug-in left alone stays as it came: its wire form (three words)
            // does not hold every header (HPCC's telemetry records).
            if v.header == before {
                Ok(pkt.cc)
            } else {
                from_plugin(v.header)
            }
        });
        match done {
            Ok(h) => {
                pkt.cc = h;
                pkt.prio = v.prio;
            }
            Err(msg) => self.fail("on_departure", Some(pkt.flow), ctx, msg),
        }
    }

    #[inline(never)]
    fn first_tick(&self) -> Option<Time> {
        let law = self.law.as_deref()?;
        match law.first_tick() {
            Ok(t) => t,
            Err(msg) => {
                self.plugin.fail("first_tick", None, None, msg);
                None
            }
        }
    }

    #[inline(never)]
    fn tick(&mut self, ctx: &PortCtx, now: Time, queued_bytes: u64) -> Option<Time> {
        let law = self.law.as_deref_mut()?;
        match law.tick(&port(ctx), now, queued_bytes) {
            Ok(Some(t)) if t <= now => {
                let msg = format!("the next tick it gave ({} ps) is not after now ({} ps)", t.ps(), now.ps());
                self.fail("tick", None, ctx, msg);
                None
            }
            Ok(t) => t,
            Err(msg) => {
                self.fail("tick", None, ctx, msg);
                None
            }
        }
    }

    #[inline(never)]
    fn metric_count(&self) -> usize {
        0
    }

    #[inline(never)]
    fn metrics(&self, _ctx: &PortCtx, _out: &mut impl FnMut(Metric, f64)) {}
}
