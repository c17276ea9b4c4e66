//! The barrier the threads of a partitioned run ([`super::parallel`]) cross once per window.
//!
//! A window is often shorter than putting a thread to sleep and waking it, so a waiter first
//! spins; but a spinning thread holds a core, and when the thread everyone waits for needs that
//! core (more threads than free cores: a machine busy with other work) or is far behind (a heavy
//! window on one side), spinning burns CPU and delays the run. So each thread spins for a
//! *budget* of time that adapts to what its waits turn out to be ([`Waiter`]): a wait that ends
//! while spinning doubles the budget (up to [`MAX_SPIN`]), a wait that has to sleep halves it (down
//! to [`MIN_SPIN`]). Short, regular windows keep the spin; long or irregular waits end up
//! sleeping almost at once on a condition variable. The last thread to arrive wakes the
//! sleepers: a lock and a notify only when one sleeps.
//!
//! A sleep costs what the machine takes to wake a thread, and that varies by two orders of
//! magnitude: a few microseconds on a bare machine, 100-200 us on a VM whose idle virtual CPU
//! must be woken through the hypervisor (seen on the 2-core benchmark VM: two partitions of a
//! 10,000-router graph waited 170 us per window, three times the run's events). A wait shorter
//! than a wake-up is always cheaper spun through, so each waiter measures its wake-ups (from
//! the release to its return) and never spins less than the last few cost, up to
//! [`MAX_WAKE_SPIN`]. A machine busy with other work, where spinning steals the core the others
//! need, is the pool's to detect: it then runs its windows on one thread ([`super::adapt`]).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// The shortest spin before sleeping: about a cache miss's worth of polls.
pub(super) const MIN_SPIN: Duration = Duration::from_nanos(500);
/// The longest spin before sleeping: several times what a sleep and a wake-up cost.
pub(super) const MAX_SPIN: Duration = Duration::from_micros(50);
/// The longest a measured wake-up makes a waiter spin.
pub(super) const MAX_WAKE_SPIN: Duration = Duration::from_millis(1);

/// One thread's spin budget at the barrier, adapted wait by wait.
#[derive(Debug)]
pub(super) struct Waiter {
    spin: Duration,
    /// What its recent wake-ups cost (a moving average), the least it spins.
    wake: Duration,
    /// Waits that ended spinning and waits that slept (for tests and reports).
    pub(super) spun: u64,
    pub(super) slept: u64,
}

impl Default for Waiter {
    fn default() -> Waiter {
        Waiter { spin: Duration::from_micros(5), wake: Duration::ZERO, spun: 0, slept: 0 }
    }
}

impl Waiter {
    /// How long it spins before sleeping: its adapted budget, and at least what its recent
    /// wake-ups cost.
    fn budget(&self) -> Duration {
        self.spin.max(self.wake)
    }
}

/// A barrier for `n` threads that spin a while (each its own budget), then sleep.
pub(super) struct Barrier {
    n: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    sleepers: AtomicUsize,
    /// When the last round was released, in nanoseconds from `born`.
    released: AtomicU64,
    born: Instant,
    lock: Mutex<()>,
    wake: Condvar,
}

impl Barrier {
    /// A barrier for `n` threads.
    pub(super) fn new(n: usize) -> Barrier {
        Barrier {
            n,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            released: AtomicU64::new(0),
            born: Instant::now(),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    /// Returns once all `n` threads have called it; `w` is the calling thread's budget.
    pub(super) fn wait(&self, w: &mut Waiter) {
        if self.n == 1 {
            return;
        }
        let gen = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.arrived.store(0, Ordering::Relaxed);
            // SeqCst pairs with the sleeper's: either it sees the new generation before it
            // sleeps, or this thread sees it counted and takes the lock to wake it.
            self.generation.fetch_add(1, Ordering::SeqCst);
            if self.sleepers.load(Ordering::SeqCst) > 0 {
                self.released.store(self.born.elapsed().as_nanos() as u64, Ordering::Relaxed);
                let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
                self.wake.notify_all();
            }
            return;
        }
        let t0 = Instant::now();
        // Polls between two looks at the clock (a look costs about as much as 20 polls).
        const POLLS: u32 = 64;
        loop {
            for _ in 0..POLLS {
                if self.generation.load(Ordering::Acquire) != gen {
                    w.spin = (w.spin * 2).min(MAX_SPIN);
                    w.spun += 1;
                    return;
                }
                std::hint::spin_loop();
            }
            if t0.elapsed() >= w.budget() {
                break;
            }
        }
        w.spin = (w.spin / 2).max(MIN_SPIN);
        w.slept += 1;
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        let mut waited = false;
        while self.generation.load(Ordering::SeqCst) == gen {
            guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
            waited = true;
        }
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
        drop(guard);
        if waited {
            // The release was written before the notify, under the lock this thread then took.
            let released = Duration::from_nanos(self.released.load(Ordering::Relaxed));
            let woke = self.born.elapsed().saturating_sub(released).min(MAX_WAKE_SPIN);
            w.wake = (w.wake * 3 + woke) / 4;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Threads crossing many rounds never pass a round before all arrived.
    #[test]
    fn no_thread_passes_a_round_early() {
        let n = 3;
        let barrier = Arc::new(Barrier::new(n));
        let count = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..n)
            .map(|_| {
                let (barrier, count) = (barrier.clone(), count.clone());
                std::thread::spawn(move || {
                    let mut w = Waiter::default();
                    for round in 0..2_000 {
                        count.fetch_add(1, Ordering::SeqCst);
                        barrier.wait(&mut w);
                        assert!(count.load(Ordering::SeqCst) >= (round + 1) * n);
                        barrier.wait(&mut w);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }

    /// Crosses `rounds` barriers with another thread that arrives `late` after this one each
    /// time; this thread's waiter after them.
    fn wait_for_a_late_thread(rounds: usize, late: Duration) -> Waiter {
        let barrier = Arc::new(Barrier::new(2));
        let other = {
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let mut w = Waiter::default();
                for _ in 0..rounds {
                    std::thread::sleep(late);
                    barrier.wait(&mut w);
                }
            })
        };
        let mut w = Waiter::default();
        for _ in 0..rounds {
            barrier.wait(&mut w);
        }
        other.join().unwrap();
        w
    }

    /// A thread that waits long for another sleeps instead of spinning: its budget falls to
    /// the least after a few such waits, so a long wait costs about [`MIN_SPIN`] of CPU. The
    /// other thread comes 20 ms late, twenty times the longest spin: a waiting thread that the
    /// machine's other work holds off its core for a while (the test suite runs on every core)
    /// still finds it not there yet and sleeps (at 2 ms late, one wait in eight once ended
    /// spinning so).
    #[test]
    fn long_waits_end_up_sleeping() {
        let w = wait_for_a_late_thread(8, Duration::from_millis(20));
        assert_eq!(w.slept, 8, "every 20 ms wait slept");
        assert_eq!(w.spin, MIN_SPIN);
    }

    /// A waiter whose wake-ups cost more than its adapted budget spins for as long as a
    /// wake-up costs (a VM's idle virtual CPU can take 100-200 us to wake), never past
    /// [`MAX_WAKE_SPIN`]; with cheap wake-ups the adapted budget alone counts.
    #[test]
    fn a_waiter_spins_at_least_what_a_wake_up_costs() {
        let w = Waiter { wake: Duration::from_micros(150), ..Waiter::default() };
        assert_eq!(w.budget(), Duration::from_micros(150));
        let w = Waiter { wake: Duration::from_micros(1), ..Waiter::default() };
        assert_eq!(w.budget(), Duration::from_micros(5));
    }

    /// A waiter that sleeps measures what its wake-ups cost.
    #[test]
    fn a_sleeper_measures_its_wake_ups() {
        let w = wait_for_a_late_thread(1, Duration::from_millis(5));
        assert_eq!(w.slept, 1);
        assert!(w.wake > Duration::ZERO && w.wake < Duration::from_millis(1), "{:?}", w.wake);
    }
}
