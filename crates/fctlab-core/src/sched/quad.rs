//! A 4-ary min-heap keyed by (time, seq): the link events while few are pending, and those the timing wheel holds beyond its ring.

use super::{Entry, Event};
use crate::units::Time;

/// A 4-ary min-heap keyed by (time, seq) packed in a `u128`: half the depth of a binary
/// heap, and the four children's keys (64 bytes) share one cache line. Payloads sit in a
/// parallel array so comparisons only touch keys.
///
/// Popping leaves a hole at the root instead of refilling it at once: the next push, most often
/// the same link scheduling its next packet's arrival a moment later, drops into the hole and
/// sifts down only as far as it belongs (not far: it is due soon), which replaces a full
/// sift-down of the last entry plus a sift-up. A peek or pop that finds the hole fills it the
/// usual way first.
///
/// The key array is padded with `u128::MAX` past the last entry, so every node's four
/// children can be read without a bounds test, and the smallest of them is picked with
/// conditional moves of indices: which child is smallest is a coin flip, which a branch would
/// mispredict half the time. (The 128-bit keys are compared directly, a subtract with borrow;
/// only the 64-bit indices are selected: x86 has no 128-bit conditional move.)
#[derive(Default)]
pub(super) struct QuadHeap {
    /// `len` slots, then at least 4 `u128::MAX`.
    keys: Vec<u128>,
    events: Vec<Event>,
    /// Slots in use, the hole included.
    len: usize,
    /// Slot 0 is empty (popped, not yet refilled).
    hole: bool,
}

#[inline]
pub(super) fn pack(time: Time, seq: u64) -> u128 {
    ((time.0 as u128) << 64) | seq as u128
}

impl QuadHeap {
    /// Entries pending.
    pub(super) fn len(&self) -> usize {
        self.len - self.hole as usize
    }

    #[inline]
    fn entry(&self, i: usize) -> Entry {
        let k = self.keys[i];
        Entry { time: Time((k >> 64) as u64), seq: k as u64, event: self.events[i] }
    }

    /// (time, seq, event) of the minimum.
    #[inline]
    pub(super) fn peek(&mut self) -> Option<Entry> {
        self.fill_hole();
        (self.len > 0).then(|| self.entry(0))
    }

    /// The minimum, or while the root is a hole, the smallest of its children (which is the
    /// minimum unless the next push beats it): a prefetch hint that changes nothing.
    #[inline]
    pub(super) fn peek_hint(&self) -> Option<Event> {
        if !self.hole {
            return (self.len > 0).then(|| self.events[0]);
        }
        // Children 1..5 exist or are padding (u128::MAX): the hole implies len >= 1.
        let k = &self.keys[1..5];
        let m01 = std::hint::select_unpredictable(k[1] < k[0], 1, 0);
        let m23 = std::hint::select_unpredictable(k[3] < k[2], 3, 2);
        let i = 1 + std::hint::select_unpredictable(k[m23] < k[m01], m23, m01);
        (i < self.len).then(|| self.events[i])
    }

    #[inline]
    pub(super) fn push(&mut self, e: Entry) {
        let key = pack(e.time, e.seq);
        if self.hole {
            self.hole = false;
            self.sift_down(0, key, e.event);
            return;
        }
        let mut i = self.len;
        self.len += 1;
        // Keep 4 padding keys past the end (children of the last parent may be read).
        if self.keys.len() < self.len + 4 {
            self.keys.resize(self.len + 4, u128::MAX);
            self.events.resize(self.len + 4, e.event);
        }
        while i > 0 {
            let p = (i - 1) / 4;
            if key >= self.keys[p] {
                break;
            }
            self.keys[i] = self.keys[p];
            self.events[i] = self.events[p];
            i = p;
        }
        self.keys[i] = key;
        self.events[i] = e.event;
    }

    /// Removes the minimum, leaving its slot as the hole.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<Entry> {
        let top = self.peek()?;
        self.hole = true;
        Some(top)
    }

    /// Refills a hole at the root with the last entry.
    #[inline]
    fn fill_hole(&mut self) {
        if !self.hole {
            return;
        }
        self.hole = false;
        self.len -= 1;
        let n = self.len;
        let last_key = std::mem::replace(&mut self.keys[n], u128::MAX);
        let last_ev = self.events[n];
        if n > 0 {
            self.sift_down(0, last_key, last_ev);
        }
    }

    /// Places (key, ev) at the vacant slot `i` or below, moving smaller children up.
    #[inline]
    fn sift_down(&mut self, mut i: usize, key: u128, ev: Event) {
        let n = self.len;
        debug_assert!(self.keys.len() >= n + 4 && self.events.len() == self.keys.len() && i < n);
        loop {
            let c = 4 * i + 1;
            if c >= n {
                break;
            }
            // SAFETY: c < n and the arrays hold at least n + 4 slots (padding kept by `push`,
            // and slots past `n` hold u128::MAX), so c..c+4 are in bounds, and so are i (< c)
            // and c + m (m < 4). Unchecked reads: the bounds tests were a fifth of the loop.
            unsafe {
                let k = |x: usize| *self.keys.get_unchecked(c + x);
                let m01 = std::hint::select_unpredictable(k(1) < k(0), 1, 0);
                let m23 = std::hint::select_unpredictable(k(3) < k(2), 3, 2);
                let m = std::hint::select_unpredictable(k(m23) < k(m01), m23, m01);
                let mk = k(m);
                if mk >= key {
                    break;
                }
                *self.keys.get_unchecked_mut(i) = mk;
                *self.events.get_unchecked_mut(i) = *self.events.get_unchecked(c + m);
                i = c + m;
            }
        }
        self.keys[i] = key;
        self.events[i] = ev;
    }
}
