//! What every queue discipline is: the [`QueueDiscipline`] interface and its buffer [`Limit`].
//!
//! A leaf: the disciplines here and the protocols' own (pFabric's switch, RCP beside TCP)
//! implement it without importing the closed list of disciplines (`qdisc/mod.rs`).

use crate::metrics::metric::Metric;
use crate::net::packet::Packet;
use crate::units::{Rate, Time};

/// A buffer limit: in bytes or in packets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    /// At most this many bytes (wire size) queued.
    Bytes(u64),
    /// At most this many packets queued.
    Packets(u64),
}

impl Limit {
    /// No limit: the buffer of a queue table that gives neither `limit` nor `limit_packets`.
    pub const UNLIMITED: Limit = Limit::Bytes(u64::MAX / 4);

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
    /// The link under the port now serializes at `capacity` (a scheduled rate change the
    /// router is told of); a discipline that computes with the rate uses it from its next step.
    fn set_capacity(&mut self, _capacity: Rate) {}
    /// How many series rows [`QueueDiscipline::metrics`] emits per sample (constant per port:
    /// the run's memory estimate counts on it).
    fn metric_count(&self) -> usize {
        0
    }
    /// Emits the port's own state as series rows, `metric_count()` calls of `out`, in a fixed
    /// order.
    fn metrics(&self, _out: &mut impl FnMut(Metric, f64)) {}
}
