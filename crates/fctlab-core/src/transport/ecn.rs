//! ECN in TCP (RFC 3168 sec. 6.1): which packets a connection sends ECN-capable, how the
//! receiver echoes Congestion Experienced, and the sender's rule of one reduction per window.
//!
//! | mode | packets ECN-capable | receiver's ECE | sender's reduction |
//! |---|---|---|---|
//! | [`EcnMode::Off`] | none | never | none |
//! | [`EcnMode::Classic`] (RFC 3168) | new data (not SYNs, ACKs or retransmissions, sec. 6.1.1, 6.1.5) | on every ACK from a CE packet until a packet with CWR (sec. 6.1.3) | the controller's [`CongestionControl::on_ecn_echo`], by default as for a loss |
//! | [`EcnMode::Exact`] (RFC 8257) | all, ACKs and SYNs included (Linux) | exactly the CE of the packets the ACK covers: the registry's `EcnEcho` the mode holds, the receiver running its own copy (DCTCP's, `protocol/dctcp/echo.rs`) | the controller's (DCTCP's cwnd (1 - alpha/2)) |
//!
//! In either mode the sender reduces at most once per window of data: after a reduction (or
//! a loss recovery) it ignores ECE until an ACK covers data sent after it, and it sets CWR on
//! the first new data packet after the reduction (sec. 6.1.2). The ACK of exactly what was
//! outstanding at the reduction still belongs to the reduced window (its last packet, sent
//! before the reduction, was marked in the same congestion): ns-2's `seqno > recover_`, Linux's
//! CWR state left only once snd_una is past high_seq. Taking that ACK's ECE as a new signal
//! cuts twice per sawtooth, and DCTCP's alpha falls to about sqrt(1 / W*) instead of sec. 3.3's
//! sqrt(2 / W*). Sender and
//! receiver are both configured from the scenario, so there is no negotiation on the SYN.
//!
//! [`CongestionControl::on_ecn_echo`]: crate::transport::cc::CongestionControl::on_ecn_echo

use crate::net::packet::Ecn;
use crate::protocol::echo::EcnEcho;
use crate::units::Time;

/// Whether and how a connection uses ECN.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum EcnMode {
    /// No ECN: every packet Not-ECT.
    #[default]
    Off,
    /// RFC 3168.
    Classic,
    /// ECN as DCTCP uses it (RFC 8257): every packet ECN-capable, and the receiver's ECE the
    /// exact echo it names (a receiver runs its own copy's state machine).
    Exact(EcnEcho),
}

/// The sender's half.
#[derive(Copy, Clone, Debug, Default)]
pub struct EcnSender {
    mode: EcnMode,
    /// CWR goes on the next new data packet.
    cwr_pending: bool,
    /// No reduction until the cumulative ACK reaches this byte: one past the highest byte sent
    /// at the last reduction (0: none yet).
    hold_until: u64,
    /// Reductions made for ECE.
    pub reductions: u64,
}

impl EcnSender {
    /// A sender in `mode`.
    pub fn new(mode: EcnMode) -> EcnSender {
        EcnSender { mode, ..EcnSender::default() }
    }

    /// True unless ECN is off.
    #[inline]
    pub fn is_on(&self) -> bool {
        !matches!(self.mode, EcnMode::Off)
    }

    /// The ECN bits of a data packet; `retx` if it is a retransmission. Takes a pending CWR.
    #[inline]
    pub fn data(&mut self, retx: bool) -> Ecn {
        match self.mode {
            EcnMode::Off => Ecn::NOT_ECT,
            EcnMode::Classic if retx => Ecn::NOT_ECT,
            EcnMode::Classic | EcnMode::Exact(_) => {
                let cwr = !retx && std::mem::take(&mut self.cwr_pending);
                Ecn::ECT0.with_cwr(cwr)
            }
        }
    }

    /// The ECN bits of a SYN (or of a probe without data).
    pub fn control(&self) -> Ecn {
        match self.mode {
            EcnMode::Exact(_) => Ecn::ECT0,
            EcnMode::Off | EcnMode::Classic => Ecn::NOT_ECT,
        }
    }

    /// An ACK with ECE arrived, the cumulative ACK at `una`: true if the window is to be
    /// reduced now (the ACK covers data sent after the last reduction and no loss recovery
    /// runs).
    #[inline]
    pub fn may_reduce(&self, una: u64, recovering: bool) -> bool {
        !recovering && una >= self.hold_until
    }

    /// The window was reduced with `high` the highest byte sent: hold further reductions
    /// until an ACK goes past it; `for_ece` counts it as an ECN reduction and sets CWR.
    pub fn reduced(&mut self, high: u64, for_ece: bool) {
        self.hold_until = self.hold_until.max(high + 1);
        if for_ece && self.is_on() {
            self.reductions += 1;
            self.cwr_pending = true;
        }
    }
}

/// The receiver's half: what ECE its ACKs carry.
#[derive(Copy, Clone, Debug, Default)]
pub struct EcnReceiver {
    mode: EcnMode,
    /// Classic: ECE latched by a CE packet until a CWR arrives.
    latched: bool,
    /// Data packets received with CE.
    pub ce_pkts: u64,
}

impl EcnReceiver {
    /// A receiver in `mode`.
    pub fn new(mode: EcnMode) -> EcnReceiver {
        EcnReceiver { mode, ..EcnReceiver::default() }
    }

    /// True unless ECN is off (then CE never arrives: packets are not ECN-capable).
    #[inline]
    pub fn is_on(&self) -> bool {
        !matches!(self.mode, EcnMode::Off)
    }

    /// A data packet with bits `ecn` arrived at `now` while `pending` packets wait for a
    /// delayed ACK. Returns true if that ACK must leave first, with the ECE
    /// [`EcnReceiver::ack`] gave before this call (exact echo only).
    #[inline]
    pub fn on_data(&mut self, ecn: Ecn, pending: u32, now: Time) -> bool {
        if ecn.is_ce() {
            self.ce_pkts += 1;
        }
        match self.mode {
            EcnMode::Off => false,
            EcnMode::Classic => {
                // Sec. 6.1.3: CWR ends the echo, a CE on the same packet starts it again.
                if ecn.cwr() {
                    self.latched = false;
                }
                self.latched |= ecn.is_ce();
                false
            }
            EcnMode::Exact(ref mut echo) => echo.on_data(ecn.is_ce(), pending, now),
        }
    }

    /// An ACK with the bits [`EcnReceiver::ack`] gave has left.
    #[inline]
    pub fn ack_sent(&mut self) {
        if let EcnMode::Exact(ref mut echo) = self.mode {
            echo.on_ack_sent();
        }
    }

    /// The ECN bits of the next ACK (or SYN-ACK).
    #[inline]
    pub fn ack(&self) -> Ecn {
        match self.mode {
            EcnMode::Off => Ecn::NOT_ECT,
            EcnMode::Classic => Ecn::NOT_ECT.with_ece(self.latched),
            EcnMode::Exact(echo) => Ecn::ECT0.with_ece(echo.ece()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::dctcp::DctcpEcho;

    /// DCTCP's exact echo, the one the registry has.
    const EXACT: EcnMode = EcnMode::Exact(EcnEcho::Dctcp(DctcpEcho::INITIAL));

    #[test]
    fn classic_marks_only_new_data_and_sets_cwr_once_after_a_reduction() {
        let mut s = EcnSender::new(EcnMode::Classic);
        assert_eq!(s.data(false), Ecn::ECT0);
        assert_eq!(s.data(true), Ecn::NOT_ECT, "sec. 6.1.5: retransmissions are not ECN-capable");
        assert_eq!(s.control(), Ecn::NOT_ECT, "nor SYNs");
        assert!(s.may_reduce(0, false));
        s.reduced(10_000, true);
        assert!(!s.may_reduce(9_999, false), "once per window");
        assert!(s.may_reduce(11_000, false));
        assert!(!s.may_reduce(11_000, true), "not during a loss recovery");
        assert_eq!(s.data(true), Ecn::NOT_ECT, "CWR waits for new data");
        assert!(s.data(false).cwr());
        assert!(!s.data(false).cwr(), "CWR once");
        assert_eq!(s.reductions, 1);
    }

    /// Sec. 6.1.2 as ns-2 (`seqno > recover_`) and Linux (CWR ends once snd_una is past
    /// high_seq) apply it: bytes 0..10,000 were sent when the window was reduced, so the ACK
    /// of exactly those bytes still answers for the reduced window, the last packet sent before
    /// the reduction with it; its ECE is not a new signal. Only an ACK that covers data sent
    /// after the reduction may reduce again.
    #[test]
    fn the_ack_of_the_last_packet_before_a_reduction_does_not_reduce_again() {
        let mut s = EcnSender::new(EXACT);
        s.reduced(10_000, true);
        assert!(!s.may_reduce(10_000, false), "the reduced window's own last ACK");
        assert!(s.may_reduce(10_001, false), "an ACK of data sent after the reduction");
        // A loss recovery holds the same way (the window it reduced is everything sent before).
        s.reduced(20_000, false);
        assert!(!s.may_reduce(20_000, false));
        assert!(s.may_reduce(21_460, false));
    }

    #[test]
    fn dctcp_sends_everything_ecn_capable() {
        let mut s = EcnSender::new(EXACT);
        assert!(s.data(true).is_ect() && s.control().is_ect());
        assert!(!EcnSender::new(EcnMode::Off).data(false).is_ect());
    }

    /// Sec. 6.1.3: ECE from the first CE until a CWR; a packet with both CWR and CE keeps it.
    #[test]
    fn the_classic_receiver_latches_ece_until_cwr() {
        let mut r = EcnReceiver::new(EcnMode::Classic);
        r.on_data(Ecn::ECT0, 0, Time::ZERO);
        assert!(!r.ack().ece());
        r.on_data(Ecn::CE, 0, Time::ZERO);
        r.on_data(Ecn::ECT0, 0, Time::ZERO);
        assert!(r.ack().ece(), "latched");
        r.on_data(Ecn::ECT0.with_cwr(true), 0, Time::ZERO);
        assert!(!r.ack().ece());
        let mut ce_cwr = Ecn::ECT0.with_cwr(true);
        ce_cwr.mark_ce();
        r.on_data(ce_cwr, 0, Time::ZERO);
        assert!(r.ack().ece());
        assert_eq!(r.ce_pkts, 2);
        assert!(!r.ack().is_ect(), "classic ACKs are not ECN-capable");
    }

    #[test]
    fn the_dctcp_receiver_echoes_each_packets_ce() {
        let mut r = EcnReceiver::new(EXACT);
        assert!(!r.on_data(Ecn::CE, 0, Time::ZERO));
        assert!(r.ack().ece() && r.ack().is_ect());
        assert!(!r.on_data(Ecn::ECT0, 0, Time::ZERO));
        assert!(!r.ack().ece(), "no latch: the next packet's CE");
        assert!(r.on_data(Ecn::CE, 2, Time::ZERO), "a delayed ACK is flushed on a change");
    }
}
