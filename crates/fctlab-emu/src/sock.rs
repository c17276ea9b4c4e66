//! UDP sockets with the priority band in the DSCP bits, and the one wait of the event loops.
//!
//! A packet's priority band `p` (0 the highest) is sent as DSCP `p` (TOS byte `p << 2`): each
//! send sets `IP_TOS` when the band changes, and the receiving socket reads the TOS byte of
//! every datagram (`IP_RECVTOS`). RC3's Linux code marks its low-priority packets the same way,
//! for routers that schedule on DSCP. Sockets are non-blocking; [`wait`] sleeps in `ppoll`
//! (nanosecond timeout) until one of a few descriptors is readable or a deadline passes, and
//! the process's timer slack is set to 1 microsecond so that the wake-up is as punctual as the
//! kernel allows.

use std::io;
use std::mem::{size_of, zeroed};
use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::os::fd::{AsRawFd, RawFd};

/// `SO_TIMESTAMPNS` / `SCM_TIMESTAMPNS` (asm-generic value: x86, ARM, RISC-V; not exported
/// by the `libc` crate for Linux).
const SO_TIMESTAMPNS: i32 = 35;

/// One received datagram.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Datagram {
    /// Bytes.
    pub len: usize,
    /// Sender.
    pub from: SocketAddrV4,
    /// Priority band from the DSCP bits.
    pub prio: u8,
    /// When the kernel received it, `CLOCK_MONOTONIC` ns (the kernel stamps it in real-time
    /// clock; converted here), so that a process that woke late still knows when it arrived.
    pub arrival_ns: u64,
}

/// A UDP socket whose datagrams carry a priority band.
pub struct Sock {
    udp: UdpSocket,
    tos: u8,
}

/// The TOS byte of band `prio`.
pub fn tos_of(prio: u8) -> u8 {
    fctlab_core::net::packet::dscp_of_band(prio) << 2
}

/// The band of a TOS byte.
pub fn prio_of(tos: u8) -> u8 {
    tos >> 2
}

fn setsockopt_int(fd: RawFd, level: i32, name: i32, v: i32) -> io::Result<()> {
    // SAFETY: a valid fd and a pointer to an i32 of the size given.
    let r = unsafe {
        libc::setsockopt(fd, level, name, &v as *const i32 as *const libc::c_void, size_of::<i32>() as libc::socklen_t)
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

impl Sock {
    /// A non-blocking socket bound to `addr` (port 0: any free port), with 4 MiB buffers.
    pub fn bind(addr: SocketAddrV4) -> io::Result<Sock> {
        let udp = UdpSocket::bind(addr)?;
        udp.set_nonblocking(true)?;
        let fd = udp.as_raw_fd();
        setsockopt_int(fd, libc::IPPROTO_IP, libc::IP_RECVTOS, 1)?;
        setsockopt_int(fd, libc::SOL_SOCKET, SO_TIMESTAMPNS, 1)?;
        // Best effort: the kernel caps these at its rmem/wmem maxima.
        let _ = setsockopt_int(fd, libc::SOL_SOCKET, libc::SO_RCVBUF, 4 << 20);
        let _ = setsockopt_int(fd, libc::SOL_SOCKET, libc::SO_SNDBUF, 4 << 20);
        Ok(Sock { udp, tos: 0 })
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddrV4> {
        match self.udp.local_addr()? {
            std::net::SocketAddr::V4(a) => Ok(a),
            other => Err(io::Error::other(format!("expected an IPv4 socket, got {other}"))),
        }
    }

    /// The descriptor, for [`wait`].
    pub fn fd(&self) -> RawFd {
        self.udp.as_raw_fd()
    }

    /// Sends `buf` to `to` in band `prio`. A full socket buffer or an unreachable peer is a
    /// lost datagram (returns false), as on a real network; other errors are errors.
    pub fn send(&mut self, buf: &[u8], prio: u8, to: SocketAddrV4) -> io::Result<bool> {
        let tos = tos_of(prio);
        if tos != self.tos {
            setsockopt_int(self.fd(), libc::IPPROTO_IP, libc::IP_TOS, tos as i32)?;
            self.tos = tos;
        }
        match self.udp.send_to(buf, to) {
            Ok(_) => Ok(true),
            Err(e) => match e.raw_os_error() {
                Some(libc::EAGAIN | libc::ENOBUFS | libc::ECONNREFUSED | libc::EHOSTUNREACH | libc::ENETUNREACH) => {
                    Ok(false)
                }
                _ => Err(e),
            },
        }
    }

    /// One datagram if any is waiting.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<Datagram>> {
        loop {
            // SAFETY: all-zero is a valid value of these plain C structs.
            let mut from: libc::sockaddr_in = unsafe { zeroed() };
            let mut iov = libc::iovec { iov_base: buf.as_mut_ptr() as *mut libc::c_void, iov_len: buf.len() };
            let mut control = [0u64; 16];
            // SAFETY: as above.
            let mut msg: libc::msghdr = unsafe { zeroed() };
            msg.msg_name = &mut from as *mut libc::sockaddr_in as *mut libc::c_void;
            msg.msg_namelen = size_of::<libc::sockaddr_in>() as libc::socklen_t;
            msg.msg_iov = &mut iov;
            msg.msg_iovlen = 1;
            msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
            msg.msg_controllen = size_of::<[u64; 16]>() as _;
            // SAFETY: msg points at live buffers of the sizes it states.
            let n = unsafe { libc::recvmsg(self.fd(), &mut msg, libc::MSG_DONTWAIT) };
            if n < 0 {
                let e = io::Error::last_os_error();
                match e.raw_os_error() {
                    Some(libc::EAGAIN) => return Ok(None),
                    // An ICMP error for an earlier send (peer gone): not a datagram.
                    Some(libc::ECONNREFUSED | libc::EINTR) => continue,
                    _ => return Err(e),
                }
            }
            let mut tos = 0u8;
            let mut stamp: Option<libc::timespec> = None;
            // SAFETY: CMSG_* walk the control buffer the kernel filled, within msg_controllen.
            unsafe {
                let mut c = libc::CMSG_FIRSTHDR(&msg);
                while !c.is_null() {
                    if (*c).cmsg_level == libc::IPPROTO_IP && (*c).cmsg_type == libc::IP_TOS {
                        tos = *libc::CMSG_DATA(c);
                    } else if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == SO_TIMESTAMPNS {
                        stamp = Some(std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec));
                    }
                    c = libc::CMSG_NXTHDR(&msg, c);
                }
            }
            let ip = Ipv4Addr::from(u32::from_be(from.sin_addr.s_addr));
            let port = u16::from_be(from.sin_port);
            if msg.msg_flags & libc::MSG_TRUNC != 0 {
                // Longer than any valid datagram: drop it, the decoder would refuse it anyway.
                continue;
            }
            let mono = super::clock::monotonic_ns();
            let arrival_ns = match stamp {
                Some(ts) => {
                    let real_stamp = ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64;
                    mono.saturating_sub(realtime_ns().saturating_sub(real_stamp))
                }
                None => mono,
            };
            return Ok(Some(Datagram {
                len: n as usize,
                from: SocketAddrV4::new(ip, port),
                prio: prio_of(tos),
                arrival_ns,
            }));
        }
    }
}

fn realtime_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Asks the kernel to wake timers within 1 microsecond (default: 50).
pub fn tighten_timer_slack() {
    // SAFETY: PR_SET_TIMERSLACK takes a plain integer.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong) };
}

/// Sleeps until one of `fds` is readable or `timeout_ns` pass (None: no limit); returns which
/// are readable.
pub fn wait(fds: &[RawFd], timeout_ns: Option<u64>) -> io::Result<Vec<bool>> {
    let mut pfds: Vec<libc::pollfd> =
        fds.iter().map(|&fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 }).collect();
    let ts =
        timeout_ns.map(|ns| libc::timespec { tv_sec: (ns / 1_000_000_000) as _, tv_nsec: (ns % 1_000_000_000) as _ });
    let tsp = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: pfds is a live array of fds.len() pollfds; tsp is null or a live timespec.
    let r = unsafe { libc::ppoll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, tsp, std::ptr::null()) };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EINTR) {
            return Ok(vec![false; fds.len()]);
        }
        return Err(e);
    }
    Ok(pfds.iter().map(|p| p.revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0).collect())
}

/// How long before a deadline [`wait_until`] stops sleeping and polls instead, wall ns: a
/// sleeping process wakes tens of microseconds late, and whatever it sends then leaves as late.
pub const SPIN_NS: u64 = 200_000;

/// Waits until one of `fds` is readable or `CLOCK_MONOTONIC` reaches `until_ns`: sleeps until
/// [`SPIN_NS`] before it, then polls without sleeping.
pub fn wait_until(fds: &[RawFd], until_ns: u64) -> io::Result<Vec<bool>> {
    let now = super::clock::monotonic_ns();
    let sleep = until_ns.saturating_sub(now).saturating_sub(SPIN_NS);
    if sleep > 0 {
        return wait(fds, Some(sleep));
    }
    loop {
        let ready = wait(fds, Some(0))?;
        if ready.iter().any(|&r| r) || super::clock::monotonic_ns() >= until_ns {
            return Ok(ready);
        }
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_band_travels_in_the_dscp_bits_over_loopback() {
        let lo = Ipv4Addr::LOCALHOST;
        let mut a = Sock::bind(SocketAddrV4::new(lo, 0)).unwrap();
        let b = Sock::bind(SocketAddrV4::new(lo, 0)).unwrap();
        let to = b.local_addr().unwrap();
        for prio in [0u8, 3, 1, 7] {
            assert!(a.send(&[prio; 10], prio, to).unwrap());
            let mut buf = [0u8; 64];
            let mut got = None;
            for _ in 0..100 {
                if let Some(r) = b.recv(&mut buf).unwrap() {
                    got = Some(r);
                    break;
                }
                wait(&[b.fd()], Some(10_000_000)).unwrap();
            }
            let d = got.expect("datagram within a second");
            assert_eq!((d.len, d.from, d.prio, buf[0]), (10, a.local_addr().unwrap(), prio, prio));
            let now = super::super::clock::monotonic_ns();
            assert!(d.arrival_ns <= now && d.arrival_ns + 1_000_000_000 > now, "arrival {} vs now {now}", d.arrival_ns);
        }
        assert!(b.recv(&mut [0u8; 64]).unwrap().is_none(), "nothing more waiting");
    }

    #[test]
    fn wait_times_out() {
        let s = Sock::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0)).unwrap();
        let t0 = super::super::clock::monotonic_ns();
        let r = wait(&[s.fd()], Some(3_000_000)).unwrap();
        let dt = super::super::clock::monotonic_ns() - t0;
        assert_eq!(r, vec![false]);
        assert!(dt >= 3_000_000, "woke after {dt} ns");
    }
}
