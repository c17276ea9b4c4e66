//! The pcapng container (draft-ietf-opsawg-pcapng): a Section Header Block, one Interface
//! Description Block per captured interface, then one Enhanced Packet Block per packet.
//!
//! Little-endian throughout (the byte-order magic tells readers so), every block padded to 32
//! bits and closed by its length repeated. Interfaces are Ethernet (link type 1) with
//! nanosecond timestamps (`if_tsresol` = 9), and nothing in a file depends on the machine or
//! the wall clock: the same packets give the same bytes.

use std::io::{self, Write};

const SHB: u32 = 0x0A0D_0D0A;
const IDB: u32 = 0x0000_0001;
const EPB: u32 = 0x0000_0006;
const BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;
const LINKTYPE_ETHERNET: u16 = 1;
const OPT_END: u16 = 0;
const OPT_COMMENT: u16 = 1;
const SHB_USERAPPL: u16 = 4;
const IF_NAME: u16 = 2;
const IF_DESCRIPTION: u16 = 3;
const IF_SPEED: u16 = 8;
const IF_TSRESOL: u16 = 9;
/// `if_tsresol` 9: timestamps count nanoseconds.
const NANOSECONDS: u8 = 9;

/// One capture interface: its name and description, and its line rate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    /// `if_name`.
    pub name: String,
    /// `if_description`.
    pub description: String,
    /// `if_speed`, bits/s.
    pub speed_bps: u64,
}

/// Bytes `n` takes once padded to 32 bits.
fn padded(n: usize) -> usize {
    n.div_ceil(4) * 4
}

/// Appends option `code` holding `value` (padded) to `b`.
fn option(b: &mut Vec<u8>, code: u16, value: &[u8]) {
    b.extend_from_slice(&code.to_le_bytes());
    b.extend_from_slice(&(value.len() as u16).to_le_bytes());
    b.extend_from_slice(value);
    b.resize(b.len() + padded(value.len()) - value.len(), 0);
}

/// Writes one block of type `kind` with `body` (already padded) to `out`.
fn block(out: &mut impl Write, kind: u32, body: &[u8]) -> io::Result<()> {
    let total = (12 + body.len()) as u32;
    out.write_all(&kind.to_le_bytes())?;
    out.write_all(&total.to_le_bytes())?;
    out.write_all(body)?;
    out.write_all(&total.to_le_bytes())
}

/// Writes pcapng blocks to `out`: the header and interfaces first ([`PcapngWriter::new`]),
/// then packets.
#[derive(Debug)]
pub struct PcapngWriter<W: Write> {
    out: W,
    interfaces: u32,
}

impl<W: Write> PcapngWriter<W> {
    /// Writes the section header (naming `application`, with `comment` if not empty) and the
    /// interfaces, in order: the first is interface 0.
    pub fn new(mut out: W, application: &str, comment: &str, interfaces: &[Interface]) -> io::Result<Self> {
        let mut b = Vec::with_capacity(128);
        b.extend_from_slice(&BYTE_ORDER_MAGIC.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes()); // major version
        b.extend_from_slice(&0u16.to_le_bytes()); // minor version
        b.extend_from_slice(&(-1i64).to_le_bytes()); // section length: not given
        if !comment.is_empty() {
            option(&mut b, OPT_COMMENT, comment.as_bytes());
        }
        option(&mut b, SHB_USERAPPL, application.as_bytes());
        option(&mut b, OPT_END, &[]);
        block(&mut out, SHB, &b)?;
        for i in interfaces {
            b.clear();
            b.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
            b.extend_from_slice(&0u16.to_le_bytes()); // reserved
            b.extend_from_slice(&0u32.to_le_bytes()); // snaplen: no limit
            option(&mut b, IF_NAME, i.name.as_bytes());
            option(&mut b, IF_DESCRIPTION, i.description.as_bytes());
            option(&mut b, IF_SPEED, &i.speed_bps.to_le_bytes());
            option(&mut b, IF_TSRESOL, &[NANOSECONDS]);
            option(&mut b, OPT_END, &[]);
            block(&mut out, IDB, &b)?;
        }
        Ok(PcapngWriter { out, interfaces: interfaces.len() as u32 })
    }

    /// Writes one packet seen on `interface` at `ts_ns`: `data`, the captured bytes, of a frame
    /// `original` bytes long (more when the capture kept only its start).
    #[inline]
    pub fn packet(&mut self, interface: u32, ts_ns: u64, data: &[u8], original: u32) -> io::Result<()> {
        debug_assert!(interface < self.interfaces && data.len() <= original as usize);
        let pad = padded(data.len()) - data.len();
        let total = (32 + data.len() + pad) as u32;
        let mut head = [0u8; 28];
        head[0..4].copy_from_slice(&EPB.to_le_bytes());
        head[4..8].copy_from_slice(&total.to_le_bytes());
        head[8..12].copy_from_slice(&interface.to_le_bytes());
        head[12..16].copy_from_slice(&((ts_ns >> 32) as u32).to_le_bytes());
        head[16..20].copy_from_slice(&(ts_ns as u32).to_le_bytes());
        head[20..24].copy_from_slice(&(data.len() as u32).to_le_bytes());
        head[24..28].copy_from_slice(&original.to_le_bytes());
        self.out.write_all(&head)?;
        self.out.write_all(data)?;
        self.out.write_all(&[0u8; 3][..pad])?;
        self.out.write_all(&total.to_le_bytes())
    }

    /// Flushes and returns the sink.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    /// Walks the blocks of `b`, checking each closes with its own length; returns (type, body).
    fn blocks(b: &[u8]) -> Vec<(u32, Vec<u8>)> {
        let mut out = Vec::new();
        let mut at = 0;
        while at < b.len() {
            let (kind, len) = (u32_at(b, at), u32_at(b, at + 4) as usize);
            assert_eq!(len % 4, 0, "block at {at} not padded");
            assert_eq!(u32_at(b, at + len - 4), len as u32, "block at {at}: trailing length");
            out.push((kind, b[at + 8..at + len - 4].to_vec()));
            at += len;
        }
        assert_eq!(at, b.len());
        out
    }

    #[test]
    fn a_file_is_a_section_header_its_interfaces_then_packets() {
        let ifs = [
            Interface { name: "a->b".into(), description: "link 0".into(), speed_bps: 10_000_000_000 },
            Interface { name: "b->a".into(), description: "link 1".into(), speed_bps: 1_000 },
        ];
        let mut w = PcapngWriter::new(Vec::new(), "fctlab test", "seed 1", &ifs).unwrap();
        w.packet(1, 0x1_0000_0005, &[1, 2, 3, 4, 5], 60).unwrap();
        w.packet(0, 7, &[9; 8], 8).unwrap();
        let b = w.finish().unwrap();
        let bl = blocks(&b);
        assert_eq!(bl.iter().map(|x| x.0).collect::<Vec<_>>(), vec![SHB, IDB, IDB, EPB, EPB]);
        assert_eq!(u32_at(&bl[0].1, 0), BYTE_ORDER_MAGIC);
        // IDB: link type 1, then options; the tsresol option holds 9.
        let idb = &bl[1].1;
        assert_eq!(u16::from_le_bytes([idb[0], idb[1]]), LINKTYPE_ETHERNET);
        let tsresol = idb.windows(5).any(|w| w == [9, 0, 1, 0, 9]);
        assert!(tsresol, "if_tsresol = 9 missing: {idb:?}");
        // EPB: interface, timestamp high and low, captured and original lengths, padded data.
        let epb = &bl[3].1;
        assert_eq!((u32_at(epb, 0), u32_at(epb, 4), u32_at(epb, 8)), (1, 1, 5));
        assert_eq!((u32_at(epb, 12), u32_at(epb, 16)), (5, 60), "captured 5 of 60 bytes");
        assert_eq!(&epb[20..28], &[1, 2, 3, 4, 5, 0, 0, 0]);
    }

    #[test]
    fn the_same_packets_give_the_same_bytes() {
        let ifs = [Interface { name: "x".into(), description: String::new(), speed_bps: 1 }];
        let write = || {
            let mut w = PcapngWriter::new(Vec::new(), "fctlab", "", &ifs).unwrap();
            w.packet(0, 123, &[7; 13], 1500).unwrap();
            w.finish().unwrap()
        };
        assert_eq!(write(), write());
    }
}
