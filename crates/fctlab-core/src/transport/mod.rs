//! Transport endpoints, sans-IO: each takes `(now, input)` and returns packets to send plus its
//! next wake-up time. They never see the scheduler or the network, so the same code could
//! drive real sockets. The world calls [`Endpoint`] methods and routes what comes out.

pub mod app;
pub mod cc;
pub mod conn;
pub mod ecn;
pub mod endpoint;
pub mod exact_echo;
pub mod paced;
pub mod tcp;

use crate::net::packet::{CongestionHeader, Ecn, FlowId, Packet, PacketKind, SackBlocks};
use crate::units::Time;

/// What every transport endpoint offers the event loop.
pub trait Endpoint {
    /// A packet for this endpoint arrived; packets to send go to `out`.
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>);
    /// The wake-up time asked for by [`Endpoint::poll_timeout`] has come (maybe late or early:
    /// the endpoint checks its own deadlines).
    fn on_timeout(&mut self, now: Time, out: &mut Vec<Packet>);
    /// When the endpoint next needs [`Endpoint::on_timeout`], if ever.
    fn poll_timeout(&self) -> Option<Time>;
}

/// The addressing of one flow, used to fill packet headers.
#[derive(Copy, Clone, Debug)]
pub struct FlowAddr {
    /// Flow id.
    pub flow: FlowId,
    /// Sender node.
    pub src: u32,
    /// Receiver node.
    pub dst: u32,
    /// ECMP hash of the flow.
    pub hash: u64,
}

impl FlowAddr {
    /// A forward-direction packet (sender -> receiver) with empty ack fields.
    pub fn forward(&self, kind: PacketKind, now: Time) -> Packet {
        Packet {
            flow: self.flow,
            kind,
            src: self.src,
            dst: self.dst,
            seq: 0,
            len: 0,
            wire: 0,
            ack: 0,
            sack: SackBlocks::default(),
            prio: 0,
            ts: now,
            ts_echo: Time::ZERO,
            cc: CongestionHeader::None,
            fin: false,
            ecn: Ecn::NOT_ECT,
        }
    }

    /// A reverse-direction packet (receiver -> sender).
    pub fn reverse(&self, kind: PacketKind, now: Time) -> Packet {
        let mut p = self.forward(kind, now);
        p.src = self.dst;
        p.dst = self.src;
        p
    }
}
