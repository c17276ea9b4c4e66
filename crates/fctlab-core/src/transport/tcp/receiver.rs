//! The TCP receiver: cumulative ACK, up to three SACK blocks most recent first (RFC 2018),
//! optional delayed ACKs (RFC 5681 sec. 4.2), immediate ACKs for out-of-order data and for
//! data sent below the connection's normal priority (RC3's low-priority segments), each ACK
//! at the priority of the data that triggered it. A receiver told the flow's size completes when
//! it holds every byte; one that is not (emulation, the `fctlab-emu` crate) learns the size from the
//! segment marked FIN, which senders set on the last segment of a finite stream, retransmissions
//! and RC3's low-priority copies included.
//!
//! With go-back-N recovery ([`LossRecovery::GoBackN`], a queue pair's default) the receiver
//! keeps only in-order data and answers a hole with NACKs instead: `receiver/go_back_n.rs`.

use super::config::TcpConfig;
use crate::net::packet::{CongestionHeader, Ecn, Packet, PacketKind, SackBlocks};
use crate::transport::conn::LossRecovery;
use crate::transport::ecn::EcnReceiver;
use crate::transport::{Endpoint, FlowAddr};
use crate::units::Time;
use std::collections::VecDeque;

mod go_back_n;

/// A block of data received above `rcv_nxt`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Block {
    start: u64,
    end: u64,
}

/// One TCP receiving endpoint.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    cfg: TcpConfig,
    addr: FlowAddr,
    size: Option<u64>,
    rcv_nxt: u64,
    /// Out-of-order blocks, sorted by start, disjoint and not touching. A deque: a filled hole
    /// absorbs blocks from the front, which a vector would pay for by moving every block behind
    /// them (thousands, after a burst of losses in a long flow).
    ooo: VecDeque<Block>,
    /// Starts of the most recently changed blocks, newest first (RFC 2018 sec. 4).
    recent: [Option<u64>; 3],
    unacked: u32,
    delack_at: Option<Time>,
    echo: Time,
    /// When every byte of the flow was held (None until then, and for long-lived flows).
    pub completed_at: Option<Time>,
    /// Bytes of the application's first write, when it has later ones (video: the buffer).
    first_write: Option<u64>,
    /// When the first write was held in full.
    pub first_write_at: Option<Time>,
    /// Congestion header of the last forward packet, echoed in ACKs (explicit feedback).
    echo_cc: CongestionHeader,
    /// What the ACKs echo of ECN marks.
    ecn: EcnReceiver,
    /// ACKs sent with SACK blocks.
    pub sack_acks: u64,
    /// Go-back-N: the expected sequence the last NACK carried, and when it left.
    last_nack: Option<(u64, Time)>,
    /// NACKs sent (go-back-N).
    pub nacks: u64,
}

impl TcpReceiver {
    /// A receiver for a flow of `size` bytes (None: long-lived).
    pub fn new(cfg: TcpConfig, addr: FlowAddr, size: Option<u64>) -> TcpReceiver {
        TcpReceiver {
            cfg,
            addr,
            size,
            rcv_nxt: 0,
            ooo: VecDeque::new(),
            recent: [None; 3],
            unacked: 0,
            delack_at: None,
            echo: Time::ZERO,
            completed_at: None,
            first_write: None,
            first_write_at: None,
            echo_cc: CongestionHeader::None,
            ecn: EcnReceiver::new(cfg.ecn),
            sack_acks: 0,
            last_nack: None,
            nacks: 0,
        }
    }

    /// Also notes when the first `bytes` (the application's first write) are held.
    pub fn watch_first_write(&mut self, bytes: u64) {
        self.first_write = Some(bytes);
    }

    /// Bytes delivered in order to the application.
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }

    /// Adds `[s, e)`; returns false if it brought nothing new.
    fn insert(&mut self, s: u64, e: u64) -> bool {
        if e <= self.rcv_nxt {
            return false;
        }
        if s <= self.rcv_nxt {
            self.rcv_nxt = e;
            // Absorb the blocks the hole-filling data made contiguous.
            let k = self.ooo.partition_point(|b| b.start <= self.rcv_nxt);
            if k > 0 {
                self.rcv_nxt = self.rcv_nxt.max(self.ooo[k - 1].end);
                self.ooo.drain(..k);
                let nxt = self.rcv_nxt;
                self.forget_recent(|start| start < nxt);
            }
            return true;
        }
        // Blocks [lo, hi) overlap or touch [s, e).
        let lo = self.ooo.partition_point(|b| b.end < s);
        let hi = self.ooo.partition_point(|b| b.start <= e);
        if hi == lo + 1 && self.ooo[lo].start <= s && e <= self.ooo[lo].end {
            return false;
        }
        let (mut ns, mut ne) = (s, e);
        if hi > lo {
            ns = ns.min(self.ooo[lo].start);
            ne = ne.max(self.ooo[hi - 1].end);
            self.forget_recent(|start| ns <= start && start < ne);
        }
        let merged = Block { start: ns, end: ne };
        if hi > lo {
            self.ooo[lo] = merged;
            self.ooo.drain(lo + 1..hi);
        } else {
            self.ooo.insert(lo, merged);
        }
        self.recent = [Some(ns), self.recent[0], self.recent[1]];
        true
    }

    /// Drops recent-block entries whose start matches `gone`, keeping the order of the rest.
    fn forget_recent(&mut self, gone: impl Fn(u64) -> bool) {
        let kept: Vec<u64> = self.recent.iter().flatten().copied().filter(|&st| !gone(st)).collect();
        self.recent = [kept.first().copied(), kept.get(1).copied(), kept.get(2).copied()];
    }

    /// The SACK blocks to report: the most recently changed first (RFC 2018 sec. 4), then,
    /// if fewer than three were changed lately, the highest other blocks.
    fn sack_blocks(&self) -> SackBlocks {
        let mut sb = SackBlocks::default();
        let near = self.rcv_nxt;
        let push = |b: &Block, sb: &mut SackBlocks| {
            if sb.n < 3 && !sb.iter(near).any(|(st, _)| st == b.start) {
                sb.push(b.start, b.end);
            }
        };
        for st in self.recent.iter().flatten() {
            let k = self.ooo.partition_point(|b| b.start < *st);
            if let Some(b) = self.ooo.get(k).filter(|b| b.start == *st) {
                push(b, &mut sb);
            }
        }
        for b in self.ooo.iter().rev() {
            if sb.n >= 3 {
                break;
            }
            push(b, &mut sb);
        }
        sb
    }

    /// Data packets that arrived marked CE.
    pub fn ce_pkts(&self) -> u64 {
        self.ecn.ce_pkts
    }

    fn send_ack(&mut self, now: Time, prio: u8, out: &mut Vec<Packet>) {
        let ecn = self.ecn.ack();
        self.send_ack_with(now, prio, ecn, out);
    }

    fn send_ack_with(&mut self, now: Time, prio: u8, ecn: Ecn, out: &mut Vec<Packet>) {
        let mut p = self.addr.reverse(PacketKind::Ack, now);
        p.ecn = ecn;
        p.ack = self.rcv_nxt;
        p.sack = self.sack_blocks();
        self.sack_acks += (p.sack.n > 0) as u64;
        p.wire = self.cfg.header;
        p.ts_echo = self.echo;
        p.prio = prio;
        p.cc = self.echo_cc.feedback();
        out.push(p);
        self.ecn.ack_sent();
        self.unacked = 0;
        self.delack_at = None;
    }

    /// Selective repeat's intake of a data packet: out-of-order data is kept (SACK blocks),
    /// and an ACK leaves at once for out-of-order data, a filled hole, a duplicate or data at
    /// another priority, else after `delack_count` segments.
    #[inline]
    fn take_any_order(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        let had_holes = !self.ooo.is_empty();
        let in_order = pkt.seq <= self.rcv_nxt;
        // An empty packet (an RCP probe) only asks for an ACK.
        let new = pkt.len > 0 && self.insert(pkt.seq, pkt.seq + pkt.len as u64);
        // RFC 7323 sec. 4.3: echo the newest in-order timestamp (the first one ever too).
        if in_order || self.echo == Time::ZERO {
            self.echo = pkt.ts;
        }
        self.unacked += 1;
        let immediate = !in_order || had_holes || !new || pkt.prio != self.cfg.prio;
        if immediate || self.unacked >= self.cfg.delack_count {
            // Out-of-order data is timed by its own timestamp (RFC 7323 sec. 4.3 would echo
            // the older one; the sender only samples ACKs that advance).
            if !in_order {
                self.echo = pkt.ts;
            }
            self.send_ack(now, pkt.prio, out);
        } else if self.delack_at.is_none() {
            self.delack_at = Some(now + self.cfg.delack_timeout);
        }
    }
}

impl Endpoint for TcpReceiver {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        match pkt.kind {
            PacketKind::Syn => {
                let mut p = self.addr.reverse(PacketKind::SynAck, now);
                p.wire = self.cfg.header;
                p.ts_echo = pkt.ts;
                p.prio = pkt.prio;
                p.cc = pkt.cc.feedback();
                p.ecn = self.ecn.ack();
                out.push(p);
            }
            PacketKind::Data => {
                if self.ecn.is_on() {
                    // DCTCP: a change of CE first sends the ACK held back, with the old ECE.
                    let prior = self.ecn.ack();
                    if self.ecn.on_data(pkt.ecn, self.unacked, now) {
                        self.send_ack_with(now, self.cfg.prio, prior, out);
                    }
                }
                self.echo_cc = pkt.cc;
                // A receiver not told the flow's size learns it from the FIN; the first wins.
                if pkt.fin && pkt.len > 0 && self.size.is_none() {
                    self.size = Some(pkt.seq + pkt.len as u64);
                }
                if self.cfg.recovery == LossRecovery::GoBackN {
                    self.take_in_order_only(now, pkt, out);
                } else {
                    self.take_any_order(now, pkt, out);
                }
                if self.completed_at.is_none() && self.size.is_some_and(|s| self.rcv_nxt >= s) {
                    self.completed_at = Some(now);
                }
                if self.first_write_at.is_none() && self.first_write.is_some_and(|b| self.rcv_nxt >= b) {
                    self.first_write_at = Some(now);
                }
            }
            PacketKind::SynAck | PacketKind::Ack | PacketKind::Nack => {}
        }
    }

    fn on_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.delack_at.is_some_and(|t| t <= now) {
            self.send_ack(now, self.cfg.prio, out);
        }
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.delack_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rx() -> TcpReceiver {
        let addr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };
        TcpReceiver::new(TcpConfig { mss: 100, ..TcpConfig::default() }, addr, Some(1000))
    }

    fn data(seq: u64, prio: u8) -> Packet {
        let addr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };
        let mut p = addr.forward(PacketKind::Data, Time::from_ms(1));
        p.seq = seq;
        p.len = 100;
        p.wire = 140;
        p.prio = prio;
        p
    }

    #[test]
    fn a_receiver_not_told_the_size_completes_on_the_fin() {
        let addr = FlowAddr { flow: 0, src: 0, dst: 1, hash: 0 };
        let mut r = TcpReceiver::new(TcpConfig { mss: 100, ..TcpConfig::default() }, addr, None);
        let mut out = Vec::new();
        let mut last = data(900, 0);
        last.fin = true;
        // The FIN arrives first, out of order: the end is known, the stream not yet whole.
        r.on_packet(Time::from_ms(1), &last, &mut out);
        for k in 0..8 {
            r.on_packet(Time::from_ms(2 + k), &data(100 * k, 0), &mut out);
        }
        assert_eq!(r.completed_at, None, "byte 800 is still missing");
        r.on_packet(Time::from_ms(20), &data(800, 0), &mut out);
        assert_eq!(r.completed_at, Some(Time::from_ms(20)));
        // Without a FIN the same stream never completes: the end is unknown.
        let mut blind = TcpReceiver::new(TcpConfig { mss: 100, ..TcpConfig::default() }, addr, None);
        for k in 0..10 {
            blind.on_packet(Time::from_ms(2 + k), &data(100 * k, 0), &mut out);
        }
        assert_eq!(blind.completed_at, None);
    }

    #[test]
    fn sack_blocks_are_reported_most_recent_first() {
        let mut r = rx();
        let mut out = Vec::new();
        for seq in [200, 500, 800, 600] {
            r.on_packet(Time::ZERO, &data(seq, 0), &mut out);
        }
        let last = out.last().unwrap();
        assert_eq!(last.ack, 0);
        // 600 merged with 500: that block changed last, so it comes first.
        let blocks: Vec<_> = last.sacks().collect();
        assert_eq!(blocks, vec![(500, 700), (800, 900), (200, 300)]);
    }

    #[test]
    fn filling_the_hole_advances_the_cumulative_ack_over_the_blocks() {
        let mut r = rx();
        let mut out = Vec::new();
        for seq in [100, 200, 0] {
            r.on_packet(Time::ZERO, &data(seq, 0), &mut out);
        }
        assert_eq!(out.last().unwrap().ack, 300);
        assert_eq!(out.last().unwrap().sack.n, 0);
    }

    #[test]
    fn low_priority_data_is_acked_at_once_at_its_priority() {
        let mut r = rx();
        r.cfg.delack_count = 2;
        let mut out = Vec::new();
        r.on_packet(Time::ZERO, &data(0, 0), &mut out);
        assert!(out.is_empty(), "first in-order segment waits for a second one");
        r.on_packet(Time::ZERO, &data(900, 3), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].prio, 3);
        assert_eq!(out[0].sacks().next(), Some((900, 1000)));
    }

    #[test]
    fn completion_is_when_every_byte_is_held() {
        let mut r = rx();
        let mut out = Vec::new();
        for k in (0..10).rev() {
            r.on_packet(Time::from_ms(k), &data(k * 100, 0), &mut out);
        }
        assert_eq!(r.completed_at, Some(Time::from_ms(0)));
        assert_eq!(r.delivered(), 1000);
    }
}
