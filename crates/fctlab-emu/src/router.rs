//! The router process: every link of the topology, in real time, between the host processes.
//!
//! It is the simulator's own [`World`] with its hosts detached ([`World::detach_hosts`]): the
//! same links (serialization at their rate, propagation delay), the same queue disciplines
//! (drop-tail, priority with push-out, RCP, XCP, JetMax, PIQI-RCP, ...), the same routes. A
//! datagram from a host enters the world at that host's node at the instant it arrives; a packet
//! that reaches a host leaves as a datagram to that host's socket. Between datagrams the loop
//! sleeps until the world's next event is due on the wall clock.
//!
//! Kernel TCP flows (`stack = "linux"`): their frames arrive on a packet socket ([`Raw`]),
//! enter the world like datagrams, and leave as frames on the destination host's veth.
//!
//! Falling behind: an event handled after its due time makes every later packet late by as
//! much. The report counts the loop iterations that found an event overdue, and those more
//! than 1 ms (wall) overdue; the orchestrator warns from them and suggests a time scale.

use super::clock::monotonic_ns;
use super::control::{Command, Control};
use super::host::{sleep_until_epoch, wait_for_start};
use super::raw::Raw;
use super::report::RouterReport;
use super::sock::{tighten_timer_slack, wait_until, Sock};
use super::wire;
use fctlab_core::net::packet::Packet;
use fctlab_core::units::Time;
use fctlab_core::world::World;
use std::collections::HashMap;
use std::io;
use std::net::SocketAddrV4;

/// Where the router lives, where the hosts are, and how long it may run.
#[derive(Clone, Debug)]
pub struct RouterConfig {
    /// Address to bind (port 0: any).
    pub bind: SocketAddrV4,
    /// The socket of each host process, by node id (more may come as `host` commands).
    pub hosts: Vec<(u32, SocketAddrV4)>,
    /// Wall seconds per run-time second.
    pub scale: f64,
    /// Wall seconds after the start at which the router ends the run by itself.
    pub max_wall_s: f64,
    /// The hosts whose kernel TCP flows (`stack = "linux"`) cross this router's packet socket.
    pub kernel_links: Vec<super::kernel_link::KernelLink>,
}

/// Runs the network of `world` between the hosts until `stop`, end of input, or the time
/// limit; then closes the world's link counters.
pub fn run_router(world: &mut World, mut sock: Sock, cfg: RouterConfig, ctl: &mut Control) -> io::Result<RouterReport> {
    let mut report = RouterReport::default();
    world.detach_hosts();
    let mut raw = if cfg.kernel_links.is_empty() { None } else { Some(Raw::open(&cfg.kernel_links)?) };
    let Some((mut clock, more)) = wait_for_start(ctl)? else {
        world.close_external();
        report.kernel = raw.map(|r| r.report);
        return Ok(report);
    };
    let hosts: Vec<(u32, SocketAddrV4)> = cfg.hosts.iter().copied().chain(more).collect();
    let by_addr: HashMap<SocketAddrV4, u32> = hosts.iter().map(|&(n, a)| (a, n)).collect();
    let by_node: HashMap<u32, SocketAddrV4> = hosts.iter().copied().collect();
    clock.scale = cfg.scale;
    tighten_timer_slack();
    // Warm-up: an empty datagram to every host before run time 0 resolves the neighbours (ARP,
    // in namespaces) both ways, so that no packet of the run waits for it.
    for &(_, to) in &hosts {
        sock.send(&[], 0, to)?;
    }
    if !sleep_until_epoch(&clock, ctl)? {
        world.close_external();
        return Ok(report);
    }
    let deadline = clock.epoch_ns + (cfg.max_wall_s * 1e9) as u64;
    let mut buf = vec![0u8; wire::HEADER + wire::MAX_EXTENSION + wire::MAX_PAYLOAD as usize + 1];
    let mut tx_buf = Vec::with_capacity(buf.len());
    let mut egress: Vec<Packet> = Vec::with_capacity(64);
    loop {
        report.iterations += 1;
        let now = clock.now();
        if let Some(t) = world.next_event_time().filter(|&t| t < now) {
            let lag = clock.wall_ns(now - t);
            report.iterations_behind += 1;
            report.late_1ms += u64::from(lag > 1_000_000);
            report.max_lag_wall_ns = report.max_lag_wall_ns.max(lag);
        }
        world.advance(now);
        send_egress(world, &mut egress, &mut sock, &by_node, &mut tx_buf, &mut report, raw.as_mut())?;
        let mut received = false;
        while let Some(d) = sock.recv(&mut buf)? {
            received = true;
            report.datagrams_in += 1;
            let node = by_addr.get(&d.from).copied();
            match (node, wire::decode(&buf[..d.len], 0, 0)) {
                (Some(node), Ok(mut pkt)) if pkt.src == node && world.is_host(pkt.dst as usize) => {
                    // The packet enters the network when the kernel received it, not when this
                    // loop woke up: the world first catches up to that instant.
                    let at = clock.at_wall_ns(d.arrival_ns).max(world.now());
                    world.advance(at);
                    send_egress(world, &mut egress, &mut sock, &by_node, &mut tx_buf, &mut report, raw.as_mut())?;
                    // How late the packet is: the time since its endpoint emitted it (its
                    // timestamp), unless its host's NIC is still sending earlier packets, in
                    // which case it leaves when it would have anyway. A host that cannot send as
                    // fast as its endpoints delays them.
                    if pkt.ts > Time::ZERO && at > pkt.ts && world.first_hop_drain(node as usize, &pkt) == Time::ZERO {
                        let lag = clock.wall_ns(at - pkt.ts);
                        report.late_arrivals += u64::from(lag > 1_000_000);
                        report.max_arrival_lag_wall_ns = report.max_arrival_lag_wall_ns.max(lag);
                    }
                    pkt.prio = d.prio;
                    world.inject(node as usize, pkt);
                }
                _ => report.bad_datagrams += 1,
            }
        }
        if let Some(r) = raw.as_mut() {
            received |=
                take_kernel_frames(world, r, &clock, &mut egress, &mut sock, &by_node, &mut tx_buf, &mut report)?;
        }
        let wall = monotonic_ns();
        if wall >= deadline {
            break;
        }
        if received {
            continue; // the injected packets may have events due now
        }
        let due_wall = world.next_event_time().map(|t| wall + clock.wall_ns_until(clock.now(), t));
        let until = due_wall.unwrap_or(deadline).min(deadline);
        let ready = match raw.as_ref() {
            Some(r) => wait_until(&[sock.fd(), ctl.fd(), r.fd()], until)?,
            None => wait_until(&[sock.fd(), ctl.fd()], until)?,
        };
        if ready[1] && ctl.read()?.contains(&Command::Stop) {
            break;
        }
    }
    report.end_ps = world.now().ps();
    world.close_external();
    report.kernel = raw.map(|r| r.report);
    Ok(report)
}

/// Sends the kernel TCP frames waiting on the packet socket into the world, each at its
/// arrival instant (as datagrams are); true if there were any.
#[allow(clippy::too_many_arguments)]
fn take_kernel_frames(
    world: &mut World,
    raw: &mut Raw,
    clock: &super::clock::Clock,
    egress: &mut Vec<Packet>,
    sock: &mut Sock,
    by_node: &HashMap<u32, SocketAddrV4>,
    tx_buf: &mut Vec<u8>,
    report: &mut RouterReport,
) -> io::Result<bool> {
    let mut any = false;
    while let Some(c) = raw.recv(world)? {
        any = true;
        let at = clock.at_wall_ns(c.arrival_ns).max(world.now());
        world.advance(at);
        send_egress(world, egress, sock, by_node, tx_buf, report, Some(&mut *raw))?;
        world.inject(c.node as usize, c.pkt);
    }
    Ok(any)
}

/// Sends the packets that reached a host to that host's socket (kernel TCP frames to its veth).
fn send_egress(
    world: &mut World,
    egress: &mut Vec<Packet>,
    sock: &mut Sock,
    by_node: &HashMap<u32, SocketAddrV4>,
    tx_buf: &mut Vec<u8>,
    report: &mut RouterReport,
    mut raw: Option<&mut Raw>,
) -> io::Result<()> {
    world.take_egress(egress);
    for p in egress.drain(..) {
        if let (Some(r), true) = (raw.as_deref_mut(), world.kernel_stack(p.flow as usize).is_some()) {
            r.send(&p)?; // a kernel TCP frame: back onto its host's veth
            continue;
        }
        let Some(&to) = by_node.get(&p.dst) else {
            report.lost_sends += 1;
            continue;
        };
        wire::encode(&p, 0, tx_buf);
        if sock.send(tx_buf, p.prio, to)? {
            report.datagrams_out += 1;
        } else {
            report.lost_sends += 1;
        }
    }
    Ok(())
}
