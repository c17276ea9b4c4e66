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

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// The shortest spin before sleeping: about a cache miss's worth of polls.
pub(super) const MIN_SPIN: Duration = Duration::from_nanos(500);
/// The longest spin before sleeping: several times what a sleep and a wake-up cost.
pub(super) const MAX_SPIN: Duration = Duration::from_micros(50);

/// One thread's spin budget at the barrier, adapted wait by wait.
#[derive(Debug)]
pub(super) struct Waiter {
    spin: Duration,
    /// Waits that ended spinning and waits that slept (for tests and reports).
    pub(super) spun: u64,
    pub(super) slept: u64,
}

impl Default for Waiter {
    fn default() -> Waiter {
        Waiter { spin: Duration::from_micros(5), spun: 0, slept: 0 }
    }
}

/// A barrier for `n` threads that spin a while (each its own budget), then sleep.
pub(super) struct Barrier {
    n: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    sleepers: AtomicUsize,
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
            if t0.elapsed() >= w.spin {
                break;
            }
        }
        w.spin = (w.spin / 2).max(MIN_SPIN);
        w.slept += 1;
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        while self.generation.load(Ordering::SeqCst) == gen {
            guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
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

    /// A thread that waits long for another sleeps instead of spinning: its budget falls to
    /// the least after a few such waits, so a long wait costs about [`MIN_SPIN`] of CPU.
    #[test]
    fn long_waits_end_up_sleeping() {
        let barrier = Arc::new(Barrier::new(2));
        let other = {
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let mut w = Waiter::default();
                for _ in 0..8 {
                    std::thread::sleep(Duration::from_millis(2));
                    barrier.wait(&mut w);
                }
            })
        };
        let mut w = Waiter::default();
        for _ in 0..8 {
            barrier.wait(&mut w);
        }
        other.join().unwrap();
        assert_eq!(w.slept, 8, "every 2 ms wait slept");
        assert_eq!(w.spin, MIN_SPIN);
    }
}
