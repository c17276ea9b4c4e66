//! A radix heap of events keyed by time, ties first-in first-out.

use super::Entry;
use crate::units::Time;

/// A radix heap keyed by time.
///
/// Entries are pushed no earlier than the last popped time and popped only when they are the
/// queue's earliest, so a radix heap applies: bucket `b > 0` holds entries whose time differs
/// from the last popped time first in bit `b - 1`; bucket 0 holds entries at exactly that time,
/// served first-in first-out. A bucket is refilled from a higher one only while empty, so every
/// bucket keeps equal times in insertion order. Push is O(1); an entry moves down at most 64
/// times. The minimum is found without settling (which would move the base past the present).
pub(super) struct Radix {
    buckets: Vec<Vec<Entry>>,
    /// Bit b set when bucket b is non-empty.
    occupied: u128,
    /// Next unread position in bucket 0.
    head: usize,
    last: u64,
    pub(super) len: usize,
    /// (time, seq) of the earliest entry, while known.
    cached_min: Option<(Time, u64)>,
}

impl Radix {
    pub(super) fn new() -> Radix {
        Radix {
            buckets: (0..65).map(|_| Vec::new()).collect(),
            occupied: 0,
            head: 0,
            last: 0,
            len: 0,
            cached_min: None,
        }
    }

    #[inline]
    fn bucket(&self, t: u64) -> usize {
        (64 - (t ^ self.last).leading_zeros()) as usize
    }

    #[inline]
    pub(super) fn push(&mut self, e: Entry) {
        debug_assert!(e.time.0 >= self.last, "event scheduled in the past");
        let b = self.bucket(e.time.0);
        self.buckets[b].push(e);
        self.occupied |= 1 << b;
        self.len += 1;
        if let Some((t, _)) = self.cached_min {
            // A new entry has the highest seq: it is the minimum only if strictly earlier.
            if e.time < t {
                self.cached_min = Some((e.time, e.seq));
            }
        }
    }

    /// (time, seq) of the earliest entry. Every pop of the scheduler asks, so it is always
    /// inlined: left to the compiler, a change elsewhere in the crate (more callers of the
    /// event loop) once moved it out of `World::run_until`, for 19 more instructions per
    /// packet-hop on the dumbbell.
    #[inline(always)]
    pub(super) fn min(&mut self) -> Option<(Time, u64)> {
        if self.cached_min.is_none() && self.len > 0 {
            let b = self.occupied.trailing_zeros() as usize;
            self.cached_min = if b == 0 {
                let e = self.buckets[0][self.head];
                Some((e.time, e.seq))
            } else {
                self.buckets[b].iter().map(|e| (e.time, e.seq)).min()
            };
        }
        self.cached_min
    }

    /// Removes the earliest entry (the caller knows it is the queue's earliest event).
    pub(super) fn pop(&mut self) -> Option<Entry> {
        if self.len == 0 {
            return None;
        }
        if self.occupied & 1 == 0 {
            let b = self.occupied.trailing_zeros() as usize;
            let mut items = std::mem::take(&mut self.buckets[b]);
            self.occupied &= !(1 << b);
            self.last = items.iter().map(|e| e.time.0).min().expect("occupied bucket");
            for &e in &items {
                let nb = self.bucket(e.time.0);
                self.buckets[nb].push(e);
                self.occupied |= 1 << nb;
            }
            items.clear();
            self.buckets[b] = items;
        }
        let e = self.buckets[0][self.head];
        self.head += 1;
        if self.head == self.buckets[0].len() {
            self.buckets[0].clear();
            self.head = 0;
            self.occupied &= !1;
        }
        self.len -= 1;
        self.cached_min = None;
        Some(e)
    }
}
