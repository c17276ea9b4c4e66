//! A [`Packet`] as the Ethernet II / IPv4 / TCP frame a capture shows.
//!
//! The simulator's packet holds what TCP's headers hold, with 64-bit byte offsets; this module
//! writes it out as real headers so that Wireshark's TCP analysis (sequence tracking,
//! retransmissions, SACK, ECN) reads a run as it would read a real trace:
//!
//! - **Ethernet II**: source and destination MACs of the link's two nodes,
//!   `02:fc:` + the node id in 32 bits (locally administered, unicast); type IPv4.
//! - **IPv4**: the hosts' addresses `10.a.b.c`, the node id's low 24 bits (node ids above
//!   2^24 wrap); DSCP = the packet's priority band (RC3's low-priority loop, pFabric's and the
//!   `prio` queues' bands), the way the emulator marks its datagrams
//!   ([`dscp_of_band`]); ECN = the packet's codepoint (RFC 3168: ECT(0) from ECN senders, CE
//!   from a marking router); DF set, TTL 64, a correct header checksum.
//! - **TCP**: ports from the flow id (below); sequence numbers `ISN + 1 + byte offset` (the SYN
//!   takes `ISN`), modulo 2^32, with one ISN per direction ([`isn`]); the ACK of the receiver's
//!   last ACK covers the FIN (one more) once every byte arrived; flags SYN, ACK, FIN (the
//!   segment ending the stream), ECE and CWR (the packet's ECN flags); options: on SYN and
//!   SYN-ACK the MSS (the flow's `mss`, at most 65535), SACK-permitted, window scale 14 and
//!   timestamps, on the rest timestamps (TSval and
//!   TSecr in microseconds of the run's clock) and the SACK blocks (RFC 2018, kind 5). The
//!   window is the largest (65535 << 14): fctlab's receivers do not advertise one. The
//!   checksum is correct over the whole segment (its payload is zeros beside the shim).
//!
//! Ports: the flow id's low 14 bits give the source port `49152 + (id & 0x3fff)` and the next
//! 14 bits the destination port `49152 + (id >> 14 & 0x3fff)`, so every flow of up to 2^28 is
//! its own TCP conversation, in the dynamic range where Wireshark has no dissector that would
//! try to read the zero payload as some protocol.
//!
//! Payload: the segment's `len` bytes are zeros; a capture keeps only the first `keep` of them
//! (the frame's captured length is then shorter than its original length, as with a snap
//! length), and always the explicit protocols' shim ([`super::shim`]).

use super::shim;
use crate::net::checksum::{checksum, sum16};
use crate::net::packet::{dscp_of_band, isn, Packet, PacketKind};

/// Ethernet + IPv4 header bytes.
const ETH: usize = 14;
const IP: usize = 20;
/// TCP header bytes without options.
const TCP: usize = 20;
/// The window scale a SYN offers: the window field then reads 65535 << 14 bytes, 1 GiB.
const WSCALE: u8 = 14;
/// First port of the dynamic range.
const PORT_BASE: u16 = 49152;

/// The MAC address of node `n`.
pub fn mac(n: u32) -> [u8; 6] {
    let b = n.to_be_bytes();
    [0x02, 0xFC, b[0], b[1], b[2], b[3]]
}

/// The IPv4 address of host `n`: 10 and its id's low 24 bits.
pub fn ipv4(n: u32) -> [u8; 4] {
    let b = n.to_be_bytes();
    [10, b[1], b[2], b[3]]
}

/// The (sender, receiver) ports of flow `flow`.
pub fn ports(flow: u32) -> (u16, u16) {
    (PORT_BASE + (flow & 0x3FFF) as u16, PORT_BASE + (flow >> 14 & 0x3FFF) as u16)
}

/// The receiver's ISN of flow `flow` (the sender's is [`isn`]).
fn reverse_isn(flow: u32, seed: u64) -> u32 {
    isn(flow, seed ^ 0x5EC0_0000_0000_0001)
}

/// How a frame was laid out.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Framed {
    /// Bytes of the frame on the wire (what the capture's original length says).
    pub original: u32,
}

/// What a packet's headers need to know of its flow beyond the packet.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowFacts {
    /// The flow's size, when known: the receiver's last ACK then covers the FIN.
    pub stream_end: Option<u64>,
    /// The flow's segment size, which its SYN and SYN-ACK announce (the MSS option).
    pub mss: u32,
}

/// Writes into `buf` (cleared first) the captured bytes of `pkt`'s frame on a hop from node
/// `from` to node `to`: the headers, the shim, and up to `keep` payload bytes. `seed` picks the
/// ISNs; `flow` holds the flow's size and segment size.
pub fn write(pkt: &Packet, from: u32, to: u32, seed: u64, flow: FlowFacts, keep: u32, buf: &mut Vec<u8>) -> Framed {
    let stream_end = flow.stream_end;
    buf.clear();
    let forward = pkt.is_forward();
    let syn = matches!(pkt.kind, PacketKind::Syn | PacketKind::SynAck);
    let (isn_f, isn_r) = (isn(pkt.flow, seed), reverse_isn(pkt.flow, seed));
    let (port_s, port_r) = ports(pkt.flow);
    let (sport, dport) = if forward { (port_s, port_r) } else { (port_r, port_s) };
    let (seq, ack, mut flags) = match pkt.kind {
        PacketKind::Syn => (isn_f, 0, SYN),
        PacketKind::SynAck => (isn_r, isn_f.wrapping_add(1), SYN | ACK),
        PacketKind::Data => (
            isn_f.wrapping_add(1).wrapping_add(pkt.seq as u32),
            isn_r.wrapping_add(1),
            ACK | if pkt.fin { FIN } else { 0 },
        ),
        // TCP has no NACK: a go-back-N NACK is written as the cumulative ACK it carries.
        PacketKind::Ack | PacketKind::Nack => {
            let fin = (stream_end == Some(pkt.ack)) as u32;
            (isn_r.wrapping_add(1), isn_f.wrapping_add(1).wrapping_add(pkt.ack as u32).wrapping_add(fin), ACK)
        }
    };
    if pkt.ecn.ece() {
        flags |= ECE;
    }
    if pkt.ecn.cwr() {
        flags |= CWR;
    }

    // TCP options: timestamps everywhere, MSS, SACK-permitted and window scale on SYNs, SACK
    // blocks. Wireshark's expert info notes a SYN without MSS (RFC 9293 sec. 3.7.1: a sender
    // without one assumes 536 bytes).
    let mut opts = [0u8; 40];
    let mut n = 0;
    let mut put = |b: &[u8]| {
        opts[n..n + b.len()].copy_from_slice(b);
        n += b.len();
    };
    if syn {
        let mss = flow.mss.min(u16::MAX as u32) as u16;
        put(&[MSS, 4]);
        put(&mss.to_be_bytes());
        put(&[4, 2, NOP, 3, 3, WSCALE]);
    } else {
        put(&[NOP, NOP]);
    }
    let tsval = (pkt.ts.ps() / 1_000_000) as u32;
    let tsecr = if pkt.kind == PacketKind::Syn { 0 } else { (pkt.ts_echo.ps() / 1_000_000) as u32 };
    put(&[8, 10]);
    put(&tsval.to_be_bytes());
    put(&tsecr.to_be_bytes());
    let blocks = if pkt.kind == PacketKind::Ack { pkt.sack.n.min(3) as usize } else { 0 };
    if blocks > 0 {
        put(&[NOP, NOP, 5, 2 + 8 * blocks as u8]);
        let to_seq = |x: u64| isn_f.wrapping_add(1).wrapping_add(x as u32);
        for (s, e) in pkt.sacks().take(blocks) {
            put(&to_seq(s).to_be_bytes());
            put(&to_seq(e).to_be_bytes());
        }
    }
    let tcp_len = TCP + n;
    debug_assert_eq!(tcp_len % 4, 0, "options pad to 32 bits");

    let shim = shim::encode(&pkt.cc);
    // The shim rides in the payload when it fits there, else after the IP packet (module docs of
    // `shim`); a payload kept short still keeps it.
    let in_payload = shim.len() > 0 && pkt.len as usize >= shim.len();
    let trailer = if in_payload { 0 } else { shim.len() };
    let kept = if in_payload {
        (keep as usize).max(shim.len()).min(pkt.len as usize)
    } else if trailer > 0 {
        pkt.len as usize // shorter than the shim: kept whole, so that the trailer after it is kept
    } else {
        keep.min(pkt.len) as usize
    };
    let ip_len = IP + tcp_len + pkt.len as usize;
    let original = (ETH + ip_len + trailer) as u32;
    buf.resize(ETH + IP + tcp_len + kept + trailer, 0);

    // Ethernet II.
    buf[0..6].copy_from_slice(&mac(to));
    buf[6..12].copy_from_slice(&mac(from));
    buf[12..14].copy_from_slice(&0x0800u16.to_be_bytes());

    // IPv4.
    let (src, dst) = (ipv4(pkt.src), ipv4(pkt.dst));
    let ip = &mut buf[ETH..ETH + IP];
    ip[0] = 0x45;
    ip[1] = dscp_of_band(pkt.prio) << 2 | pkt.ecn.codepoint().bits();
    ip[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
    ip[6] = 0x40; // DF
    ip[8] = 64;
    ip[9] = 6;
    ip[12..16].copy_from_slice(&src);
    ip[16..20].copy_from_slice(&dst);
    let c = checksum(sum16(0, ip));
    ip[10..12].copy_from_slice(&c.to_be_bytes());

    // TCP.
    let t0 = ETH + IP;
    let tcp = &mut buf[t0..t0 + tcp_len];
    tcp[0..2].copy_from_slice(&sport.to_be_bytes());
    tcp[2..4].copy_from_slice(&dport.to_be_bytes());
    tcp[4..8].copy_from_slice(&seq.to_be_bytes());
    tcp[8..12].copy_from_slice(&ack.to_be_bytes());
    tcp[12] = ((tcp_len / 4) as u8) << 4;
    tcp[13] = flags;
    tcp[14..16].copy_from_slice(&u16::MAX.to_be_bytes());
    tcp[20..].copy_from_slice(&opts[..n]);
    if in_payload {
        buf[t0 + tcp_len..t0 + tcp_len + shim.len()].copy_from_slice(shim.bytes());
    }
    if trailer > 0 {
        let at = ETH + ip_len;
        buf[at..at + trailer].copy_from_slice(shim.bytes());
    }
    // Checksum over the pseudo-header, the header and the payload: past the shim the payload is
    // zeros, which add nothing, so the bytes not kept need not exist.
    let seg_len = (tcp_len + pkt.len as usize) as u32;
    let mut sum = sum16(0, &src) + sum16(0, &dst) + 6 + (seg_len >> 16) + (seg_len & 0xFFFF);
    sum = sum16(sum, &buf[t0..t0 + tcp_len]);
    if in_payload {
        sum = sum16(sum, shim.bytes());
    }
    let c = checksum(sum);
    buf[t0 + 16..t0 + 18].copy_from_slice(&c.to_be_bytes());
    Framed { original }
}

const NOP: u8 = 1;
/// Option kind: maximum segment size (RFC 9293 sec. 3.2).
const MSS: u8 = 2;
const FIN: u8 = 0x01;
const SYN: u8 = 0x02;
const ACK: u8 = 0x10;
const ECE: u8 = 0x40;
const CWR: u8 = 0x80;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{CongestionHeader, Ecn, SackBlocks};
    use crate::protocol::rcp::header::RcpEcho;
    use crate::units::Time;

    fn pkt(kind: PacketKind) -> Packet {
        Packet {
            flow: 20_000,
            kind,
            src: 3,
            dst: 9,
            seq: 2920,
            len: if kind == PacketKind::Data { 1460 } else { 0 },
            wire: 1500,
            ack: 4380,
            sack: SackBlocks::of(&[(5840, 7300)]),
            prio: 1,
            ts: Time::from_us(1234),
            ts_echo: Time::from_us(1000),
            cc: CongestionHeader::None,
            fin: false,
            ecn: Ecn::ECT0,
        }
    }

    /// The checksum a receiver computes over `data` (zero when it holds its own checksum).
    fn verify(data: &[u8]) -> u16 {
        checksum(sum16(0, data))
    }

    #[test]
    fn headers_carry_the_packet_and_both_checksums_verify() {
        let mut buf = Vec::new();
        let p = pkt(PacketKind::Data);
        let f = write(&p, 5, 6, 1, facts(None), 1460, &mut buf);
        assert_eq!(f.original as usize, buf.len(), "the whole payload kept");
        assert_eq!(f.original, 14 + 20 + 32 + 1460);
        assert_eq!(&buf[0..6], &mac(6));
        assert_eq!(&buf[6..12], &mac(5));
        let ip = &buf[14..34];
        assert_eq!(verify(ip), 0, "IPv4 header checksum");
        assert_eq!(ip[1], 1 << 2 | 0b10, "DSCP = band 1, ECN = ECT(0)");
        assert_eq!(&ip[12..16], &[10, 0, 0, 3]);
        let tcp = &buf[34..];
        let mut pseudo = Vec::new();
        pseudo.extend_from_slice(&ip[12..20]);
        pseudo.extend_from_slice(&[0, 6]);
        pseudo.extend_from_slice(&(tcp.len() as u16).to_be_bytes());
        pseudo.extend_from_slice(tcp);
        assert_eq!(verify(&pseudo), 0, "TCP checksum over the pseudo-header and segment");
        let (s, d) = ports(20_000);
        assert_eq!((u16::from_be_bytes([tcp[0], tcp[1]]), u16::from_be_bytes([tcp[2], tcp[3]])), (s, d));
        assert_eq!(u32::from_be_bytes(tcp[4..8].try_into().unwrap()), isn(20_000, 1).wrapping_add(1 + 2920));
        assert_eq!(tcp[12] >> 4, 8, "data offset: 20 bytes + 12 of timestamps");
    }

    /// What a test flow's headers know of it: its size, and 1460-byte segments.
    fn facts(stream_end: Option<u64>) -> FlowFacts {
        FlowFacts { stream_end, mss: 1460 }
    }

    #[test]
    fn a_syn_offers_its_mss_sack_window_scale_and_timestamps_in_whole_words() {
        let mut buf = Vec::new();
        for (kind, flags) in [(PacketKind::Syn, SYN), (PacketKind::SynAck, SYN | ACK)] {
            write(&pkt(kind), 5, 6, 1, FlowFacts { stream_end: None, mss: 960 }, 0, &mut buf);
            let tcp = &buf[34..];
            assert_eq!(tcp.len(), 40);
            assert_eq!(tcp[12] >> 4, 10);
            assert_eq!(&tcp[20..32], &[MSS, 4, 0x03, 0xC0, 4, 2, NOP, 3, 3, WSCALE, 8, 10]);
            assert_eq!(tcp[13], flags);
            let ip = &buf[14..34];
            assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 20 + 40, "IPv4 total length");
            let mut pseudo = Vec::new();
            pseudo.extend_from_slice(&ip[12..20]);
            pseudo.extend_from_slice(&[0, 6, 0, 40]);
            pseudo.extend_from_slice(tcp);
            assert_eq!(verify(&pseudo), 0, "TCP checksum with the MSS option");
        }
        // A segment size beyond the option's 16 bits announces the most it can.
        write(&pkt(PacketKind::Syn), 5, 6, 1, FlowFacts { stream_end: None, mss: 1 << 20 }, 0, &mut buf);
        assert_eq!(&buf[34 + 20..34 + 24], &[MSS, 4, 0xFF, 0xFF]);
    }

    #[test]
    fn a_short_capture_keeps_the_headers_and_the_shim() {
        let mut buf = Vec::new();
        let mut p = pkt(PacketKind::Data);
        let f = write(&p, 5, 6, 1, facts(None), 0, &mut buf);
        assert_eq!((buf.len(), f.original), (66, 66 + 1460));
        p.cc = CongestionHeader::RcpFeedback(RcpEcho { rate_kbps: 77 });
        let f = write(&p, 5, 6, 1, facts(None), 0, &mut buf);
        assert_eq!((buf.len(), f.original), (66 + 18, 66 + 1460), "the shim opens the payload");
        assert_eq!(&buf[66..68], &[0xFC, 0x1A]);
    }

    #[test]
    fn an_ack_carries_its_sack_blocks_and_a_shim_after_the_ip_packet() {
        let mut buf = Vec::new();
        let mut p = pkt(PacketKind::Ack);
        p.cc = CongestionHeader::RcpFeedback(RcpEcho { rate_kbps: 77 });
        p.ecn = Ecn::NOT_ECT.with_ece(true);
        let f = write(&p, 5, 6, 1, facts(Some(4380)), 0, &mut buf);
        let tcp_len = 20 + 12 + 4 + 8;
        assert_eq!(f.original as usize, 14 + 20 + tcp_len + 18);
        assert_eq!(buf.len(), f.original as usize);
        assert_eq!(u16::from_be_bytes([buf[16], buf[17]]) as usize, 20 + tcp_len, "the shim is outside IPv4");
        let tcp = &buf[34..34 + tcp_len];
        assert_eq!(tcp[13], ACK | ECE);
        assert_eq!(&tcp[32..36], &[NOP, NOP, 5, 10]);
        let fwd = isn(20_000, 1).wrapping_add(1);
        assert_eq!(u32::from_be_bytes(tcp[36..40].try_into().unwrap()), fwd.wrapping_add(5840));
        assert_eq!(
            u32::from_be_bytes(tcp[8..12].try_into().unwrap()),
            fwd.wrapping_add(4380 + 1),
            "the FIN acknowledged"
        );
        assert_eq!(&buf[14 + 20 + tcp_len..][..2], &[0xFC, 0x1A]);
    }

    #[test]
    fn a_segment_shorter_than_its_shim_keeps_its_payload_and_the_trailer() {
        let mut buf = Vec::new();
        let mut p = pkt(PacketKind::Data);
        p.len = 10;
        p.cc = CongestionHeader::RcpFeedback(RcpEcho { rate_kbps: 77 });
        let f = write(&p, 5, 6, 1, facts(None), 0, &mut buf);
        assert_eq!((buf.len(), f.original as usize), (66 + 10 + 18, 66 + 10 + 18));
        assert_eq!(&buf[76..78], &[0xFC, 0x1A]);
    }

    #[test]
    fn flows_have_their_own_ports() {
        let seen: std::collections::HashSet<_> = (0..1 << 16).map(|f| ports(f * 3989)).collect();
        assert_eq!(seen.len(), 1 << 16);
    }
}
