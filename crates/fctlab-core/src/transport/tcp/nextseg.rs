//! RFC 6675 sec. 4 NextSeg rules (3) and (4), which apply in fast recovery only: what to
//! retransmit when no segment is deemed lost and no new data may be sent.
//!
//! Rules (1) (lost segments) and (2) (new data) live in the sender's send loop; these two
//! repair the tail of a window, where fewer than DupThresh SACKed segments lie above a hole,
//! so IsLost never fires and, without them, only the RTO would.
//!
//! "Outstanding un-SACKed" excludes a segment already retransmitted in this episode (`RETX`):
//! a second copy while the first is in flight carries no new information and only adds load.
//! ns-3's `TcpTxBuffer::NextSeg` skips retransmitted items for rule (3) the same way (and has
//! no rule (4)); Linux's retransmit queue walk skips segments marked `TCPCB_SACKED_RETRANS`.
//! If every such segment was already retransmitted, the RTO remains the backstop.
//!
//! `pipe` counts a rescue copy like any retransmission (its `RETX` flag), where SetPipe's
//! "S1 <= HighRxt" test would miss it, HighRxt not moving: the copy is in the network.

use crate::transport::conn::scoreboard::{Scoreboard, RETX, SACKED, SENT};

/// True if the primary loop sent segment `f` and it is neither SACKed nor retransmitted.
#[inline]
fn candidate(f: u8) -> bool {
    f & (SENT | SACKED | RETX) == SENT
}

/// Per-episode state of rules (3) and (4); reset on each entry into fast recovery.
#[derive(Clone, Debug, Default)]
pub struct TailRepair {
    /// Rule (3) scan position: below it every segment is SACKed or retransmitted (both stay
    /// so for the episode), so each recovery scans a segment at most once.
    scan: u32,
    /// RFC 6675 RescueRxt, as a segment index: the RecoveryPoint (HighData, exclusive) of the
    /// episode that used its rescue retransmission.
    rescue_rxt: Option<u32>,
    /// Segments `[clean.0, clean.1)` held no rule (4) candidate when last looked at.
    clean: (u32, u32),
}

impl TailRepair {
    /// A new fast-recovery episode starts with the cumulative ACK at `una`.
    pub fn enter(&mut self, una: u32) {
        self.scan = una;
        self.clean = (una, una);
    }

    /// Rule (3): the smallest segment above HighRxt (`from` is HighRxt + 1) and below the
    /// highest segment SACKed of those the primary loop sent (RC3's low-priority data is no
    /// evidence, RC3 sec. 4.2.4), that is neither SACKed nor already retransmitted.
    pub fn rule3(&mut self, board: &Scoreboard, from: u32) -> Option<u32> {
        let hi = board.sack_high_primary();
        let mut i = from.max(self.scan).max(board.una());
        while i < hi {
            if candidate(board.get(i)) {
                self.scan = i;
                return Some(i);
            }
            i += 1;
        }
        self.scan = self.scan.max(i);
        None
    }

    /// Rule (4), the rescue retransmission: once per entry into loss recovery (HighACK beyond
    /// RescueRxt, here `una >= rescue_rxt` as both are exclusive segment indices), the highest
    /// outstanding (`[una, high_data)`) segment that is neither SACKed nor retransmitted. The
    /// caller retransmits it without moving HighRxt and then calls [`Self::rescued`].
    pub fn rule4(&mut self, board: &Scoreboard, high_data: u32) -> Option<u32> {
        let una = board.una();
        if self.rescue_rxt.is_some_and(|r| una < r) {
            return None;
        }
        // Walk down from HighData, jumping over the range already known to hold no candidate,
        // so that ACKs finding nothing to rescue do not walk the whole window each time.
        let mut i = high_data;
        while i > una {
            if i == self.clean.1 && self.clean.0 < i {
                i = self.clean.0;
                continue;
            }
            i -= 1;
            if candidate(board.get(i)) {
                return Some(i);
            }
        }
        self.clean = (una, high_data.max(una));
        None
    }

    /// The rescue retransmission of the episode ending at `recovery_point` left.
    pub fn rescued(&mut self, recovery_point: u32) {
        self.rescue_rxt = Some(recovery_point);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(sent: u32, sacked: &[u32]) -> Scoreboard {
        let mut b = Scoreboard::new();
        for i in 0..sent {
            b.on_sent(i);
        }
        for &i in sacked {
            b.on_sacked(i);
        }
        b
    }

    #[test]
    fn rule3_takes_unsacked_segments_below_the_highest_sack_once_each() {
        let mut b = board(10, &[6, 8]);
        let mut t = TailRepair::default();
        t.enter(0);
        assert_eq!(t.rule3(&b, 5), Some(5));
        b.on_retransmit(5);
        assert_eq!(t.rule3(&b, 6), Some(7));
        b.on_retransmit(7);
        assert_eq!(t.rule3(&b, 8), None, "segment 9 lies above the highest SACK");
        assert_eq!(b.pipe(), b.pipe_from_scratch());
    }

    #[test]
    fn rule4_rescues_the_highest_unsacked_segment_once_per_episode() {
        let mut b = board(10, &[3]);
        let mut t = TailRepair::default();
        t.enter(0);
        assert_eq!(t.rule4(&b, 10), Some(9));
        b.on_retransmit(9);
        t.rescued(10);
        assert_eq!(t.rule4(&b, 10), None, "one rescue per episode");
        b.advance(10);
        t.enter(10);
        for i in 10..14 {
            b.on_sent(i);
        }
        b.on_sacked(13);
        assert_eq!(t.rule4(&b, 14), Some(12), "a new episode may rescue again");
    }

    #[test]
    fn rule4_skips_retransmitted_segments_and_remembers_a_fruitless_walk() {
        let mut b = board(6, &[5]);
        for i in 1..5 {
            b.on_retransmit(i);
        }
        let mut t = TailRepair::default();
        t.enter(0);
        assert_eq!(t.rule4(&b, 6), Some(0));
        b.on_retransmit(0);
        assert_eq!(t.rule4(&b, 6), None, "every outstanding copy is in flight");
        assert_eq!(t.clean, (0, 6));
    }
}
