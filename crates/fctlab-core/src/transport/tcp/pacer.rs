//! A pacing clock for the TCP sender: packets leave no closer together than
//! `wire bits / rate`, whatever the window allows.
//!
//! Only senders that pace own one (the sender holds an `Option`), so unpaced TCP pays one
//! branch per send-loop turn and nothing else. The clock never bursts to catch up after an
//! idle period: the next departure is always one gap after the last one, or later.

use crate::units::{Rate, Time};

/// When the next packet may leave, and whether the send loop is waiting for that moment.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Pacer {
    rate: Rate,
    next_send: Time,
    /// True when the send loop stopped only because the clock had not come round yet.
    waiting: bool,
}

impl Pacer {
    /// A clock pacing at `rate` (> 0), ready at once.
    pub fn new(rate: Rate) -> Pacer {
        Pacer { rate: Self::at_least_one_bps(rate), next_send: Time::ZERO, waiting: false }
    }

    fn at_least_one_bps(rate: Rate) -> Rate {
        Rate::from_bps(rate.bps().max(1))
    }

    /// The pacing rate.
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// Changes the rate; the gap already scheduled stands (it was earned at the old rate).
    pub fn set_rate(&mut self, rate: Rate) {
        self.rate = Self::at_least_one_bps(rate);
    }

    /// The send loop starts a pass: it is not waiting for the clock until it says so.
    pub fn begin_pass(&mut self) {
        self.waiting = false;
    }

    /// True if a packet may leave at `now`; otherwise notes that the loop waits for the clock.
    #[inline]
    pub fn ready(&mut self, now: Time) -> bool {
        if now < self.next_send {
            self.waiting = true;
            return false;
        }
        true
    }

    /// A packet of `wire` bytes left at `now`: the next may leave `wire bits / rate` later.
    pub fn on_send(&mut self, now: Time, wire: u32) {
        self.next_send = now.max(self.next_send) + self.rate.tx_time(wire as u64);
    }

    /// The wake-up the sender needs: the clock's next tick, if the send loop waits for it.
    pub fn wake_at(&self) -> Option<Time> {
        self.waiting.then_some(self.next_send)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn departures_are_one_serialization_time_apart_at_the_pacing_rate() {
        let mut p = Pacer::new(Rate::from_mbps(12));
        let t0 = Time::from_ms(1);
        assert!(p.ready(t0));
        p.on_send(t0, 1500);
        // 1500 B at 12 Mb/s = 1 ms.
        assert!(!p.ready(t0 + Time::from_us(999)));
        assert_eq!(p.wake_at(), Some(t0 + Time::from_ms(1)));
        assert!(p.ready(t0 + Time::from_ms(1)));
    }

    #[test]
    fn an_idle_clock_does_not_bank_departures() {
        let mut p = Pacer::new(Rate::from_mbps(12));
        p.on_send(Time::ZERO, 1500);
        let late = Time::from_ms(50);
        assert!(p.ready(late));
        p.on_send(late, 1500);
        assert!(!p.ready(late), "one packet, then a full gap, however long the pause was");
        assert_eq!(p.wake_at(), Some(late + Time::from_ms(1)));
    }

    #[test]
    fn no_wake_up_unless_the_loop_waits_for_the_clock() {
        let mut p = Pacer::new(Rate::from_gbps(1));
        p.on_send(Time::ZERO, 1000);
        p.begin_pass();
        assert_eq!(p.wake_at(), None, "the window, not the clock, stopped the loop");
        assert!(!p.ready(Time::ZERO));
        assert_eq!(p.wake_at(), Some(Time::from_us(8)));
    }
}
