//! Queue disciplines: the router plug-in.
//!
//! Every output port owns one [`Qdisc`]. Disciplines write only `enqueue` / `dequeue` (and an
//! optional periodic `tick`); the link around them keeps the byte, drop and occupancy
//! accounting, so no discipline can get it wrong. Plain FIFO ports take a faster path that
//! needs no discipline at all (see `net::link`).
//! Static dispatch through the [`Qdisc`] enum keeps the hot path free of virtual calls.
//!
//! **Router laws.** The explicit-feedback routers (RCP, XCP, JetMax, PIQI-RCP) are one discipline,
//! [`ExplicitQueue`]: a drop-tail FIFO that owns the buffer and its accounting and calls a
//! *router law* ([`law::RouterLaw`]) at fixed points: every offered packet before admission,
//! every departure (where the law stamps the header), a periodic control tick, and each series
//! sample (the law's extra rows, e.g. RCP's R and d, JetMax's g and N). A law is only the
//! protocol's arithmetic and state; it sees the port through a [`PortCtx`] (router, link,
//! capacity). A law lives in its protocol's folder
//! (`protocol/<name>/router.rs`, a struct implementing [`law::RouterLaw`]), is listed in the
//! registry's [`Law`](crate::protocol::Law) (a row of `protocol/registry.rs`), and is built by
//! its queue kind's keys (the row's `kinds`, implementing [`KindKeys`] in the folder's
//! `kind.rs`). Nothing in the link, the world or the metrics changes.
//!
//! **Round robin** (`round_robin.rs`): one FIFO per flow served in turn, an RDMA NIC's
//! per-queue-pair scheduling, for host NICs.
//!
//! **Keys.** A discipline's scenario keys (`kind = "red"`, `"step"`, `"drr"`, `"prio"`)
//! deserialize, check themselves and build its port beside it (`aqm_keys.rs`, `drr_keys.rs`,
//! `prio_keys.rs`), as a protocol's queue kinds do in its folder ([`KindKeys`],
//! `kind_keys.rs`); the scenario layer (`scenario/queues.rs`) only picks the kind.

pub mod aqm;
pub mod aqm_keys;
pub mod classes;
pub mod cost;
pub mod discipline;
pub mod droptail;
pub mod drr;
pub mod drr_keys;
pub mod explicit;
pub mod kind_keys;
pub mod law;
pub mod prio;
pub mod prio_keys;
pub mod round_robin;
pub mod zombie;

use crate::metrics::metric::Metric;
use crate::net::packet::Packet;
use crate::protocol::laws::ProtocolQueue;
use crate::units::{Rate, Time};
pub use aqm::AqmQueue;
pub use classes::Classes;
pub use discipline::{Limit, QueueDiscipline};
pub use droptail::DropTail;
pub use drr::{Classify, Drr};
pub use explicit::ExplicitQueue;
pub use kind_keys::KindKeys;
pub use law::{PortCtx, RouterLaw};
pub use prio::Prio;
pub use round_robin::RoundRobin;

/// The queue disciplines fctlab has, dispatched statically.
#[derive(Debug)]
pub enum Qdisc {
    /// First-in first-out, drop the arrival when full.
    DropTail(DropTail),
    /// Strict priority bands sharing one buffer, with push-out.
    Prio(Prio),
    /// Deficit round robin over weighted classes sharing one buffer.
    Drr(Drr),
    /// A FIFO run by an explicit-feedback router law (one of the registry's `Law`).
    Explicit(ExplicitQueue),
    /// A FIFO that marks ECN-capable packets (RED, or a step at K) and drops the others.
    Aqm(AqmQueue),
    /// A protocol's own discipline (the registry's closed list: pFabric's switch, RCP beside
    /// TCP).
    Protocol(ProtocolQueue),
    /// Round robin over flows (an RDMA NIC's queue pairs).
    RoundRobin(RoundRobin),
    /// One FIFO per traffic class, round robin among those not paused (a lossless port).
    Classes(Classes),
}

macro_rules! each_qdisc {
    ($self:ident, $q:ident => $body:expr) => {
        match $self {
            Qdisc::DropTail($q) => $body,
            Qdisc::Prio($q) => $body,
            Qdisc::Drr($q) => $body,
            Qdisc::Explicit($q) => $body,
            Qdisc::Aqm($q) => $body,
            Qdisc::Protocol($q) => $body,
            Qdisc::RoundRobin($q) => $body,
            Qdisc::Classes($q) => $body,
        }
    };
}

impl Qdisc {
    /// At a lossless port: the next packet whose traffic class is not in `paused` (bit `c`:
    /// class `c` paused). Per-class FIFOs and a round-robin NIC pass over what is paused; any
    /// other discipline is one queue and waits while any class is paused (exact when its
    /// packets are of one class).
    #[inline]
    pub fn dequeue_unpaused(&mut self, now: Time, paused: u8) -> Option<Packet> {
        match self {
            Qdisc::Classes(q) => q.dequeue_unpaused(paused),
            Qdisc::RoundRobin(q) => q.dequeue_unpaused(now, paused),
            q if paused == 0 => q.dequeue(now),
            _ => None,
        }
    }

    /// Whether [`Qdisc::dequeue_unpaused`] would give a packet.
    #[inline]
    pub fn has_unpaused(&self, paused: u8) -> bool {
        match self {
            Qdisc::Classes(q) => q.has_unpaused(paused),
            Qdisc::RoundRobin(q) => q.has_unpaused(paused),
            q => paused == 0 && q.packets() > 0,
        }
    }
}

impl QueueDiscipline for Qdisc {
    #[inline]
    fn enqueue(&mut self, now: Time, pkt: Packet, drops: &mut Vec<Packet>) {
        each_qdisc!(self, q => q.enqueue(now, pkt, drops))
    }
    #[inline]
    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        each_qdisc!(self, q => q.dequeue(now))
    }
    #[inline]
    fn bytes(&self) -> u64 {
        each_qdisc!(self, q => q.bytes())
    }
    #[inline]
    fn packets(&self) -> usize {
        each_qdisc!(self, q => q.packets())
    }
    fn tick(&mut self, now: Time) -> Option<Time> {
        each_qdisc!(self, q => q.tick(now))
    }
    fn first_tick(&self) -> Option<Time> {
        each_qdisc!(self, q => q.first_tick())
    }
    /// An explicit-feedback law (or a protocol's discipline) computes with the new rate from
    /// its next step.
    fn set_capacity(&mut self, capacity: Rate) {
        each_qdisc!(self, q => q.set_capacity(capacity))
    }
    /// A router law's rows, a marking queue's marks and drops, a protocol discipline's state.
    fn metric_count(&self) -> usize {
        each_qdisc!(self, q => q.metric_count())
    }
    fn metrics(&self, out: &mut impl FnMut(Metric, f64)) {
        each_qdisc!(self, q => q.metrics(out))
    }
}
