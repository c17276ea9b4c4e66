//! DCTCP's receiver (sec. 3.1 "ECN-Echo at the Receiver", Fig. 10; RFC 8257 sec. 3.2): ECE
//! on an ACK says exactly whether the packets it acknowledges were marked. Without delayed
//! ACKs every ACK echoes its own packet's CE. With them the receiver keeps one bit, the CE
//! of the last packet, and when an arriving packet's CE differs from it while an ACK is held
//! back, it first sends that ACK at once, for the packets before, with the old bit: a
//! delayed ACK never covers marked and unmarked packets together.

use crate::transport::exact_echo::ExactEcho;
use crate::units::Time;

/// The receiver's echo state.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DctcpEcho {
    /// CE of the last data packet received (RFC 8257 `DCTCP.CE`).
    ce: bool,
}

impl DctcpEcho {
    /// Before any data packet: no CE seen.
    pub const INITIAL: DctcpEcho = DctcpEcho { ce: false };

    /// A data packet arrived with `ce`, while `pending` packets wait for a delayed ACK.
    /// Returns true if that ACK must leave now, before this packet is taken, with ECE = the
    /// state before ([`DctcpEcho::ece`] read before this call).
    #[inline]
    pub fn on_data(&mut self, ce: bool, pending: u32) -> bool {
        let flush = ce != self.ce && pending > 0;
        self.ce = ce;
        flush
    }

    /// ECE on the next ACK.
    #[inline]
    pub fn ece(&self) -> bool {
        self.ce
    }
}

impl ExactEcho for DctcpEcho {
    #[inline]
    fn on_data(&mut self, ce: bool, pending: u32, _now: Time) -> bool {
        DctcpEcho::on_data(self, ce, pending)
    }
    #[inline]
    fn ece(&self) -> bool {
        DctcpEcho::ece(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fig. 10: the two states and their transitions; an ACK is forced out only when the
    /// state changes with an ACK held back.
    #[test]
    fn a_change_of_ce_with_an_ack_held_back_sends_it_first() {
        let mut e = DctcpEcho::default();
        assert!(!e.on_data(false, 1), "same state: the delayed ACK waits");
        assert!(!e.on_data(true, 0), "nothing held back: nothing to flush");
        assert!(e.ece());
        assert!(!e.on_data(true, 1));
        let before = e.ece();
        assert!(e.on_data(false, 1), "CE 1 -> 0 with one packet held back");
        assert!(before && !e.ece(), "the flushed ACK says ECE, the next ones do not");
    }
}
