//! The kernel's own TCP as a host's endpoints (`stack = "linux"`, namespace mode only).
//!
//! A host with kernel flows runs them on real TCP sockets inside its namespace, beside its
//! fctlab endpoints: one listening socket ([`LISTEN_PORT`]) for the kernel flows that end at
//! the host, and for each kernel flow that starts there a socket bound to source port
//! [`PORT_BASE`] + flow id (so the router, which sees only packets, knows the flow of every
//! segment from its ports: [`flow_of_ports`]). At the flow's planned start (run clock, see
//! [`super::clock`]) the sender sets `TCP_CONGESTION`, `IP_TOS` (the priority band as DSCP)
//! and `TCP_NODELAY` (fctlab's TCP has no Nagle delay either), connects, writes the flow's
//! bytes and shuts its side down; the receiver reads to end of file and the flow completes
//! when it holds every byte. Both report [`FlowSide`]s like fctlab's endpoints, so the router
//! folds them into the same flow table; the sender's retransmitted bytes come from `TCP_INFO`
//! (`tcpi_bytes_retrans`), its timeouts are not counted (the kernel does not say; 0).
//!
//! Threads, not the host's event loop: a sender thread per flow (started by one scheduling
//! thread at the flow's start) and a reader thread per accepted connection, all blocking. The
//! times they take are `CLOCK_MONOTONIC` reads right before `connect` and right after the
//! `read` that returned the last byte, so the precision is the kernel's wake-up latency of a
//! blocked thread (tens of microseconds) plus, for the start, the scheduling thread's sleep
//! that ends [`super::sock::SPIN_NS`] early and spins. The kernel's timers run on the wall
//! clock, so kernel flows need time scale 1 (the orchestrator refuses others).

pub use super::kernel_ports::{flow_of_ports, LISTEN_PORT, MAX_FLOWS, PORT_BASE};

use super::clock::{monotonic_ns, Clock};
use super::control::say;
use super::report::FlowSide;
use super::sock::{tighten_timer_slack, SPIN_NS};
use fctlab_core::world::World;
use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::mem::size_of;
use std::net::{Ipv4Addr, Shutdown, TcpListener, TcpStream};
use std::os::fd::FromRawFd;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What each kernel flow side reported so far, by (flow, is sender).
type Sides = Arc<Mutex<BTreeMap<(u32, bool), FlowSide>>>;

/// One kernel flow this host sends.
#[derive(Clone, Debug)]
struct Send {
    flow: u32,
    start_ps: u64,
    size: u64,
    to: Ipv4Addr,
    cc: String,
    prio: u8,
}

/// A host's kernel flows: made before the start (the listener is up when the first SYN comes),
/// launched at the start.
pub struct KernelHost {
    listener: Option<TcpListener>,
    sends: Vec<Send>,
    /// Size of each flow this host receives, by flow id.
    sizes: BTreeMap<u32, u64>,
    sides: Sides,
}

/// The kernel flows of host `node` (None: it has none). `peers` gives the address of every
/// host by node id. Errors name what is missing: a peer's address, a flow without a size.
pub fn prepare(world: &World, node: u32, peers: &[(u32, Ipv4Addr)]) -> io::Result<Option<KernelHost>> {
    let mut sends = Vec::new();
    let mut sizes = BTreeMap::new();
    for (f, plan) in world.plans().iter().enumerate() {
        let Some(k) = world.kernel_stack(f) else { continue };
        if plan.src != node as usize && plan.dst != node as usize {
            continue;
        }
        if f >= MAX_FLOWS {
            return Err(io::Error::other(format!(
                "flow {f}: {} = \"linux\" allows flow ids below {MAX_FLOWS} (one source port each)",
                k.field
            )));
        }
        let Some(size) = plan.size else {
            return Err(io::Error::other(format!(
                "flow {f}: {} = \"linux\" needs flows of a given size, got a long-lived flow",
                k.field
            )));
        };
        if plan.dst == node as usize {
            sizes.insert(f as u32, size);
        }
        if plan.src == node as usize {
            let to = peers.iter().find(|p| p.0 as usize == plan.dst).map(|p| p.1).ok_or_else(|| {
                io::Error::other(format!("flow {f}: no address for its destination, node {}", plan.dst))
            })?;
            sends.push(Send { flow: f as u32, start_ps: plan.start.ps(), size, to, cc: k.cc.clone(), prio: k.prio });
        }
    }
    if sends.is_empty() && sizes.is_empty() {
        return Ok(None);
    }
    let listener = if sizes.is_empty() {
        None
    } else {
        let l = TcpListener::bind((Ipv4Addr::UNSPECIFIED, LISTEN_PORT))
            .map_err(|e| io::Error::other(format!("kernel TCP: listening on port {LISTEN_PORT}: {e}")))?;
        Some(l)
    };
    Ok(Some(KernelHost { listener, sends, sizes, sides: Arc::new(Mutex::new(BTreeMap::new())) }))
}

impl KernelHost {
    /// Starts the receiver and the senders' schedule on `clock` (threads; they outlive the run
    /// only until the process exits).
    pub fn launch(&mut self, clock: Clock) -> io::Result<()> {
        if let Some(l) = self.listener.take() {
            let sides = self.sides.clone();
            let sizes = self.sizes.clone();
            std::thread::Builder::new().name("kernel-rx".into()).spawn(move || accept_loop(l, sizes, sides, clock))?;
        }
        let sends = std::mem::take(&mut self.sends);
        if !sends.is_empty() {
            let sides = self.sides.clone();
            std::thread::Builder::new().name("kernel-tx".into()).spawn(move || schedule(sends, sides, clock))?;
        }
        Ok(())
    }

    /// What the kernel flows' sides reported, by flow.
    pub fn sides(&self) -> Vec<FlowSide> {
        self.sides.lock().map(|s| s.values().cloned().collect()).unwrap_or_default()
    }
}

fn accept_loop(l: TcpListener, sizes: BTreeMap<u32, u64>, sides: Sides, clock: Clock) {
    tighten_timer_slack();
    while let Ok((stream, peer)) = l.accept() {
        let Some((f, true)) = flow_of_ports(peer.port(), LISTEN_PORT) else { continue };
        let Some(&size) = sizes.get(&f) else { continue };
        let sides = sides.clone();
        let _ = std::thread::Builder::new()
            .name(format!("kernel-rx{f}"))
            .spawn(move || receive(stream, f, size, sides, clock));
    }
}

/// Reads flow `f` to end of file; completes it when all `size` bytes are in.
fn receive(mut stream: TcpStream, f: u32, size: u64, sides: Sides, clock: Clock) {
    tighten_timer_slack();
    let mut buf = vec![0u8; 1 << 16];
    let mut delivered = 0u64;
    let mut finish = None;
    loop {
        let n = match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n as u64,
        };
        delivered += n;
        if finish.is_none() && delivered >= size {
            let t = clock.now().ps();
            finish = Some(t);
            say(&format!("done {f} {t}"));
        }
        if let Ok(mut s) = sides.lock() {
            let side = s.entry((f, false)).or_insert_with(|| FlowSide { flow: f, ..FlowSide::default() });
            side.delivered = delivered.min(size);
            side.finish_ps = finish;
        }
    }
}

/// Starts each send at its planned time, in start order.
fn schedule(mut sends: Vec<Send>, sides: Sides, clock: Clock) {
    tighten_timer_slack();
    sends.sort_by_key(|s| (s.start_ps, s.flow));
    for s in sends {
        let due = clock.epoch_ns + clock.wall_ns(fctlab_core::units::Time::from_ps(s.start_ps));
        sleep_until(due);
        let sides = sides.clone();
        let f = s.flow;
        let _ = std::thread::Builder::new().name(format!("kernel-tx{f}")).spawn(move || {
            if let Err(e) = send(&s, &sides, clock) {
                eprintln!("kernel TCP flow {f}: {e}");
            }
        });
    }
}

/// Sleeps until `CLOCK_MONOTONIC` reaches `ns` (the last [`SPIN_NS`] spinning).
fn sleep_until(ns: u64) {
    loop {
        let now = monotonic_ns();
        if now >= ns {
            return;
        }
        let left = ns - now;
        if left > SPIN_NS {
            std::thread::sleep(Duration::from_nanos(left - SPIN_NS));
        } else {
            std::hint::spin_loop();
        }
    }
}

fn setsockopt(fd: i32, level: i32, name: i32, value: &[u8]) -> io::Result<()> {
    // SAFETY: a valid fd and a live buffer of the length given.
    let r = unsafe { libc::setsockopt(fd, level, name, value.as_ptr() as *const libc::c_void, value.len() as u32) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn set_int(fd: i32, level: i32, name: i32, v: i32) -> io::Result<()> {
    setsockopt(fd, level, name, &v.to_ne_bytes())
}

/// Connects flow `s` from its port, writes its bytes, shuts down, waits for the receiver's end.
fn send(s: &Send, sides: &Sides, clock: Clock) -> io::Result<()> {
    // SAFETY: plain socket(2) call.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd is a fresh socket this stream now owns (and closes).
    let mut stream = unsafe { TcpStream::from_raw_fd(fd) };
    set_int(fd, libc::SOL_SOCKET, libc::SO_REUSEADDR, 1)?;
    setsockopt(fd, libc::IPPROTO_TCP, libc::TCP_CONGESTION, s.cc.as_bytes())
        .map_err(|e| io::Error::other(format!("TCP_CONGESTION {:?}: {e} (is the kernel module loaded?)", s.cc)))?;
    set_int(fd, libc::IPPROTO_IP, libc::IP_TOS, i32::from(super::sock::tos_of(s.prio)))?;
    set_int(fd, libc::IPPROTO_TCP, libc::TCP_NODELAY, 1)?;
    let port = PORT_BASE + s.flow as u16;
    sockaddr_call(fd, Ipv4Addr::UNSPECIFIED, port, |fd, a, n| unsafe { libc::bind(fd, a, n) })
        .map_err(|e| io::Error::other(format!("binding source port {port}: {e}")))?;
    let start = clock.now().ps();
    if let Ok(mut m) = sides.lock() {
        m.insert((s.flow, true), FlowSide { flow: s.flow, sender: true, start_ps: Some(start), ..FlowSide::default() });
    }
    sockaddr_call(fd, s.to, LISTEN_PORT, |fd, a, n| unsafe { libc::connect(fd, a, n) })
        .map_err(|e| io::Error::other(format!("connecting to {}:{LISTEN_PORT}: {e}", s.to)))?;
    let chunk = vec![0u8; 1 << 16];
    let mut left = s.size;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        stream.write_all(&chunk[..n])?;
        left -= n as u64;
    }
    stream.shutdown(Shutdown::Write)?;
    // The receiver closes after end of file; until then the kernel may still retransmit.
    let mut sink = [0u8; 64];
    while matches!(stream.read(&mut sink), Ok(n) if n > 0) {}
    let retx_bytes = retransmitted_bytes(fd);
    if let Ok(mut m) = sides.lock() {
        if let Some(side) = m.get_mut(&(s.flow, true)) {
            side.retx_bytes = retx_bytes;
        }
    }
    Ok(())
}

/// Payload bytes the kernel retransmitted on socket `fd` (`TCP_INFO`'s `tcpi_bytes_retrans`;
/// 0 if the kernel does not say).
fn retransmitted_bytes(fd: i32) -> u64 {
    // SAFETY: all-zero is a valid tcp_info; the kernel fills at most `len` bytes of it.
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: a valid fd, and a buffer of `len` bytes.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            &mut info as *mut libc::tcp_info as *mut libc::c_void,
            &mut len,
        )
    };
    let end = std::mem::offset_of!(libc::tcp_info, tcpi_bytes_retrans) + size_of::<u64>();
    if r == 0 && len as usize >= end {
        info.tcpi_bytes_retrans
    } else {
        0
    }
}

/// Calls `f(fd, sockaddr, len)` (bind, connect) with `ip:port`; retries on EINTR.
fn sockaddr_call(
    fd: i32,
    ip: Ipv4Addr,
    port: u16,
    f: impl Fn(i32, *const libc::sockaddr, libc::socklen_t) -> i32,
) -> io::Result<()> {
    let addr = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr { s_addr: u32::from(ip).to_be() },
        sin_zero: [0; 8],
    };
    loop {
        let r =
            f(fd, &addr as *const libc::sockaddr_in as *const libc::sockaddr, size_of::<libc::sockaddr_in>() as u32);
        if r == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(e);
        }
    }
}
