//! The event queue, keyed by (time, insertion order).
//!
//! Ties in time are served first-in first-out, so a run never depends on heap internals.
//!
//! A partitioned run ([`crate::world::parallel`]) adds two things, unused by a run on one
//! partition: packets that a link hands to another partition wait in [`Scheduler::exports`]
//! until the partitions exchange them, and the arrival events of a link that comes in from
//! another partition are keyed by (time, link id) instead of by insertion order
//! ([`Scheduler::push_import`]). Their insertion order would depend on when the partitions
//! exchanged packets, which depends on the threads' timing; the link id does not. Local
//! insertion numbers start at 2^32, above every link id, so such an arrival goes first among
//! events at the same time, and a run without imported links orders its events as before.

use crate::net::packet::Packet;
use crate::units::Time;

/// The first insertion number of local events: every link id is below it.
const LOCAL_SEQ0: u64 = 1 << 32;

/// A packet handed to another partition: (arrival time at the far end, link id, packet).
pub type Export = (Time, u32, Packet);

/// What happens when an event fires. Small and `Copy`: the heap moves these around a lot.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head packet in flight on a link reaches the far end.
    LinkArrival(u32),
    /// A link finished serializing and may start on its next queued packet.
    LinkFree(u32),
    /// The next flow of the arrival list starts.
    FlowStart,
    /// A transport endpoint asked to be woken (`side` 0 = sender, 1 = receiver).
    Timer { flow: u32, side: u8 },
    /// A queue discipline's periodic control tick (RCP, XCP).
    QdiscTick(u32),
    /// Time-series sampling.
    Sample,
    /// The next scheduled change of a link's rate.
    LinkRate,
    /// A PFC frame reaches the near end of `link`: its traffic class `class` pauses or resumes.
    Pfc { link: u32, class: u8, pause: bool },
    /// The lossless fabric's look at its paused ports (pause storms, deadlocks).
    PfcWatch,
}

/// A pending event.
#[derive(Copy, Clone, Debug)]
struct Entry {
    time: Time,
    seq: u64,
    event: Event,
}

/// The pending events of a run, in two tiers.
///
/// Link events (at most two per link, always near) live in a small 4-ary heap that stays in
/// cache. Everything else - mostly endpoint timers, many of them superseded before they fire -
/// lives in a radix heap ([`Radix`]), where an entry that is never popped early costs one push.
/// A global insertion counter breaks ties between the tiers, so equal times pop first-in
/// first-out across the whole queue.
pub struct Scheduler {
    near: QuadHeap,
    far: Radix,
    seq: u64,
    popped: u64,
    /// Packets put on links that lead to another partition (partitioned runs only).
    pub exports: Vec<Export>,
}

impl Default for Scheduler {
    fn default() -> Self {
        Scheduler::new()
    }
}

impl Scheduler {
    /// An empty queue.
    pub fn new() -> Scheduler {
        Scheduler { near: QuadHeap::default(), far: Radix::new(), seq: LOCAL_SEQ0, popped: 0, exports: Vec::new() }
    }

    /// Schedules the arrival of the head packet of link `link`, which comes in from another
    /// partition, keyed by the link id (see the module doc).
    #[inline]
    pub fn push_import(&mut self, time: Time, link: u32) {
        self.near.push(Entry { time, seq: link as u64, event: Event::LinkArrival(link) });
    }

    /// Hands `pkt`, arriving at the far end of `link` at `at`, to the partition there.
    #[inline]
    pub fn export(&mut self, at: Time, link: u32, pkt: Packet) {
        self.exports.push((at, link, pkt));
    }

    /// Time of the earliest pending link event (arrival or serializer free), if any.
    pub fn peek_near_time(&mut self) -> Option<Time> {
        self.near.peek().map(|e| e.time)
    }

    /// Counts `n` events as processed (a merged run reports its partitions' sum).
    pub fn add_popped(&mut self, n: u64) {
        self.popped += n;
    }

    /// Schedules `event` at `time` (not earlier than the last event popped).
    #[inline]
    pub fn push(&mut self, time: Time, event: Event) {
        let e = Entry { time, seq: self.seq, event };
        self.seq += 1;
        match event {
            Event::LinkArrival(_) | Event::LinkFree(_) => self.near.push(e),
            _ => self.far.push(e),
        }
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&mut self) -> Option<Time> {
        let far = self.far.min().map(|(t, _)| t);
        let near = self.near.peek().map(|e| e.time);
        match (near, far) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.pop_by(Time::MAX)
    }

    /// Removes and returns the earliest event if it is due by `until` (one look at both tiers
    /// instead of a peek then a pop).
    #[inline(always)]
    pub fn pop_by(&mut self, until: Time) -> Option<(Time, Event)> {
        let (far_first, t) = match (self.near.peek(), self.far.min()) {
            (None, None) => return None,
            (Some(n), None) => (false, n.time),
            (None, Some(f)) => (true, f.0),
            (Some(n), Some(f)) => {
                if f < (n.time, n.seq) {
                    (true, f.0)
                } else {
                    (false, n.time)
                }
            }
        };
        if t > until {
            return None;
        }
        let e = if far_first { self.far.pop() } else { self.near.pop() }.expect("peeked");
        self.popped += 1;
        Some((e.time, e.event))
    }

    /// Number of events processed so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }

    /// Removes the earliest pending link event, ignoring timers (for flushing the network).
    pub fn pop_near(&mut self) -> Option<(Time, Event)> {
        let e = self.near.pop()?;
        self.popped += 1;
        Some((e.time, e.event))
    }

    /// The earliest pending link event, if any (a hint for prefetching its data).
    #[inline]
    pub fn peek_near(&self) -> Option<Event> {
        self.near.peek_hint()
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.near.len() + self.far.len
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

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
struct QuadHeap {
    /// `len` slots, then at least 4 `u128::MAX`.
    keys: Vec<u128>,
    events: Vec<Event>,
    /// Slots in use, the hole included.
    len: usize,
    /// Slot 0 is empty (popped, not yet refilled).
    hole: bool,
}

#[inline]
fn pack(time: Time, seq: u64) -> u128 {
    ((time.0 as u128) << 64) | seq as u128
}

impl QuadHeap {
    /// Entries pending.
    fn len(&self) -> usize {
        self.len - self.hole as usize
    }

    #[inline]
    fn entry(&self, i: usize) -> Entry {
        let k = self.keys[i];
        Entry { time: Time((k >> 64) as u64), seq: k as u64, event: self.events[i] }
    }

    /// (time, seq, event) of the minimum.
    #[inline]
    fn peek(&mut self) -> Option<Entry> {
        self.fill_hole();
        (self.len > 0).then(|| self.entry(0))
    }

    /// The minimum, or while the root is a hole, the smallest of its children (which is the
    /// minimum unless the next push beats it): a prefetch hint that changes nothing.
    #[inline]
    fn peek_hint(&self) -> Option<Event> {
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
    fn push(&mut self, e: Entry) {
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
    fn pop(&mut self) -> Option<Entry> {
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

/// A radix heap keyed by time.
///
/// Entries are pushed no earlier than the last popped time and popped only when they are the
/// queue's earliest, so a radix heap applies: bucket `b > 0` holds entries whose time differs
/// from the last popped time first in bit `b - 1`; bucket 0 holds entries at exactly that time,
/// served first-in first-out. A bucket is refilled from a higher one only while empty, so every
/// bucket keeps equal times in insertion order. Push is O(1); an entry moves down at most 64
/// times. The minimum is found without settling (which would move the base past the present).
struct Radix {
    buckets: Vec<Vec<Entry>>,
    /// Bit b set when bucket b is non-empty.
    occupied: u128,
    /// Next unread position in bucket 0.
    head: usize,
    last: u64,
    len: usize,
    /// (time, seq) of the earliest entry, while known.
    cached_min: Option<(Time, u64)>,
}

impl Radix {
    fn new() -> Radix {
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
    fn push(&mut self, e: Entry) {
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

    /// (time, seq) of the earliest entry.
    #[inline]
    fn min(&mut self) -> Option<(Time, u64)> {
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
    fn pop(&mut self) -> Option<Entry> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_ties_in_insertion_order() {
        let mut s = Scheduler::new();
        s.push(Time(5), Event::LinkFree(1));
        s.push(Time(3), Event::QdiscTick(2));
        s.push(Time(5), Event::QdiscTick(3));
        s.push(Time(3), Event::LinkFree(4));
        let order: Vec<Event> = std::iter::from_fn(|| s.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec![Event::QdiscTick(2), Event::LinkFree(4), Event::LinkFree(1), Event::QdiscTick(3)]);
    }

    #[test]
    fn pop_by_leaves_events_after_the_limit_in_place() {
        let mut s = Scheduler::new();
        s.push(Time(10), Event::LinkArrival(0));
        s.push(Time(20), Event::QdiscTick(1));
        assert_eq!(s.pop_by(Time(9)), None);
        assert_eq!(s.pop_by(Time(10)), Some((Time(10), Event::LinkArrival(0))));
        assert_eq!(s.pop_by(Time(19)), None);
        assert_eq!(s.len(), 1);
        assert_eq!(s.pop_by(Time(20)), Some((Time(20), Event::QdiscTick(1))));
        assert!(s.is_empty());
    }

    #[test]
    fn link_events_interleave_with_timers_in_time_then_insertion_order() {
        // Many links at once, so the 4-ary heap is several levels deep and its padded
        // children are exercised.
        let mut s = Scheduler::new();
        let mut r = crate::rng::Rng::new(9);
        let mut reference: Vec<(u64, u64, Event)> = Vec::new();
        let mut seq = 0u64;
        let mut now = 0u64;
        let mut pending = vec![false; 300];
        for _ in 0..50_000 {
            let l = r.below(300) as u32;
            if !pending[l as usize] && r.below(2) == 0 {
                let t = now + r.below(50);
                let ev = if r.below(4) == 0 { Event::Timer { flow: l, side: 0 } } else { Event::LinkArrival(l) };
                if let Event::LinkArrival(_) = ev {
                    pending[l as usize] = true;
                }
                s.push(Time(t), ev);
                reference.push((t, seq, ev));
                seq += 1;
            } else if let Some(i) = (0..reference.len()).min_by_key(|&i| (reference[i].0, reference[i].1)) {
                let (t, _, ev) = reference.remove(i);
                assert_eq!(s.pop(), Some((Time(t), ev)));
                if let Event::LinkArrival(l) = ev {
                    pending[l as usize] = false;
                }
                now = t;
            }
        }
    }

    #[test]
    fn matches_a_sorted_order_under_interleaved_pushes_and_pops() {
        let mut s = Scheduler::new();
        let mut r = crate::rng::Rng::new(5);
        let mut reference: Vec<(u64, u64)> = Vec::new();
        let mut now = 0u64;
        let mut id = 0u32;
        let mut seq = 0u64;
        for _ in 0..20_000 {
            if r.below(3) > 0 || reference.is_empty() {
                let t = now + r.below(1_000_000) * (1 + r.below(1000));
                let ev = if id.is_multiple_of(2) { Event::LinkFree(id) } else { Event::QdiscTick(id) };
                s.push(Time(t), ev);
                reference.push((t, seq));
                id += 1;
                seq += 1;
            } else {
                reference.sort();
                let (t, q) = reference.remove(0);
                let (pt, pe) = s.pop().unwrap();
                let id = q as u32;
                let want = if id.is_multiple_of(2) { Event::LinkFree(id) } else { Event::QdiscTick(id) };
                assert_eq!((pt.0, pe), (t, want));
                now = t;
            }
        }
        assert_eq!(s.len(), reference.len());
    }
}
