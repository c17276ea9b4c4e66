//! RC3's side of the TCP sender: the plug-in ([`Rc3Hook`]) the window loop calls at its hook
//! points (`transport/tcp/hook.rs`). It owns the RLP loop ([`RlpLoop`]) and the authors'
//! window accounting ([`Rc3Window::Span`]), and gives the window loop RC3's rules:
//!
//! - a low-priority ACK updates only the scoreboard and the cumulative point: no window
//!   change, no duplicate-ACK count, no RTT sample, nothing sent (RC3 sec. 4.2.4);
//! - data the low-priority copies delivered is not sent by the primary loop (the connection's
//!   "ACK bump", RC3 sec. 4.1.2), and is no loss evidence (the scoreboard's `sacked_primary`);
//! - the primary loop's sending of a segment whose low-priority copy is known lost is a repair,
//!   counted as a retransmission ([`RlpLoop::copy_lost`]);
//! - with [`Rc3Window::Span`], new data waits for cwnd counted from the priority-0 cumulative
//!   ACK point, and the timer stays armed while that point lags behind HighData.

use super::host::{Rc3Config, Rc3Window, RlpLoop};
use crate::net::packet::Packet;
use crate::transport::conn::scoreboard::{Scoreboard, LP_SENT};
use crate::transport::conn::{Connection, LowPriorityCopies};
use crate::transport::tcp::hook::WindowHook;
use crate::units::Time;

/// RC3's state beside one TCP connection's window loop.
#[derive(Clone, Debug)]
pub struct Rc3Hook {
    rlp: RlpLoop,
    window: Rc3Window,
    /// The primary loop's band: ACKs in any other band are the low-priority loop's.
    prio: u8,
    /// With [`Rc3Window::Span`]: the cumulative ACK point as priority-0 ACKs report it, the
    /// left edge of the authors' window.
    una0: u32,
}

impl Rc3Hook {
    /// RC3 with `cfg` beside a window loop sending at band `prio`.
    pub fn new(cfg: Rc3Config, prio: u8) -> Rc3Hook {
        Rc3Hook { rlp: RlpLoop::new(cfg), window: cfg.window, prio, una0: 0 }
    }

    fn span(&self) -> bool {
        self.window == Rc3Window::Span
    }
}

impl LowPriorityCopies for Rc3Hook {
    #[inline]
    fn sends_copies(&self) -> bool {
        true
    }

    #[inline]
    fn delivered(&mut self, i: u32) {
        self.rlp.note_delivered(i);
    }
}

impl WindowHook for Rc3Hook {
    fn on_write(&mut self, first: u32, end: u32) {
        self.rlp.on_write(first, end);
    }

    fn after_send<F>(&mut self, conn: &mut Connection, send: F)
    where
        F: FnMut(&mut Connection, u32, u8) -> bool,
    {
        self.rlp.run(conn, self.prio, send);
    }

    /// [`Rc3Window::Span`]: true if new segment `i` lies beyond cwnd counted from the
    /// priority-0 cumulative ACK point, data already SACKed or delivered by low-priority
    /// copies included.
    #[inline]
    fn holds_back(&self, i: u32, cwnd: u64, mss: u64) -> bool {
        self.span() && (i + 1).saturating_sub(self.una0) as u64 * mss > cwnd
    }

    #[inline]
    fn is_repair(&self, board: &Scoreboard, i: u32) -> bool {
        board.get(i) & LP_SENT != 0 && self.rlp.copy_lost(i)
    }

    /// A low-priority ACK: the scoreboard and the cumulative point, nothing else.
    fn takes_ack(&mut self, conn: &mut Connection, now: Time, pkt: &Packet) -> bool {
        if pkt.prio == self.prio {
            return false;
        }
        conn.take_sack(pkt, self);
        let ack_seg = conn.segments().segs_below(pkt.ack);
        if ack_seg > conn.scoreboard().una() {
            conn.take_cumulative(ack_seg, pkt.ack, self);
        }
        if conn.rto_deadline().is_none() && self.keeps_timer(conn) {
            conn.arm_rto(now);
        }
        conn.check_done();
        true
    }

    #[inline]
    fn on_ack(&mut self, ack_seg: u32) {
        self.una0 = self.una0.max(ack_seg);
    }

    /// The authors' code retransmits from its stale left edge, whose priority-0 ACK reports
    /// the true cumulative point; fctlab takes that point at once.
    #[inline]
    fn on_timeout(&mut self, una: u32) {
        self.una0 = self.una0.max(una);
    }

    /// [`Rc3Window::Span`]: data is left to send while the window's left edge lags behind
    /// HighData, so the timer stays armed (as ns-3's does while
    /// `HeadSequence < NextTxSequence`), even with nothing of the primary loop's in flight.
    #[inline]
    fn keeps_timer(&self, conn: &Connection) -> bool {
        self.span() && self.una0 < conn.high_data() && !conn.all_acked()
    }
}

#[cfg(test)]
mod tests {
    //! RC3 seen through the TCP sender it plugs into.
    use crate::net::packet::Packet;
    use crate::protocol::rc3::Rc3Config;
    use crate::protocol::HookConfig;
    use crate::transport::tcp::hook::WindowHook;
    use crate::transport::tcp::sender::tests::{ack, established, feed, MSS};
    use crate::transport::tcp::{TcpConfig, TcpSender};
    use crate::transport::Endpoint;
    use crate::units::Time;

    /// An established RC3 sender of `segments` segments, with what it sent after the SYN-ACK.
    fn rc3_sender(segments: u64) -> (TcpSender, Vec<Packet>) {
        let cfg = TcpConfig {
            mss: MSS as u32,
            iw: 4,
            hook: Some(HookConfig::Rc3(Rc3Config::default())),
            ..TcpConfig::default()
        };
        established(cfg, segments)
    }

    #[test]
    fn rc3_sends_the_first_window_at_p0_and_the_rest_backwards_at_low_priority() {
        let (_, out) = rc3_sender(100);
        let p0: Vec<u64> = out.iter().filter(|p| p.prio == 0).map(|p| p.seq / MSS).collect();
        let lp: Vec<(u64, u8)> = out.iter().filter(|p| p.prio > 0).map(|p| (p.seq / MSS, p.prio)).collect();
        assert_eq!(p0, vec![0, 1, 2, 3]);
        assert_eq!(lp.len(), 96);
        assert_eq!(lp[0], (99, 1), "the last segment leaves first, at P1");
        assert_eq!(lp[39], (60, 1));
        assert_eq!(lp[40], (59, 2), "the 41st from the tail is P2");
        assert_eq!(lp[95], (4, 2));
    }

    #[test]
    fn low_priority_acks_never_change_cwnd_nor_trigger_recovery() {
        let (mut s, _) = rc3_sender(100);
        let cwnd = s.cwnd();
        let mut out = Vec::new();
        // Low-priority ACKs: holes at 4..50 and 60..62 below SACKed data, cumulative ACK at 0.
        for top in 70..100 {
            let a = ack(0, &[(top, 100), (50, 60)], 1);
            s.on_packet(Time::from_ms(20), &a, &mut out);
        }
        assert_eq!(s.cwnd(), cwnd);
        assert!(out.is_empty(), "no new traffic on low-priority ACKs");
        assert_eq!(s.stats().fast_recoveries, 0);
        assert_eq!(s.scoreboard().pipe(), 4, "the first window is still in flight");
    }

    #[test]
    fn ack_bump_moves_high_data_past_what_low_priority_delivered() {
        let (mut s, _) = rc3_sender(100);
        let mut out = Vec::new();
        // Low-priority data 4..60 arrived; the P0 ACK of the first window acknowledges 60.
        s.on_packet(Time::from_ms(20), &ack(60, &[(70, 100)], 0), &mut out);
        assert!(s.high_data() >= 60, "HighData bumped to the cumulative ACK");
        // The primary loop now sends only the hole 60..70, skipping SACKed data.
        let sent: Vec<u64> = out.iter().map(|p| p.seq / MSS).collect();
        assert!(sent.iter().all(|&k| (60..70).contains(&k)), "{sent:?}");
        assert!(!sent.is_empty());
        // One ACK grows the window by one segment, however much it acknowledges.
        assert_eq!(s.cwnd(), 5 * MSS);
    }

    /// RC3: SACKs of low-priority data far above the primary loop's window are no rule-(3)
    /// evidence against the primary segments still in flight below them.
    #[test]
    fn low_priority_sacks_do_not_count_as_rule_3_evidence() {
        let cfg = TcpConfig {
            mss: MSS as u32,
            iw: 8,
            rwnd: 8 * MSS,
            hook: Some(HookConfig::Rc3(Rc3Config::default())),
            ..TcpConfig::default()
        };
        let (mut s, out) = established(cfg, 100);
        let p0: Vec<u64> = out.iter().filter(|p| p.prio == 0).map(|p| p.seq / MSS).collect();
        assert_eq!(p0, (0..8).collect::<Vec<_>>());
        // The low-priority copies of 10..100 arrived.
        feed(&mut s, &ack(0, &[(10, 100)], 1));
        // Primary SACKs of 1..4: fast retransmit of 0, cwnd 4 segments.
        feed(&mut s, &ack(0, &[(1, 2), (10, 100)], 0));
        feed(&mut s, &ack(0, &[(1, 3), (10, 100)], 0));
        assert_eq!(feed(&mut s, &ack(0, &[(1, 4), (10, 100)], 0)), vec![0]);
        assert!(feed(&mut s, &ack(0, &[(1, 5), (10, 100)], 0)).is_empty());
        // pipe 3 (0's copy, 6 and 7) < cwnd 4; the receiver's window holds no new data. 6 and
        // 7 lie below SACKed low-priority data but above the primary loop's highest SACK (5):
        // not rule (3)'s, so the one retransmission is the rescue of the highest, 7.
        assert_eq!(feed(&mut s, &ack(0, &[(1, 6), (10, 100)], 0)), vec![7]);
        assert_eq!((s.scoreboard().sack_high(), s.scoreboard().sack_high_primary()), (100, 6));
        assert!(feed(&mut s, &ack(0, &[(1, 7), (10, 100)], 0)).is_empty());
        assert_eq!(s.stats().retx_pkts, 2);
        assert_eq!(s.scoreboard().pipe(), s.scoreboard().pipe_from_scratch());
    }

    /// RC3 with the authors' window ([`Rc3Window::Span`]): low-priority copies delivered all
    /// but segments 20 and 50. The RFC 6675 pipe repairs both holes at once; the authors'
    /// accounting counts the delivered data between them in the window, so 50 waits for the
    /// priority-0 ACK that covers 20.
    #[test]
    fn span_window_repairs_far_apart_holes_one_per_priority0_ack() {
        use crate::protocol::rc3::{Rc3Config, Rc3Window};
        let holes = [(20, [(21, 50), (51, 100)])];
        let mut sent = Vec::new();
        for window in [Rc3Window::Pipe, Rc3Window::Span] {
            let mut rc3 = Rc3Config::default();
            rc3.window = window;
            let cfg = TcpConfig { mss: MSS as u32, iw: 4, hook: Some(HookConfig::Rc3(rc3)), ..TcpConfig::default() };
            let (mut s, _) = established(cfg, 100);
            let (cum, sack) = holes[0];
            assert!(feed(&mut s, &ack(cum, &sack, 1)).is_empty(), "low-priority ACKs send nothing");
            sent.push(feed(&mut s, &ack(cum, &sack, 0)));
            if window == Rc3Window::Span {
                assert!(s.hook().keeps_timer(s.connection()), "the retransmission timer stays armed");
                assert_eq!(feed(&mut s, &ack(50, &[(51, 100)], 0)), vec![50]);
                feed(&mut s, &ack(100, &[], 0));
                assert!(s.is_done());
            }
        }
        assert_eq!(sent, vec![vec![20, 50], vec![20]]);
    }
}
