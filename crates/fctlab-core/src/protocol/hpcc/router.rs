//! HPCC's switch (Li et al. 2019, sec. 3.2): no control law, only telemetry. Every forward
//! HPCC packet leaving the port's FIFO ([`crate::qdisc::ExplicitQueue`]) gets one record of the
//! port: the time, the port's transmission time so far (its transmitted bytes over its rate)
//! and the queue it leaves behind (its bytes over the rate), as the authors' switch records at
//! dequeue. The transmission counter counts every packet the port sends, ACKs and other
//! protocols' packets included, before this one.

use crate::net::packet::{CongestionHeader, Packet};
use crate::protocol::hpcc::header::{IntHop, IntStack};
use crate::qdisc::law::{PortCtx, RouterLaw};
use crate::units::Time;

/// The series metrics the law emits: none.
pub const METRICS: &[&str] = &[];

/// The telemetry of one HPCC port.
#[derive(Debug, Default)]
pub struct HpccLaw {
    /// Transmission time of every packet that left the port, ps.
    busy_ps: u64,
}

impl HpccLaw {
    /// A port that has sent nothing yet.
    pub fn new() -> HpccLaw {
        HpccLaw::default()
    }
}

impl RouterLaw for HpccLaw {
    #[inline]
    fn on_arrival(&mut self, _ctx: &PortCtx, _now: Time, _pkt: &Packet, _queued_bytes_before: u64) {}

    /// Pushes the port's record onto a forward HPCC packet, then counts the packet's
    /// transmission.
    #[inline]
    fn on_departure(&mut self, ctx: &PortCtx, now: Time, pkt: &mut Packet, queued_bytes_after: u64) {
        if let CongestionHeader::Hpcc(s) = &mut pkt.cc {
            s.push(IntHop::at_port(now, Time::from_ps(self.busy_ps), queued_bytes_after, ctx.capacity));
        }
        self.busy_ps += ctx.capacity.checked_tx_time(pkt.wire as u64).map_or(0, |t| t.ps());
    }
}

/// The router-cost benchmark's port (`crate::qdisc::cost`): the law on `ctx` with default
/// parameters, and the header its hosts stamp.
pub fn cost_port(_ctx: PortCtx) -> (HpccLaw, CongestionHeader) {
    (HpccLaw::new(), CongestionHeader::Hpcc(IntStack::default()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::PacketKind;
    use crate::qdisc::droptail::tests::pkt;
    use crate::qdisc::{ExplicitQueue, Limit, QueueDiscipline};
    use crate::units::Rate;

    #[test]
    fn each_forward_packet_gets_the_ports_time_transmission_and_queue() {
        let ctx = PortCtx { router: 1, link: 2, capacity: Rate::from_gbps(10) };
        let mut q = ExplicitQueue::new(ctx, Limit::Packets(10), HpccLaw::new());
        let mut drops = Vec::new();
        for _ in 0..3 {
            let mut p = pkt(1280, 0);
            p.kind = PacketKind::Data;
            p.cc = IntStack::default().forward();
            q.enqueue(Time::ZERO, p, &mut drops);
        }
        // 1280 bytes at 10 Gb/s: 1.024 us each.
        let a = q.dequeue(Time::from_ns(1024)).unwrap();
        let b = q.dequeue(Time::from_ns(2048)).unwrap();
        let (sa, sb) = (IntStack::of(&a.cc).unwrap(), IntStack::of(&b.cc).unwrap());
        assert_eq!((sa.nhop, sb.nhop), (1, 1));
        let (ha, hb) = (sa.hops[0], sb.hops[0]);
        assert_eq!((ha.ts_ns(), ha.busy_ns()), (1024, 0), "busy counts what left before");
        assert_eq!((hb.ts_ns(), hb.busy_ns()), (2048, 1024));
        assert!((ha.qdelay_s() - 2.048e-6).abs() < 1e-12, "two packets left behind");
        assert!((hb.qdelay_s() - 1.024e-6).abs() < 1e-12);
        assert_eq!(hb.dbusy_ns(ha) as f64 / hb.dt_ns(ha) as f64, 1.0, "a busy port: tx rate = B");
    }

    #[test]
    fn acks_and_other_packets_are_counted_not_stamped() {
        let ctx = PortCtx { router: 1, link: 2, capacity: Rate::from_gbps(1) };
        let mut law = HpccLaw::new();
        let mut ack = pkt(125, 0);
        law.on_departure(&ctx, Time::ZERO, &mut ack, 0);
        assert_eq!(ack.cc, CongestionHeader::None);
        assert_eq!(law.busy_ps, 1_000_000, "125 bytes at 1 Gb/s: 1 us");
    }
}
