//! The SACK scoreboard (RFC 6675 sec. 3-4), kept per segment for the outstanding window.
//!
//! Segment `i` of the flow is at `flags[i - una]`. `pipe` (the RFC's estimate of segments in
//! the network) is kept up to date on every flag change, so no ACK walks the whole window.
//! Segments beyond `nxt` may be present too: RC3's low-priority loop sends the tail of the flow
//! before the primary loop reaches it; those carry only [`LP_SENT`] and never count in `pipe`.

use std::collections::VecDeque;

/// Sent by the primary (window-controlled) loop.
pub const SENT: u8 = 1;
/// Selectively acknowledged.
pub const SACKED: u8 = 2;
/// Deemed lost (RFC 6675 IsLost, or everything outstanding after a timeout).
pub const LOST: u8 = 4;
/// Retransmitted during the current loss episode.
pub const RETX: u8 = 8;
/// Sent once by a low-priority loop (RC3's RLP).
pub const LP_SENT: u8 = 16;

/// RFC 6675 SetPipe() contribution of one segment: one for the original transmission if it
/// is neither SACKed nor lost, one more for a retransmission that is not SACKed.
#[inline]
fn contrib(f: u8) -> u32 {
    let unsacked = f & SACKED == 0;
    (unsacked && f & SENT != 0 && f & LOST == 0) as u32 + (unsacked && f & RETX != 0) as u32
}

/// Per-segment state of `[una, una + len)`.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    una: u32,
    flags: VecDeque<u8>,
    pipe: u32,
    sacked: u32,
    /// SACKed segments that the primary loop had sent: the only loss evidence (RC3 sec. 4.2.4:
    /// data delivered by the low-priority loop says nothing about the primary loop's losses).
    sacked_primary: u32,
    /// Segments below this index that are not SACKed are lost.
    lost_bound: u32,
    /// Highest SACKed segment + 1.
    sack_high: u32,
    /// Highest SACKed segment the primary loop had sent + 1: RFC 6675 NextSeg (1.b)'s bound
    /// for rule (3), which a SACK of RC3's low-priority data must not raise.
    sack_high_primary: u32,
    /// Highest segment ever marked lost + 1: no lost segment lies above it.
    lost_high: u32,
}

impl Scoreboard {
    /// An empty scoreboard.
    pub fn new() -> Scoreboard {
        Scoreboard::default()
    }

    /// First unacknowledged segment.
    pub fn una(&self) -> u32 {
        self.una
    }

    /// Segments in the network, RFC 6675 `pipe`.
    pub fn pipe(&self) -> u32 {
        self.pipe
    }

    /// SACKed segments at or above `una`.
    pub fn sacked_count(&self) -> u32 {
        self.sacked
    }

    /// One past the highest SACKed segment (or `una` if none).
    pub fn sack_high(&self) -> u32 {
        self.sack_high.max(self.una)
    }

    /// One past the highest SACKed segment the primary loop had sent (or `una` if none).
    pub fn sack_high_primary(&self) -> u32 {
        self.sack_high_primary.max(self.una)
    }

    /// Flags of segment `i` (0 for segments not tracked).
    #[inline]
    pub fn get(&self, i: u32) -> u8 {
        if i < self.una {
            return 0;
        }
        self.flags.get((i - self.una) as usize).copied().unwrap_or(0)
    }

    #[inline]
    fn update(&mut self, i: u32, set: u8, clear: u8) {
        if i < self.una {
            return;
        }
        let k = (i - self.una) as usize;
        if k == self.flags.len() {
            self.flags.push_back(0); // the next segment sent: the common case
        } else if k > self.flags.len() {
            self.flags.resize(k + 1, 0);
        }
        let old = self.flags[k];
        let new = (old | set) & !clear;
        self.pipe = self.pipe - contrib(old) + contrib(new);
        if old & SACKED == 0 && new & SACKED != 0 {
            self.sacked += 1;
            self.sacked_primary += (new & SENT != 0) as u32;
            self.sack_high = self.sack_high.max(i + 1);
        } else if old & SACKED != 0 && old & SENT == 0 && new & SENT != 0 {
            self.sacked_primary += 1;
        }
        if new & (SACKED | SENT) == SACKED | SENT {
            self.sack_high_primary = self.sack_high_primary.max(i + 1);
        }
        if new & LOST != 0 {
            self.lost_high = self.lost_high.max(i + 1);
        }
        self.flags[k] = new;
    }

    /// Segment `i` was sent by the primary loop for the first time.
    pub fn on_sent(&mut self, i: u32) {
        self.update(i, SENT, 0);
    }

    /// Segment `i` was sent by a low-priority loop.
    pub fn on_lp_sent(&mut self, i: u32) {
        self.update(i, LP_SENT, 0);
    }

    /// Segment `i` was retransmitted.
    pub fn on_retransmit(&mut self, i: u32) {
        self.update(i, RETX | SENT, 0);
    }

    /// Segment `i` is covered by a SACK block; returns true if that is news.
    pub fn on_sacked(&mut self, i: u32) -> bool {
        if self.get(i) & SACKED != 0 || i < self.una {
            return false;
        }
        self.update(i, SACKED, 0);
        true
    }

    /// The cumulative ACK reached segment `new_una`; returns how many of the segments that
    /// left the board the primary loop had sent.
    pub fn advance(&mut self, new_una: u32) -> u32 {
        if new_una <= self.una {
            return 0;
        }
        let mut primary = 0;
        for _ in 0..new_una - self.una {
            match self.flags.pop_front() {
                Some(f) => {
                    self.pipe -= contrib(f);
                    primary += (f & SENT != 0) as u32;
                    if f & SACKED != 0 {
                        self.sacked -= 1;
                        self.sacked_primary -= (f & SENT != 0) as u32;
                    }
                }
                None => break,
            }
        }
        self.una = new_una;
        self.lost_bound = self.lost_bound.max(new_una);
        primary
    }

    /// RFC 6675 IsLost for every segment: marks LOST all un-SACKed segments the primary loop
    /// sent below the `dupthresh`-th highest SACKed segment that it also sent. Returns true
    /// if some segment became lost.
    pub fn mark_losses(&mut self, dupthresh: u32) -> bool {
        if self.sacked_primary < dupthresh {
            return false;
        }
        // Find the dupthresh-th highest SACKed primary segment, scanning down to the old bound.
        let mut seen = 0;
        let mut i = self.sack_high();
        let mut bound = self.lost_bound;
        while i > self.lost_bound {
            i -= 1;
            if self.get(i) & (SACKED | SENT) == SACKED | SENT {
                seen += 1;
                if seen == dupthresh {
                    bound = i;
                    break;
                }
            }
        }
        let mut any = false;
        for j in self.lost_bound.max(self.una)..bound {
            let f = self.get(j);
            if f & SACKED == 0 && f & SENT != 0 && f & LOST == 0 {
                self.update(j, LOST, 0);
                any = true;
            }
        }
        self.lost_bound = self.lost_bound.max(bound);
        any
    }

    /// True if segment `i` is deemed lost (RFC 6675 IsLost).
    pub fn is_lost(&self, i: u32) -> bool {
        self.get(i) & LOST != 0
    }

    /// Marks segment `i` lost regardless of SACK evidence (fast retransmit of `una`).
    pub fn force_lost(&mut self, i: u32) {
        if self.get(i) & SACKED == 0 {
            self.update(i, LOST, RETX);
        }
    }

    /// Retransmission timeout: every sent, un-SACKed segment below `end` is lost and no
    /// retransmission is in flight any more; SACK information is kept.
    pub fn on_timeout(&mut self, end: u32) {
        for i in self.una..end {
            let f = self.get(i);
            if f & SACKED == 0 && f & SENT != 0 {
                self.update(i, LOST, RETX);
            } else if f & RETX != 0 {
                self.update(i, 0, RETX);
            }
        }
        self.lost_bound = self.lost_bound.max(end);
    }

    /// Go-back-N's step back: every segment at or above `una` is forgotten (no longer in
    /// flight, SACKed or lost); `pipe` is 0.
    pub fn forget_outstanding(&mut self) {
        self.flags.clear();
        self.pipe = 0;
        self.sacked = 0;
        self.sacked_primary = 0;
        self.sack_high = self.una;
        self.sack_high_primary = self.una;
        self.lost_high = self.una;
        self.lost_bound = self.una;
    }

    /// First segment in `[from, to)` that is lost, not SACKed and not yet retransmitted.
    pub fn next_lost(&self, from: u32, to: u32) -> Option<u32> {
        let to = to.min(self.lost_high);
        (from.max(self.una)..to).find(|&i| {
            let f = self.get(i);
            f & LOST != 0 && f & (SACKED | RETX) == 0
        })
    }

    /// Recomputes `pipe` from scratch (for invariant tests).
    pub fn pipe_from_scratch(&self) -> u32 {
        self.flags.iter().map(|&f| contrib(f)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(n: u32) -> Scoreboard {
        let mut b = Scoreboard::new();
        for i in 0..n {
            b.on_sent(i);
        }
        b
    }

    #[test]
    fn pipe_counts_sent_segments_and_drops_sacked_ones() {
        let mut b = sent(10);
        assert_eq!(b.pipe(), 10);
        assert!(b.on_sacked(5));
        assert!(!b.on_sacked(5), "a repeated SACK is not news");
        assert_eq!(b.pipe(), 9);
        assert_eq!(b.advance(3), 3);
        assert_eq!(b.pipe(), 6);
        assert_eq!(b.pipe(), b.pipe_from_scratch());
    }

    #[test]
    fn a_hole_is_lost_once_three_segments_above_it_are_sacked() {
        let mut b = sent(10);
        b.on_sacked(3);
        b.on_sacked(4);
        assert!(!b.mark_losses(3));
        b.on_sacked(5);
        assert!(b.mark_losses(3));
        // Segments 0..3 are below three SACKed segments: lost, out of the pipe.
        assert!(b.is_lost(0) && b.is_lost(2) && !b.is_lost(6));
        assert_eq!(b.pipe(), 4);
        assert_eq!(b.next_lost(0, 10), Some(0));
        b.on_retransmit(0);
        // The retransmission is in the pipe again; the next hole is 1.
        assert_eq!(b.pipe(), 5);
        assert_eq!(b.next_lost(0, 10), Some(1));
        assert_eq!(b.pipe(), b.pipe_from_scratch());
    }

    #[test]
    fn timeout_marks_everything_outstanding_lost_but_keeps_sacks() {
        let mut b = sent(6);
        b.on_sacked(4);
        b.on_retransmit(1);
        b.on_timeout(6);
        assert_eq!(b.pipe(), 0);
        assert_eq!(b.next_lost(0, 6), Some(0));
        assert_eq!(b.get(4) & SACKED, SACKED);
        assert_eq!(b.get(1) & RETX, 0, "old retransmissions are forgotten");
        assert_eq!(b.pipe(), b.pipe_from_scratch());
    }
}
