//! A unidirectional link: an output port, a serializer at `rate`, and a propagation delay.
//!
//! The port is either a FIFO with a buffer limit ([`Port::Fifo`]) or any queue discipline
//! ([`Port::Qdisc`]: priorities, explicit-feedback routers that stamp headers at dequeue).
//!
//! A FIFO's departures are known the moment a packet is admitted: it starts serializing when
//! the packets before it are done. So a FIFO port schedules each packet straight onto the wire
//! at admission and keeps only (start time, size) of the packets still waiting, which gives the
//! backlog for drop decisions and queue statistics. One event per hop, and no copy of the
//! packet into a queue. A general qdisc decides at dequeue time, so its link keeps a "serializer
//! free" event instead. Either way at most one arrival event per link is pending: packets leave
//! a link in order, so only the head of the in-flight FIFO needs one.

use crate::metrics::metric::Metric;
use crate::net::lossless::Lossless;
use crate::net::packet::Packet;
use crate::protocol::laws::Law;
use crate::qdisc::{DropTail, Limit, Qdisc, QueueDiscipline};
use crate::rng::Rng;
use crate::sched::{Event, Scheduler};
use crate::units::{Rate, Time};
use std::collections::VecDeque;

/// Counters of one link (its output queue included). Those every packet updates come first,
/// in one cache line.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct LinkStats {
    /// Time integral of queued bytes, in byte-picoseconds.
    pub queue_area: u128,
    /// Packets put on the wire (for a FIFO port: scheduled onto it at admission).
    pub pkts_sent: u64,
    /// Bytes (wire size) put on the wire.
    pub bytes_sent: u64,
    /// Largest queue seen, in bytes.
    pub queue_max_bytes: u64,
    last_change: Time,
    /// Packets dropped by the queue (full buffer, push-out).
    pub drops_pkts: u64,
    /// Bytes dropped by the queue.
    pub drops_bytes: u64,
    /// Packets lost on the wire to the link's random loss.
    pub lost_pkts: u64,
    /// Bytes lost on the wire.
    pub lost_bytes: u64,
}

/// A FIFO port as a departure schedule: the packets admitted but not yet serializing.
#[derive(Debug)]
pub struct FifoSchedule {
    limit: Limit,
    /// (start of serialization, wire bytes) of waiting packets, in order.
    waiting: VecDeque<(Time, u32)>,
    bytes: u64,
}

impl FifoSchedule {
    /// An empty FIFO with the given buffer limit (the packet in service does not count).
    pub fn new(limit: Limit) -> FifoSchedule {
        FifoSchedule { limit, waiting: VecDeque::new(), bytes: 0 }
    }

    /// Forgets packets that have started serializing by `now`.
    #[inline]
    fn settle(&mut self, now: Time) {
        while let Some(&(start, wire)) = self.waiting.front() {
            if start > now {
                break;
            }
            self.bytes -= wire as u64;
            self.waiting.pop_front();
        }
    }
}

/// What sits between the router and the wire.
#[derive(Debug)]
pub enum Port {
    /// First-in first-out, drop the arrival that does not fit.
    Fifo(FifoSchedule),
    /// Any queue discipline, consulted when the serializer frees up. Boxed: a discipline's
    /// state (up to 224 bytes) inline would spread every link, FIFO ones included, over
    /// seven cache lines.
    Qdisc(Box<Qdisc>),
}

impl Port {
    /// A port run by discipline `q`.
    pub fn qdisc(q: Qdisc) -> Port {
        Port::Qdisc(Box::new(q))
    }

    /// The port's discipline, if it is not a plain FIFO.
    fn discipline(&self) -> Option<&Qdisc> {
        match self {
            Port::Qdisc(q) => Some(q),
            Port::Fifo(_) => None,
        }
    }
}

/// The series row of a lossless port's time paused ([`Link::law_metrics`]).
pub const PAUSED_S: &str = "paused_s";

/// One direction of a link.
///
/// Laid out by use (`repr(C)`, aligned to a cache line): a large topology's links do not fit
/// in cache, and each hop reads a link nobody touched for a while, so what a packet needs sits
/// in the first three lines: what every hop reads (the wire: in-flight packets, rate, delay,
/// where it leads), the port, then the counters. The rest is read at the end of a run, or on
/// lossy links only.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Link {
    inflight: VecDeque<(Time, Packet)>,
    busy_until: Time,
    /// Serialization rate.
    pub rate: Rate,
    /// Propagation delay.
    pub delay: Time,
    /// Node the link leads to.
    pub to: u32,
    free_pending: bool,
    /// `scripted` is not empty.
    has_scripted: bool,
    /// `loss` is set.
    lossy: bool,
    /// Where the far end is, in a partitioned run.
    role: Role,
    /// The output port.
    pub port: Port,
    /// Counters.
    pub stats: LinkStats,
    /// Node the link leaves from.
    pub from: u32,
    /// The rate before the last [`Link::set_rate`], at which the packet on the wire then
    /// (ending at `old_rate_until`) finishes; every later packet goes at `rate`.
    old_rate: Rate,
    old_rate_until: Time,
    loss: Option<(f64, Rng)>,
    scripted: Vec<ScriptedDrop>,
    /// The port's lossless state, in a fabric (`[fabric]`: control first, PAUSE, ingress
    /// accounting, ECN at dequeue); None elsewhere.
    lossless: Option<Box<Lossless>>,
}

/// Which side of a link a partition holds ([`crate::world::parallel`]). A run on one partition
/// has only [`Role::Whole`] links.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// Both ends: the port, the wire and the far end's arrivals.
    Whole,
    /// The port and the serializer; a packet put on the wire is handed to the partition at the
    /// far end ([`Scheduler::export`]) instead of entering `inflight`.
    Export,
    /// The far end only: packets come in through [`Link::import`], and their arrival events
    /// are keyed by link id ([`Scheduler::push_import`]).
    Import,
}

/// Drop the `transmission`-th crossing of one data segment (tests and walk-throughs).
#[derive(Copy, Clone, Debug)]
struct ScriptedDrop {
    flow: u32,
    seq: u64,
    transmission: u32,
    seen: u32,
}

impl Link {
    /// A link with an empty port and nothing in flight.
    pub fn new(from: u32, to: u32, rate: Rate, delay: Time, port: Port) -> Link {
        Link {
            from,
            to,
            rate,
            delay,
            port,
            stats: LinkStats::default(),
            busy_until: Time::ZERO,
            old_rate: rate,
            old_rate_until: Time::ZERO,
            free_pending: false,
            has_scripted: false,
            lossy: false,
            role: Role::Whole,
            inflight: VecDeque::new(),
            loss: None,
            scripted: Vec::new(),
            lossless: None,
        }
    }

    /// Makes the port a lossless fabric's ([`Lossless`]). The port must be a discipline's
    /// (PAUSE decides at dequeue): call [`Link::use_qdisc_port`] first.
    pub fn set_lossless(&mut self, l: Lossless) {
        debug_assert!(matches!(self.port, Port::Qdisc(_)));
        self.lossless = Some(Box::new(l));
    }

    /// The port's lossless state, in a fabric.
    pub fn lossless(&self) -> Option<&Lossless> {
        self.lossless.as_deref()
    }

    /// The port's lossless state, to take what it released.
    pub fn lossless_mut(&mut self) -> Option<&mut Lossless> {
        self.lossless.as_deref_mut()
    }

    /// Drops the `transmission`-th (1-based) data packet of `flow` starting at byte `seq`
    /// that crosses this link.
    pub fn add_scripted_drop(&mut self, flow: u32, seq: u64, transmission: u32) {
        self.scripted.push(ScriptedDrop { flow, seq, transmission, seen: 0 });
        self.has_scripted = true;
    }

    /// True if a scripted drop takes `pkt`.
    fn scripted_drop(&mut self, pkt: &Packet) -> bool {
        if pkt.kind != crate::net::packet::PacketKind::Data {
            return false;
        }
        let mut hit = false;
        for r in &mut self.scripted {
            if r.flow == pkt.flow && r.seq == pkt.seq {
                r.seen += 1;
                hit |= r.seen == r.transmission;
            }
        }
        hit
    }

    /// Serializes at `rate` from the next packet that starts on: the one on the wire finishes
    /// at the old rate. With `notify_queue` the port's discipline learns the new capacity (an
    /// RCP or XCP router computes with it); without, the rate changes under it (a link of
    /// unknown or varying rate, RCP thesis sec. 6.3's eq. 6.2 case). Only a discipline port
    /// can change rate exactly: a FIFO port times its packets at admission, so call
    /// [`Link::use_qdisc_port`] first.
    pub fn set_rate(&mut self, rate: Rate, notify_queue: bool) {
        debug_assert!(matches!(self.port, Port::Qdisc(_)), "a FIFO port has timed its packets already");
        // A qdisc port has at most the packet on the wire started at the old rate.
        (self.old_rate, self.old_rate_until) = (self.rate, self.busy_until);
        self.rate = rate;
        if let (true, Port::Qdisc(q)) = (notify_queue, &mut self.port) {
            q.set_capacity(rate);
        }
    }

    /// Replaces an empty FIFO port by a drop-tail discipline of the same buffer, which picks
    /// each packet's serialization start when the wire frees (what a rate change needs); the
    /// FIFO's fast path decides it at admission.
    pub fn use_qdisc_port(&mut self) {
        if let Port::Fifo(f) = &self.port {
            debug_assert!(f.waiting.is_empty() && self.inflight.is_empty());
            self.port = Port::qdisc(Qdisc::DropTail(DropTail::new(f.limit)));
        }
    }

    /// Makes the link lose each packet with probability `p`, drawing from `rng`.
    pub fn set_random_loss(&mut self, p: f64, rng: Rng) {
        self.loss = if p > 0.0 { Some((p, rng)) } else { None };
        self.lossy = self.loss.is_some();
    }

    /// Bytes waiting in the port at `now` (not counting the packet being serialized).
    pub fn queued_bytes(&mut self, now: Time) -> u64 {
        match &mut self.port {
            Port::Fifo(f) => {
                f.settle(now);
                f.bytes
            }
            Port::Qdisc(q) => q.bytes() + self.lossless.as_ref().map_or(0, |l| l.control_backlog().1),
        }
    }

    /// How long from `now` until the port has sent everything it holds (the packet being
    /// serialized and the waiting ones).
    pub fn drain_time(&mut self, now: Time) -> Time {
        let serializing = self.busy_until.saturating_sub(now);
        match &self.port {
            // A FIFO's waiting packets are already counted in `busy_until`.
            Port::Fifo(_) => serializing,
            Port::Qdisc(q) => serializing + self.rate.tx_time(q.bytes()),
        }
    }

    /// Bits serialized onto the wire by `now`, times 10^12 (bit-picoseconds, so that the part of
    /// a packet serialized so far is exact): every wire byte put on the wire, less the bits still
    /// to serialize at `now`. Those are `rate x (busy_until - now)`: a FIFO port counts its
    /// packets at admission and `busy_until` ends the last one scheduled (the wire is busy until
    /// then), a qdisc port counts a packet as it starts and `busy_until` ends that packet (which
    /// goes at the old rate when it started before a rate change).
    /// Serialization times are rounded up, so between two instants this grows by at most the
    /// rate times the time between them: the series' `throughput_bps` never exceeds the rate.
    pub fn serialized_bit_ps(&self, now: Time) -> u128 {
        let wire_rate = if self.busy_until <= self.old_rate_until { self.old_rate } else { self.rate };
        let remaining = wire_rate.0 as u128 * self.busy_until.saturating_sub(now).0 as u128;
        (self.stats.bytes_sent as u128 * 8_000_000_000_000).saturating_sub(remaining)
    }

    /// Packets waiting in the port or on the wire.
    pub fn packets_inside(&self) -> (u64, u64) {
        let wire_bytes: u64 = self.inflight.iter().map(|(_, p)| p.wire as u64).sum();
        match &self.port {
            // A FIFO's waiting packets are already in the in-flight list.
            Port::Fifo(_) => (self.inflight.len() as u64, wire_bytes),
            Port::Qdisc(q) => {
                let (cp, cb) = self.lossless.as_ref().map_or((0, 0), |l| l.control_backlog());
                (self.inflight.len() as u64 + q.packets() as u64 + cp as u64, wire_bytes + q.bytes() + cb)
            }
        }
    }

    #[inline]
    fn account_queue(&mut self, now: Time) {
        if let Port::Qdisc(q) = &self.port {
            let dt = now.0 - self.stats.last_change.0;
            self.stats.queue_area += q.bytes() as u128 * dt as u128;
            self.stats.last_change = now;
        }
    }

    /// Draws the link's random loss for one packet put on the wire.
    #[inline]
    fn lost_on_wire(&mut self, wire: u32) -> bool {
        if !self.lossy {
            return false;
        }
        let lost = match &mut self.loss {
            Some((p, rng)) => rng.bernoulli(*p),
            None => false,
        };
        if lost {
            self.stats.lost_pkts += 1;
            self.stats.lost_bytes += wire as u64;
        }
        lost
    }

    /// Puts `pkt` on the wire, serializing from `start`; a packet the wire loses goes to `drops`,
    /// like every packet a link discards, so the run's counters see it.
    #[inline]
    fn transmit(&mut self, id: u32, start: Time, pkt: Packet, sched: &mut Scheduler, drops: &mut Vec<Packet>) {
        let done = start + self.rate.tx_time(pkt.wire as u64);
        self.busy_until = done;
        self.stats.pkts_sent += 1;
        self.stats.bytes_sent += pkt.wire as u64;
        if self.lost_on_wire(pkt.wire) {
            drops.push(pkt);
            return;
        }
        let at = done + self.delay;
        if self.role == Role::Export {
            sched.export(at, id, pkt);
            return;
        }
        if self.inflight.is_empty() {
            sched.push(at, Event::LinkArrival(id));
        }
        self.inflight.push_back((at, pkt));
    }

    /// Offers `pkt` to the link's port at `now`; packets dropped or lost are appended to `drops`.
    #[inline]
    pub fn send(&mut self, id: u32, now: Time, pkt: Packet, sched: &mut Scheduler, drops: &mut Vec<Packet>) {
        if self.has_scripted && self.scripted_drop(&pkt) {
            self.stats.lost_pkts += 1;
            self.stats.lost_bytes += pkt.wire as u64;
            drops.push(pkt);
            return;
        }
        match &mut self.port {
            Port::Fifo(f) => {
                f.settle(now);
                if !f.limit.fits(f.bytes, f.waiting.len(), pkt.wire) {
                    self.stats.drops_pkts += 1;
                    self.stats.drops_bytes += pkt.wire as u64;
                    drops.push(pkt);
                    return;
                }
                let start = self.busy_until.max(now);
                if start > now {
                    f.waiting.push_back((start, pkt.wire));
                    f.bytes += pkt.wire as u64;
                    // The packet waits (start - now): its whole share of the occupancy integral.
                    self.stats.queue_area += pkt.wire as u128 * (start - now).0 as u128;
                    self.stats.queue_max_bytes = self.stats.queue_max_bytes.max(f.bytes);
                }
                self.transmit(id, start, pkt, sched, drops);
            }
            Port::Qdisc(_) => self.send_qdisc(id, now, pkt, sched, drops),
        }
    }

    /// [`Link::send`] to a discipline port.
    #[inline]
    fn send_qdisc(&mut self, id: u32, now: Time, pkt: Packet, sched: &mut Scheduler, drops: &mut Vec<Packet>) {
        self.enqueue(now, pkt, drops);
        self.kick(id, now, sched, drops);
    }

    /// Offers `pkt`, which came in on link `in_link` ([`crate::net::lossless::FROM_HOST`] from
    /// the host itself), to a lossless port: control packets to their own class, data to the
    /// discipline, noting its ingress. Returns false if the discipline dropped it (its own
    /// limit, or a marking queue's drop of a packet it cannot mark). The port must be a
    /// discipline's ([`Link::set_lossless`]).
    pub fn send_lossless(
        &mut self,
        id: u32,
        now: Time,
        pkt: Packet,
        in_link: u32,
        sched: &mut Scheduler,
        drops: &mut Vec<Packet>,
    ) -> bool {
        // Not `send` for a port without the state (a fabric gives every port one): a second
        // caller of `send` would cost the forwarding loop its inlining.
        let control = self.lossless.as_deref().is_some_and(|l| l.is_control(&pkt));
        let mut queued = true;
        if control {
            if let Some(l) = self.lossless.as_deref_mut() {
                l.push_control(pkt);
            }
        } else if self.enqueue(now, pkt, drops) {
            if let Some(l) = self.lossless.as_deref_mut() {
                l.note_ingress(in_link, &pkt);
            }
        } else {
            queued = false;
        }
        self.kick(id, now, sched, drops);
        queued
    }

    /// Puts `pkt` in a discipline port, counting the drops; returns whether it was admitted.
    #[inline]
    fn enqueue(&mut self, now: Time, pkt: Packet, drops: &mut Vec<Packet>) -> bool {
        let Port::Qdisc(q) = &mut self.port else { unreachable!("a discipline port") };
        let dt = now.0 - self.stats.last_change.0;
        self.stats.queue_area += q.bytes() as u128 * dt as u128;
        self.stats.last_change = now;
        let before = drops.len();
        let held = q.packets();
        q.enqueue(now, pkt, drops);
        for d in &drops[before..] {
            self.stats.drops_pkts += 1;
            self.stats.drops_bytes += d.wire as u64;
        }
        self.stats.queue_max_bytes = self.stats.queue_max_bytes.max(q.bytes());
        q.packets() > held
    }

    /// After an arrival at a discipline port: starts serializing if the wire is free, or makes
    /// sure a "serializer free" event is pending if something waits.
    #[inline]
    fn kick(&mut self, id: u32, now: Time, sched: &mut Scheduler, drops: &mut Vec<Packet>) {
        if self.free_pending {
            return;
        }
        if now >= self.busy_until {
            self.start_next(id, now, sched, drops);
        } else if self.has_backlog() {
            self.free_pending = true;
            sched.push(self.busy_until, Event::LinkFree(id));
        }
    }

    /// Whether a discipline port has a packet it may send now.
    #[inline]
    fn has_backlog(&self) -> bool {
        let Port::Qdisc(q) = &self.port else { return false };
        match self.lossless.as_deref() {
            None => q.packets() > 0,
            Some(l) => (l.control_backlog().0 > 0 && !l.control_waits()) || q.has_unpaused(l.paused_classes()),
        }
    }

    /// The far end paused (`on`) or resumed traffic class `class` of this lossless port at
    /// `now`; a resumed class starts on its waiting data.
    pub fn set_paused(
        &mut self,
        id: u32,
        now: Time,
        class: usize,
        on: bool,
        sched: &mut Scheduler,
        drops: &mut Vec<Packet>,
    ) {
        let Some(l) = self.lossless.as_deref_mut() else { return };
        if l.set_paused(now, class, on) && !on {
            self.kick(id, now, sched, drops);
        }
    }

    /// Puts a link-level control frame of `wire` bytes (a PFC PAUSE or RESUME) on the wire at
    /// `now`, after the packet being serialized and before the next: returns when it reaches the
    /// far end. It takes the wire's time but is no packet of the run's counters.
    pub fn send_frame(&mut self, now: Time, wire: u32) -> Time {
        let start = self.busy_until.max(now);
        self.busy_until = start + self.rate.tx_time(wire as u64);
        if let Some(l) = self.lossless.as_deref_mut() {
            l.stats.frames_sent += 1;
        }
        self.busy_until + self.delay
    }

    /// The serializer became free: start the next queued packet, if any (qdisc ports only); a
    /// packet lost on the wire is appended to `drops`.
    #[inline]
    pub fn on_free(&mut self, id: u32, now: Time, sched: &mut Scheduler, drops: &mut Vec<Packet>) {
        if now < self.busy_until {
            // A control frame took the wire after this event was set (`send_frame`).
            sched.push(self.busy_until, Event::LinkFree(id));
            return;
        }
        self.free_pending = false;
        self.start_next(id, now, sched, drops);
    }

    #[inline]
    fn start_next(&mut self, id: u32, now: Time, sched: &mut Scheduler, drops: &mut Vec<Packet>) {
        self.account_queue(now);
        if self.lossless.is_some() {
            return self.start_next_lossless(id, now, sched, drops);
        }
        let Port::Qdisc(q) = &mut self.port else { return };
        let Some(pkt) = q.dequeue(now) else { return };
        let backlog = q.packets() > 0;
        self.transmit(id, now, pkt, sched, drops);
        if backlog {
            self.free_pending = true;
            sched.push(self.busy_until, Event::LinkFree(id));
        }
    }

    /// [`Link::start_next`] of a lossless port: a control packet first, then data of a class not
    /// paused.
    #[cold]
    #[inline(never)]
    fn start_next_lossless(&mut self, id: u32, now: Time, sched: &mut Scheduler, drops: &mut Vec<Packet>) {
        let (Port::Qdisc(q), Some(l)) = (&mut self.port, self.lossless.as_deref_mut()) else { return };
        if l.control_waits() {
            return;
        }
        let pkt = match l.pop_control() {
            Some(p) => p,
            None => {
                let Some(mut p) = q.dequeue_unpaused(now, l.paused_classes()) else { return };
                l.on_departure(&mut p);
                p
            }
        };
        self.transmit(id, now, pkt, sched, drops);
        if self.has_backlog() {
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
            if self.role == Role::Import {
                sched.push_import(at, id);
            } else {
                sched.push(at, Event::LinkArrival(id));
            }
        }
        pkt
    }

    /// The packet the next arrival event delivers (a capture reads it there).
    #[inline]
    pub fn head_in_flight(&self) -> Option<&Packet> {
        self.inflight.front().map(|(_, p)| p)
    }

    /// A packet put on this link in another partition, arriving here at `at` (an
    /// [`Role::Import`] link; packets of one link come in their order on the wire).
    pub fn import(&mut self, id: u32, at: Time, pkt: Packet, sched: &mut Scheduler) {
        debug_assert_eq!(self.role, Role::Import);
        if self.inflight.is_empty() {
            sched.push_import(at, id);
        }
        self.inflight.push_back((at, pkt));
    }

    /// Sets which side of the link this copy holds.
    pub fn set_role(&mut self, role: Role) {
        self.role = role;
    }

    /// The far end's copy of a link a partition held whole otherwise: its packets still on
    /// the wire join this copy (after a partitioned run, this copy holds the port and counters).
    pub fn join_far_end(&mut self, far: &mut Link) {
        debug_assert!(self.inflight.is_empty());
        std::mem::swap(&mut self.inflight, &mut far.inflight);
        self.role = Role::Whole;
    }

    /// An empty stand-in with this link's ends, rate and delay, for a partition that holds
    /// neither end (or the far end only, see [`Role::Import`]).
    pub fn stand_in(&self) -> Link {
        Link::new(self.from, self.to, self.rate, self.delay, Port::Fifo(FifoSchedule::new(Limit::Packets(0))))
    }

    /// Asks the CPU to fetch the head packet in flight into cache, ahead of its arrival event:
    /// in-flight packets were written long ago and their read is the loop's main cache miss.
    #[inline]
    pub fn prefetch_arrival(&self) {
        if let Some(head) = self.inflight.front() {
            prefetch(head as *const (Time, Packet) as *const u8);
        }
    }

    /// Brings the occupancy integral up to `now` (call before reading stats).
    pub fn settle(&mut self, now: Time) {
        self.account_queue(now);
    }

    /// Periodic control of the port's discipline, if it has one.
    pub fn tick(&mut self, now: Time) -> Option<Time> {
        match &mut self.port {
            Port::Qdisc(q) => q.tick(now),
            Port::Fifo(_) => None,
        }
    }

    /// The router law of an explicit-feedback port (RCP, XCP, JetMax); None for other ports.
    pub fn law(&self) -> Option<&Law> {
        match self.port.discipline() {
            Some(Qdisc::Explicit(q)) => Some(q.law()),
            _ => None,
        }
    }

    /// The series rows of the port's own state ([`QueueDiscipline::metrics`]): a router law's,
    /// a marking queue's marks and drops, a protocol discipline's; and a lossless port's time
    /// paused up to `now` (`paused_s`, seconds since the start of the run); none for other ports.
    pub fn law_metrics(&self, now: Time, out: &mut impl FnMut(Metric, f64)) {
        if let Some(q) = self.port.discipline() {
            q.metrics(out)
        }
        if let Some(l) = self.lossless.as_deref() {
            out(Metric::Law(PAUSED_S), l.paused_time(now).as_secs_f64());
        }
    }

    /// How many rows [`Link::law_metrics`] emits per sample.
    pub fn law_metric_count(&self) -> usize {
        self.port.discipline().map_or(0, |q| q.metric_count()) + self.lossless.is_some() as usize
    }

    /// Wire bytes offered to the port so far: admitted (put on the wire, or still waiting)
    /// plus dropped by the queue. Derived from the counters, nothing counted per packet: a FIFO
    /// port counts `bytes_sent` at admission, so its waiting packets are in it already; a qdisc
    /// port counts at dequeue, so its waiting bytes are added. Scripted drops take packets
    /// before the port and are not offered to it.
    pub fn offered_bytes(&self) -> u64 {
        let admitted = match &self.port {
            Port::Fifo(_) => self.stats.bytes_sent,
            Port::Qdisc(q) => self.stats.bytes_sent + q.bytes(),
        };
        admitted + self.stats.drops_bytes
    }

    /// When the port's first periodic tick is due.
    pub fn first_tick(&self) -> Option<Time> {
        match &self.port {
            Port::Qdisc(q) => q.first_tick(),
            Port::Fifo(_) => None,
        }
    }
}

/// A cache-prefetch hint; no effect on results, and a no-op off x86_64.
#[inline(always)]
fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0);
        std::arch::x86_64::_mm_prefetch(p.wrapping_add(64) as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    #[test]
    fn what_a_packet_reads_is_in_the_first_three_cache_lines() {
        use std::mem::offset_of;
        assert_eq!(std::mem::align_of::<Link>(), 64);
        assert!(
            offset_of!(Link, lossy) < 64
                && offset_of!(Link, role) < 64
                && offset_of!(Link, to) < 64
                && offset_of!(Link, inflight) < 64
        );
        assert!(offset_of!(Link, port) + std::mem::size_of::<Port>() <= 128, "the port (a FIFO inline) in line 2");
        assert!(offset_of!(Link, stats) + offset_of!(LinkStats, last_change) + 8 <= 192, "the counters in line 3");
    }

    use super::*;
    use crate::qdisc::DropTail;

    fn pkt(wire: u32, seq: u64) -> Packet {
        let mut p = crate::qdisc::droptail::tests::pkt(wire, 0);
        p.seq = seq;
        p
    }

    /// Feeds the same packets to a link and returns (arrival time, seq) of what came out, the
    /// seqs dropped, and the queue counters.
    fn drive(port: Port, arrivals: &[(u64, u32)]) -> (Vec<(Time, u64)>, Vec<u64>, u128, u64) {
        let mut link = Link::new(0, 1, Rate::from_mbps(100), Time::from_us(50), port);
        let mut sched = Scheduler::new();
        let mut drops = Vec::new();
        let mut out = Vec::new();
        let mut i = 0;
        loop {
            let next_ext = arrivals.get(i).map(|&(t, _)| Time::from_ns(t));
            let next_ev = sched.peek_time();
            match (next_ext, next_ev) {
                (Some(t), ev) if ev.is_none_or(|e| t < e) => {
                    link.send(0, t, pkt(arrivals[i].1, i as u64), &mut sched, &mut drops);
                    i += 1;
                }
                (_, Some(_)) => {
                    let (t, ev) = sched.pop().unwrap();
                    match ev {
                        Event::LinkArrival(_) => out.push((t, link.on_arrival(0, &mut sched).seq)),
                        Event::LinkFree(_) => link.on_free(0, t, &mut sched, &mut drops),
                        _ => unreachable!(),
                    }
                }
                (None, None) => break,
                _ => unreachable!(),
            }
        }
        let end = out.last().map_or(Time::ZERO, |o| o.0);
        link.settle(end);
        (out, drops.iter().map(|p| p.seq).collect(), link.stats.queue_area, link.stats.queue_max_bytes)
    }

    #[test]
    fn fifo_schedule_matches_a_droptail_queue_served_at_dequeue() {
        // Bursts that overflow a 6 kB buffer, with gaps that let it drain: a packet every
        // 20 ns in bursts of 12, 1500 B at 100 Mb/s (120 us each), bursts 1 ms apart, plus ACKs.
        let mut arrivals = Vec::new();
        for burst in 0..20u64 {
            for k in 0..12u64 {
                let wire = if k % 3 == 2 { 40 } else { 1500 };
                arrivals.push((burst * 1_000_000 + k * 20 + burst * 7, wire));
            }
        }
        let fifo = drive(Port::Fifo(FifoSchedule::new(Limit::Bytes(6000))), &arrivals);
        let qdisc = drive(Port::qdisc(Qdisc::DropTail(DropTail::new(Limit::Bytes(6000)))), &arrivals);
        assert!(!fifo.1.is_empty(), "the test must overflow the buffer");
        assert_eq!(fifo.0, qdisc.0, "same departures and arrival times");
        assert_eq!(fifo.1, qdisc.1, "same drops");
        assert_eq!((fifo.2, fifo.3), (qdisc.2, qdisc.3), "same occupancy integral and maximum");
    }

    #[test]
    fn departures_beyond_the_clock_saturate_instead_of_wrapping_into_the_past() {
        // The largest packet (1 MiB + 64 KiB) takes 8.9e18 ps at 1 bit/s: the third one queued
        // behind two others would leave after 2^64 ps, and used to wrap to 8.4e18 ps.
        let mut link = Link::new(0, 1, Rate(1), Time::ZERO, Port::Fifo(FifoSchedule::new(Limit::Packets(u64::MAX))));
        let (mut sched, mut drops) = (Scheduler::new(), Vec::new());
        for i in 0..3 {
            link.send(0, Time::ZERO, pkt((1 << 20) + (1 << 16), i), &mut sched, &mut drops);
        }
        let at: Vec<Time> = link.inflight.iter().map(|&(t, _)| t).collect();
        assert!(at.windows(2).all(|w| w[0] <= w[1]), "{at:?}");
        assert_eq!(at[2], Time::MAX);
    }

    #[test]
    fn random_loss_drops_about_p_of_the_packets() {
        let mut link =
            Link::new(0, 1, Rate::from_gbps(1), Time::ZERO, Port::Fifo(FifoSchedule::new(Limit::Packets(u64::MAX))));
        link.set_random_loss(0.1, Rng::new(3));
        let mut sched = Scheduler::new();
        let mut drops = Vec::new();
        for i in 0..20_000 {
            link.send(0, Time::from_us(20 * i), pkt(1500, i), &mut sched, &mut drops);
        }
        let lost = link.stats.lost_pkts as f64 / 20_000.0;
        assert!((lost - 0.1).abs() < 0.01, "{lost}");
        assert_eq!(link.stats.pkts_sent, 20_000);
    }
}
