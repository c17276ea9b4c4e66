//! The wire format: a [`Packet`] as the payload of one UDP datagram.
//!
//! Version 1, big-endian, a fixed 92-byte header followed by `len` payload bytes (zeros: the
//! emulated application's data), so a datagram is as long as the segment it stands for:
//!
//! | offset | bytes | field |
//! |---|---|---|
//! | 0 | 2 | magic `0xFC 0x1A` |
//! | 2 | 1 | version (1) |
//! | 3 | 1 | flags: bits 0-1 kind (SYN 0, SYN-ACK 1, data 2, ACK and NACK 3), bit 2 FIN on data, NACK on kind 3 (go-back-N), bits 3-6 ECN (the IP codepoint in bits 3-4, ECE bit 5, CWR bit 6: `Ecn`'s bits shifted by 3), bit 7 zero |
//! | 4 | 4 | flow id |
//! | 8 | 4 | source node |
//! | 12 | 4 | destination node |
//! | 16 | 4 | sequence number: (ISN + first payload byte) mod 2^32 |
//! | 20 | 4 | acknowledgment number, same space |
//! | 24 | 4 | payload bytes (`len`) |
//! | 28 | 4 | bytes on the simulated wire (`wire`: payload + the headers the simulator counts) |
//! | 32 | 1 | SACK blocks in use (0-3) |
//! | 33 | 1 | congestion header tag (0 none, 1 RCP, 2 RCP feedback, 3 XCP, 4 XCP feedback, 5 JetMax, 6 JetMax feedback, 7 PIQI-RCP, 8 PIQI-RCP feedback, 9 pFabric, 10 HPCC, 11 HPCC feedback; 128-255 plug-ins) |
//! | 34 | 2 | zero |
//! | 36 | 24 | three SACK blocks (start, end), sequence space; unused blocks zero |
//! | 60 | 8 | timestamp (TSval), picoseconds of the run's clock |
//! | 68 | 8 | echoed timestamp (TSecr) |
//! | 76 | 16 | congestion header fields: three 32-bit words in each protocol's encoding (`protocol/<name>/header.rs` in the core), then a reserved zero word |
//! | 92 | 40 | HPCC's headers only (tags 10 and 11): its five telemetry records, two words each (`protocol/hpcc/header.rs`); the payload follows them |
//!
//! The priority band is not in the header: it travels in the IP header's DSCP bits (as RC3's
//! Linux implementation marks its low-priority packets), set and read by the socket layer
//! ([`super::sock`]).
//!
//! Sequence numbers wrap: the 64-bit byte offsets of a flow are sent modulo 2^32 after adding
//! the flow's initial sequence number, and [`decode`] puts them back next to a reference the
//! receiving endpoint supplies (its next expected byte, or the sender's oldest unacknowledged
//! byte): the offset within +-2^31 of it. A node that does not read sequence numbers (the
//! router) decodes with ISN and reference 0 and re-encodes the same bits.
//!
//! [`decode`] never panics: every length, tag, flag and float is checked, and anything else is a
//! [`WireError`]. The randomized tests below feed it garbage and mutated datagrams.

use fctlab_core::net::packet::{CongestionHeader, Ecn, Packet, PacketKind, SackBlocks};
use fctlab_core::protocol::header::{
    header_extension, header_from_wire, header_to_wire, tag_has_extension, with_header_extension, EXTENSION_WORDS,
};
use fctlab_core::units::Time;
use std::fmt;

/// The version this code speaks.
pub const VERSION: u8 = 1;
/// Header bytes before the payload.
pub const HEADER: usize = 92;
/// Bytes between the header and the payload for a header's extension, HPCC's telemetry records
/// (0 for other headers).
pub const MAX_EXTENSION: usize = 4 * EXTENSION_WORDS;
/// The largest payload a datagram may carry.
pub const MAX_PAYLOAD: u32 = 9_000;
const MAGIC: [u8; 2] = [0xFC, 0x1A];
const FIN: u8 = 0b100;
/// Where the ECN bits start in the flags byte.
const ECN_SHIFT: u8 = 3;

/// Why a datagram is not a packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireError {
    /// Shorter than the header, or its length disagrees with the payload length.
    Length { got: usize, expected: usize },
    /// Not an fctlab datagram.
    Magic,
    /// A version this code does not speak.
    Version(u8),
    /// A field holds a value it cannot have.
    Field(&'static str),
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Length { got, expected } => write!(f, "datagram of {got} bytes, expected {expected}"),
            WireError::Magic => write!(f, "not an fctlab datagram (bad magic)"),
            WireError::Version(v) => write!(f, "wire version {v}, expected {VERSION}"),
            WireError::Field(name) => write!(f, "bad value in field `{name}`"),
        }
    }
}

impl std::error::Error for WireError {}

/// The flow's initial sequence number (the core's, which captures use too).
pub use fctlab_core::net::packet::isn;

/// The 64-bit offset congruent to `x` modulo 2^32 nearest to `reference` (never negative).
pub fn unwrap_seq(x: u32, reference: u64) -> u64 {
    let d = x.wrapping_sub(reference as u32) as i32 as i64;
    let v = reference as i128 + d as i128;
    if v < 0 {
        (v + (1i128 << 32)) as u64
    } else if v > u64::MAX as i128 {
        (v - (1i128 << 32)) as u64
    } else {
        v as u64
    }
}

fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_be_bytes());
}

fn get_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn get_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_be_bytes(a)
}

fn get_u16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// Writes the congestion header's tag and fields (each protocol's encoding,
/// `fctlab_core::protocol::header_to_wire`).
fn put_cc(b: &mut [u8], cc: CongestionHeader) -> u8 {
    let body = &mut b[76..92];
    let (tag, words) = header_to_wire(cc);
    for (k, w) in words.iter().enumerate() {
        put_u32(body, 4 * k, *w);
    }
    tag
}

/// The congestion header of tag `tag` (each protocol's decoding,
/// `fctlab_core::protocol::header_from_wire`); the fourth word is reserved and must be zero.
fn get_cc(tag: u8, b: &[u8], ext: usize) -> Result<CongestionHeader, WireError> {
    if get_u32(b, 88) != 0 {
        return Err(WireError::Field("cc"));
    }
    let h = header_from_wire(tag, [get_u32(b, 76), get_u32(b, 80), get_u32(b, 84)]).map_err(WireError::Field)?;
    if ext == 0 {
        return Ok(h);
    }
    Ok(with_header_extension(h, std::array::from_fn(|k| get_u32(b, HEADER + 4 * k))))
}

/// Appends `pkt` as a datagram to `buf` (cleared first): header, then `len` zero bytes.
/// Sequence numbers are offset by `isn` and taken modulo 2^32.
pub fn encode(pkt: &Packet, isn: u32, buf: &mut Vec<u8>) {
    buf.clear();
    let records = header_extension(&pkt.cc);
    let ext = if records.is_some() { MAX_EXTENSION } else { 0 };
    buf.resize(HEADER + ext + pkt.len as usize, 0);
    let b = &mut buf[..];
    if let Some(w) = records {
        for (k, x) in w.iter().enumerate() {
            put_u32(b, HEADER + 4 * k, *x);
        }
    }
    b[0..2].copy_from_slice(&MAGIC);
    b[2] = VERSION;
    let kind = match pkt.kind {
        PacketKind::Syn => 0,
        PacketKind::SynAck => 1,
        PacketKind::Data => 2,
        PacketKind::Ack => 3,
        PacketKind::Nack => 3 | FIN,
    };
    b[3] = kind | if pkt.fin { FIN } else { 0 } | pkt.ecn.bits() << ECN_SHIFT;
    let wrap = |x: u64| (x as u32).wrapping_add(isn);
    put_u32(b, 4, pkt.flow);
    put_u32(b, 8, pkt.src);
    put_u32(b, 12, pkt.dst);
    put_u32(b, 16, wrap(pkt.seq));
    put_u32(b, 20, wrap(pkt.ack));
    put_u32(b, 24, pkt.len);
    put_u32(b, 28, pkt.wire);
    b[32] = pkt.sack.n.min(3);
    for (k, (s, e)) in pkt.sacks().take(3).enumerate() {
        put_u32(b, 36 + 8 * k, wrap(s));
        put_u32(b, 40 + 8 * k, wrap(e));
    }
    put_u64(b, 60, pkt.ts.ps());
    put_u64(b, 68, pkt.ts_echo.ps());
    b[33] = put_cc(b, pkt.cc);
}

/// The packet in datagram `b`, its sequence numbers placed next to `reference` after removing
/// `isn`. The priority is left at 0: the socket layer sets it from the DSCP bits.
pub fn decode(b: &[u8], isn: u32, reference: u64) -> Result<Packet, WireError> {
    if b.len() < HEADER {
        return Err(WireError::Length { got: b.len(), expected: HEADER });
    }
    if b[0..2] != MAGIC {
        return Err(WireError::Magic);
    }
    if b[2] != VERSION {
        return Err(WireError::Version(b[2]));
    }
    let flags = b[3];
    if flags & 0x80 != 0 {
        return Err(WireError::Field("flags"));
    }
    let ecn = Ecn::from_bits(flags >> ECN_SHIFT).ok_or(WireError::Field("flags"))?;
    let kind = match flags & 0b11 {
        0 => PacketKind::Syn,
        1 => PacketKind::SynAck,
        2 => PacketKind::Data,
        _ if flags & FIN != 0 => PacketKind::Nack,
        _ => PacketKind::Ack,
    };
    let len = get_u32(b, 24);
    if len > MAX_PAYLOAD {
        return Err(WireError::Field("len"));
    }
    let ext = if tag_has_extension(b[33]) { MAX_EXTENSION } else { 0 };
    let expected = HEADER + ext + len as usize;
    if b.len() != expected {
        return Err(WireError::Length { got: b.len(), expected });
    }
    let wire = get_u32(b, 28);
    if wire < len {
        return Err(WireError::Field("wire"));
    }
    if get_u16(b, 34) != 0 {
        return Err(WireError::Field("reserved"));
    }
    let n = b[32];
    if n > 3 {
        return Err(WireError::Field("sack_n"));
    }
    let seq_of = |at: usize| unwrap_seq(get_u32(b, at).wrapping_sub(isn), reference);
    let ack = seq_of(20);
    let mut sack = SackBlocks::default();
    for k in 0..3 {
        let at = 36 + 8 * k;
        if k < n as usize {
            let start = seq_of(at);
            // The end is placed next to the start: a block is far shorter than 2^31 bytes.
            let end = unwrap_seq(get_u32(b, at + 4).wrapping_sub(isn), start);
            // A block lies within 2^31 bytes of the ACK carrying it (the packet holds its 32-bit
            // sequence numbers, read back next to the ACK).
            if end < start
                || end - start >= 1 << 31
                || SackBlocks::of(&[(start, end)]).iter(ack).next() != Some((start, end))
            {
                return Err(WireError::Field("sack"));
            }
            sack.push(start, end);
        } else if get_u64(b, at) != 0 {
            return Err(WireError::Field("sack"));
        }
    }
    Ok(Packet {
        flow: get_u32(b, 4),
        kind,
        src: get_u32(b, 8),
        dst: get_u32(b, 12),
        seq: seq_of(16),
        len,
        wire,
        ack,
        sack,
        prio: 0,
        ts: Time::from_ps(get_u64(b, 60)),
        ts_echo: Time::from_ps(get_u64(b, 68)),
        cc: get_cc(b[33], b, ext)?,
        fin: flags & FIN != 0 && kind != PacketKind::Nack,
        ecn,
    })
}

/// The flow id of a datagram and whether it travels forward (SYN, data: to the receiver), for
/// looking up the endpoint that supplies the reference; None if it is not an fctlab datagram.
pub fn peek(b: &[u8]) -> Option<(u32, bool)> {
    (b.len() >= HEADER && b[0..2] == MAGIC).then(|| (get_u32(b, 4), matches!(b[3] & 0b11, 0 | 2)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fctlab_core::protocol::hpcc::header::{IntHop, IntStack, TAG as HPCC_TAG};
    use fctlab_core::protocol::jetmax::header::{JetMaxEcho, JetMaxHeader};
    use fctlab_core::protocol::piqi::header::{PiqiEcho, PiqiHeader};
    use fctlab_core::protocol::rcp::header::{RcpEcho, RcpHeader};
    use fctlab_core::protocol::xcp::header::{XcpEcho, XcpHeader};
    use fctlab_core::rng::Rng;

    fn sample(kind: PacketKind, cc: CongestionHeader) -> Packet {
        Packet {
            flow: 7,
            kind,
            src: 3,
            dst: 9,
            seq: 14_600,
            len: if kind == PacketKind::Data { 1460 } else { 0 },
            wire: 1500,
            ack: 2920,
            sack: SackBlocks::of(&[(4380, 5840), (7300, 8760)]),
            prio: 0,
            ts: Time::from_us(1234),
            ts_echo: Time::from_us(1000),
            cc,
            fin: kind == PacketKind::Data,
            ecn: Ecn::ECT0.with_ece(kind == PacketKind::Ack),
        }
    }

    fn headers() -> Vec<CongestionHeader> {
        vec![
            CongestionHeader::None,
            CongestionHeader::Rcp(RcpHeader { rate_kbps: u32::MAX, rtt_us: 20_000, age_kib: 5 }),
            CongestionHeader::RcpFeedback(RcpEcho { rate_kbps: 10_000 }),
            CongestionHeader::Xcp(XcpHeader { cwnd: 14600.0, rtt_us: 40_000, feedback: -3.5 }),
            CongestionHeader::XcpFeedback(XcpEcho { feedback: 12.25 }),
            CongestionHeader::JetMax(JetMaxHeader { rt: 4, rs: u16::MAX, rate: f32::INFINITY, ipi: 0.001 }),
            CongestionHeader::JetMaxFeedback(JetMaxEcho { rs: 2, rate: 1e7 }),
            CongestionHeader::Piqi(PiqiHeader { rate: f32::INFINITY, interval: 9, id: 3 }),
            CongestionHeader::PiqiFeedback(PiqiEcho { rate: 5e6, interval: 10, id: 4 }),
            hpcc(3).forward(),
            hpcc(5).forward().feedback(),
        ]
    }

    /// Telemetry records of `n` ports.
    fn hpcc(n: u64) -> IntStack {
        let mut s = IntStack::default();
        for k in 0..n {
            s.push(IntHop::new(Time::from_ns(1000 * k + 7), Time::from_ns(333 * k), Time::from_ns(64 * k)));
        }
        s
    }

    fn same(a: &Packet, b: &Packet) {
        assert_eq!(
            (a.flow, a.kind, a.src, a.dst, a.seq, a.len, a.wire, a.ack, a.sack, a.ts, a.ts_echo, a.fin),
            (b.flow, b.kind, b.src, b.dst, b.seq, b.len, b.wire, b.ack, b.sack, b.ts, b.ts_echo, b.fin)
        );
        assert_eq!(a.cc, b.cc);
    }

    #[test]
    fn every_kind_and_congestion_header_round_trips() {
        let mut buf = Vec::new();
        for kind in [PacketKind::Syn, PacketKind::SynAck, PacketKind::Data, PacketKind::Ack, PacketKind::Nack] {
            for cc in headers() {
                let p = sample(kind, cc);
                encode(&p, 0xFFFF_F000, &mut buf);
                let ext = if matches!(cc, CongestionHeader::Hpcc(_) | CongestionHeader::HpccFeedback(_)) {
                    MAX_EXTENSION
                } else {
                    0
                };
                assert_eq!(buf.len(), HEADER + ext + p.len as usize);
                let q = decode(&buf, 0xFFFF_F000, 3000).expect("valid datagram");
                same(&p, &q);
            }
        }
    }

    #[test]
    fn sequence_numbers_wrap_past_four_gigabytes() {
        // A flow 6 GB in: its offsets exceed 2^32, the wire carries them modulo 2^32, and the
        // receiver's reference puts them back.
        let mut p = sample(PacketKind::Data, CongestionHeader::None);
        p.seq = 6_000_000_000;
        p.ack = 6_000_001_460;
        p.sack = SackBlocks::of(&[((1 << 32) - 100, (1 << 32) + 1360)]);
        let mut buf = Vec::new();
        for isn in [0, 1, 0x8000_0000, u32::MAX] {
            encode(&p, isn, &mut buf);
            let q = decode(&buf, isn, 5_999_990_000).unwrap();
            same(&p, &q);
        }
        assert_eq!(unwrap_seq(5, (1 << 32) - 10), (1 << 32) + 5);
        assert_eq!(unwrap_seq(u32::MAX - 4, (1 << 32) + 5), (1 << 32) - 5);
        assert_eq!(unwrap_seq(u32::MAX, 0), u32::MAX as u64, "never below zero");
    }

    #[test]
    fn a_router_decoding_without_reference_re_encodes_the_same_bytes() {
        let mut buf = Vec::new();
        let mut again = Vec::new();
        for cc in headers() {
            let mut p = sample(PacketKind::Data, cc);
            p.seq = 6_000_000_000;
            encode(&p, isn(7, 1), &mut buf);
            let q = decode(&buf, 0, 0).unwrap();
            encode(&q, 0, &mut again);
            assert_eq!(buf, again);
        }
    }

    #[test]
    fn malformed_datagrams_are_errors() {
        let mut buf = Vec::new();
        encode(&sample(PacketKind::Ack, CongestionHeader::None), 0, &mut buf);
        assert_eq!(decode(&buf[..10], 0, 0).unwrap_err(), WireError::Length { got: 10, expected: HEADER });
        let mut b = buf.clone();
        b[0] = 0;
        assert_eq!(decode(&b, 0, 0).unwrap_err(), WireError::Magic);
        let mut b = buf.clone();
        b[2] = 2;
        assert_eq!(decode(&b, 0, 0).unwrap_err(), WireError::Version(2));
        let mut b = buf.clone();
        b[3] |= 0x80;
        assert_eq!(decode(&b, 0, 0).unwrap_err(), WireError::Field("flags"));
        let mut b = buf.clone();
        b[33] = 12;
        assert_eq!(decode(&b, 0, 0).unwrap_err(), WireError::Field("cc_tag"));
        let mut b = buf.clone();
        b[33] = HPCC_TAG;
        assert_eq!(
            decode(&b, 0, 0).unwrap_err(),
            WireError::Length { got: 92, expected: 132 },
            "HPCC's records are missing"
        );
        let mut b = buf.clone();
        b.push(0);
        assert!(matches!(decode(&b, 0, 0), Err(WireError::Length { .. })));
        let mut p = sample(PacketKind::Data, CongestionHeader::XcpFeedback(XcpEcho { feedback: 0.0 }));
        p.cc = CongestionHeader::XcpFeedback(XcpEcho { feedback: f32::NAN });
        encode(&p, 0, &mut buf);
        assert_eq!(decode(&buf, 0, 0).unwrap_err(), WireError::Field("cc.feedback"));
    }

    /// The fuzzer: random bytes, and valid datagrams with random bytes flipped, truncated or
    /// extended. Decoding must return (never panic), and whatever decodes must re-encode to a
    /// datagram that decodes to the same packet.
    #[test]
    fn decoding_garbage_never_panics() {
        let mut rng = Rng::new(0xF022);
        let mut buf = Vec::new();
        let mut again = Vec::new();
        let mut decoded = 0;
        for round in 0..200_000u32 {
            let datagram: Vec<u8> = if round % 2 == 0 {
                let n = (rng.next_u64() % 200) as usize;
                (0..n).map(|_| rng.next_u64() as u8).collect()
            } else {
                let hs = headers();
                let cc = hs[(rng.next_u64() % hs.len() as u64) as usize];
                let kinds = [PacketKind::Syn, PacketKind::SynAck, PacketKind::Data, PacketKind::Ack];
                encode(&sample(kinds[(round / 2 % 4) as usize], cc), rng.next_u64() as u32, &mut buf);
                let mut b = buf.clone();
                for _ in 0..1 + rng.next_u64() % 4 {
                    let at = (rng.next_u64() % b.len() as u64) as usize;
                    b[at] ^= 1 << (rng.next_u64() % 8);
                }
                match rng.next_u64() % 4 {
                    0 => b.truncate((rng.next_u64() % (b.len() as u64 + 1)) as usize),
                    1 => b.extend((0..rng.next_u64() % 16).map(|_| rng.next_u64() as u8)),
                    _ => {}
                }
                b
            };
            let reference = rng.next_u64() >> (rng.next_u64() % 64);
            let isn = rng.next_u64() as u32;
            if let Ok(p) = decode(&datagram, isn, reference) {
                decoded += 1;
                encode(&p, isn, &mut again);
                let q = decode(&again, isn, reference).expect("a decoded packet re-encodes validly");
                same(&p, &q);
            }
        }
        assert!(decoded > 1000, "the mutations should leave some datagrams valid, got {decoded}");
    }
}
