//! The router-cost micro-benchmark (seed 003 sec. IV-E and IV-I): wall-clock nanoseconds per
//! packet through each router law, one enqueue and one dequeue, the control ticks included.
//!
//! Seed 003 compares its routers by the arithmetic each does per packet (XCP 6 additions and 3
//! multiplications, RCP 2 and 2, JetMax the fewest); a simulator can time the same work. Each
//! law runs on a 1 Gb/s port fed 1500-byte forward packets of 64 flows in turn, one every
//! 12 us of simulated time (the link's rate), with a standing queue of eight packets, so its
//! control interval ticks as it would on a saturated gigabit link. The packets carry the header
//! the law's hosts would stamp. A plain drop-tail port is the baseline: the difference is the
//! law's own cost. Figures depend on the machine; they are not simulation results.

use super::{DropTail, ExplicitQueue, Limit, PortCtx, Qdisc, QueueDiscipline};
use crate::net::packet::{CongestionHeader, Ecn, Packet, PacketKind, SackBlocks};
use crate::protocol::{router_cost_port, ROUTER_COST_LAWS};
use crate::units::{Rate, Time};
use std::hint::black_box;
use std::time::Instant;

/// The baseline port: a plain drop-tail FIFO.
pub const BASELINE: &str = "droptail";

/// The ports the benchmark times, by name: the baseline first, then each router law the
/// registry lists for it ([`ROUTER_COST_LAWS`]), in the places it gives them.
pub fn laws() -> Vec<&'static str> {
    let mut ranked = ROUTER_COST_LAWS.to_vec();
    ranked.sort();
    std::iter::once(BASELINE).chain(ranked.into_iter().map(|(_, name)| name)).collect()
}

const CAPACITY: Rate = Rate::from_gbps(1);
const WIRE: u32 = 1500;
const FLOWS: u32 = 64;
const STANDING: usize = 8;

/// A port of `law` (one of [`laws`]) and the header its hosts stamp; None for an unknown name.
fn port(law: &str) -> Option<(Qdisc, CongestionHeader)> {
    let ctx = PortCtx { router: 1, link: 0, capacity: CAPACITY };
    let limit = Limit::Packets(1_000);
    if law == BASELINE {
        return Some((Qdisc::DropTail(DropTail::new(limit)), CongestionHeader::None));
    }
    let (l, cc) = router_cost_port(law, ctx)?;
    Some((Qdisc::Explicit(ExplicitQueue::new(ctx, limit, l)), cc))
}

/// Runs `packets` packets through a port of `law`; returns the wall-clock nanoseconds per
/// packet (enqueue + dequeue + the ticks due), or None for an unknown law.
pub fn ns_per_packet(law: &str, packets: u64) -> Option<f64> {
    let (mut q, cc) = port(law)?;
    // Warm up (caches, branch predictors), then time.
    drive(&mut q, cc, packets / 10 + 1, Time::ZERO);
    let t0 = Instant::now();
    drive(&mut q, cc, packets, Time::from_secs(1_000));
    Some(t0.elapsed().as_nanos() as f64 / packets.max(1) as f64)
}

/// Offers `packets` packets from `start` on, one per serialization time, dequeuing down to the
/// standing queue and ticking the law when due.
fn drive(q: &mut Qdisc, cc: CongestionHeader, packets: u64, start: Time) {
    let gap = Time::from_secs_f64(WIRE as f64 * 8.0 / CAPACITY.bps_f64());
    let mut drops = Vec::new();
    let mut now = start;
    let mut tick = q.first_tick().map(|t| start + t);
    for i in 0..packets {
        q.enqueue(now, packet(i, cc, now), &mut drops);
        if q.packets() > STANDING {
            black_box(q.dequeue(now));
        }
        if let Some(t) = tick.filter(|&t| t <= now) {
            tick = q.tick(t);
        }
        drops.clear();
        now += gap;
    }
    while q.dequeue(now).is_some() {}
}

fn packet(i: u64, cc: CongestionHeader, now: Time) -> Packet {
    Packet {
        flow: (i % FLOWS as u64) as u32,
        kind: PacketKind::Data,
        src: 100 + (i % FLOWS as u64) as u32,
        dst: 2,
        seq: i * (WIRE as u64 - 60),
        len: WIRE - 60,
        wire: WIRE,
        ack: 0,
        sack: SackBlocks::default(),
        prio: 0,
        ts: now,
        ts_echo: Time::ZERO,
        cc,
        fin: false,
        ecn: Ecn::NOT_ECT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_law_is_timed_and_an_unknown_one_is_not() {
        for law in laws() {
            let ns = ns_per_packet(law, 2_000).unwrap();
            assert!(ns.is_finite() && ns > 0.0, "{law}: {ns}");
        }
        assert_eq!(ns_per_packet("red", 10), None);
    }

    #[test]
    fn the_laws_tick_while_timed() {
        let (mut q, cc) = port("piqi").unwrap();
        // 10 ms of packets at 12 us: the 10 ms interval ticks once.
        drive(&mut q, cc, 900, Time::ZERO);
        let Qdisc::Explicit(e) = &q else { panic!() };
        let crate::protocol::Law::Piqi(l) = e.law() else { panic!() };
        assert_eq!(l.interval_number(), 1);
    }
}
