//! Integer units: time in picoseconds, rates in bits per second, sizes in bytes.
//!
//! Every quantity that enters the event queue is an integer, so a run is bit-identical
//! on every machine. Floats appear only at the boundaries (scenario parsing, results).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in simulated time or a duration, in picoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    /// Time zero, the start of every run.
    pub const ZERO: Time = Time(0);
    /// The far future: "never" for timers.
    pub const MAX: Time = Time(u64::MAX);

    /// Picoseconds.
    pub const fn from_ps(ps: u64) -> Time {
        Time(ps)
    }
    /// Nanoseconds.
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns * 1_000)
    }
    /// Microseconds.
    pub const fn from_us(us: u64) -> Time {
        Time(us * 1_000_000)
    }
    /// Milliseconds.
    pub const fn from_ms(ms: u64) -> Time {
        Time(ms * 1_000_000_000)
    }
    /// Whole seconds.
    pub const fn from_secs(s: u64) -> Time {
        Time(s * 1_000_000_000_000)
    }
    /// Seconds as a float, rounded to the nearest picosecond (boundary use only).
    pub fn from_secs_f64(s: f64) -> Time {
        Time((s * 1e12).round().max(0.0) as u64)
    }
    /// Seconds as a float (boundary use only).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-12
    }
    /// Picoseconds.
    pub const fn ps(self) -> u64 {
        self.0
    }
    /// `self - other`, or zero if `other` is later.
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }
    /// `self + other`, saturating at [`Time::MAX`].
    pub fn saturating_add(self, other: Time) -> Time {
        Time(self.0.saturating_add(other.0))
    }
    /// Multiplies a duration by an integer.
    pub fn times(self, k: u64) -> Time {
        Time(self.0.saturating_mul(k))
    }
}

// Sums saturate at [`Time::MAX`], "never": every run ends by its `max_time` (at most
// 1e6 s + 300 s, crate::limits), so an instant beyond 2^64 ps is never reached either way, where
// a wrapped sum would put it in the past (a queue of packets behind a 1 bit/s NIC, say).
impl Add for Time {
    type Output = Time;
    #[inline]
    fn add(self, o: Time) -> Time {
        Time(self.0.saturating_add(o.0))
    }
}
impl AddAssign for Time {
    #[inline]
    fn add_assign(&mut self, o: Time) {
        self.0 = self.0.saturating_add(o.0);
    }
}
impl Sub for Time {
    type Output = Time;
    fn sub(self, o: Time) -> Time {
        Time(self.0 - o.0)
    }
}
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

/// A link or sending rate in bits per second.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    /// Bits per second.
    pub const fn from_bps(bps: u64) -> Rate {
        Rate(bps)
    }
    /// Megabits per second.
    pub const fn from_mbps(m: u64) -> Rate {
        Rate(m * 1_000_000)
    }
    /// Gigabits per second.
    pub const fn from_gbps(g: u64) -> Rate {
        Rate(g * 1_000_000_000)
    }
    /// Bits per second.
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Bits per second as a float.
    pub fn bps_f64(self) -> f64 {
        self.0 as f64
    }
    /// Serialization time of `bytes` at this rate: `bytes * 8 / rate`, rounded up to a picosecond.
    pub fn tx_time(self, bytes: u64) -> Time {
        // A 64-bit division when the numerator fits (packets always do): a 128-bit one is a
        // library call several times slower, and this runs once per packet per hop.
        match bytes.checked_mul(8 * 1_000_000_000_000) {
            Some(num) => Time(num.div_ceil(self.0)),
            None => Time((bytes as u128 * 8_000_000_000_000).div_ceil(self.0 as u128) as u64),
        }
    }
    /// Serialization time of `bytes`, or None if it does not fit in 2^64 ps (about 213 days).
    pub fn checked_tx_time(self, bytes: u64) -> Option<Time> {
        let ps = (bytes as u128 * 8_000_000_000_000).div_ceil(self.0 as u128);
        u64::try_from(ps).ok().map(Time)
    }
    /// Bytes that this rate carries in `t` (rounded down).
    pub fn bytes_in(self, t: Time) -> u64 {
        (self.0 as u128 * t.0 as u128 / 8 / 1_000_000_000_000u128) as u64
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}bps", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_of_a_full_packet() {
        // 1500 B at 1 Gb/s is 12 us.
        assert_eq!(Rate::from_gbps(1).tx_time(1500), Time::from_us(12));
        // 40 B at 10 Gb/s is 32 ns.
        assert_eq!(Rate::from_gbps(10).tx_time(40), Time::from_ns(32));
    }

    #[test]
    fn serialization_rounds_up() {
        // 1 B at 3 b/s = 8/3 s = 2.666..e12 ps, rounded up.
        assert_eq!(Rate::from_bps(3).tx_time(1), Time(2_666_666_666_667));
    }

    #[test]
    fn serialization_is_exact_on_both_sides_of_the_64_bit_fast_path() {
        // 8e12 x bytes overflows u64 from 2,305,843 bytes on: both paths must round alike.
        let r = Rate::from_bps(7_000_000_003);
        for bytes in [1u64, 1500, 2_305_843, 2_305_844, 10_000_000_000] {
            let want = (bytes as u128 * 8_000_000_000_000).div_ceil(7_000_000_003) as u64;
            assert_eq!(r.tx_time(bytes), Time(want), "{bytes} bytes");
        }
    }

    #[test]
    fn sums_beyond_the_clock_saturate_instead_of_wrapping() {
        let late = Time(u64::MAX - 5);
        assert_eq!(late + Time(10), Time::MAX);
        let mut t = late;
        t += Time(10);
        assert_eq!(t, Time::MAX);
        assert_eq!(Time(3) + Time(4), Time(7));
    }

    #[test]
    fn a_serialization_beyond_the_clock_is_none() {
        // 10^15 B at 1 bit/s is 8e27 ps; tx_time's 128-bit path used to truncate it to 64 bits.
        assert_eq!(Rate(1).checked_tx_time(1_000_000_000_000_000), None);
        assert_eq!(Rate::from_gbps(1).checked_tx_time(1500), Some(Time::from_us(12)));
    }

    #[test]
    fn seconds_round_trip() {
        assert_eq!(Time::from_secs_f64(0.04), Time::from_ms(40));
        assert!((Time::from_ms(40).as_secs_f64() - 0.04).abs() < 1e-15);
    }
}
