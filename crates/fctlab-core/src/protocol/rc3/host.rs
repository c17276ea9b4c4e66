//! RC3's recursive low-priority (RLP) loop (RC3 paper sec. 2.1, 4.1.1).
//!
//! RC3 is TCP plus this second loop: whenever data enters the send buffer (the application's
//! write; the first window right after the SYN-ACK), the RLP loop sends the part the primary
//! loop has not sent, from the last segment backwards, each segment once, at low priorities
//! that fall with the distance from the tail: with buckets (40, 400, 4000), the last 40
//! segments go at P1, the 400 before at P2, the 4000 before at P3 and the rest at P4
//! (priorities relative to the connection's own band). It never retransmits and never
//! reacts to ACKs; the primary loop, which skips SACKed data, fills the holes. The TCP side of
//! RC3 (low-priority ACKs update only the scoreboard, repairs of lost copies, the authors'
//! window) is the window loop's plug-in in `hook.rs`.

use crate::transport::conn::Connection;
use std::collections::BTreeSet;

/// Most low-priority levels a connection may use (bands 1..=7 above its own).
pub const MAX_LEVELS: usize = 7;

/// How the primary loop's window counts what is outstanding.
///
/// The paper does not say; the authors' ns-3.16 code (`TcpRC3Sack`, NetSys/RC3) leaves
/// ns-3's `AvailableWindow() = cwnd - (NextTxSequence - HeadSequence)` in place, with
/// `HeadSequence` moved by priority-0 ACKs only (a low-priority ACK returns after updating the
/// scoreboard) and `NextTxSequence` jumping over data already SACKed or acknowledged. So data
/// the low-priority copies delivered still fills the window until a priority-0 ACK covers it,
/// and holes far apart are repaired about one per round trip.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Rc3Window {
    /// RFC 6675's pipe: SACKed data (low-priority deliveries included) is out of the window,
    /// and any ACK moves the cumulative point (fctlab's default).
    #[default]
    Pipe,
    /// The authors' ns-3.16 accounting: a new segment `i` leaves only if
    /// `(i + 1 - una0) x MSS <= cwnd`, `una0` being the cumulative ACK point as priority-0
    /// ACKs alone report it.
    Span,
}

/// RC3 settings: the sizes of the low-priority buckets, from the tail of each write, and the
/// primary loop's window accounting.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rc3Config {
    /// Bucket sizes in segments; segments beyond their sum go one level lower still.
    buckets: [u32; MAX_LEVELS - 1],
    n: u8,
    /// How the primary loop counts its window.
    pub window: Rc3Window,
}

impl Default for Rc3Config {
    /// The paper's buckets: 40 / 400 / 4000 / rest as P1..P4.
    fn default() -> Self {
        Rc3Config::new(&[40, 400, 4000]).expect("three buckets fit")
    }
}

impl Rc3Config {
    /// Buckets (in segments) from the tail: `[]` sends everything at P1; `[40, 400, 4000]`
    /// uses P1..P4. At most six buckets; each must be >= 1.
    pub fn new(buckets: &[u32]) -> Option<Rc3Config> {
        if buckets.len() > MAX_LEVELS - 1 || buckets.contains(&0) {
            return None;
        }
        let mut b = [0; MAX_LEVELS - 1];
        b[..buckets.len()].copy_from_slice(buckets);
        Some(Rc3Config { buckets: b, n: buckets.len() as u8, window: Rc3Window::Pipe })
    }

    /// Low-priority level (1-based) of the segment `k` segments from the tail (`k` = 1 for
    /// the last segment): the first bucket whose cumulative size reaches `k`.
    pub fn level(&self, k: u64) -> u8 {
        let mut edge = 0u64;
        for (i, &b) in self.buckets[..self.n as usize].iter().enumerate() {
            edge += b as u64;
            if k <= edge {
                return i as u8 + 1;
            }
        }
        self.n + 1
    }
}

/// The RLP loop of one connection: segment ranges written but not yet sent by it.
#[derive(Clone, Debug)]
pub struct RlpLoop {
    cfg: Rc3Config,
    /// (first segment, one past the last) of each write not yet processed.
    pending: Vec<(u32, u32)>,
    /// (lowest, one past the highest) segment of each pass, sent from the top down.
    passes: Vec<(u32, u32)>,
    /// Segments that arrived through their low-priority copy only (the primary loop never
    /// sent them): evidence about the fate of the copies this loop sent before them.
    delivered: BTreeSet<u32>,
    /// Packets this loop sent.
    pub sent: u64,
}

impl RlpLoop {
    /// A loop with nothing written yet.
    pub fn new(cfg: Rc3Config) -> RlpLoop {
        RlpLoop { cfg, pending: Vec::new(), passes: Vec::new(), delivered: BTreeSet::new(), sent: 0 }
    }

    /// The application wrote segments `[first, end)`.
    pub fn on_write(&mut self, first: u32, end: u32) {
        if end > first {
            self.pending.push((first, end));
        }
    }

    /// Sends every pending write's tail backwards until it meets data the primary loop has
    /// sent (or data already SACKed); each segment once, through `send(conn, segment, prio)`
    /// (true if a packet left), at priorities counted from the primary loop's band `base`.
    pub fn run<F>(&mut self, conn: &mut Connection, base: u8, mut send: F)
    where
        F: FnMut(&mut Connection, u32, u8) -> bool,
    {
        for (first, end) in std::mem::take(&mut self.pending) {
            let low = first.max(conn.high_data());
            let mut i = end;
            while i > low {
                i -= 1;
                let level = self.cfg.level((end - i) as u64);
                if send(conn, i, base.saturating_add(level)) {
                    self.sent += 1;
                }
            }
            if end > low {
                self.passes.push((low, end));
            }
        }
    }

    /// Segment `i`, sent only by this loop, has arrived.
    pub fn note_delivered(&mut self, i: u32) {
        self.delivered.insert(i);
    }

    /// True if this loop's copy of segment `i` is known lost: a copy it sent later in the same
    /// pass (a lower segment: passes go from the top down) has arrived.
    pub fn copy_lost(&self, i: u32) -> bool {
        match self.passes.iter().find(|&&(lo, hi)| lo <= i && i < hi) {
            Some(&(lo, _)) => self.delivered.range(lo..i).next().is_some(),
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_buckets_are_40_400_4000_then_the_rest() {
        let c = Rc3Config::default();
        assert_eq!((c.level(1), c.level(40)), (1, 1));
        assert_eq!((c.level(41), c.level(440)), (2, 2));
        assert_eq!((c.level(441), c.level(4440)), (3, 3));
        assert_eq!((c.level(4441), c.level(1_000_000)), (4, 4));
    }

    #[test]
    fn one_level_and_four_levels() {
        let one = Rc3Config::new(&[]).unwrap();
        assert_eq!((one.level(1), one.level(100_000)), (1, 1));
        let four = Rc3Config::new(&[10, 100, 1000, 10000]).unwrap();
        assert_eq!((four.level(10), four.level(11), four.level(110), four.level(111)), (1, 2, 2, 3));
        assert_eq!((four.level(11_110), four.level(11_111)), (4, 5));
    }

    #[test]
    fn bad_buckets_are_refused() {
        assert!(Rc3Config::new(&[0]).is_none());
        assert!(Rc3Config::new(&[1; 7]).is_none());
    }
}
