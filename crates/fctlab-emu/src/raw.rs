//! The router's packet socket: the kernel's TCP frames through the same emulated links.
//!
//! Kernel flows (`stack = "linux"`, [`super::kernel`]) send real TCP/IP frames from each host
//! namespace to its router end `r<node>`. The router namespace's kernel does not forward them
//! (IP forwarding stays off there; it drops them without answering, which [`RawReport`] checks
//! by counting the router kernel's own outgoing ICMP and TCP frames). Instead one `AF_PACKET`
//! socket in the router namespace captures every frame arriving on the `r<node>` veths. Each
//! IPv4 TCP frame of a kernel flow becomes a [`Packet`] of the world: source node from the
//! interface it came in on, destination node from its destination address, flow and direction
//! from its ports ([`super::kernel_ports::flow_of_ports`]), `wire` = the IP packet's length, priority
//! band from its DSCP, no congestion header, and in `seq` a slot number in a ring of stored
//! frames (kernel packets carry no fctlab sequence number; nothing on the path reads it but
//! scripted drops, which kernel flows do not use). When the world delivers the packet to its
//! host, the stored frame goes out on that host's `r<node>`, with the host's MAC as
//! destination and the router end's as source; the IP packet is unchanged (no TTL decrement,
//! so checksums stay valid end to end).
//!
//! The veths carrying kernel TCP have segmentation and checksum offloads off (the orchestrator
//! runs `ethtool -K`), so every captured frame is one segment of at most 1514 bytes with
//! complete checksums: the report counts frames with a bad IPv4 or TCP checksum and the
//! largest frame seen.

use super::kernel_link::KernelLink;
use super::kernel_ports::flow_of_ports;
use fctlab_core::net::checksum::{checksum, sum16};
use fctlab_core::net::packet::{CongestionHeader, Ecn, Packet, PacketKind, SackBlocks};
use fctlab_core::units::Time;
use fctlab_core::world::World;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io;
use std::mem::{size_of, zeroed};
use std::net::Ipv4Addr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// Stored frames: a packet that waits in the world's queues longer than `RING` later frames
/// have arrived finds its slot reused (counted as `stale`).
const RING: usize = 1 << 16;
const ETH_HEADER: usize = 14;
const ETH_P_IP: u16 = 0x0800;
const ETH_P_ALL: u16 = 0x0003;
/// `SO_TIMESTAMPNS` (asm-generic value; as in [`super::sock`]).
const SO_TIMESTAMPNS: i32 = 35;

/// What the packet socket saw.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RawReport {
    /// Kernel-flow frames captured and sent into the world.
    pub frames_in: u64,
    /// Frames written to a host's veth.
    pub frames_out: u64,
    /// Incoming TCP frames that are no kernel flow's (ports, addresses or interface wrong).
    pub foreign: u64,
    /// Captured frames with a wrong IPv4 header or TCP checksum.
    pub bad_checksums: u64,
    /// The longest captured frame, bytes (Ethernet header included).
    pub max_frame: u64,
    /// Packets delivered after their stored frame was overwritten: lost.
    pub stale: u64,
    /// Writes the kernel refused (full buffer): lost frames.
    pub lost_sends: u64,
    /// ICMP frames the router namespace's own kernel sent (it must not answer kernel flows).
    pub router_icmp: u64,
    /// TCP frames the router namespace's own kernel sent (resets; it must send none).
    pub router_tcp: u64,
}

struct Port {
    node: u32,
    host_ip: Ipv4Addr,
    ifindex: i32,
    host_mac: [u8; 6],
    router_mac: [u8; 6],
}

/// The router's packet socket and the frames in flight.
pub struct Raw {
    fd: OwnedFd,
    ports: Vec<Port>,
    by_ifindex: HashMap<i32, usize>,
    by_ip: HashMap<Ipv4Addr, u32>,
    by_node: HashMap<u32, usize>,
    ring: Vec<(u64, Vec<u8>)>,
    next: u64,
    buf: Vec<u8>,
    /// Counts.
    pub report: RawReport,
}

/// A captured kernel-flow frame, as the world's packet.
pub struct Captured {
    /// When the kernel received it, `CLOCK_MONOTONIC` ns.
    pub arrival_ns: u64,
    /// The host it came from.
    pub node: u32,
    /// The packet.
    pub pkt: Packet,
}

fn mac_of(ifname: &str) -> io::Result<[u8; 6]> {
    let text = std::fs::read_to_string(format!("/sys/class/net/{ifname}/address"))
        .map_err(|e| io::Error::other(format!("reading the MAC address of {ifname}: {e}")))?;
    let octets: Vec<u8> = text.trim().split(':').filter_map(|o| u8::from_str_radix(o, 16).ok()).collect();
    octets.try_into().map_err(|_| io::Error::other(format!("MAC address of {ifname}: cannot parse {text:?}")))
}

impl Raw {
    /// Opens the packet socket for the hosts `links` (their router ends in this namespace).
    pub fn open(links: &[KernelLink]) -> io::Result<Raw> {
        // SAFETY: plain socket(2) call.
        let fd = unsafe {
            libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                i32::from(ETH_P_ALL.to_be()),
            )
        };
        if fd < 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::other(format!("opening a packet socket (needs root / CAP_NET_RAW): {e}")));
        }
        // SAFETY: a fresh descriptor this value now owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let one = 1i32;
        let big = 8i32 << 20;
        for (name, v) in [(SO_TIMESTAMPNS, &one), (libc::SO_RCVBUF, &big), (libc::SO_SNDBUF, &big)] {
            // SAFETY: a valid fd and a pointer to an i32 of the size given. Best effort for the
            // buffer sizes (capped by the kernel's maxima).
            unsafe {
                libc::setsockopt(fd.as_raw_fd(), libc::SOL_SOCKET, name, v as *const i32 as *const libc::c_void, 4);
            }
        }
        let mut raw = Raw {
            fd,
            ports: Vec::new(),
            by_ifindex: HashMap::new(),
            by_ip: HashMap::new(),
            by_node: HashMap::new(),
            ring: (0..RING).map(|_| (u64::MAX, Vec::new())).collect(),
            next: 0,
            buf: vec![0u8; 65536 + ETH_HEADER],
            report: RawReport::default(),
        };
        for l in links {
            // A KernelLink's name holds no NUL (kernel_link::check_ifname).
            let name = std::ffi::CString::new(l.ifname()).map_err(|_| io::Error::other("interface name"))?;
            // SAFETY: a NUL-terminated string.
            let ifindex = unsafe { libc::if_nametoindex(name.as_ptr()) } as i32;
            if ifindex == 0 {
                return Err(io::Error::other(format!("interface {} is not in this namespace", l.ifname())));
            }
            let k = raw.ports.len();
            raw.ports.push(Port {
                node: l.node(),
                host_ip: l.host_ip(),
                ifindex,
                host_mac: l.host_mac(),
                router_mac: mac_of(l.ifname())?,
            });
            raw.by_ifindex.insert(ifindex, k);
            raw.by_ip.insert(l.host_ip(), l.node());
            raw.by_node.insert(l.node(), k);
        }
        Ok(raw)
    }

    /// The descriptor, for [`super::sock::wait`].
    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// The next captured kernel-flow frame, if any is waiting (other frames are counted or
    /// skipped).
    pub fn recv(&mut self, world: &World) -> io::Result<Option<Captured>> {
        loop {
            // SAFETY: all-zero is a valid value of these plain C structs.
            let mut from: libc::sockaddr_ll = unsafe { zeroed() };
            let mut iov = libc::iovec { iov_base: self.buf.as_mut_ptr() as *mut libc::c_void, iov_len: self.buf.len() };
            let mut control = [0u64; 8];
            // SAFETY: as above.
            let mut msg: libc::msghdr = unsafe { zeroed() };
            msg.msg_name = &mut from as *mut libc::sockaddr_ll as *mut libc::c_void;
            msg.msg_namelen = size_of::<libc::sockaddr_ll>() as libc::socklen_t;
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
            msg.msg_controllen = size_of::<[u64; 8]>() as _;
            // SAFETY: msg points at live buffers of the sizes it states.
            let n = unsafe { libc::recvmsg(self.fd(), &mut msg, libc::MSG_DONTWAIT) };
            if n < 0 {
                let e = io::Error::last_os_error();
                match e.raw_os_error() {
                    Some(libc::EAGAIN) => return Ok(None),
                    Some(libc::EINTR) => continue,
                    _ => return Err(e),
                }
            }
            let mut stamp = None;
            // SAFETY: CMSG_* walk the control buffer the kernel filled, within msg_controllen.
            unsafe {
                let mut c = libc::CMSG_FIRSTHDR(&msg);
                while !c.is_null() {
                    if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == SO_TIMESTAMPNS {
                        stamp = Some(std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec));
                    }
                    c = libc::CMSG_NXTHDR(&msg, c);
                }
            }
            let n = n as usize;
            let Some(&port) = self.by_ifindex.get(&from.sll_ifindex) else { continue };
            let frame = &self.buf[..n];
            let Some(ip) = ipv4(frame) else { continue };
            if from.sll_pkttype == libc::PACKET_OUTGOING {
                match ip.proto {
                    1 => self.report.router_icmp += 1,
                    6 => self.report.router_tcp += 1,
                    _ => {}
                }
                continue;
            }
            if ip.proto != 6 || msg.msg_flags & libc::MSG_TRUNC != 0 {
                continue;
            }
            self.report.max_frame = self.report.max_frame.max(n as u64);
            if !checksums_ok(frame) {
                self.report.bad_checksums += 1;
            }
            let src = self.ports[port].node;
            let from_host = ip.src_ip == self.ports[port].host_ip;
            let Some(pkt) = self.packet(world, &ip, src).filter(|_| from_host) else {
                self.report.foreign += 1;
                continue;
            };
            let slot = pkt.seq as usize % RING;
            let entry = &mut self.ring[slot];
            entry.0 = pkt.seq;
            entry.1.clear();
            entry.1.extend_from_slice(&self.buf[..n]);
            self.report.frames_in += 1;
            let mono = super::clock::monotonic_ns();
            let arrival_ns = match stamp {
                Some(ts) => {
                    let real = ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64;
                    mono.saturating_sub(realtime_ns().saturating_sub(real))
                }
                None => mono,
            };
            return Ok(Some(Captured { arrival_ns, node: src, pkt }));
        }
    }

    /// The world's packet for the kernel flow's TCP frame in `buf` from host `src`, None if it is
    /// no kernel flow's between the hosts it claims.
    fn packet(&mut self, world: &World, ip: &Ipv4, src: u32) -> Option<Packet> {
        let tcp = &self.buf[ip.payload..ETH_HEADER + ip.total_len as usize];
        if tcp.len() < 20 {
            return None;
        }
        let sport = u16::from_be_bytes([tcp[0], tcp[1]]);
        let dport = u16::from_be_bytes([tcp[2], tcp[3]]);
        let (flow, forward) = flow_of_ports(sport, dport)?;
        let dst = *self.by_ip.get(&ip.dst_ip)?;
        let plan = world.plans().get(flow as usize)?;
        world.kernel_stack(flow as usize)?;
        let (s, d) = if forward { (plan.src, plan.dst) } else { (plan.dst, plan.src) };
        if (s, d) != (src as usize, dst as usize) {
            return None;
        }
        let data_off = usize::from(tcp[12] >> 4) * 4;
        let syn = tcp[13] & 0x02 != 0;
        let len = (ip.total_len as usize).saturating_sub(ip.payload - ETH_HEADER + data_off) as u32;
        let kind = match (syn, forward) {
            (true, true) => PacketKind::Syn,
            (true, false) => PacketKind::SynAck,
            (false, true) => PacketKind::Data,
            (false, false) => PacketKind::Ack,
        };
        let slot = self.next;
        self.next += 1;
        Some(Packet {
            flow,
            kind,
            src,
            dst,
            seq: slot,
            len,
            wire: u32::from(ip.total_len),
            ack: 0,
            sack: SackBlocks::default(),
            prio: ip.tos >> 2,
            ts: Time::ZERO,
            ts_echo: Time::ZERO,
            cc: CongestionHeader::None,
            fin: false,
            // The kernel's ECN codepoint, so that a marking queue can see it (the mark is
            // not written back into the frame).
            ecn: Ecn::from_bits(ip.tos & 0b11).unwrap_or_default(),
        })
    }

    /// Writes the stored frame of `pkt` (delivered by the world) to its host's veth.
    pub fn send(&mut self, pkt: &Packet) -> io::Result<()> {
        let Some(&k) = self.by_node.get(&pkt.dst) else {
            self.report.lost_sends += 1;
            return Ok(());
        };
        let slot = pkt.seq as usize % RING;
        if self.ring[slot].0 != pkt.seq {
            self.report.stale += 1;
            return Ok(());
        }
        let port = &self.ports[k];
        let frame = &mut self.ring[slot].1;
        frame[0..6].copy_from_slice(&port.host_mac);
        frame[6..12].copy_from_slice(&port.router_mac);
        // SAFETY: all-zero is a valid sockaddr_ll.
        let mut to: libc::sockaddr_ll = unsafe { zeroed() };
        to.sll_family = libc::AF_PACKET as u16;
        to.sll_protocol = ETH_P_IP.to_be();
        to.sll_ifindex = port.ifindex;
        to.sll_halen = 6;
        to.sll_addr[..6].copy_from_slice(&port.host_mac);
        // SAFETY: frame and to are live for the call, of the lengths given.
        let r = unsafe {
            libc::sendto(
                self.fd.as_raw_fd(),
                frame.as_ptr() as *const libc::c_void,
                frame.len(),
                0,
                &to as *const libc::sockaddr_ll as *const libc::sockaddr,
                size_of::<libc::sockaddr_ll>() as u32,
            )
        };
        self.ring[slot].0 = u64::MAX;
        if r < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::EAGAIN | libc::ENOBUFS) => {
                    self.report.lost_sends += 1;
                    Ok(())
                }
                _ => Err(e),
            };
        }
        self.report.frames_out += 1;
        Ok(())
    }
}

fn realtime_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The IPv4 header fields the router reads.
struct Ipv4 {
    proto: u8,
    tos: u8,
    total_len: u16,
    src_ip: Ipv4Addr,
    dst_ip: Ipv4Addr,
    /// Offset of the IP payload in the frame.
    payload: usize,
}

/// The IPv4 header of an Ethernet frame (None: not IPv4, or cut short).
fn ipv4(frame: &[u8]) -> Option<Ipv4> {
    if frame.len() < ETH_HEADER + 20 || u16::from_be_bytes([frame[12], frame[13]]) != ETH_P_IP {
        return None;
    }
    let h = &frame[ETH_HEADER..];
    let ihl = usize::from(h[0] & 0x0F) * 4;
    let total_len = u16::from_be_bytes([h[2], h[3]]);
    if h[0] >> 4 != 4 || ihl < 20 || (total_len as usize) < ihl || h.len() < total_len as usize {
        return None;
    }
    Some(Ipv4 {
        proto: h[9],
        tos: h[1],
        total_len,
        src_ip: Ipv4Addr::new(h[12], h[13], h[14], h[15]),
        dst_ip: Ipv4Addr::new(h[16], h[17], h[18], h[19]),
        payload: ETH_HEADER + ihl,
    })
}

/// True if the frame's IPv4 header checksum and TCP checksum (with its pseudo-header) hold.
pub fn checksums_ok(frame: &[u8]) -> bool {
    let Some(ip) = ipv4(frame) else { return false };
    let header = &frame[ETH_HEADER..ip.payload];
    if checksum(sum16(0, header)) != 0 {
        return false;
    }
    let segment = &frame[ip.payload..ETH_HEADER + ip.total_len as usize];
    let mut pseudo = [0u8; 12];
    pseudo[0..4].copy_from_slice(&ip.src_ip.octets());
    pseudo[4..8].copy_from_slice(&ip.dst_ip.octets());
    pseudo[9] = ip.proto;
    pseudo[10..12].copy_from_slice(&(segment.len() as u16).to_be_bytes());
    checksum(sum16(sum16(0, &pseudo), segment)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An Ethernet + IPv4 + TCP frame with correct checksums (computed here the long way).
    fn frame(payload: &[u8]) -> Vec<u8> {
        let mut f = vec![0u8; ETH_HEADER];
        f[12..14].copy_from_slice(&ETH_P_IP.to_be_bytes());
        let total = 20 + 20 + payload.len();
        let mut ip = vec![0x45, 0, 0, 0, 0, 1, 0x40, 0, 64, 6, 0, 0, 198, 18, 0, 2, 198, 18, 0, 6];
        ip[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        let c = checksum(sum16(0, &ip));
        ip[10..12].copy_from_slice(&c.to_be_bytes());
        let mut tcp = vec![0u8; 20];
        tcp[0..2].copy_from_slice(&10_003u16.to_be_bytes());
        tcp[2..4].copy_from_slice(&5001u16.to_be_bytes());
        tcp[12] = 5 << 4;
        tcp.extend_from_slice(payload);
        let mut pseudo = vec![198, 18, 0, 2, 198, 18, 0, 6, 0, 6];
        pseudo.extend_from_slice(&(tcp.len() as u16).to_be_bytes());
        let c = checksum(sum16(sum16(0, &pseudo), &tcp));
        tcp[16..18].copy_from_slice(&c.to_be_bytes());
        f.extend_from_slice(&ip);
        f.extend_from_slice(&tcp);
        f
    }

    #[test]
    fn checksums_hold_and_a_flipped_bit_breaks_them() {
        for payload in [&b""[..], b"odd", b"four"] {
            let mut f = frame(payload);
            assert!(checksums_ok(&f), "{payload:?}");
            let last = f.len() - 1;
            f[last] ^= 0x10;
            assert!(!checksums_ok(&f), "{payload:?} corrupted");
        }
        let mut f = frame(b"x");
        f[ETH_HEADER + 8] = 63; // the TTL: IPv4 header checksum
        assert!(!checksums_ok(&f));
    }

    #[test]
    fn the_ipv4_header_is_read_and_garbage_refused() {
        let f = frame(b"abc");
        let ip = ipv4(&f).unwrap();
        assert_eq!((ip.proto, ip.total_len, ip.payload), (6, 43, 34));
        assert_eq!(ip.dst_ip, Ipv4Addr::new(198, 18, 0, 6));
        assert!(ipv4(&f[..30]).is_none(), "cut short");
        let mut arp = f.clone();
        arp[12..14].copy_from_slice(&0x0806u16.to_be_bytes());
        assert!(ipv4(&arp).is_none());
    }
}
