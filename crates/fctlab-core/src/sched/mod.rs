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
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | [`Event`], [`Scheduler`]: the two tiers and the order between them |
//! | `near.rs` | the link events: a heap while few are pending, a wheel while many are |
//! | `quad.rs` | a 4-ary heap keyed by (time, seq) |
//! | `wheel.rs` | a timing wheel (calendar queue) keyed by (time, seq), its slot width adapting |
//! | `radix.rs` | a radix heap keyed by time, ties first-in first-out: the timers |

mod near;
mod quad;
mod radix;
mod wheel;

use crate::net::packet::Packet;
use crate::units::Time;
use near::Near;
use quad::pack;
use radix::Radix;

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
/// Link events (at most two per link, always near) live in a 4-ary heap while few are pending
/// and on a timing wheel while many are ([`Near`]). Everything else - mostly endpoint timers,
/// many of them superseded before they fire - lives in a radix heap ([`Radix`]), where an
/// entry that is never popped early costs one push. A global insertion counter breaks ties
/// between the tiers, so equal times pop first-in first-out across the whole queue.
pub struct Scheduler {
    near: Near,
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
        Scheduler { near: Near::default(), far: Radix::new(), seq: LOCAL_SEQ0, popped: 0, exports: Vec::new() }
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
        let k = self.near.min_key();
        (k != u128::MAX).then_some(Time((k >> 64) as u64))
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
        match (self.peek_near_time(), far) {
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
        let near = self.near.min_key();
        let far = self.far.min().map_or(u128::MAX, |(t, q)| pack(t, q));
        let far_first = far < near;
        let k = if far_first { far } else { near };
        if k == u128::MAX || (k >> 64) as u64 > until.0 {
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
