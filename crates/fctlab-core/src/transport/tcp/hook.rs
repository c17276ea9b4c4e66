//! The window loop's one plug-in point: a second sending loop that runs beside the window over
//! the same connection. The sender holds the registry's closed list of such loops
//! (`crate::protocol::Hook`, matched, no virtual call), RC3's low-priority loop
//! (`protocol/rc3/hook.rs`) its one member; window-only TCP has none (`Option::None`, every
//! hook a no-op).
//!
//! The window loop calls the hook at fixed points and never asks which protocol it is:
//!
//! | when | hook | what RC3 does there |
//! |---|---|---|
//! | the application writes | [`WindowHook::on_write`] | queues the write for its loop |
//! | after the window's sending (SYN-ACK, a write) | [`WindowHook::after_send`] | sends the write's tail backwards at low priority |
//! | before sending new segment `i` | [`WindowHook::holds_back`] | the authors' window counted from the priority-0 ACK point |
//! | new segment `i` leaves | [`WindowHook::is_repair`] | its low-priority copy is known lost: count a retransmission |
//! | any ACK, first | [`WindowHook::takes_ack`] | a low-priority ACK: scoreboard and cumulative point only |
//! | a primary ACK, a timeout | [`WindowHook::on_ack`], [`WindowHook::on_timeout`] | moves its window's left edge |
//! | arming the timer after an ACK | [`WindowHook::keeps_timer`] | keeps it while its window's left edge lags |
//!
//! It also hears, through the connection's ACK intake ([`LowPriorityCopies`]), which segments
//! arrived through its copies alone.

use crate::net::packet::Packet;
use crate::transport::conn::scoreboard::Scoreboard;
use crate::transport::conn::{Connection, LowPriorityCopies};
use crate::units::Time;

/// A sending loop attached to the window loop (see the module docs).
pub trait WindowHook: LowPriorityCopies {
    /// The application wrote segments `[first, end)`.
    fn on_write(&mut self, first: u32, end: u32);

    /// The window loop has sent what it may after the handshake or a write; the hook sends
    /// its own packets now, each through `send(conn, segment, prio)`, which returns true if
    /// a packet left.
    fn after_send<F>(&mut self, conn: &mut Connection, send: F)
    where
        F: FnMut(&mut Connection, u32, u8) -> bool;

    /// True if new segment `i` must wait although `pipe` leaves room in `cwnd` bytes (of
    /// `mss`-byte segments).
    fn holds_back(&self, i: u32, cwnd: u64, mss: u64) -> bool;

    /// True if sending new segment `i` repairs a copy the hook sent (counted as a
    /// retransmission).
    fn is_repair(&self, board: &Scoreboard, i: u32) -> bool;

    /// Takes the ACK `pkt` if it is the hook's own (then the window loop ignores it); returns
    /// true if it did.
    fn takes_ack(&mut self, conn: &mut Connection, now: Time, pkt: &Packet) -> bool;

    /// A primary ACK with the cumulative point at segment `ack_seg`.
    fn on_ack(&mut self, ack_seg: u32);

    /// A retransmission timeout, with the cumulative point at segment `una`.
    fn on_timeout(&mut self, una: u32);

    /// True if the timer must run even with nothing of the window loop's outstanding.
    fn keeps_timer(&self, conn: &Connection) -> bool;
}

/// No hook: window-only TCP.
impl<H: WindowHook> WindowHook for Option<H> {
    #[inline]
    fn on_write(&mut self, first: u32, end: u32) {
        if let Some(h) = self {
            h.on_write(first, end);
        }
    }

    #[inline]
    fn after_send<F>(&mut self, conn: &mut Connection, send: F)
    where
        F: FnMut(&mut Connection, u32, u8) -> bool,
    {
        if let Some(h) = self {
            h.after_send(conn, send);
        }
    }

    #[inline]
    fn holds_back(&self, i: u32, cwnd: u64, mss: u64) -> bool {
        self.as_ref().is_some_and(|h| h.holds_back(i, cwnd, mss))
    }

    #[inline]
    fn is_repair(&self, board: &Scoreboard, i: u32) -> bool {
        self.as_ref().is_some_and(|h| h.is_repair(board, i))
    }

    #[inline]
    fn takes_ack(&mut self, conn: &mut Connection, now: Time, pkt: &Packet) -> bool {
        match self {
            Some(h) => h.takes_ack(conn, now, pkt),
            None => false,
        }
    }

    #[inline]
    fn on_ack(&mut self, ack_seg: u32) {
        if let Some(h) = self {
            h.on_ack(ack_seg);
        }
    }

    #[inline]
    fn on_timeout(&mut self, una: u32) {
        if let Some(h) = self {
            h.on_timeout(una);
        }
    }

    #[inline]
    fn keeps_timer(&self, conn: &Connection) -> bool {
        self.as_ref().is_some_and(|h| h.keeps_timer(conn))
    }
}
