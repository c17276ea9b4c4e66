//! Whether a partitioned run's next window runs on all its threads or on one ([`Adapt`]).
//!
//! Threads never change results ([`super::parallel`]): they only share out the partitions. So
//! the pool may run a window on every thread (*parallel*) or hand every partition to its first
//! thread and run the window there alone (*solo*), and switch between the two at any window,
//! for the same bytes. Which is faster depends on things a run cannot know ahead: a window that
//! holds a few events costs less than the barrier that ends it (a lightly loaded fabric with 1
//! us links), and a core taken by another process turns every barrier into a sleep and a
//! wake-up, so two threads can take several times as long as one. So the first thread measures
//! both: it runs *stretches* of windows (at least [`STRETCH`] of wall time each), measures each
//! stretch's events per second, keeps the better mode and now and then *probes* the other for
//! one stretch. A probe that loses doubles the time before the next one (up to [`MAX_HOLD`]
//! stretches), so a clearly worse mode costs about one stretch in [`MAX_HOLD`]; one that wins by
//! [`MARGIN`] becomes the mode.
//!
//! Only the first thread decides; it publishes the decision before the round's barrier, so
//! every thread reads the same and the threads change hands together ([`super::pool`]).

use std::time::{Duration, Instant};

/// The shortest stretch of windows measured as one.
pub(super) const STRETCH: Duration = Duration::from_millis(20);
/// The most stretches the better mode runs between two probes of the other.
pub(super) const MAX_HOLD: u32 = 64;
/// How much faster a probe must be, as a fraction, to become the mode.
pub(super) const MARGIN: f64 = 0.1;

/// The first thread's choice between running windows on every thread and running them alone.
#[derive(Debug)]
pub(super) struct Adapt {
    /// The mode of the stretch being run: true when solo.
    solo: bool,
    /// The mode kept between probes.
    best_solo: bool,
    /// The stretch being run probes the other mode.
    probing: bool,
    /// The best mode's events per second, in its last stretch.
    best_rate: f64,
    /// Stretches the best mode runs before the next probe, and how many it ran since the last.
    hold: u32,
    held: u32,
    /// Shortest stretch.
    stretch: Duration,
    /// Wall time run in the current stretch, and where it was last counted up to.
    ran: Duration,
    last: Option<Instant>,
    /// Events run (every partition) when the current stretch began.
    events_at: u64,
}

impl Adapt {
    /// A run starting on every thread, measuring stretches of at least `stretch`.
    pub(super) fn new(stretch: Duration) -> Adapt {
        Adapt {
            solo: false,
            best_solo: false,
            probing: false,
            best_rate: 0.0,
            hold: 1,
            held: 0,
            stretch,
            ran: Duration::ZERO,
            last: None,
            events_at: 0,
        }
    }

    /// A step of the run begins (the time between steps belongs to the caller, not to a mode).
    pub(super) fn step_starts(&mut self, now: Instant) {
        self.last = Some(now);
    }

    /// At a round, with `events` run so far over every partition: whether the next window runs
    /// solo.
    pub(super) fn next_solo(&mut self, now: Instant, events: u64) -> bool {
        if let Some(last) = self.last {
            self.ran += now.saturating_duration_since(last);
        }
        self.last = Some(now);
        if self.ran < self.stretch {
            return self.solo;
        }
        let rate = events.saturating_sub(self.events_at) as f64 / self.ran.as_secs_f64().max(1e-9);
        self.ran = Duration::ZERO;
        self.events_at = events;
        self.solo = self.after_stretch(rate);
        self.solo
    }

    /// The mode of the next stretch, after one that ran `rate` events per second.
    fn after_stretch(&mut self, rate: f64) -> bool {
        if self.probing {
            self.probing = false;
            if rate > self.best_rate * (1.0 + MARGIN) {
                self.best_solo = self.solo;
                self.best_rate = rate;
                self.hold = 1;
            } else {
                self.hold = (self.hold * 2).min(MAX_HOLD);
            }
            self.held = 0;
            return self.best_solo;
        }
        self.best_rate = rate;
        self.held += 1;
        if self.held >= self.hold {
            self.probing = true;
            return !self.best_solo;
        }
        self.best_solo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds stretches whose rate depends on the mode; returns the modes run, stretch by stretch.
    fn run(stretches: usize, mut rate: impl FnMut(bool) -> f64) -> Vec<bool> {
        let mut a = Adapt::new(Duration::ZERO);
        let mut modes = Vec::new();
        for _ in 0..stretches {
            modes.push(a.solo);
            let r = rate(a.solo);
            a.solo = a.after_stretch(r);
        }
        modes
    }

    /// Where one thread is twice as fast, the run moves to it after one probe and then only
    /// probes the parallel mode ever more rarely: in 400 stretches, at most one in 30 parallel.
    #[test]
    fn a_faster_solo_is_kept_and_parallel_probed_ever_more_rarely() {
        let modes = run(400, |solo| if solo { 2e6 } else { 1e6 });
        assert_eq!(&modes[..3], &[false, true, true], "probe solo after one stretch, then keep it");
        let parallel = modes.iter().filter(|s| !**s).count();
        assert!(parallel <= 13, "{parallel} parallel stretches of 400");
        let gaps: Vec<usize> = modes.iter().enumerate().filter(|(_, s)| !**s).map(|(i, _)| i).collect();
        assert!(gaps.windows(2).all(|w| w[1] - w[0] <= MAX_HOLD as usize + 1));
        assert!(gaps.windows(3).all(|w| w[2] - w[1] >= w[1] - w[0]), "probes space out: {gaps:?}");
    }

    /// Where every thread is faster, the run stays parallel but for rare, spacing-out probes.
    #[test]
    fn a_faster_parallel_is_kept() {
        let modes = run(400, |solo| if solo { 1e6 } else { 1.8e6 });
        assert!(!modes[0]);
        assert!(modes.iter().filter(|s| **s).count() <= 13);
    }

    /// A probe within the margin does not change the mode (no flapping on noise).
    #[test]
    fn a_probe_within_the_margin_changes_nothing() {
        let modes = run(200, |solo| if solo { 1.05e6 } else { 1e6 });
        assert!(modes.iter().filter(|s| **s).count() <= 8);
    }

    /// When the better mode changes halfway (another process takes a core), the run follows.
    #[test]
    fn the_run_follows_a_change_of_the_better_mode() {
        let mut n = 0;
        let modes = run(800, |solo| {
            n += 1;
            match (n < 400, solo) {
                (true, true) | (false, false) => 1e6,
                _ => 2e6,
            }
        });
        let late_solo = modes[700..].iter().filter(|s| **s).count();
        assert!(modes[300..400].iter().filter(|s| **s).count() <= 3);
        assert!(late_solo >= 95, "{late_solo} of the last 100 stretches solo");
    }

    /// A stretch is at least the stretch time long: rounds in between keep the mode.
    #[test]
    fn a_stretch_lasts_its_time() {
        let mut a = Adapt::new(Duration::from_millis(20));
        let t = Instant::now();
        a.step_starts(t);
        assert!(!a.next_solo(t + Duration::from_millis(5), 100));
        assert!(!a.next_solo(t + Duration::from_millis(10), 200));
        // The first stretch ends: probe solo.
        assert!(a.next_solo(t + Duration::from_millis(21), 300));
        // Time between steps is not counted.
        a.step_starts(t + Duration::from_secs(10));
        assert!(a.next_solo(t + Duration::from_millis(10_005), 400));
    }
}
