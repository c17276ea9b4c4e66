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
//! registry's [`Law`] (`protocol/mod.rs`), and is built in `scenario/queues.rs`
//! (`QueueSpec::build`, a new `kind`). Nothing in the link, the
//! world or the metrics changes.
//!
//! **Keys.** A discipline's scenario keys (`kind = "red"`, `"step"`, `"drr"`, `"prio"`)
//! deserialize, check themselves and build its port beside it (`aqm_keys.rs`, `drr_keys.rs`,
//! `prio_keys.rs`), as router laws' parameters do in their protocol's folder; the scenario
//! layer (`scenario/queues.rs`) only picks the kind.

pub mod aqm;
pub mod aqm_keys;
pub mod cost;
pub mod droptail;
pub mod drr;
pub mod drr_keys;
pub mod law;
pub mod prio;
pub mod prio_keys;
pub mod zombie;

use crate::net::packet::Packet;
pub use crate::protocol::pfabric::PFabricQueue;
pub use crate::protocol::rcp::{CoexistMode, RcpTcpParams, RcpTcpQueue, TcRule};
use crate::units::{Rate, Time};
pub use aqm::AqmQueue;
pub use droptail::DropTail;
pub use drr::{Classify, Drr};
pub use law::*;
pub use prio::Prio;

/// A buffer limit: in bytes or in packets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    /// At most this many bytes (wire size) queued.
    Bytes(u64),
    /// At most this many packets queued.
    Packets(u64),
}

impl Limit {
    /// True if `bytes`/`pkts` already queued leave room for a packet of `wire` bytes.
    pub fn fits(&self, bytes: u64, pkts: usize, wire: u32) -> bool {
        match *self {
            Limit::Bytes(b) => bytes + wire as u64 <= b,
            Limit::Packets(p) => (pkts as u64) < p,
        }
    }
}

/// What every queue discipline does.
pub trait QueueDiscipline {
    /// Offers `pkt`. Packets that do not fit (the arrival or others pushed out) go to `drops`.
    fn enqueue(&mut self, now: Time, pkt: Packet, drops: &mut Vec<Packet>);
    /// Takes the next packet to transmit, stamping headers if the discipline does that.
    fn dequeue(&mut self, now: Time) -> Option<Packet>;
    /// Bytes (wire size) queued.
    fn bytes(&self) -> u64;
    /// Packets queued.
    fn packets(&self) -> usize;
    /// Periodic control; returns when to be called next (None: never again).
    fn tick(&mut self, _now: Time) -> Option<Time> {
        None
    }
    /// When the first periodic tick is due, if the discipline has one.
    fn first_tick(&self) -> Option<Time> {
        None
    }
}

/// The queue disciplines fctlab has, dispatched statically.
#[derive(Debug)]
pub enum Qdisc {
    /// First-in first-out, drop the arrival when full.
    DropTail(DropTail),
    /// Strict priority bands sharing one buffer, with push-out.
    Prio(Prio),
    /// Deficit round robin over weighted classes sharing one buffer.
    Drr(Drr),
    /// A FIFO run by an explicit-feedback router law (RCP, XCP, JetMax).
    Explicit(ExplicitQueue),
    /// RCP and TCP sharing a port by the thesis's coexistence scheme (sec. 6.2.1); boxed, as
    /// it is large and rare.
    RcpTcp(Box<RcpTcpQueue>),
    /// A FIFO that marks ECN-capable packets (RED, or a step at K) and drops the others.
    Aqm(AqmQueue),
    /// pFabric's port: served and dropped by the packets' remaining sizes.
    PFabric(PFabricQueue),
}

macro_rules! each_qdisc {
    ($self:ident, $q:ident => $body:expr) => {
        match $self {
            Qdisc::DropTail($q) => $body,
            Qdisc::Prio($q) => $body,
            Qdisc::Drr($q) => $body,
            Qdisc::Explicit($q) => $body,
            Qdisc::RcpTcp($q) => $body,
            Qdisc::Aqm($q) => $body,
            Qdisc::PFabric($q) => $body,
        }
    };
}

impl Qdisc {
    /// The link under the port now serializes at `capacity` (a scheduled rate change the
    /// router is told of): an explicit-feedback law computes with it from its next step.
    pub fn set_capacity(&mut self, capacity: Rate) {
        match self {
            Qdisc::Explicit(q) => q.set_capacity(capacity),
            Qdisc::RcpTcp(q) => q.set_capacity(capacity),
            Qdisc::DropTail(_) | Qdisc::Prio(_) | Qdisc::Drr(_) | Qdisc::Aqm(_) | Qdisc::PFabric(_) => {}
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
}
