//! The link events: a 4-ary heap while few are pending, a timing wheel while many are.
//!
//! A heap of a few hundred entries stays in the L1 cache and costs a few levels per event; on a
//! loaded fabric it holds thousands (one arrival per busy link), six to eight levels, most of
//! them cache misses. The wheel costs the same per event at any size, but its slots are spread
//! over memory: with few events pending, each push touches a slot no recent event did. So the
//! link events move to the wheel when more than [`TO_WHEEL`] are pending and back to a heap
//! when fewer than [`TO_HEAP`] are (a gap of 4x, so a load near a threshold does not make them
//! move back and forth). Both give exactly the (time, seq) order: where the events are changes
//! only the cost.

use super::quad::{pack, QuadHeap};
use super::wheel::Wheel;
use super::{Entry, Event};

/// Pending link events above which they move to the wheel.
const TO_WHEEL: usize = 1024;
/// Pending link events below which they move back to a heap.
const TO_HEAP: usize = 256;

pub(super) enum Near {
    Heap(QuadHeap),
    Wheel(Box<Wheel>),
}

impl Default for Near {
    fn default() -> Self {
        Near::Heap(QuadHeap::default())
    }
}

impl Near {
    /// Events pending.
    #[inline]
    pub(super) fn len(&self) -> usize {
        match self {
            Near::Heap(h) => h.len(),
            Near::Wheel(w) => w.len,
        }
    }

    #[inline(always)]
    pub(super) fn push(&mut self, e: Entry) {
        match self {
            Near::Heap(h) => {
                h.push(e);
                if h.len() > TO_WHEEL {
                    self.move_to_wheel();
                }
            }
            Near::Wheel(w) => w.push(e),
        }
    }

    /// (time, seq) of the earliest event, `u128::MAX` if none.
    #[inline(always)]
    pub(super) fn min_key(&mut self) -> u128 {
        match self {
            Near::Heap(h) => h.peek().map_or(u128::MAX, |e| pack(e.time, e.seq)),
            Near::Wheel(w) => w.min_key(),
        }
    }

    /// Removes the earliest event.
    #[inline(always)]
    pub(super) fn pop(&mut self) -> Option<Entry> {
        match self {
            Near::Heap(h) => h.pop(),
            Near::Wheel(w) => {
                let e = w.pop();
                if w.len < TO_HEAP {
                    self.move_to_heap();
                }
                e
            }
        }
    }

    /// The earliest event, or one close to it (a prefetch hint).
    #[inline]
    pub(super) fn peek_hint(&self) -> Option<Event> {
        match self {
            Near::Heap(h) => h.peek_hint(),
            Near::Wheel(w) => w.peek_hint(),
        }
    }

    #[cold]
    fn move_to_wheel(&mut self) {
        let Near::Heap(h) = self else { return };
        let mut pending = Vec::with_capacity(h.len());
        while let Some(e) = h.pop() {
            pending.push(e);
        }
        let mut w = Box::new(Wheel::starting_at(pending[0].time));
        for e in pending {
            w.push(e);
        }
        *self = Near::Wheel(w);
    }

    #[cold]
    fn move_to_heap(&mut self) {
        let Near::Wheel(w) = self else { return };
        let mut h = QuadHeap::default();
        while let Some(e) = w.pop() {
            h.push(e);
        }
        *self = Near::Heap(h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Time;

    #[test]
    fn events_keep_their_order_as_they_move_between_heap_and_wheel() {
        let mut n = Near::default();
        let mut r = crate::rng::Rng::new(3);
        let mut reference = std::collections::BTreeSet::new();
        let (mut now, mut seq, mut moves, mut was_wheel) = (0u64, 0u64, 0, false);
        // Waves: the pending events grow past TO_WHEEL, then fall under TO_HEAP, three times.
        for wave in 0..6 {
            let grow = wave % 2 == 0;
            for _ in 0..(3 * TO_WHEEL) {
                if (grow && r.below(4) > 0) || reference.is_empty() {
                    let t = now + r.below(1 << 24);
                    n.push(Entry { time: Time(t), seq, event: Event::LinkArrival(seq as u32) });
                    reference.insert((t, seq));
                    seq += 1;
                } else {
                    let want = reference.pop_first().unwrap();
                    let got = n.pop().expect("pending");
                    assert_eq!((got.time.0, got.seq), want);
                    now = want.0;
                }
                assert_eq!(n.len(), reference.len());
                let is_wheel = matches!(n, Near::Wheel(_));
                moves += (is_wheel != was_wheel) as u32;
                was_wheel = is_wheel;
            }
        }
        assert!(moves >= 4, "the events moved {moves} times");
    }
}
