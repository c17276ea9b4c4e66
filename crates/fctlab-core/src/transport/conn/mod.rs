//! The connection core that every sender is built on: the part of a sending endpoint that does
//! not depend on how the sender decides *when* to send.
//!
//! Two send loops plug into it: the TCP sender's window loop ([`crate::transport::tcp`]:
//! cwnd, NextSeg, fast recovery) and the paced sender's clock ([`crate::transport::paced`]:
//! one packet per `wire bits / rate`). RC3's low-priority loop plugs into the window loop
//! (`protocol/rc3/hook.rs`) and reaches the core through the same methods.
//!
//! | the core ([`Connection`]) owns | file |
//! |---|---|
//! | flow address, the application, its byte stream cut into [`segments::Segments`] | `mod.rs`, `segments.rs` |
//! | the handshake: Closed -> SynSent -> Established -> Done ([`State`]), SYN retries | `mod.rs` |
//! | the per-segment SACK scoreboard and `pipe` (RFC 6675 sec. 3-4) | `scoreboard.rs` |
//! | SACK and cumulative-ACK intake into the scoreboard | `sack.rs` |
//! | SRTT / RTTVAR / RTO (RFC 6298 sec. 2) and the retransmission timer (sec. 5) | `rtt.rs`, `timer.rs` |
//! | what to (re)transmit: NextSeg rules (1) and (2) (RFC 6675 sec. 4), HighData, HighRxt | `emit.rs` |
//! | building and sending a data segment, the flow's counters ([`SenderStats`]) | `emit.rs` |
//! | go-back-N ([`LossRecovery`]): the step back to the first unacknowledged segment | `go_back.rs` |
//!
//! What each loop keeps to itself:
//!
//! - the window loop: cwnd and ssthresh (its congestion controller), the duplicate-ACK count,
//!   the Open / Fast / Loss recovery state, NextSeg rules (3) and (4), the R-TCP pacing clock,
//!   and its reaction to a timeout (RFC 5681 eq. 4);
//! - the paced loop: the rate and its law, the pacing clock, probes, and the fallback to TCP;
//! - RC3's loop (attached to the window loop): the writes it has yet to send from the tail,
//!   which of its copies are known lost, and the authors' window accounting.
//!
//! Both loops call the core in the same order of events: [`Connection::write_app`] when the
//! application writes, [`Connection::send_syn`] / [`Connection::establish`] for the
//! handshake, [`Connection::take_sack`] and [`Connection::take_cumulative`] on each ACK,
//! [`Connection::send_new`] and the retransmit methods to send, [`Connection::take_rto`]
//! when the timer is due. The core decides nothing about pacing or windows, and the loops
//! touch the scoreboard only to apply their own loss rules (IsLost's DupThresh, timeouts).

mod emit;
mod go_back;
pub mod rtt;
mod sack;
pub mod scoreboard;
pub mod segments;
mod timer;

pub use emit::Stamp;
pub use go_back::LossRecovery;
pub use sack::LowPriorityCopies;

use crate::net::packet::{CongestionHeader, Packet, PacketKind, SackBlocks};
use crate::transport::app::AppState;
use crate::transport::ecn::EcnSender;
use crate::transport::FlowAddr;
use crate::units::Time;
use rtt::RttEstimator;
use scoreboard::Scoreboard;
use segments::Segments;

/// Counters a sender reports when its flow ends.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data packets sent, retransmissions included.
    pub data_pkts: u64,
    /// Payload bytes sent, retransmissions included.
    pub data_bytes: u64,
    /// Data packets retransmitted.
    pub retx_pkts: u64,
    /// Payload bytes retransmitted.
    pub retx_bytes: u64,
    /// Retransmission timeouts (SYN timeouts included).
    pub timeouts: u64,
    /// Fast recovery episodes.
    pub fast_recoveries: u64,
    /// Packets sent by RC3's low-priority loop.
    pub low_priority_pkts: u64,
}

/// Where the connection is in its life.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum State {
    /// Not opened yet.
    Closed,
    /// The SYN is out; waiting for the SYN-ACK (retried on each timeout).
    SynSent,
    /// Data may flow.
    Established,
    /// Every byte written is acknowledged and the application writes no more.
    Done,
}

/// One sending connection's state shared by every send loop (see the module docs).
///
/// Segment indices, not bytes, drive the loops; [`Segments`] maps them to byte ranges.
#[derive(Clone, Debug)]
pub struct Connection {
    pub(crate) addr: FlowAddr,
    pub(crate) app: AppState,
    pub(crate) segs: Segments,
    pub(crate) board: Scoreboard,
    pub(crate) rtt: RttEstimator,
    /// RFC 6675 HighData: the next segment sent for the first time by the primary loop.
    pub(crate) nxt: u32,
    /// RFC 6675 HighRxt + 1: NextSeg rule (1) looks for lost segments from here on.
    pub(crate) rxt_scan: u32,
    /// Go-back-N: HighData before the last step back; segments below it leave again as
    /// retransmissions (0 until a step back).
    resend_below: u32,
    /// Counters for the flow table.
    pub(crate) stats: SenderStats,
    state: State,
    /// The retransmission timer's deadline (RFC 6298 sec. 5), if running.
    rto_at: Option<Time>,
    /// SACK blocks of the previous ACK: everything inside them is already on the scoreboard.
    last_sack: SackBlocks,
    /// The cumulative ACK that carried `last_sack` (its blocks are read next to it).
    last_sack_ack: u64,
    /// Header bytes on every packet.
    header: u32,
    /// The ECN bits of what it sends, and RFC 3168's once-per-window rule.
    pub(crate) ecn: EcnSender,
    /// Stamps carry the flow's remaining bytes (pFabric's priority); off, the per-packet sums
    /// are skipped.
    pub(crate) stamps_remaining: bool,
}

impl Connection {
    /// A closed connection for `app`, starting at `start`, cutting the stream into `mss`-byte
    /// segments with `header` bytes of headers each, timing round trips with `rtt`.
    pub fn new(addr: FlowAddr, app: AppState, mss: u32, header: u32, rtt: RttEstimator) -> Connection {
        Connection {
            addr,
            app,
            segs: Segments::new(mss),
            board: Scoreboard::new(),
            rtt,
            nxt: 0,
            rxt_scan: 0,
            resend_below: 0,
            stats: SenderStats::default(),
            state: State::Closed,
            rto_at: None,
            last_sack: SackBlocks::default(),
            last_sack_ack: 0,
            header,
            ecn: EcnSender::default(),
            stamps_remaining: false,
        }
    }

    /// Where the connection is in its life.
    #[inline]
    pub fn state(&self) -> State {
        self.state
    }

    /// True while data may flow.
    #[inline]
    pub fn is_established(&self) -> bool {
        self.state == State::Established
    }

    /// The scoreboard.
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.board
    }

    /// The segment map.
    pub fn segments(&self) -> &Segments {
        &self.segs
    }

    /// The application's state (its pending writes).
    pub fn app(&self) -> &AppState {
        &self.app
    }

    /// The flow's counters.
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }

    /// The RTT estimator.
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }

    /// RFC 6675 HighData: the next segment the primary loop sends for the first time.
    #[inline]
    pub fn high_data(&self) -> u32 {
        self.nxt
    }

    /// Payload bytes cumulatively acknowledged (the flow's progress).
    pub fn acked_bytes(&self) -> u64 {
        self.segs.bytes_below(self.board.una())
    }

    /// Payload bytes sent and not yet cumulatively acknowledged: those below HighData, SACKed
    /// ones included.
    pub fn outstanding_bytes(&self) -> u64 {
        self.segs.bytes_below(self.nxt).saturating_sub(self.acked_bytes())
    }

    /// Runs the application's writes due at `now` into the segment map; returns the segments
    /// `[first, end)` written. A long-lived writer that stops ends the stream after what the
    /// primary loop has sent.
    pub fn write_app(&mut self, now: Time) -> (u32, u32) {
        let (n, stopped) = self.app.poll(now);
        let first = self.segs.count();
        self.segs.write(n);
        let end = self.segs.count();
        if stopped {
            self.segs.truncate(self.nxt);
        }
        (first, end)
    }

    /// Opens (or, after a timeout, retries) the handshake: the SYN leaves at band `prio` with
    /// the loop's congestion header `cc`, and the timer runs for one RTO (RFC 6298 sec. 5.1;
    /// before any sample the RTO is the initial one, sec. 2.1).
    pub fn send_syn(&mut self, now: Time, prio: u8, cc: CongestionHeader, out: &mut Vec<Packet>) {
        let mut p = self.addr.forward(PacketKind::Syn, now);
        p.wire = self.header;
        p.prio = prio;
        p.cc = cc;
        p.ecn = self.ecn.control();
        out.push(p);
        self.state = State::SynSent;
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// The SYN-ACK `synack` arrived while the SYN was out: its echo is the first RTT sample
    /// (RFC 6298 sec. 2.2), the timer stops, data may flow.
    pub fn establish(&mut self, now: Time, synack: &Packet) {
        debug_assert_eq!(self.state, State::SynSent);
        self.rtt.sample(now - synack.ts_echo);
        self.state = State::Established;
        self.rto_at = None;
    }

    /// Data may flow without a handshake (a fixed-rate sender that skips it).
    pub fn establish_without_handshake(&mut self) {
        self.state = State::Established;
    }

    /// True once every segment written is cumulatively acknowledged.
    #[inline]
    pub fn all_acked(&self) -> bool {
        self.board.una() >= self.segs.count()
    }

    /// The connection is done once every byte written is acknowledged and the application
    /// will write no more; the timer then stops. Returns true if it is done now.
    #[inline]
    pub fn finish_if_complete(&mut self) -> bool {
        if self.state == State::Established && self.app.next_event().is_none() && self.all_acked() {
            self.state = State::Done;
            self.rto_at = None;
            return true;
        }
        false
    }

    /// After an ACK: with nothing outstanding the timer stops (RFC 6298 sec. 5.2), and the
    /// connection is done if the application is too.
    #[inline]
    pub fn check_done(&mut self) {
        if self.all_acked() {
            self.rto_at = None;
        }
        self.finish_if_complete();
    }

    /// A connection with the same address that takes over the application `app` and the
    /// segments `segs` another connection wrote, none sent yet, waiting for the SYN-ACK of
    /// that connection's SYN (a rate-based sender falling back to TCP).
    pub fn adopt(&mut self, app: AppState, segs: Segments) {
        debug_assert_eq!(self.segs.count(), 0);
        self.app = app;
        self.segs = segs;
        self.state = State::SynSent;
    }

    /// When the core next needs a wake-up: the timer or the application's next write.
    #[inline]
    pub fn next_deadline(&self) -> Option<Time> {
        match (self.rto_at, self.app.next_event()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
