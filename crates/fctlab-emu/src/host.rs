//! A host of the emulation: the simulator's endpoints on a real UDP socket, in real time.
//!
//! The host runs the senders of the flows that start at it (each at its planned start) and
//! the receivers of the flows that end at it (each made when the flow's first forward packet
//! arrives; it learns the stream's end from its FIN). Every packet an endpoint emits goes, as
//! one datagram ([`super::wire`]) in its priority band's DSCP ([`super::sock`]), to the router
//! process, which owns every link of the topology, the host's own NIC included.
//!
//! One loop, no threads: receive what has arrived, start the flows that are due, fire the
//! timers that are due, then sleep in `ppoll` until the earliest timer or start, a datagram, or
//! a control command. Endpoints see run time ([`super::clock`]), so their timers, pacing and
//! RTT samples are those of the simulator, only late by the kernel's wake-up latency, which
//! the report states (`max_timer_lag_ps`).

use super::clock::{monotonic_ns, Clock};
use super::control::{say, Command, Control};
use super::report::{FlowSide, HostReport};
use super::sock::{tighten_timer_slack, wait, wait_until, Sock};
use super::wire;
use fctlab_core::net::packet::Packet;
use fctlab_core::transport::endpoint::{Receiver, Sender};
use fctlab_core::transport::Endpoint;
use fctlab_core::units::Time;
use fctlab_core::world::{flow_addr, new_receiver, new_sender, World};
use std::io;
use std::net::SocketAddrV4;

/// Where a host lives and how long it may run.
#[derive(Clone, Debug)]
pub struct HostConfig {
    /// Topology node id of the host.
    pub node: u32,
    /// The router process's socket.
    pub router: SocketAddrV4,
    /// Wall seconds per run-time second.
    pub scale: f64,
    /// Wall seconds after the start at which the host ends the run by itself.
    pub max_wall_s: f64,
    /// Every host's address by node id, for the kernel's TCP flows (`stack = "linux"`).
    pub peers: Vec<(u32, std::net::Ipv4Addr)>,
}

struct Tx {
    sender: Sender,
    start: Time,
    done: bool,
}

struct Rx {
    receiver: Receiver,
    reported: bool,
    /// In `live` (its timers are watched).
    watched: bool,
}

/// The endpoints of one host and what it counts.
struct Host<'w> {
    world: &'w World,
    cfg: HostConfig,
    sock: Sock,
    tx: Vec<Option<Tx>>,
    rx: Vec<Option<Rx>>,
    /// Endpoints whose timers the loop watches: (flow, is sender). Senders leave when done,
    /// receivers when complete with no timer pending (and come back if a packet arms one).
    live: Vec<(usize, bool)>,
    out: Vec<Packet>,
    /// Receive buffer (one datagram of the largest size, and a byte to spot longer ones).
    buf: Vec<u8>,
    /// Send buffer.
    tx_buf: Vec<u8>,
    report: HostReport,
    /// The latest time handed to an endpoint.
    last: Time,
}

/// Runs host `cfg.node` of `world`'s scenario on `sock`: waits for `start`, then runs until
/// `stop`, end of input, or the time limit.
pub fn run_host(world: &World, sock: Sock, cfg: HostConfig, ctl: &mut Control) -> io::Result<HostReport> {
    let n = world.plans().len();
    let mut host = Host {
        world,
        report: HostReport { node: cfg.node, ..HostReport::default() },
        cfg,
        sock,
        tx: (0..n).map(|_| None).collect(),
        rx: (0..n).map(|_| None).collect(),
        live: Vec::new(),
        last: Time::ZERO,
        out: Vec::with_capacity(64),
        buf: vec![0u8; wire::HEADER + wire::MAX_EXTENSION + wire::MAX_PAYLOAD as usize + 1],
        tx_buf: Vec::with_capacity(wire::HEADER + wire::MAX_EXTENSION + wire::MAX_PAYLOAD as usize),
    };
    // The kernel's TCP flows (`stack = "linux"`) run beside the loop, on their own sockets.
    let mut kernel = super::kernel::prepare(world, host.cfg.node, &host.cfg.peers)?;
    let Some((clock, _)) = wait_for_start(ctl)? else { return Ok(host.finish()) };
    tighten_timer_slack();
    if let Some(k) = kernel.as_mut() {
        k.launch(Clock { scale: host.cfg.scale, ..clock })?;
    }
    host.run(clock, ctl)?;
    let mut report = host.finish();
    report.flows.extend(kernel.iter().flat_map(|k| k.sides()));
    Ok(report)
}

/// Sockets of hosts by node id.
pub(crate) type Peers = Vec<(u32, SocketAddrV4)>;

/// Waits for `start`, collecting the `host` lines before it (None: told to stop first).
pub(crate) fn wait_for_start(ctl: &mut Control) -> io::Result<Option<(Clock, Peers)>> {
    let mut hosts = Vec::new();
    loop {
        wait(&[ctl.fd()], None)?;
        for c in ctl.read()? {
            match c {
                Command::Host { node, addr } => hosts.push((node, addr)),
                Command::Start { epoch_ns } => return Ok(Some((Clock { epoch_ns, scale: 1.0 }, hosts))),
                Command::Stop => return Ok(None),
            }
        }
    }
}

/// Sleeps until the run's epoch (false: told to stop first). Nothing runs before run time 0,
/// so that no process starts its work early while another still waits for the epoch.
pub(crate) fn sleep_until_epoch(clock: &Clock, ctl: &mut Control) -> io::Result<bool> {
    loop {
        let now = monotonic_ns();
        if now >= clock.epoch_ns {
            return Ok(true);
        }
        let ready = wait_until(&[ctl.fd()], clock.epoch_ns)?;
        if ready[0] && ctl.read()?.contains(&Command::Stop) {
            return Ok(false);
        }
    }
}

impl Host<'_> {
    fn run(&mut self, mut clock: Clock, ctl: &mut Control) -> io::Result<()> {
        clock.scale = self.cfg.scale;
        if !sleep_until_epoch(&clock, ctl)? {
            return Ok(());
        }
        let deadline = clock.epoch_ns + (self.cfg.max_wall_s * 1e9) as u64;
        let node = self.cfg.node as usize;
        let starts: Vec<usize> = (0..self.world.plans().len())
            .filter(|&f| self.world.plans()[f].src == node && self.world.kernel_stack(f).is_none())
            .collect();
        let mut next_start = 0;
        loop {
            let now = clock.now();
            while let Some(d) = self.sock.recv(&mut self.buf)? {
                // The endpoint sees the packet when the kernel received it (not later, when this
                // loop woke up), as long as time does not go backwards for the endpoints.
                let at = clock.at_wall_ns(d.arrival_ns).max(self.last).min(now);
                self.last = at;
                self.on_datagram(at, d.len, d.from, d.prio)?;
            }
            self.last = now;
            while let Some(&f) = starts.get(next_start) {
                if self.world.plans()[f].start > now {
                    break;
                }
                next_start += 1;
                self.start_flow(f, now)?;
            }
            self.fire_timers(now)?;
            let mut due = starts.get(next_start).map(|&f| self.world.plans()[f].start);
            for &(f, is_tx) in &self.live {
                if let Some(t) = self.poll(f, is_tx) {
                    due = Some(due.map_or(t, |d| d.min(t)));
                }
            }
            let wall = monotonic_ns();
            if wall >= deadline {
                return Ok(());
            }
            let until = due.map_or(deadline, |t| (wall + clock.wall_ns_until(clock.now(), t)).min(deadline));
            let ready = wait_until(&[self.sock.fd(), ctl.fd()], until)?;
            if ready[1] && ctl.read()?.contains(&Command::Stop) {
                return Ok(());
            }
        }
    }

    fn poll(&self, f: usize, is_tx: bool) -> Option<Time> {
        if is_tx {
            self.tx[f].as_ref().and_then(|t| t.sender.poll_timeout())
        } else {
            self.rx[f].as_ref().and_then(|r| r.receiver.poll_timeout())
        }
    }

    fn start_flow(&mut self, f: usize, now: Time) -> io::Result<()> {
        let world = self.world;
        let plan = &world.plans()[f];
        let addr = flow_addr(f, plan, world.seed());
        let mut sender = new_sender(plan, &world.profiles()[plan.profile], addr, now, world.limits().duration);
        self.report.max_start_lag_ps = self.report.max_start_lag_ps.max((now - plan.start).ps());
        let mut out = std::mem::take(&mut self.out);
        sender.start(now, world.records[f].rtt_prop, &mut out);
        self.tx[f] = Some(Tx { sender, start: now, done: false });
        self.live.push((f, true));
        self.after(f, true, &mut out)?;
        self.out = out;
        Ok(())
    }

    fn on_datagram(&mut self, now: Time, len: usize, from: std::net::SocketAddrV4, prio: u8) -> io::Result<()> {
        self.report.datagrams_in += 1;
        let world = self.world;
        let b = &self.buf[..len];
        let plans = world.plans();
        if len == 0 && from == self.cfg.router {
            return Ok(()); // the router's warm-up datagram (see `router::run_router`)
        }
        let node = self.cfg.node as usize;
        let target = wire::peek(b).filter(|&(f, fwd)| {
            (f as usize) < plans.len()
                && if fwd { plans[f as usize].dst == node } else { plans[f as usize].src == node }
        });
        let Some((f, forward)) = target.filter(|_| from == self.cfg.router) else {
            self.report.bad_datagrams += 1;
            return Ok(());
        };
        let f = f as usize;
        let isn = wire::isn(f as u32, self.world.seed());
        let reference = if forward {
            self.rx[f].as_ref().map_or(0, |r| r.receiver.delivered())
        } else {
            match &self.tx[f] {
                Some(t) => t.sender.acked_bytes(),
                None => {
                    self.report.bad_datagrams += 1;
                    return Ok(());
                }
            }
        };
        let mut pkt = match wire::decode(b, isn, reference) {
            Ok(p) => p,
            Err(_) => {
                self.report.bad_datagrams += 1;
                return Ok(());
            }
        };
        pkt.prio = prio;
        let mut out = std::mem::take(&mut self.out);
        if forward {
            if self.rx[f].is_none() {
                let plan = &plans[f];
                let addr = flow_addr(f, plan, self.world.seed());
                // No size: the receiver learns the end of the stream from its FIN.
                let receiver = new_receiver(plan, &world.profiles()[plan.profile], addr, None);
                self.rx[f] = Some(Rx { receiver, reported: false, watched: false });
            }
            if let Some(r) = self.rx[f].as_mut() {
                r.receiver.on_packet(now, &pkt, &mut out);
                if !r.watched && r.receiver.poll_timeout().is_some() {
                    r.watched = true;
                    self.live.push((f, false));
                }
            }
        } else if let Some(t) = self.tx[f].as_mut() {
            t.sender.on_packet(now, &pkt, &mut out);
        }
        self.after(f, !forward, &mut out)?;
        self.out = out;
        Ok(())
    }

    fn fire_timers(&mut self, now: Time) -> io::Result<()> {
        let mut out = std::mem::take(&mut self.out);
        let mut k = 0;
        while k < self.live.len() {
            let (f, is_tx) = self.live[k];
            if let Some(t) = self.poll(f, is_tx).filter(|&t| t <= now) {
                self.report.max_timer_lag_ps = self.report.max_timer_lag_ps.max((now - t).ps());
                if is_tx {
                    if let Some(s) = self.tx[f].as_mut() {
                        s.sender.on_timeout(now, &mut out);
                    }
                } else if let Some(r) = self.rx[f].as_mut() {
                    r.receiver.on_timeout(now, &mut out);
                }
                self.after(f, is_tx, &mut out)?;
            }
            k += 1;
        }
        let (tx, rx) = (&self.tx, &mut self.rx);
        self.live.retain(|&(f, is_tx)| {
            if is_tx {
                return tx[f].as_ref().is_some_and(|t| !t.done);
            }
            let Some(r) = rx[f].as_mut() else { return false };
            r.watched = r.receiver.completed_at().is_none() || r.receiver.poll_timeout().is_some();
            r.watched
        });
        self.out = out;
        Ok(())
    }

    /// Sends what an endpoint emitted; notes completion.
    fn after(&mut self, f: usize, is_tx: bool, out: &mut Vec<Packet>) -> io::Result<()> {
        let isn = wire::isn(f as u32, self.world.seed());
        for p in out.drain(..) {
            wire::encode(&p, isn, &mut self.tx_buf);
            if self.sock.send(&self.tx_buf, p.prio, self.cfg.router)? {
                self.report.datagrams_out += 1;
            } else {
                self.report.lost_sends += 1;
            }
        }
        if is_tx {
            if let Some(t) = self.tx[f].as_mut() {
                t.done = t.sender.is_done();
            }
        } else if let Some(r) = self.rx[f].as_mut() {
            if let (false, Some(t)) = (r.reported, r.receiver.completed_at()) {
                r.reported = true;
                say(&format!("done {f} {}", t.ps()));
            }
        }
        Ok(())
    }

    fn finish(mut self) -> HostReport {
        for (f, t) in self.tx.iter().enumerate() {
            if let Some(t) = t {
                let (retx_bytes, timeouts) = t.sender.loss_stats();
                self.report.flows.push(FlowSide {
                    flow: f as u32,
                    sender: true,
                    start_ps: Some(t.start.ps()),
                    retx_bytes,
                    timeouts,
                    ..FlowSide::default()
                });
            }
        }
        for (f, r) in self.rx.iter().enumerate() {
            if let Some(r) = r {
                self.report.flows.push(FlowSide {
                    flow: f as u32,
                    sender: false,
                    finish_ps: r.receiver.completed_at().map(|t| t.ps()),
                    delivered: r.receiver.delivered(),
                    first_write_ps: r.receiver.first_write_at().map(|t| t.ps()),
                    ..FlowSide::default()
                });
            }
        }
        self.report
    }
}
