//! The per-flow record that becomes one row of the flows table, and the table of the flows'
//! paths the records refer to.
//!
//! Memory: a run holds one record per flow for its whole length (the flows table is built from
//! them, at the end or piece by piece as flows retire: `metrics::tables::FlowStream`), so a
//! record holds no heap allocation of its own: node, profile and workload indices are u32, and
//! the forward path is an index into [`Paths`], where each distinct path is stored once (flows
//! between the same two hosts share theirs). A record is 128 bytes (a test checks).

use crate::units::Time;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::num::NonZeroU64;

/// One flow's facts, filled in as the run goes.
#[derive(Clone, Debug)]
pub struct FlowRecord {
    /// Sending host (node id).
    pub src: u32,
    /// Receiving host (node id).
    pub dst: u32,
    /// Payload bytes (None: long-lived).
    pub size: Option<u64>,
    /// Application start.
    pub start: Time,
    /// When the receiver held every byte.
    pub finish: Option<Time>,
    /// When the sender had every byte acknowledged, in ps (a finite flow's sender is then
    /// done); None before. No ACK arrives at time 0, so the niche keeps the record 8 bytes
    /// smaller than an `Option<Time>` would: read it with [`FlowRecord::acked`].
    pub acked_ps: Option<NonZeroU64>,
    /// A long-lived flow's application stopped.
    pub stopped: bool,
    /// Round-trip propagation delay of the flow's path (forward + reverse).
    pub rtt_prop: Time,
    /// FCT on an empty network without slow start: 1.5 x rtt_prop + wire bytes / bottleneck.
    pub ideal: Time,
    /// When the application's first write was held in full (scheduled writers only).
    pub first_write: Option<Time>,
    /// Bytes delivered in order to the receiving application.
    pub delivered: u64,
    /// Payload bytes retransmitted.
    pub retx_bytes: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Index of the transport profile.
    pub profile: u32,
    /// Index of the workload entry.
    pub workload: u32,
    /// The forward path, source to destination, as routed at plan time: an index into the
    /// run's [`Paths`] (`World::path` reads it).
    pub path: u32,
}

/// What a flow's endpoints counted packet by packet: not flows-table columns (the world keeps
/// them beside the records, `World::packet_counts`, which the bindings read to check a capture
/// against).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PacketCounts {
    /// Data packets the sender sent, retransmissions included.
    pub data_pkts: u64,
    /// Of those, retransmissions.
    pub retx_pkts: u64,
    /// ACKs the receiver sent with SACK blocks.
    pub sack_acks: u64,
}

impl FlowRecord {
    /// When the sender had every byte acknowledged.
    pub fn acked(&self) -> Option<Time> {
        self.acked_ps.map(|t| Time::from_ps(t.get()))
    }

    /// Notes that the sender had every byte acknowledged at `t` (after time 0).
    pub fn set_acked(&mut self, t: Time) {
        self.acked_ps = NonZeroU64::new(t.ps());
    }

    /// Flow completion time: finish minus application start (handshake included).
    pub fn fct(&self) -> Option<Time> {
        self.finish.map(|f| f - self.start)
    }
}

/// Paths (lists of link ids), each stored once, by index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Paths {
    /// Path i is `links[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
    links: Vec<u32>,
}

impl Paths {
    /// Path `id`.
    #[inline]
    pub fn get(&self, id: u32) -> &[u32] {
        let i = id as usize;
        &self.links[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// How many distinct paths.
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// No path.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of its buffers (capacity).
    pub fn heap_bytes(&self) -> usize {
        (self.starts.capacity() + self.links.capacity()) * std::mem::size_of::<u32>()
    }
}

/// Builds a [`Paths`], giving a path seen before its earlier index.
#[derive(Debug, Default)]
pub struct PathInterner {
    paths: Paths,
    index: HashMap<Vec<u32>, u32, BuildHasherDefault<WordHash>>,
}

/// A multiply-rotate hash of 64-bit words (rustc's FxHash): a few instructions a link id where
/// the standard SipHash takes dozens, once per flow at plan time. The keys are the scenario's
/// own paths, not input chosen to collide.
#[derive(Debug, Default)]
pub struct WordHash(u64);

impl WordHash {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for WordHash {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl PathInterner {
    /// The index of `path`, stored if new.
    pub fn intern(&mut self, path: Vec<u32>) -> u32 {
        if let Some(&id) = self.index.get(&path) {
            return id;
        }
        let p = &mut self.paths;
        if p.starts.is_empty() {
            p.starts.push(0);
        }
        let id = p.len() as u32;
        p.links.extend_from_slice(&path);
        p.starts.push(p.links.len() as u32);
        self.index.insert(path, id);
        id
    }

    /// The paths, by index.
    pub fn finish(mut self) -> Paths {
        if self.paths.starts.is_empty() {
            self.paths.starts.push(0);
        }
        self.paths.starts.shrink_to_fit();
        self.paths.links.shrink_to_fit();
        self.paths
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_path_is_stored_once() {
        let mut i = PathInterner::default();
        assert_eq!(i.intern(vec![0, 4, 2]), 0);
        assert_eq!(i.intern(vec![1, 4, 3]), 1);
        assert_eq!(i.intern(vec![0, 4, 2]), 0);
        assert_eq!(i.intern(vec![]), 2);
        let p = i.finish();
        assert_eq!((p.len(), p.get(0), p.get(1), p.get(2)), (3, &[0, 4, 2][..], &[1, 4, 3][..], &[][..]));
        assert!(PathInterner::default().finish().is_empty());
    }

    #[test]
    fn a_record_is_128_bytes() {
        // No heap allocation per flow, no padding beyond the Options' tags.
        assert_eq!(std::mem::size_of::<FlowRecord>(), 128);
    }
}
