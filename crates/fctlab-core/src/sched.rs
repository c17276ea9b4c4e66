//! The event queue: a binary heap keyed by (time, insertion order).
//!
//! Ties in time are served first-in first-out, so a run never depends on heap internals.

use crate::units::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

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
}

#[derive(Copy, Clone, Debug)]
struct Entry {
    time: Time,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

/// The pending events of a run.
#[derive(Default)]
pub struct Scheduler {
    heap: BinaryHeap<Entry>,
    seq: u64,
    popped: u64,
}

impl Scheduler {
    /// An empty queue.
    pub fn new() -> Scheduler {
        Scheduler { heap: BinaryHeap::with_capacity(1024), seq: 0, popped: 0 }
    }

    /// Schedules `event` at `time`.
    pub fn push(&mut self, time: Time, event: Event) {
        self.heap.push(Entry { time, seq: self.seq, event });
        self.seq += 1;
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    /// Removes and returns the earliest event.
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.heap.pop().map(|e| {
            self.popped += 1;
            (e.time, e.event)
        })
    }

    /// Number of events processed so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_ties_in_insertion_order() {
        let mut s = Scheduler::new();
        s.push(Time(5), Event::LinkFree(1));
        s.push(Time(3), Event::LinkFree(2));
        s.push(Time(5), Event::LinkFree(3));
        s.push(Time(3), Event::LinkFree(4));
        let order: Vec<Event> = std::iter::from_fn(|| s.pop().map(|(_, e)| e)).collect();
        assert_eq!(
            order,
            vec![Event::LinkFree(2), Event::LinkFree(4), Event::LinkFree(1), Event::LinkFree(3)]
        );
    }
}
