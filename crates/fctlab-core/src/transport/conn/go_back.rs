//! Go-back-N (RoCEv2's loss recovery, and the other choice beside SACK's selective repeat):
//! which of the two a connection runs, and the sender's step back to the first unacknowledged
//! segment.
//!
//! In go-back-N the receiver keeps only in-order data and answers a hole with a NACK carrying
//! its cumulative ACK (`transport/tcp/receiver/go_back_n.rs`); the sender, on a NACK or a
//! retransmission timeout, forgets everything it had sent beyond the cumulative ACK and sends
//! again from there, in order, at its loop's pace (HighData back to the first unacknowledged
//! segment: RoCEv2's snd_nxt = snd_una). No SACK block is sent or read, and nothing is ever
//! marked lost: the scoreboard only counts what is in flight.

use super::Connection;

/// How a connection repairs losses.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum LossRecovery {
    /// Selective repeat: SACK blocks (RFC 2018), IsLost and NextSeg (RFC 6675); only lost
    /// segments are resent. TCP's, and a queue pair's on request.
    #[default]
    Selective,
    /// Go-back-N: out-of-order data discarded and NACKed, everything from the hole resent. A
    /// queue pair's by default.
    GoBackN,
}

impl LossRecovery {
    /// The scenario's name of this recovery (`transport.recovery`).
    pub fn name(self) -> &'static str {
        match self {
            LossRecovery::Selective => "selective",
            LossRecovery::GoBackN => "go_back_n",
        }
    }
}

impl Connection {
    /// Go-back-N's step back: every segment sent beyond the cumulative ACK is forgotten (out
    /// of the scoreboard and of `pipe`), and HighData returns to the first unacknowledged
    /// segment, so the loop's next packets resend from there in order; they count as
    /// retransmissions up to the highest segment sent so far.
    pub fn go_back(&mut self) {
        let una = self.board.una();
        self.resend_below = self.resend_below.max(self.nxt);
        self.board.forget_outstanding();
        self.nxt = una;
        self.rxt_scan = una;
    }

    /// One past the highest segment the primary loop has sent, before or after a step back.
    #[inline]
    pub fn sent_high(&self) -> u32 {
        self.resend_below.max(self.nxt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::CongestionHeader;
    use crate::transport::app::{App, AppState};
    use crate::transport::conn::rtt::RttEstimator;
    use crate::transport::FlowAddr;
    use crate::units::Time;

    #[test]
    fn a_step_back_resends_from_the_first_unacknowledged_segment_counted_as_retransmissions() {
        let addr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };
        let app = AppState::new(App::Bulk { size: 10_000 }, Time::ZERO);
        let rtt = RttEstimator::new(Time::from_secs(1), Time::from_ms(200), Time::from_secs(60));
        let mut c = Connection::new(addr, app, 1000, 40, rtt);
        c.write_app(Time::ZERO);
        let mut out = Vec::new();
        let none = |_| CongestionHeader::None;
        for i in 0..6 {
            c.send_new(Time::ZERO, i, false, 0, none, &mut out);
        }
        c.take_cumulative(2, 2000, &mut ());
        assert_eq!(c.scoreboard().pipe(), 4);
        c.go_back();
        assert_eq!((c.high_data(), c.sent_high(), c.scoreboard().pipe()), (2, 6, 0));
        assert_eq!(c.next_lost(), None, "nothing is marked lost: the segments are simply sent again");
        for i in 2..8 {
            assert_eq!(c.next_new(), Some(i));
            c.send_new(Time::ZERO, i, false, 0, none, &mut out);
        }
        let seqs: Vec<u64> = out[6..].iter().map(|p| p.seq / 1000).collect();
        assert_eq!(seqs, [2, 3, 4, 5, 6, 7]);
        assert_eq!((c.stats().data_pkts, c.stats().retx_pkts), (12, 4), "2..6 again, 6 and 7 new");
        assert_eq!(c.scoreboard().pipe(), 6);
        assert_eq!(c.scoreboard().pipe(), c.scoreboard().pipe_from_scratch());
    }
}
