//! The endpoints a flow can have, as closed enums (static dispatch on the hot path).

use super::cc::CongestionControl;
use super::conn::Connection;
use super::paced::PacedSender;
use super::tcp::{TcpReceiver, TcpSender};
use super::Endpoint;
use crate::net::packet::Packet;
use crate::units::Time;

/// The sending side of a flow.
// Senders live by value in one arena (`Vec<Sender>`) that the event loop indexes directly;
// boxing the larger variant would add a pointer chase per packet to save memory per flow.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Sender {
    /// TCP (NewReno or CUBIC, SACK), RC3, XCP and R-TCP included.
    Tcp(TcpSender),
    /// Rate-based protocols (RCP, fixed rate, ...): paced at the rate their law gives.
    Paced(PacedSender),
}

/// The receiving side of a flow.
#[derive(Clone, Debug)]
pub enum Receiver {
    /// TCP.
    Tcp(TcpReceiver),
}

impl Sender {
    /// Whether the sender waits to be told when its packets leave its NIC
    /// ([`Sender::on_transmitted`]).
    pub fn wants_transmitted(&self) -> bool {
        match self {
            Sender::Tcp(_) => false,
            Sender::Paced(s) => s.wants_transmitted(),
        }
    }

    /// One of its data packets (`len` payload, `wire` bytes) left its NIC at `now`.
    pub fn on_transmitted(&mut self, now: Time, len: u32, wire: u32, out: &mut Vec<Packet>) {
        if let Sender::Paced(s) = self {
            s.on_transmitted(now, len, wire, out);
        }
    }

    /// Opens the connection.
    pub fn start(&mut self, now: Time, path_rtt: Time, out: &mut Vec<Packet>) {
        match self {
            Sender::Tcp(s) => s.start(now, path_rtt, out),
            Sender::Paced(s) => s.start(now, path_rtt, out),
        }
    }
    /// Congestion window in bytes, where the protocol has one.
    pub fn cwnd(&self) -> Option<u64> {
        match self {
            Sender::Tcp(s) => Some(s.cwnd()),
            Sender::Paced(_) => None,
        }
    }
    /// The sending rate in bit/s, where the protocol paces at one its law gives.
    pub fn paced_rate_bps(&self) -> Option<f64> {
        match self {
            Sender::Tcp(_) => None,
            Sender::Paced(s) => Some(s.rate()),
        }
    }
    /// The connection core under the sending loop (its state, what is outstanding).
    pub fn connection(&self) -> &Connection {
        match self {
            Sender::Tcp(s) => s.connection(),
            Sender::Paced(s) => s.connection(),
        }
    }
    /// The controller's own state variable for the series (DCTCP's alpha), named.
    pub fn cc_metric(&self) -> Option<(&'static str, f64)> {
        match self {
            Sender::Tcp(s) => s.controller().cc_metric(),
            Sender::Paced(_) => None,
        }
    }
    /// The sending rate the series report, bit/s, headers counted: a window-based sender's
    /// window on the wire over SRTT, a paced sender's rate averaged over two SRTTs (0 until each
    /// has one).
    pub fn send_rate_bps(&self) -> f64 {
        match self {
            Sender::Tcp(s) => s.send_rate_bps(),
            Sender::Paced(s) => s.send_rate_bps(),
        }
    }
    /// Payload bytes cumulatively acknowledged (the flow's progress, for sequence plots).
    pub fn acked_bytes(&self) -> u64 {
        match self {
            Sender::Tcp(s) => s.acked_bytes(),
            Sender::Paced(s) => s.acked_bytes(),
        }
    }
    /// True once the sender has nothing more to do.
    pub fn is_done(&self) -> bool {
        match self {
            Sender::Tcp(s) => s.is_done(),
            Sender::Paced(s) => s.is_done(),
        }
    }
    /// (retransmitted payload bytes, timeouts).
    pub fn loss_stats(&self) -> (u64, u64) {
        match self {
            Sender::Tcp(s) => (s.stats().retx_bytes, s.stats().timeouts),
            Sender::Paced(s) => (s.stats().retx_bytes, s.stats().timeouts),
        }
    }
    /// (data packets sent, retransmissions included; of those, retransmissions).
    pub fn packet_stats(&self) -> (u64, u64) {
        let s = match self {
            Sender::Tcp(s) => s.stats(),
            Sender::Paced(s) => s.stats(),
        };
        (s.data_pkts, s.retx_pkts)
    }
}

impl Receiver {
    /// When the receiver first held every byte of the flow.
    pub fn completed_at(&self) -> Option<Time> {
        match self {
            Receiver::Tcp(r) => r.completed_at,
        }
    }
    /// When the application's first write was held in full (scheduled writers only).
    pub fn first_write_at(&self) -> Option<Time> {
        match self {
            Receiver::Tcp(r) => r.first_write_at,
        }
    }
    /// ACKs sent with SACK blocks.
    pub fn sack_acks(&self) -> u64 {
        match self {
            Receiver::Tcp(r) => r.sack_acks,
        }
    }

    /// Bytes delivered in order.
    pub fn delivered(&self) -> u64 {
        match self {
            Receiver::Tcp(r) => r.delivered(),
        }
    }
}

macro_rules! dispatch_endpoint {
    ($ty:ident, $($var:ident),+) => {
        impl Endpoint for $ty {
            #[inline]
            fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
                match self { $($ty::$var(e) => e.on_packet(now, pkt, out),)+ }
            }
            #[inline]
            fn on_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
                match self { $($ty::$var(e) => e.on_timeout(now, out),)+ }
            }
            #[inline]
            fn poll_timeout(&self) -> Option<Time> {
                match self { $($ty::$var(e) => e.poll_timeout(),)+ }
            }
        }
    };
}

dispatch_endpoint!(Receiver, Tcp);

impl Endpoint for Sender {
    /// A paced sender whose SYN-ACK calls for the fallback to TCP (RCP thesis sec. 6.2.2)
    /// becomes a TCP sender here, in place: the flow keeps its slot and its receiver.
    #[inline]
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        match self {
            Sender::Tcp(e) => e.on_packet(now, pkt, out),
            Sender::Paced(e) => {
                e.on_packet(now, pkt, out);
                if e.falls_back() {
                    *self = Sender::Tcp(e.to_tcp(now, pkt, out));
                }
            }
        }
    }
    #[inline]
    fn on_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        match self {
            Sender::Tcp(e) => e.on_timeout(now, out),
            Sender::Paced(e) => e.on_timeout(now, out),
        }
    }
    #[inline]
    fn poll_timeout(&self) -> Option<Time> {
        match self {
            Sender::Tcp(e) => e.poll_timeout(),
            Sender::Paced(e) => e.poll_timeout(),
        }
    }
}
