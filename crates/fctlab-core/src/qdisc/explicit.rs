//! The queue of an explicit-feedback port: a drop-tail FIFO run by a router law
//! ([`RouterLaw`], `qdisc/law/`), one of the registry's [`Law`] in a run.

use super::discipline::{Limit, QueueDiscipline};
use super::droptail::DropTail;
use super::law::{PortCtx, RouterLaw};
use crate::metrics::metric::Metric;
use crate::net::packet::Packet;
use crate::protocol::laws::Law;
use crate::units::{Rate, Time};

/// The queue of an explicit-feedback port: a drop-tail FIFO that calls a law (one of [`Law`]
/// in a run; any [`RouterLaw`] in tests).
#[derive(Debug)]
pub struct ExplicitQueue<L = Law> {
    ctx: PortCtx,
    /// The buffer and its accounting.
    fifo: DropTail,
    law: L,
}

impl<L: RouterLaw> ExplicitQueue<L> {
    /// An empty queue of `limit` on the port `ctx`, run by `law`.
    pub fn new(ctx: PortCtx, limit: Limit, law: L) -> ExplicitQueue<L> {
        ExplicitQueue { ctx, fifo: DropTail::new(limit), law }
    }

    /// The port this queue serves.
    pub fn ctx(&self) -> &PortCtx {
        &self.ctx
    }

    /// The link now serializes at `capacity` (a scheduled rate change the router is told of).
    pub fn set_capacity(&mut self, capacity: Rate) {
        self.ctx.capacity = capacity;
    }

    /// The law (for its state: `Law::Rcp(r) => r.fair_rate()`).
    pub fn law(&self) -> &L {
        &self.law
    }

    /// The law, mutably (e.g. to switch on a law's history).
    pub fn law_mut(&mut self) -> &mut L {
        &mut self.law
    }
}

impl<L: RouterLaw> QueueDiscipline for ExplicitQueue<L> {
    #[inline]
    fn enqueue(&mut self, now: Time, pkt: Packet, drops: &mut Vec<Packet>) {
        self.law.on_arrival(&self.ctx, now, &pkt, self.fifo.bytes());
        self.fifo.enqueue(now, pkt, drops);
    }

    #[inline]
    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        let mut p = self.fifo.dequeue(now)?;
        self.law.on_departure(&self.ctx, now, &mut p, self.fifo.bytes());
        Some(p)
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    fn packets(&self) -> usize {
        self.fifo.packets()
    }

    fn first_tick(&self) -> Option<Time> {
        self.law.first_tick()
    }

    fn tick(&mut self, now: Time) -> Option<Time> {
        self.law.tick(&self.ctx, now, self.fifo.bytes())
    }

    fn set_capacity(&mut self, capacity: Rate) {
        self.ctx.capacity = capacity;
    }

    fn metric_count(&self) -> usize {
        self.law.metric_count()
    }

    fn metrics(&self, out: &mut impl FnMut(Metric, f64)) {
        self.law.metrics(&self.ctx, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::droptail::tests::pkt;

    /// Records what the queue tells it, and marks departures.
    #[derive(Debug, Default)]
    struct Probe {
        seen: Vec<(&'static str, u32, u64)>,
        ticks: Vec<(Time, u64)>,
    }

    impl RouterLaw for Probe {
        fn on_arrival(&mut self, ctx: &PortCtx, _: Time, pkt: &Packet, before: u64) {
            assert_eq!((ctx.router, ctx.link), (3, 9));
            self.seen.push(("arrival", pkt.wire, before));
        }
        fn on_departure(&mut self, _: &PortCtx, _: Time, pkt: &mut Packet, after: u64) {
            self.seen.push(("departure", pkt.wire, after));
            pkt.prio = 7;
        }
        fn first_tick(&self) -> Option<Time> {
            Some(Time::from_ms(1))
        }
        fn tick(&mut self, _: &PortCtx, now: Time, queued: u64) -> Option<Time> {
            self.ticks.push((now, queued));
            Some(now + Time::from_ms(1))
        }
    }

    #[test]
    fn the_law_sees_every_offered_packet_and_the_queue_around_it() {
        let ctx = PortCtx { router: 3, link: 9, capacity: Rate::from_mbps(10) };
        let mut q = ExplicitQueue::new(ctx, Limit::Packets(2), Probe::default());
        let mut drops = Vec::new();
        for w in [100, 200, 300] {
            q.enqueue(Time::ZERO, pkt(w, 0), &mut drops);
        }
        assert_eq!(q.first_tick(), Some(Time::from_ms(1)));
        assert_eq!(q.tick(Time::from_ms(1)), Some(Time::from_ms(2)));
        let p = q.dequeue(Time::from_ms(1)).unwrap();
        assert_eq!(drops.len(), 1, "the third packet does not fit");
        assert_eq!((q.packets(), q.bytes()), (1, 200));
        assert_eq!(
            q.law().seen,
            vec![("arrival", 100, 0), ("arrival", 200, 100), ("arrival", 300, 300), ("departure", 100, 200)],
            "the dropped packet is seen too, before admission"
        );
        assert_eq!(q.law().ticks, vec![(Time::from_ms(1), 300)]);
        assert_eq!(p.prio, 7, "the departure hook may stamp the packet");
    }
}
