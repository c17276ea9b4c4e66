//! ACK intake: SACK blocks onto the scoreboard (RFC 2018, RFC 6675 sec. 5 "Update") and the
//! cumulative ACK point, with HighData and HighRxt never left below it.

use super::scoreboard::{LP_SENT, SACKED, SENT};
use super::Connection;
use crate::net::packet::{Packet, SackBlocks};

/// Told which segments arrived through a low-priority copy alone (RC3's loop, whose later
/// repairs depend on it); `()` for a sender without such copies.
pub trait LowPriorityCopies {
    /// True if low-priority copies are sent at all: only then does a cumulative ACK walk the
    /// segments it covers to find the ones they delivered.
    fn sends_copies(&self) -> bool;
    /// Segment `i` arrived and only its low-priority copy can have carried it.
    fn delivered(&mut self, i: u32);
}

impl LowPriorityCopies for () {
    #[inline]
    fn sends_copies(&self) -> bool {
        false
    }
    #[inline]
    fn delivered(&mut self, _: u32) {}
}

impl<T: LowPriorityCopies> LowPriorityCopies for Option<T> {
    #[inline]
    fn sends_copies(&self) -> bool {
        self.as_ref().is_some_and(T::sends_copies)
    }
    #[inline]
    fn delivered(&mut self, i: u32) {
        if let Some(t) = self {
            t.delivered(i);
        }
    }
}

/// Reports segment `i` (scoreboard flags `f`, before it was acknowledged) to `lp` if only its
/// low-priority copy can have carried it.
#[inline]
fn note_delivery(lp: &mut impl LowPriorityCopies, i: u32, f: u8) {
    if f & (LP_SENT | SENT) == LP_SENT {
        lp.delivered(i);
    }
}

impl Connection {
    /// Marks the segments of `pkt`'s SACK blocks; returns true if one the primary loop had
    /// sent is newly SACKed (loss evidence).
    pub fn take_sack(&mut self, pkt: &Packet, lp: &mut impl LowPriorityCopies) -> bool {
        if pkt.sack.n == 0 && self.last_sack.n == 0 {
            // No loss, no low-priority copy ahead: most ACKs, and nothing to mark or remember.
            return false;
        }
        let mut news = false;
        for (s, e) in pkt.sacks() {
            // Only the parts the previous ACK did not report can hold news: a block usually
            // grows by one segment per ACK, so this keeps SACK processing O(1) per ACK.
            for (s, e) in uncovered(s, e, &self.last_sack, self.last_sack_ack) {
                let mut i = self.segs.first_at_or_after(s);
                while i < self.segs.count() && self.segs.range(i).1 <= e {
                    let f = self.board.get(i);
                    if self.board.on_sacked(i) {
                        news |= f & SENT != 0;
                        note_delivery(lp, i, f);
                    }
                    i += 1;
                }
            }
        }
        self.last_sack = pkt.sack;
        self.last_sack_ack = pkt.ack;
        news
    }

    /// Moves the cumulative ACK point to segment `ack_seg` (byte `ack`), which must lie above
    /// it; returns the bytes newly acknowledged that the primary loop had sent (what a window
    /// may grow for). HighData and HighRxt move up to it: data already delivered is not sent
    /// again (RC3 sec. 4.1.2's "ACK bump").
    pub fn take_cumulative(&mut self, ack_seg: u32, ack: u64, lp: &mut impl LowPriorityCopies) -> u64 {
        let una0 = self.board.una();
        let bytes = ack - self.segs.range(una0).0;
        if lp.sends_copies() {
            for i in una0..ack_seg {
                let f = self.board.get(i);
                if f & SACKED == 0 {
                    note_delivery(lp, i, f);
                }
            }
        }
        let primary = self.board.advance(ack_seg);
        self.nxt = self.nxt.max(ack_seg);
        self.rxt_scan = self.rxt_scan.max(ack_seg);
        if primary == ack_seg - una0 {
            bytes
        } else {
            (primary as u64 * self.segs.mss()).min(bytes)
        }
    }
}

/// The parts of `[s, e)` outside every block of `seen` (carried by the ACK of `seen_ack`; at
/// most four pieces).
#[inline]
fn uncovered(s: u64, e: u64, seen: &SackBlocks, seen_ack: u64) -> impl Iterator<Item = (u64, u64)> {
    let mut pieces = [(s, e), (0, 0), (0, 0), (0, 0)];
    let mut n = 1;
    for (a, b) in seen.iter(seen_ack) {
        let mut next = [(0, 0); 4];
        let mut m = 0;
        for &(x, y) in &pieces[..n] {
            // [x, y) minus [a, b): up to two pieces.
            if b <= x || y <= a {
                next[m] = (x, y);
                m += 1;
                continue;
            }
            if x < a {
                next[m] = (x, a);
                m += 1;
            }
            if b < y && m < 4 {
                next[m] = (b, y);
                m += 1;
            }
        }
        pieces = next;
        n = m;
    }
    pieces.into_iter().take(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn blocks(bs: &[(u64, u64)]) -> SackBlocks {
        SackBlocks::of(bs)
    }

    /// Records what the connection reports.
    #[derive(Default)]
    struct Heard(Vec<u32>);

    impl LowPriorityCopies for Heard {
        fn sends_copies(&self) -> bool {
            true
        }
        fn delivered(&mut self, i: u32) {
            self.0.push(i);
        }
    }

    /// Ten segments: the primary loop sent 0 and 1, a low-priority loop 9 down to 2.
    fn half_copies() -> Connection {
        use crate::transport::app::{App, AppState};
        use crate::transport::conn::rtt::RttEstimator;
        use crate::transport::FlowAddr;
        use crate::units::Time;
        let addr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };
        let app = AppState::new(App::Bulk { size: 10_000 }, Time::ZERO);
        let rtt = RttEstimator::new(Time::from_secs(1), Time::from_ms(200), Time::from_secs(60));
        let mut c = Connection::new(addr, app, 1000, 40, rtt);
        c.write_app(Time::ZERO);
        let mut out = Vec::new();
        let none = |_| crate::net::packet::CongestionHeader::None;
        for i in 0..2 {
            c.send_new(Time::ZERO, i, false, 0, none, &mut out);
        }
        for i in (2..10).rev() {
            assert!(c.emit_low_priority(Time::ZERO, i, 1, none, &mut out).is_some());
        }
        assert!(c.emit_low_priority(Time::ZERO, 5, 1, none, &mut out).is_none(), "one copy each");
        c
    }

    /// The connection tells the low-priority loop which segments only its copies can have
    /// delivered, once each, whether a SACK or the cumulative ACK reports them; a window grows
    /// only for what the primary loop sent.
    #[test]
    fn deliveries_by_low_priority_copies_alone_are_reported_once_and_grow_no_window() {
        let mut c = half_copies();
        let mut heard = Heard::default();
        let mut ack = Packet {
            ack: 0,
            sack: blocks(&[(5000, 7000)]),
            ..c.addr.reverse(crate::net::packet::PacketKind::Ack, crate::units::Time::ZERO)
        };
        assert!(!c.take_sack(&ack, &mut heard), "no primary segment SACKed: no loss evidence");
        assert_eq!(heard.0, vec![5, 6]);
        ack.sack = blocks(&[(5000, 8000)]);
        c.take_sack(&ack, &mut heard);
        assert_eq!(heard.0, vec![5, 6, 7], "a block reported before brings only its growth");
        // The cumulative ACK covers 0..4: 0 and 1 were the primary loop's, 2 and 3 copies.
        assert_eq!(c.take_cumulative(4, 4000, &mut heard), 2000);
        assert_eq!(heard.0, vec![5, 6, 7, 2, 3]);
        assert_eq!((c.high_data(), c.scoreboard().una()), (4, 4), "HighData moves up to the ACK");
        assert_eq!(c.next_new(), Some(4));
    }

    #[test]
    fn uncovered_subtracts_every_seen_block() {
        let seen = blocks(&[(10, 20), (30, 40)]);
        let got: Vec<_> = uncovered(5, 45, &seen, 0).collect();
        assert_eq!(got, vec![(5, 10), (20, 30), (40, 45)]);
        assert_eq!(uncovered(12, 18, &seen, 0).count(), 0);
        assert_eq!(uncovered(0, 5, &seen, 0).collect::<Vec<_>>(), vec![(0, 5)]);
    }
}
