//! The window loop's arithmetic, which every thread of a partitioned run ([`super::parallel`])
//! does alike: the [`Clock`] they agree on, the [`Step`] each round leaves the run at,
//! [`decide`], which chooses it from figures all threads read the same, and the [`Violation`]
//! a thread reports when a packet beat the lookahead. The coordinator (`parallel.rs`) and the
//! threads (`pool.rs`) both take these from here.

use crate::plan::RunLimits;
use crate::units::Time;

/// Where a round of the window loop leaves the run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Run every event before this time.
    Window(Time),
    /// Every event due by the caller's time has run; the earliest pending is at this time.
    Paused(Time),
    /// Every flow is complete and every event before this epoch's end has run: let the
    /// network empty.
    Flush(Time),
    /// The run is over.
    Finished,
    /// Nothing can happen any more in any partition, yet flows are open (found after the last
    /// event, at this time): the run stalled.
    Stalled(Time),
}

/// The state every thread keeps alike: each decides the next step from the same shared figures.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct Clock {
    /// Every event before this has run.
    pub(super) done_before: Time,
    /// Draining is over: only link events run, until the network is empty.
    pub(super) flushing: bool,
    pub(super) flush_from: Time,
    /// Which half of the shared slots this round writes.
    pub(super) parity: usize,
    /// Windows run so far.
    pub(super) windows: u64,
}

/// A packet handed over that arrived before the end of a window its partition had already run:
/// a lookahead that was too long. Never expected: the run stops rather than give results that
/// differ from what its partitions define.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The link it crossed.
    pub link: u32,
    /// Its arrival at the far end.
    pub at: Time,
    /// Every event before this had run at the far end.
    pub window_end: Time,
    /// Its size on the wire, bytes.
    pub wire: u32,
    /// The run's lookahead.
    pub lookahead: Time,
}

impl Violation {
    /// The earlier of two packets that came in too late, if either did.
    pub(super) fn earliest(a: Option<Violation>, b: Option<Violation>) -> Option<Violation> {
        match (a, b) {
            (Some(a), Some(b)) => Some(if b.at < a.at { b } else { a }),
            (a, b) => a.or(b),
        }
    }
}

/// The next step, from the figures every thread reads alike: `t` the earliest pending event
/// anywhere, `open` the flows open, `all_started` whether every flow has started.
#[allow(clippy::too_many_arguments)]
pub(super) fn decide(
    clock: &mut Clock,
    t: Time,
    open: i64,
    all_started: bool,
    until: Time,
    epoch: Time,
    lookahead: Time,
    limits: RunLimits,
) -> Step {
    if clock.flushing {
        if t == Time::MAX || t > limits.max_time {
            return Step::Finished;
        }
        return Step::Window(Time(t.0.saturating_add(lookahead.0).min(limits.max_time.0.saturating_add(1))));
    }
    let ceil_epoch = |x: Time| Time(x.0.div_ceil(epoch.0).saturating_mul(epoch.0));
    let drained = limits.drain && all_started && open == 0;
    if drained {
        // Stop at the end of the epoch the last completion fell in, once every event before it ran.
        let stop = ceil_epoch(clock.done_before);
        if t >= stop {
            return Step::Flush(stop);
        }
    }
    if t == Time::MAX && all_started {
        return Step::Finished; // nothing can happen any more
    }
    if t > until {
        let end = limits.max_time.min(if limits.drain { Time::MAX } else { limits.duration });
        return if until >= end { Step::Finished } else { Step::Paused(t) };
    }
    let next_epoch = Time((t.0 / epoch.0).saturating_add(1).saturating_mul(epoch.0));
    let end = t.0.saturating_add(lookahead.0).min(next_epoch.0).min(until.0.saturating_add(1));
    Step::Window(Time(end))
}
