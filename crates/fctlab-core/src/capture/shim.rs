//! The shim: an explicit protocol's congestion header (RCP, XCP, JetMax, PIQI-RCP, pFabric,
//! HPCC's telemetry, a plug-in's words) as bytes a capture carries, for the Wireshark dissector
//! `tools/wireshark/fctlab.lua` to name.
//!
//! Layout, big-endian (the fields are the emulator's wire encoding of the header, from
//! [`header_to_wire`] and the extension of [`header_extension`], HPCC's records, so both speak
//! one encoding):
//!
//! | offset | bytes | field |
//! |---|---|---|
//! | 0 | 2 | magic `0xFC 0x1A` |
//! | 2 | 1 | version (1) |
//! | 3 | 1 | tag: the wire tag of the header (1 RCP, 2 its echo, ... 11 HPCC's echo; 128-255 plug-ins) |
//! | 4 | 2 | bytes in the shim, these six included: 18, or 58 with HPCC's records |
//! | 6 | 12 | the header's three 32-bit words |
//! | 18 | 40 | HPCC only: five records of two words (unused ones zero) |
//!
//! Placement. TCP analysis must read a capture the same with or without the dissector, so
//! the shim must not change any TCP length or sequence number, nor sit where Wireshark looks
//! for TCP:
//! - a data segment as long as the shim carries it as the first bytes of its payload, which
//!   are the emulated application's zeros anyway: the segment keeps its length, and a capture
//!   that keeps only the headers keeps the shim too;
//! - a packet without such a payload (SYN, SYN-ACK, ACK, a short last segment) carries it after
//!   its IP packet, as an Ethernet trailer: IPv4's total length leaves it out, so TCP never
//!   sees it. An ACK cannot hold it in its payload (an ACK with payload is data to TCP, and
//!   the receiver's ACKs would read as retransmissions), nor in a TCP option: timestamps and
//!   three SACK blocks take 38 of the 40 option bytes, and HPCC's records alone are 40.
//!
//! The dissector (a Wireshark postdissector) looks for the shim right after the TCP header and
//! right after the IP packet, and knows it by its magic, version and length.

use crate::net::packet::CongestionHeader;
use crate::protocol::header::{header_extension, header_to_wire};

/// The magic that opens a shim (the emulator's datagrams open with it too).
pub const MAGIC: [u8; 2] = [0xFC, 0x1A];
/// The shim version this code writes.
pub const VERSION: u8 = 1;
/// Largest shim: six bytes, three words, ten record words.
pub const MAX: usize = 6 + 12 + 40;

/// A header's shim bytes (empty for plain TCP).
#[derive(Copy, Clone, Debug)]
pub struct Shim {
    bytes: [u8; MAX],
    len: u8,
}

impl Shim {
    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// How many.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.len as usize
    }
}

/// The shim of `cc`: none for plain TCP.
pub fn encode(cc: &CongestionHeader) -> Shim {
    let mut s = Shim { bytes: [0; MAX], len: 0 };
    if matches!(cc, CongestionHeader::None) {
        return s;
    }
    let (tag, words) = header_to_wire(*cc);
    let records = header_extension(cc);
    let len = if records.is_some() { MAX } else { 18 };
    s.bytes[0..2].copy_from_slice(&MAGIC);
    s.bytes[2] = VERSION;
    s.bytes[3] = tag;
    s.bytes[4..6].copy_from_slice(&(len as u16).to_be_bytes());
    for (k, w) in words.iter().chain(records.iter().flatten()).enumerate() {
        s.bytes[6 + 4 * k..10 + 4 * k].copy_from_slice(&w.to_be_bytes());
    }
    s.len = len as u8;
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::header::{header_from_wire, with_header_extension};
    use crate::protocol::hpcc::header::{IntHop, IntStack};
    use crate::protocol::rcp::header::RcpHeader;
    use crate::units::Time;

    fn word(b: &[u8], k: usize) -> u32 {
        u32::from_be_bytes(b[6 + 4 * k..10 + 4 * k].try_into().unwrap())
    }

    #[test]
    fn plain_tcp_has_no_shim() {
        assert_eq!(encode(&CongestionHeader::None).len(), 0);
    }

    #[test]
    fn a_shim_holds_the_wire_encoding_of_its_header() {
        let h = CongestionHeader::Rcp(RcpHeader { rate_kbps: 1_000_000, rtt_us: 200, age_kib: 3 });
        let s = encode(&h);
        let b = s.bytes();
        assert_eq!((&b[0..4], b.len()), (&[0xFC, 0x1A, 1, 1][..], 18));
        assert_eq!(header_from_wire(b[3], [word(b, 0), word(b, 1), word(b, 2)]), Ok(h));
    }

    #[test]
    fn hpcc_records_follow_the_words() {
        let mut st = IntStack::default();
        st.push(IntHop::new(Time::from_ns(5000), Time::from_ns(300), Time::from_ns(1200)));
        st.push(IntHop::new(Time::from_ns(9000), Time::from_ns(700), Time::from_ns(0)));
        let h = st.forward();
        let s = encode(&h);
        let b = s.bytes();
        assert_eq!((b.len(), u16::from_be_bytes([b[4], b[5]])), (58, 58));
        let back = header_from_wire(b[3], [word(b, 0), word(b, 1), word(b, 2)]).unwrap();
        let back = with_header_extension(back, std::array::from_fn(|k| word(b, 3 + k)));
        assert_eq!(back, h);
    }
}
