//! A paced sender's sending rate as seed 003 plots it ("the sending rate is averaged every two
//! RTTs for JetMax, RCP, and PIQI-RCP"): the wire bits of the data packets sent in a window,
//! over the window's length, windows of two smoothed RTTs laid end to end.
//!
//! A window opens at the first data packet. A packet sent at or after the window's start plus
//! 2 x SRTT (SRTT as the sender has it at that packet) closes it, at the packet's send time, and
//! opens the next one, which the packet starts: a sender pacing one packet every g seconds thus
//! measures exactly wire x 8 / g. Before the sender has an RTT sample no window closes: with a
//! handshake the SYN-ACK gives one before any data; without one (a fixed-rate sender) the
//! first window lasts until the first ACK has been measured and 2 x that SRTT has passed.
//! An idle spell (nothing to send) stays inside the window it falls in and lowers its average.

use crate::units::Time;

/// The accumulator: the open window and the rate of the last closed one.
#[derive(Copy, Clone, Debug, Default)]
pub struct SendRate {
    /// When the open window began (None: nothing sent yet).
    start: Option<Time>,
    /// Wire bits sent in the open window.
    bits: u64,
    /// Rate of the last closed window, bit/s (0 before one closes).
    last_bps: f64,
}

impl SendRate {
    /// A data packet of `wire` bytes leaves at `now`; `srtt` is the sender's smoothed RTT.
    #[inline]
    pub fn on_send(&mut self, now: Time, wire: u32, srtt: Option<Time>) {
        match (self.start, srtt) {
            (None, _) => self.start = Some(now),
            (Some(start), Some(srtt)) if now > start && now >= start + srtt + srtt => {
                self.last_bps = self.bits as f64 / (now - start).as_secs_f64();
                self.start = Some(now);
                self.bits = 0;
            }
            _ => {}
        }
        self.bits += wire as u64 * 8;
    }

    /// The rate of the last closed window, bit/s (0 before the first closes).
    pub fn bps(&self) -> f64 {
        self.last_bps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs()
    }

    #[test]
    fn a_steady_pace_measures_its_own_rate_once_a_window_of_two_srtts_closes() {
        // 1000-byte packets every 1 ms (8 Mb/s), SRTT 10 ms: the first window closes with the
        // packet at 20 ms, after 20 packets.
        let mut r = SendRate::default();
        let srtt = Some(Time::from_ms(10));
        for k in 0..20 {
            r.on_send(Time::from_ms(k), 1000, srtt);
            assert_eq!(r.bps(), 0.0, "no window closed by {k} ms");
        }
        r.on_send(Time::from_ms(20), 1000, srtt);
        assert!(close(r.bps(), 8e6), "{}", r.bps());
    }

    #[test]
    fn no_window_closes_before_an_rtt_sample_and_idle_time_counts_in_the_window() {
        let mut r = SendRate::default();
        for k in 0..50 {
            r.on_send(Time::from_ms(k), 1000, None);
        }
        assert_eq!(r.bps(), 0.0);
        // The first sample (10 ms) arrives; the window that began at 0 closes at 50 ms.
        r.on_send(Time::from_ms(50), 1000, Some(Time::from_ms(10)));
        assert!(close(r.bps(), 50.0 * 8000.0 / 0.05), "{}", r.bps());
        // One packet, then silence until 100 ms: 8000 bits over 50 ms.
        r.on_send(Time::from_ms(100), 1000, Some(Time::from_ms(10)));
        assert!(close(r.bps(), 8000.0 / 0.05), "{}", r.bps());
    }
}
