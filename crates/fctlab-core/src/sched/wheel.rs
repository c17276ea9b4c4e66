//! The link events on a timing wheel (a calendar queue): push and pop cost the same whatever
//! the number of busy links.
//!
//! Time is cut into slots of `2^shift` picoseconds; [`SLOTS`] consecutive slots, starting at
//! the open one (`cur`), are held in a ring, each an unsorted list of its events. Only the open
//! slot is kept sorted, by (time, seq), and events are taken from its head; when it runs out,
//! the next occupied slot (found in a two-level bitmap) opens and is sorted once. An event due
//! beyond the ring waits in a 4-ary heap ([`QuadHeap`]) and joins the ring when the ring
//! reaches it. An event pushed into the open slot is inserted in order (most often at the
//! end: it is the latest so far), and one due before the open slot (a timer's handler may push
//! a link event earlier than the slot a peek opened) joins the open slot too, which keeps the
//! open slot the one holding the minimum.
//!
//! The order is exactly (time, seq), whatever the slot width: the width only decides the cost.
//! A heap costs log4(n) levels per event, with n the busy links (7 levels on a loaded k = 32
//! fat tree, most of them cache misses); the wheel costs a few instructions per push and pop
//! while slots hold a few events and the ring spans the pending ones. So the width adapts: every
//! [`ADAPT_EVERY`] pops the wheel looks at how many pushes went past the ring (too narrow) and
//! how many events a pop left in the open slot (too wide), and rebuilds itself at twice or half the
//! width when one of them is out of bounds.

use super::quad::{pack, QuadHeap};
use super::{Entry, Event};
use crate::units::Time;

/// Slots in the ring (a power of two, at most 64 x 64 for the two-level bitmap).
const SLOTS: usize = 4096;
const MASK: u64 = SLOTS as u64 - 1;
/// Pops between two looks at the slot width.
const ADAPT_EVERY: u32 = 1 << 14;
/// The first slot width, 2^20 ps (about 1 us): a 1500-byte packet's time on a 12 Gb/s link.
const FIRST_SHIFT: u32 = 20;

#[derive(Default, Clone)]
struct Slot {
    entries: Vec<Entry>,
    /// Next entry to take (the open slot only; 0 elsewhere).
    head: usize,
}

pub(super) struct Wheel {
    /// log2 of a slot's width in picoseconds.
    shift: u32,
    /// Absolute number (time >> shift) of the open slot.
    cur: u64,
    slots: Vec<Slot>,
    /// Bit i % 64 of word i / 64: slot i holds events (the open slot: events not yet taken).
    occupied: Vec<u64>,
    /// Bit w: `occupied[w] != 0`.
    summary: u64,
    /// Events due at or after the ring's end (`cur + SLOTS`).
    overflow: QuadHeap,
    /// The absolute slot of the overflow's earliest event, `u64::MAX` if it is empty.
    overflow_first: u64,
    /// Events pending, the overflow included.
    pub(super) len: usize,
    /// Time of the last event taken.
    last: Time,
    // What the width adaptation counts since its last look.
    pops: u32,
    pushes: u32,
    spilled: u32,
    /// Sum over pops of the events left in the open slot.
    backlog: u64,
}

impl Default for Wheel {
    fn default() -> Self {
        Wheel {
            shift: FIRST_SHIFT,
            cur: 0,
            slots: vec![Slot::default(); SLOTS],
            occupied: vec![0; SLOTS / 64],
            summary: 0,
            overflow: QuadHeap::default(),
            overflow_first: u64::MAX,
            len: 0,
            last: Time::ZERO,
            pops: 0,
            pushes: 0,
            spilled: 0,
            backlog: 0,
        }
    }
}

impl Wheel {
    /// An empty wheel whose open slot holds `t` (events may still be pushed earlier: they join
    /// the open slot).
    pub(super) fn starting_at(t: Time) -> Wheel {
        let w = Wheel::default();
        Wheel { cur: t.0 >> w.shift, last: t, ..w }
    }

    #[inline]
    fn mark(&mut self, i: usize) {
        self.occupied[i / 64] |= 1 << (i % 64);
        self.summary |= 1 << (i / 64);
    }

    #[inline]
    fn unmark(&mut self, i: usize) {
        let w = &mut self.occupied[i / 64];
        *w &= !(1 << (i % 64));
        if *w == 0 {
            self.summary &= !(1 << (i / 64));
        }
    }

    /// Schedules `e` (any time: one before the open slot joins it).
    #[inline]
    pub(super) fn push(&mut self, e: Entry) {
        self.len += 1;
        self.pushes += 1;
        let a = e.time.0 >> self.shift;
        let i = (a & MASK) as usize;
        if a.wrapping_sub(self.cur) < SLOTS as u64 {
            let slot = &mut self.slots[i];
            // Into a later slot, or at the end of the open one (the common case there: the
            // latest event so far), as is; anywhere else in the open slot, in order.
            if a != self.cur || slot.entries.last().is_none_or(|l| pack(l.time, l.seq) < pack(e.time, e.seq)) {
                slot.entries.push(e);
                self.mark(i);
                return;
            }
        }
        self.place(e);
    }

    /// [`Wheel::push`] into the open slot (in order) or the overflow, or into any slot while
    /// rebuilding.
    #[inline(never)]
    fn place(&mut self, e: Entry) {
        let a = (e.time.0 >> self.shift).max(self.cur);
        if a - self.cur >= SLOTS as u64 {
            self.spilled += 1;
            self.overflow_first = self.overflow_first.min(a);
            self.overflow.push(e);
            return;
        }
        let i = (a & MASK) as usize;
        let slot = &mut self.slots[i];
        if a == self.cur {
            // The open slot stays sorted from its head.
            let k = pack(e.time, e.seq);
            let mut at = slot.entries.len();
            while at > slot.head && pack(slot.entries[at - 1].time, slot.entries[at - 1].seq) > k {
                at -= 1;
            }
            slot.entries.insert(at, e);
        } else {
            slot.entries.push(e);
        }
        self.mark(i);
    }

    /// The next occupied slot at or after ring index `from`, going round the ring.
    #[inline]
    fn next_occupied(&self, from: usize) -> Option<usize> {
        let (w, b) = (from / 64, from % 64);
        let here = self.occupied[w] & (!0u64 << b);
        if here != 0 {
            return Some(w * 64 + here.trailing_zeros() as usize);
        }
        let later = if w == 63 { 0 } else { self.summary & (!0u64 << (w + 1)) };
        let words = if later != 0 { later } else { self.summary };
        if words == 0 {
            return None;
        }
        let w2 = words.trailing_zeros() as usize;
        Some(w2 * 64 + self.occupied[w2].trailing_zeros() as usize)
    }

    /// The open slot's next entry, opening the next occupied slot (or the overflow's first)
    /// when the open one has run out.
    #[inline(always)]
    fn head(&mut self) -> Option<&Entry> {
        let i = (self.cur & MASK) as usize;
        if self.slots[i].head >= self.slots[i].entries.len() {
            self.open_next()?;
        }
        let s = &self.slots[(self.cur & MASK) as usize];
        Some(&s.entries[s.head])
    }

    /// Closes the spent open slot and opens the next one holding events; None if none is left.
    #[inline(never)]
    fn open_next(&mut self) -> Option<()> {
        if self.len == 0 {
            return None;
        }
        let i = (self.cur & MASK) as usize;
        let slot = &mut self.slots[i];
        slot.entries.clear();
        slot.head = 0;
        self.unmark(i);
        // The overflow holds only events past the ring's end (each advance moves in those the
        // ring reaches), so it is consulted only when the ring is empty.
        self.cur = match self.next_occupied(((self.cur + 1) & MASK) as usize) {
            Some(j) => self.cur + 1 + ((j as u64).wrapping_sub(self.cur + 1) & MASK),
            None => self.overflow_first,
        };
        if self.overflow_first < self.cur + SLOTS as u64 {
            self.take_overflow();
        }
        let slot = &mut self.slots[(self.cur & MASK) as usize];
        if slot.entries.len() > 1 {
            slot.entries.sort_unstable_by_key(|e| pack(e.time, e.seq));
        }
        Some(())
    }

    /// Moves the overflow's events that the ring now reaches into their slots.
    #[cold]
    fn take_overflow(&mut self) {
        self.overflow_first = u64::MAX;
        while let Some(e) = self.overflow.peek() {
            let a = e.time.0 >> self.shift;
            if a - self.cur >= SLOTS as u64 {
                self.overflow_first = a;
                break;
            }
            let e = self.overflow.pop().expect("peeked");
            let j = (a & MASK) as usize;
            self.slots[j].entries.push(e);
            self.mark(j);
        }
    }

    /// (time, seq) of the earliest entry, `u128::MAX` if none.
    #[inline]
    pub(super) fn min_key(&mut self) -> u128 {
        self.head().map_or(u128::MAX, |e| pack(e.time, e.seq))
    }

    /// Removes the earliest entry.
    #[inline(always)]
    pub(super) fn pop(&mut self) -> Option<Entry> {
        let e = *self.head()?;
        let slot = &mut self.slots[(self.cur & MASK) as usize];
        slot.head += 1;
        self.backlog += (slot.entries.len() - slot.head) as u64;
        self.len -= 1;
        self.last = e.time;
        self.pops += 1;
        if self.pops == ADAPT_EVERY {
            self.adapt();
        }
        Some(e)
    }

    /// The earliest entry's event if the open slot holds it (a prefetch hint).
    #[inline]
    pub(super) fn peek_hint(&self) -> Option<Event> {
        let s = &self.slots[(self.cur & MASK) as usize];
        s.entries.get(s.head).map(|e| e.event)
    }

    /// Every `ADAPT_EVERY` pops: a slot twice as wide if more than 1 push in 8 went past the
    /// ring while a pop left under 2 events in the open slot on average, half as wide if it left
    /// over 8 (the cost of keeping the open slot sorted) while pushes past the ring were under 1
    /// in 64.
    #[cold]
    fn adapt(&mut self) {
        let (pushes, spilled) = (self.pushes.max(1) as u64, self.spilled as u64);
        let per_slot = self.backlog / self.pops as u64;
        let shift = if spilled * 8 > pushes && per_slot < 2 && self.shift < 50 {
            self.shift + 1
        } else if spilled * 64 < pushes && per_slot > 8 && self.shift > 6 {
            self.shift - 1
        } else {
            self.shift
        };
        (self.pops, self.pushes, self.spilled, self.backlog) = (0, 0, 0, 0);
        if shift != self.shift {
            self.rebuild(shift);
        }
    }

    /// Puts every pending event back on a ring of slots `2^shift` ps wide.
    fn rebuild(&mut self, shift: u32) {
        let mut all = Vec::with_capacity(self.len);
        for s in &mut self.slots {
            all.extend(s.entries.drain(s.head..));
            s.entries.clear();
            s.head = 0;
        }
        while let Some(e) = self.overflow.pop() {
            all.push(e);
        }
        self.overflow_first = u64::MAX;
        self.occupied.iter_mut().for_each(|w| *w = 0);
        self.summary = 0;
        self.shift = shift;
        self.cur = self.last.0 >> shift;
        for e in all {
            self.place(e);
        }
        let open = &mut self.slots[(self.cur & MASK) as usize];
        open.entries.sort_unstable_by_key(|e| pack(e.time, e.seq));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(t: u64, seq: u64) -> Entry {
        Entry { time: Time(t), seq, event: Event::LinkArrival(seq as u32) }
    }

    /// Pops in (time, seq) order against a sorted reference, with pushes at every distance
    /// (into the open slot, before it, past the ring) and enough pops for the width to adapt.
    fn matches_reference(spread: u64, ties: u64, seed: u64) {
        let mut w = Wheel::default();
        let mut r = crate::rng::Rng::new(seed);
        let mut reference = std::collections::BTreeSet::new();
        let (mut now, mut seq) = (0u64, 0u64);
        for step in 0..200_000u64 {
            if r.below(2) == 0 || reference.is_empty() {
                let far = if r.below(50) == 0 { spread * 10_000 } else { spread };
                let t = now + r.below(far) / ties * ties;
                w.push(entry(t, seq));
                reference.insert((t, seq));
                seq += 1;
            } else {
                let want = reference.pop_first().unwrap();
                let got = w.pop().expect("pending");
                assert_eq!((got.time.0, got.seq), want, "step {step}");
                now = want.0;
            }
            assert_eq!(w.len, reference.len());
        }
        while let Some(want) = reference.pop_first() {
            let got = w.pop().expect("pending");
            assert_eq!((got.time.0, got.seq), want);
        }
        assert!(w.pop().is_none());
    }

    #[test]
    fn pops_in_time_then_seq_order_at_any_spread() {
        for (spread, ties, seed) in
            [(1_000, 1, 1), (1 << 20, 1, 2), (1 << 34, 1, 3), (1 << 24, 1 << 20, 4), (50, 25, 5)]
        {
            matches_reference(spread, ties, seed);
        }
    }

    #[test]
    fn an_overflow_event_comes_before_a_later_one_the_ring_took() {
        let slot = 1u64 << FIRST_SHIFT;
        let mut w = Wheel::default();
        w.push(entry(slot, 0));
        w.push(entry(5000 * slot, 1)); // past the ring (slots 1..4097): the overflow
        w.push(entry(2000 * slot, 2));
        assert_eq!(w.pop().unwrap().seq, 0);
        assert_eq!(w.pop().unwrap().seq, 2); // the ring now spans 2000..6096
        w.push(entry(5500 * slot, 3)); // in the ring
        assert_eq!(w.pop().unwrap().seq, 1);
        assert_eq!(w.pop().unwrap().seq, 3);
    }

    #[test]
    fn an_event_before_the_open_slot_comes_first() {
        let mut w = Wheel::default();
        w.push(entry(5 << FIRST_SHIFT, 0));
        assert_eq!(w.min_key(), pack(Time(5 << FIRST_SHIFT), 0)); // opens slot 5
        w.push(entry(1 << FIRST_SHIFT, 1));
        assert_eq!(w.pop().unwrap().seq, 1);
        assert_eq!(w.pop().unwrap().seq, 0);
    }

    #[test]
    fn the_width_follows_the_events() {
        // Events 1 s apart spill past a 4 ms ring: the slots widen.
        let mut w = Wheel::default();
        for i in 0..(12 * ADAPT_EVERY as u64) {
            w.push(entry(i * 1_000_000_000_000 + 1, i));
            w.pop();
        }
        // A ring of 2^12 slots spans 1 s from 2^28 ps slots on.
        assert!((28..=30).contains(&w.shift), "{}", w.shift);
        // Thousands of events within one slot: the slots narrow.
        let mut w = Wheel::default();
        let mut seq = 0;
        for _ in 0..(3 * ADAPT_EVERY / 1000) {
            for _ in 0..1000 {
                w.push(entry(w.last.0 + seq % 1000, seq));
                seq += 1;
            }
            for _ in 0..1000 {
                w.pop();
            }
        }
        assert!(w.shift < FIRST_SHIFT, "{}", w.shift);
    }
}
