//! A unidirectional link: an output queue, a serializer at `rate`, and a propagation delay.
//!
//! At most one pending event per link for arrivals (the head of the in-flight FIFO: packets
//! leave a link in order) and at most one for "the serializer is free"; an idle link starts a
//! packet at once without any event.

use crate::net::packet::Packet;
use crate::qdisc::{Qdisc, QueueDiscipline};
use crate::rng::Rng;
use crate::sched::{Event, Scheduler};
use crate::units::{Rate, Time};
use std::collections::VecDeque;

/// Counters of one link (its output queue included).
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    /// Packets that finished serialization onto the wire.
    pub pkts_sent: u64,
    /// Bytes (wire size) that finished serialization.
    pub bytes_sent: u64,
    /// Packets dropped by the queue (full buffer, push-out).
    pub drops_pkts: u64,
    /// Bytes dropped by the queue.
    pub drops_bytes: u64,
    /// Packets lost on the wire to the link's random loss.
    pub lost_pkts: u64,
    /// Bytes lost on the wire.
    pub lost_bytes: u64,
    /// Time integral of queued bytes, in byte-picoseconds.
    pub queue_area: u128,
    /// Largest queue seen, in bytes.
    pub queue_max_bytes: u64,
    last_change: Time,
}

/// One direction of a link.
#[derive(Debug)]
pub struct Link {
    /// Node the link leaves from.
    pub from: u32,
    /// Node the link leads to.
    pub to: u32,
    /// Serialization rate.
    pub rate: Rate,
    /// Propagation delay.
    pub delay: Time,
    /// The output queue.
    pub qdisc: Qdisc,
    /// Counters.
    pub stats: LinkStats,
    busy_until: Time,
    free_pending: bool,
    inflight: VecDeque<(Time, Packet)>,
    loss: Option<(f64, Rng)>,
}

impl Link {
    /// A link with an empty queue and nothing in flight.
    pub fn new(from: u32, to: u32, rate: Rate, delay: Time, qdisc: Qdisc) -> Link {
        Link {
            from,
            to,
            rate,
            delay,
            qdisc,
            stats: LinkStats::default(),
            busy_until: Time::ZERO,
            free_pending: false,
            inflight: VecDeque::new(),
            loss: None,
        }
    }

    /// Makes the link lose each packet with probability `p`, drawing from `rng`.
    pub fn set_random_loss(&mut self, p: f64, rng: Rng) {
        self.loss = if p > 0.0 { Some((p, rng)) } else { None };
    }

    #[inline]
    fn account_queue(&mut self, now: Time) {
        let dt = now.0 - self.stats.last_change.0;
        self.stats.queue_area += self.qdisc.bytes() as u128 * dt as u128;
        self.stats.last_change = now;
    }

    /// Offers `pkt` to the link's queue at `now`; dropped packets are appended to `drops`.
    #[inline]
    pub fn send(&mut self, id: u32, now: Time, pkt: Packet, sched: &mut Scheduler, drops: &mut Vec<Packet>) {
        self.account_queue(now);
        let before = drops.len();
        self.qdisc.enqueue(now, pkt, drops);
        for d in &drops[before..] {
            self.stats.drops_pkts += 1;
            self.stats.drops_bytes += d.wire as u64;
        }
        self.stats.queue_max_bytes = self.stats.queue_max_bytes.max(self.qdisc.bytes());
        if self.free_pending {
            return;
        }
        if now >= self.busy_until {
            self.start_next(id, now, sched);
        } else if self.qdisc.packets() > 0 {
            self.free_pending = true;
            sched.push(self.busy_until, Event::LinkFree(id));
        }
    }

    /// The serializer became free: start the next queued packet, if any.
    #[inline]
    pub fn on_free(&mut self, id: u32, now: Time, sched: &mut Scheduler) {
        self.free_pending = false;
        self.start_next(id, now, sched);
    }

    #[inline]
    fn start_next(&mut self, id: u32, now: Time, sched: &mut Scheduler) {
        self.account_queue(now);
        let Some(pkt) = self.qdisc.dequeue(now) else { return };
        let tx = self.rate.tx_time(pkt.wire as u64);
        self.busy_until = now + tx;
        self.stats.pkts_sent += 1;
        self.stats.bytes_sent += pkt.wire as u64;
        let lost = match &mut self.loss {
            Some((p, rng)) => rng.bernoulli(*p),
            None => false,
        };
        if lost {
            self.stats.lost_pkts += 1;
            self.stats.lost_bytes += pkt.wire as u64;
        } else {
            let at = self.busy_until + self.delay;
            if self.inflight.is_empty() {
                sched.push(at, Event::LinkArrival(id));
            }
            self.inflight.push_back((at, pkt));
        }
        if self.qdisc.packets() > 0 {
            self.free_pending = true;
            sched.push(self.busy_until, Event::LinkFree(id));
        }
    }

    /// The head packet in flight reaches the far end: returns it, scheduling the next arrival.
    #[inline]
    pub fn on_arrival(&mut self, id: u32, sched: &mut Scheduler) -> Packet {
        // The event exists only while something is in flight.
        let (_, pkt) = self.inflight.pop_front().expect("arrival event without a packet in flight");
        if let Some(&(at, _)) = self.inflight.front() {
            sched.push(at, Event::LinkArrival(id));
        }
        pkt
    }

    /// Brings the occupancy integral up to `now` (call before reading stats).
    pub fn settle(&mut self, now: Time) {
        self.account_queue(now);
    }

    /// Packets on the wire (serialized, not yet arrived).
    pub fn in_flight(&self) -> usize {
        self.inflight.len()
    }

    /// Bytes on the wire (serialized, not yet arrived).
    pub fn in_flight_bytes(&self) -> u64 {
        self.inflight.iter().map(|(_, p)| p.wire as u64).sum()
    }
}
