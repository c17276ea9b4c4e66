//! The emulation's clock: run time ([`Time`]) from the system's monotonic clock.
//!
//! Every process of one emulation reads `CLOCK_MONOTONIC` (one clock for the whole machine,
//! network namespaces included) against the same epoch, so a timestamp taken by one host means
//! the same instant to the router and to the other hosts.
//!
//! Time scaling (seed 002's answer to a machine too slow for the rates asked): with `scale` k,
//! one second of run time lasts k wall seconds. Rates and delays stay as the scenario states
//! them in run time, which on the wall makes every rate k times lower and every delay k times
//! longer, together, so queues, windows and FCTs in run time are unchanged.

use fctlab_core::units::Time;

/// Nanoseconds of `CLOCK_MONOTONIC`.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Run time against a shared epoch.
#[derive(Copy, Clone, Debug)]
pub struct Clock {
    /// `CLOCK_MONOTONIC` nanoseconds at run time zero.
    pub epoch_ns: u64,
    /// Wall seconds per second of run time (>= 1).
    pub scale: f64,
}

impl Clock {
    /// Run time now (zero before the epoch).
    pub fn now(&self) -> Time {
        self.at_wall_ns(monotonic_ns())
    }

    /// Run time at a monotonic instant.
    pub fn at_wall_ns(&self, ns: u64) -> Time {
        let wall = ns.saturating_sub(self.epoch_ns) as f64;
        Time::from_ps((wall * 1e3 / self.scale) as u64)
    }

    /// Wall nanoseconds from `now` to run time `t` (zero if `t` has passed).
    pub fn wall_ns_until(&self, now: Time, t: Time) -> u64 {
        ((t.saturating_sub(now).ps() as f64) * self.scale / 1e3).ceil() as u64
    }

    /// A run-time duration in wall nanoseconds.
    pub fn wall_ns(&self, d: Time) -> u64 {
        (d.ps() as f64 * self.scale / 1e3) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaling_stretches_run_time_on_the_wall() {
        let c = Clock { epoch_ns: 1_000_000_000, scale: 4.0 };
        assert_eq!(c.at_wall_ns(500), Time::ZERO, "before the epoch");
        assert_eq!(c.at_wall_ns(1_000_000_000 + 4_000_000), Time::from_ms(1));
        assert_eq!(c.wall_ns_until(Time::from_ms(1), Time::from_ms(3)), 8_000_000);
        assert_eq!(c.wall_ns_until(Time::from_ms(3), Time::from_ms(1)), 0);
    }

    #[test]
    fn the_monotonic_clock_moves_forward() {
        let a = monotonic_ns();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = monotonic_ns();
        assert!(b >= a + 2_000_000, "{a} then {b}");
    }
}
