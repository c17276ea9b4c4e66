//! The API an fctlab protocol plug-in is built against.
//!
//! A plug-in is a `cdylib` crate in its user's own folder that implements a host law
//! ([`HostLaw`]: the congestion window of a TCP connection, and the header it stamps), a router
//! law ([`RouterLaw`]: what a router port computes per packet and per control interval), or
//! both, and exports them with [`export_plugin!`]. fctlab loads it at run time by the path a
//! scenario names:
//!
//! ```toml
//! [transport]
//! cc = "rust:my_cc/target/release/libmy_cc.so"      # the host law, under fctlab's TCP
//! [queues.router]
//! kind = "rust:my_cc/target/release/libmy_cc.so"    # the router law, on a drop-tail FIFO
//! gain = 0.5                                        # the law's own keys, as JSON text
//! ```
//!
//! | module | what it holds |
//! |---|---|
//! | this file | the types a law reads and writes ([`Window`], [`Header`], [`Port`], [`PacketView`]) and the two traits |
//! | `abi.rs` | the C ABI between fctlab and the library: [`API_VERSION`], the vtables, the panic catcher, [`export_plugin!`] |
//!
//! Time is integer picoseconds (`u64`), as in fctlab's core; rates are bit/s. The connection
//! around a host law (handshake, segments, SACK, RTO, what to retransmit) and the FIFO around a
//! router law (buffer, admission, accounting) are fctlab's: a law decides only its numbers.
//!
//! Hooks may panic: the panic is caught in the library, and fctlab stops the run with an
//! error that names the plug-in, the hook, the flow and the simulated time.

pub mod abi;

pub use abi::API_VERSION;

/// Picoseconds, fctlab's unit of time.
pub type Ps = u64;

/// Picoseconds per second.
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// The window state a host law may change (fctlab's `CcState`).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes (`u64::MAX`: unlimited).
    pub ssthresh: u64,
    /// Sender maximum segment size, bytes.
    pub mss: u64,
    /// Most bytes one ACK may add to cwnd in slow start (appropriate byte counting, RFC 3465's
    /// L x MSS; `mss` for RFC 5681 eq. 2).
    pub abc: u64,
}

impl Window {
    /// True while cwnd is below ssthresh (RFC 5681 sec. 3.1).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// A congestion header as it crosses the wire: a one-byte tag and three 32-bit words.
///
/// Tag 0 is no header. Tags 1 to 127 are fctlab's protocols (RCP forward 1, RCP echo 2, XCP
/// 3 and 4, JetMax 5 and 6, PIQI-RCP 7 and 8; fctlab refuses words its protocol would not
/// send, naming the field). Tags 128 to 255 are the plug-ins' own: fctlab carries their words
/// as they are, and its receiver echoes a forward header's words unchanged.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// 0: none; 1-127: fctlab's protocols; 128-255: plug-ins'.
    pub tag: u8,
    /// The fields, in the protocol's order.
    pub words: [u32; 3],
}

impl Header {
    /// No congestion header (plain TCP).
    pub const NONE: Header = Header { tag: 0, words: [0; 3] };
    /// The first tag free for plug-ins.
    pub const FIRST_PLUGIN_TAG: u8 = 128;
}

/// What a packet is for ([`PacketView::kind`], [`SendCtx::kind`]).
pub mod kind {
    /// Connection request (sender to receiver).
    pub const SYN: u8 = 0;
    /// Connection accept (receiver to sender).
    pub const SYN_ACK: u8 = 1;
    /// Payload (sender to receiver).
    pub const DATA: u8 = 2;
    /// Acknowledgment (receiver to sender).
    pub const ACK: u8 = 3;
}

/// A connection's parameters, given to [`HostLaw::new`].
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HostInit {
    /// The flow's id in the run (its row in the flows table).
    pub flow: u32,
    /// Payload bytes per data packet.
    pub mss: u32,
    /// Header bytes per packet (TCP/IP and any congestion header).
    pub header: u32,
    /// Receive window, bytes (`u64::MAX`: unlimited).
    pub rwnd: u64,
}

/// What a header may carry of the connection ([`HostLaw::header`]).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SendCtx {
    /// The packet being sent: [`kind::SYN`] or [`kind::DATA`].
    pub kind: u8,
    /// The sender's smoothed RTT, ps ([`abi::NO_TIME`]: no sample yet).
    pub srtt: Ps,
    /// Payload bytes sent so far, retransmissions included (not counting this packet).
    pub sent_bytes: u64,
}

/// One RTT sample ([`HostLaw::on_rtt_sample`]).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RttSample {
    /// When the ACK arrived, ps.
    pub now: Ps,
    /// The sample, ps.
    pub rtt: Ps,
    /// Bytes cumulatively acknowledged after it (SND.UNA).
    pub una: u64,
    /// Bytes sent so far (SND.NXT).
    pub high: u64,
}

/// The hooks of a host law: the window of one connection. Every hook but `new`, `on_ack` and
/// `on_congestion` has the default of fctlab's built-in TCP.
pub trait HostLaw: Send + Sized + 'static {
    /// A law for a new connection; Err refuses it (the run does not start, and the message is
    /// shown).
    fn new(init: &HostInit) -> Result<Self, String>;
    /// An ACK acknowledged `acked` new bytes outside loss recovery, at `now`.
    fn on_ack(&mut self, w: &mut Window, now: Ps, acked: u64, srtt: Option<Ps>);
    /// Loss detected by duplicate ACKs or SACK: fast recovery starts with `flight` bytes out.
    fn on_congestion(&mut self, w: &mut Window, now: Ps, flight: u64);
    /// Retransmission timeout with `flight` bytes out (RFC 5681 eq. 4, cwnd = 1 MSS).
    fn on_timeout(&mut self, w: &mut Window, now: Ps, flight: u64) {
        self.on_congestion(w, now, flight);
        w.cwnd = w.mss;
    }
    /// Fast recovery ended.
    fn on_recovery_end(&mut self, w: &mut Window, _now: Ps) {
        w.cwnd = w.ssthresh;
    }
    /// A loss was detected, before the loss hooks, whether or not the law reacts to loss.
    fn on_loss_signal(&mut self, _w: &mut Window, _now: Ps) {}
    /// Whether [`HostLaw::on_rtt_sample`] does anything (asked once per connection).
    fn wants_rtt_samples(&self) -> bool {
        false
    }
    /// An ACK that advanced the cumulative point gave an RTT sample (before its window hooks).
    fn on_rtt_sample(&mut self, _w: &mut Window, _s: &RttSample) {}
    /// The congestion header of an outgoing SYN or data packet.
    fn header(&self, _w: &Window, _ctx: &SendCtx) -> Header {
        Header::NONE
    }
    /// The header a SYN-ACK or ACK echoes (not called for those that echo none); true if the
    /// window follows it, so that [`HostLaw::on_ack`] is skipped for that ACK.
    fn on_feedback(&mut self, _w: &mut Window, _echo: Header, _srtt: Option<Ps>) -> bool {
        false
    }
    /// The rate packets are paced at, bit/s (asked once per connection; None: no pacing).
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
    /// False if losses leave the window alone (they are still repaired).
    fn reacts_to_loss(&self) -> bool {
        true
    }
}

/// The router port a law controls.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Port {
    /// Node id of the router.
    pub router: u32,
    /// Id of the link the port feeds.
    pub link: u32,
    /// The link's capacity, bit/s (it may change during a run: read it at each hook).
    pub capacity_bps: u64,
}

/// What a router law sees of a packet. In [`RouterLaw::on_departure`] it may change `header`
/// and `prio`; the other fields are read-only copies.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PacketView {
    /// The flow's id.
    pub flow: u32,
    /// One of [`kind`].
    pub kind: u8,
    /// Priority band, 0 the highest.
    pub prio: u8,
    /// Payload bytes.
    pub len: u32,
    /// Bytes on the wire.
    pub wire: u32,
    /// First payload byte (data).
    pub seq: u64,
    /// Cumulative acknowledgment (ACKs).
    pub ack: u64,
    /// The congestion header.
    pub header: Header,
}

impl PacketView {
    /// True if the packet travels from the flow's sender to its receiver (SYN, data).
    pub fn is_forward(&self) -> bool {
        self.kind == kind::SYN || self.kind == kind::DATA
    }
}

/// The hooks of a router law: fctlab's drop-tail FIFO calls them and owns the buffer.
pub trait RouterLaw: Send + Sized + 'static {
    /// The law of port `port`; `params` is the queue table's own keys as JSON text (without
    /// `kind`, `limit` and `limit_packets`; `{}` if none). Err refuses the scenario; name the
    /// key in the message.
    fn new(port: &Port, params: &str) -> Result<Self, String>;
    /// `pkt` is offered to the port with `queued_before` bytes waiting, before admission
    /// (packets then dropped are seen too).
    fn on_arrival(&mut self, port: &Port, now: Ps, pkt: &PacketView, queued_before: u64);
    /// `pkt` left the FIFO (`queued_after` bytes still waiting) for the wire; the law may
    /// change its header and priority.
    fn on_departure(&mut self, port: &Port, now: Ps, pkt: &mut PacketView, queued_after: u64);
    /// When the first control tick is due (None: no periodic control).
    fn first_tick(&self) -> Option<Ps> {
        None
    }
    /// A control interval ends at `now` with `queued` bytes waiting; returns when the next
    /// one ends (None: never again).
    fn tick(&mut self, _port: &Port, _now: Ps, _queued: u64) -> Option<Ps> {
        None
    }
}
