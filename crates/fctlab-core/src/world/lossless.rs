//! The lossless fabric in the event loop: shared-buffer switches, PFC between neighbours, and a
//! watch for PFC deadlocks and pause storms.
//!
//! A scenario with a `[fabric]` table gives the world a [`Fabric`] and every link a lossless
//! port ([`crate::net::lossless`]). Then:
//!
//! - **Admission.** A data packet of traffic class `c` ([`Packet::class`], its priority band)
//!   that a switch receives on link `i` is admitted by the switch's shared buffer
//!   ([`crate::net::mmu`]) against ingress port `i`'s class `c`, or dropped there (its headroom
//!   full); it counts against (`i`, `c`) until it leaves its output port. Control packets (ACKs)
//!   take the control class and no buffer, as in HPCC's simulator.
//! - **PFC** (IEEE 802.1Qbb, per class): when (`i`, `c`) should pause, the switch sends a PAUSE
//!   of class `c` back over the link towards `i`'s far end; the frame waits for the packet being
//!   serialized, takes 64 bytes of wire time, crosses the link's delay, and stops class `c` of
//!   link `i` when it arrives; the other classes go on. A RESUME follows when (`i`, `c`) drains.
//!   Hosts never pause (their receive side is unbounded), and a host's NIC obeys the PAUSE of its
//!   switch, so pause propagates hop by hop back to the senders. Every frame received is logged
//!   ([`PfcRecord`], `pfc.txt`).
//! - **Watch.** While a port has a class paused, every `watch` interval: a port with some class
//!   paused for longer than `storm` without a break is a pause storm (reported once per pause);
//!   a cycle of such ports, each holding packets that came in over the one before it and wait
//!   for the next, seen at two watches in a row, is a PFC deadlock: reported, and (by default)
//!   the run stops there as a stall whose cause names the cycle. The watch looks at ports, not
//!   classes: a cycle through different classes of the same links counts too.

use super::stall::Stall;
use super::World;
use crate::net::lossless::{Released, Transmitted, FROM_HOST};
use crate::net::mmu::{Ingress, SharedBuffer};
use crate::net::packet::{Packet, CLASSES};
use crate::sched::Event;
use crate::units::Time;
use std::collections::VecDeque;

/// Wire bytes of a PFC frame (a minimum Ethernet frame).
pub const PFC_FRAME_BYTES: u32 = 64;

/// What a PFC deadlock does to the run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OnDeadlock {
    /// The run stops, as a stall whose cause names the cycle.
    Stop,
    /// The run goes on; the deadlock is reported.
    Report,
}

/// The watch's settings.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WatchConfig {
    /// How often paused ports are looked at.
    pub interval: Time,
    /// A port paused longer than this is a pause storm (None: not watched).
    pub storm: Option<Time>,
    /// What a deadlock does.
    pub on_deadlock: OnDeadlock,
}

/// One PFC frame received: class `class` of link `link` paused (`pause`) or resumed at `time`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PfcRecord {
    /// When the frame arrived.
    pub time: Time,
    /// The link it paused or resumed (its near end received the frame).
    pub link: u32,
    /// The traffic class.
    pub class: u8,
    /// PAUSE (true) or RESUME.
    pub pause: bool,
}

/// A pause storm: `link` was paused from `since` and still was at `seen`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Storm {
    /// The paused link.
    pub link: u32,
    /// Paused since.
    pub since: Time,
    /// When the watch saw it paused longer than the bound.
    pub seen: Time,
}

/// A PFC deadlock: the links of `cycle` are paused, each waiting for the next to drain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadlock {
    /// When the watch confirmed it.
    pub time: Time,
    /// The links in the cycle, in order (each one's far end holds packets of it that wait for the
    /// next).
    pub cycle: Vec<u32>,
}

/// The fabric's state: switches' buffers, ingress ports, PFC, the watch.
#[derive(Debug)]
pub struct Fabric {
    /// By node id: the switch's shared buffer (None: a host).
    buffers: Vec<Option<SharedBuffer>>,
    /// By link id x [`CLASSES`] + class: the ingress port the link arrives at, per class.
    ingress: Vec<Ingress>,
    /// By link id: the link from its far end back to its near end, which carries its PFC frames
    /// (`u32::MAX`: none).
    back: Vec<u32>,
    pfc: bool,
    watch: WatchConfig,
    watch_pending: bool,
    /// Frames received, in order.
    pub log: Vec<PfcRecord>,
    /// Pause storms seen.
    pub storms: Vec<Storm>,
    /// The first deadlock confirmed.
    pub deadlock: Option<Deadlock>,
    /// Data packets the switches' buffers refused (headroom full).
    pub drops: u64,
    candidate: Vec<u32>,
    released: Vec<Released>,
    /// Data packets hosts' NICs sent, for their senders to hear of, in order.
    transmitted: VecDeque<Transmitted>,
    /// Senders are being told (a sender that sends meanwhile adds to the queue).
    telling: bool,
}

impl Fabric {
    /// A fabric of these switches' buffers (by node), ingress ports and return links (by link):
    /// each ingress port's settings (headroom, shift) hold for each of its classes.
    pub fn new(
        buffers: Vec<Option<SharedBuffer>>,
        ingress: Vec<Ingress>,
        back: Vec<u32>,
        pfc: bool,
        watch: WatchConfig,
    ) -> Fabric {
        Fabric {
            buffers,
            ingress: ingress.iter().flat_map(|p| [*p; CLASSES]).collect(),
            back,
            pfc,
            watch,
            watch_pending: false,
            log: Vec::new(),
            storms: Vec::new(),
            deadlock: None,
            drops: 0,
            candidate: Vec::new(),
            released: Vec::new(),
            transmitted: VecDeque::new(),
            telling: false,
        }
    }

    /// Ingress port `link`'s counters of traffic class `class`.
    pub fn ingress(&self, link: u32, class: usize) -> &Ingress {
        &self.ingress[at(link, class)]
    }

    /// Switch `node`'s buffer.
    pub fn buffer(&self, node: u32) -> Option<&SharedBuffer> {
        self.buffers.get(node as usize).and_then(|b| b.as_ref())
    }
}

impl World {
    /// Makes this world's network a lossless fabric (the scenario build, after every link got
    /// its lossless port).
    pub fn set_fabric(&mut self, fabric: Fabric) {
        self.fabric = Some(Box::new(fabric));
    }

    /// The fabric, if the network is one.
    pub fn fabric(&self) -> Option<&Fabric> {
        self.fabric.as_deref()
    }

    /// [`World::forward`] in a fabric: `pkt` reached `node` over `in_link` (`FROM_HOST` from the
    /// host itself); a switch admits its data against `in_link` first.
    #[cold]
    #[inline(never)]
    pub(super) fn forward_lossless(&mut self, node: usize, in_link: u32, pkt: Packet) {
        // `next_hop`, not the forwarding loop's `next_hop_with`: a second caller of that would cost
        // the loop its inlining.
        let hash = crate::routing::flow_hash(pkt.flow as u64, self.seed);
        let Some(l) = self.routes.next_hop(node, pkt.dst as usize, hash) else {
            self.counters.dropped_pkts += 1;
            self.counters.dropped_bytes += pkt.wire as u64;
            return;
        };
        // The egress port's control class (served first) is outside the switch's buffer.
        let control = self.links[l as usize].lossless().is_some_and(|port| port.is_control(&pkt));
        let counted = in_link != FROM_HOST && !control;
        let class = pkt.class();
        let fabric = self.fabric.as_deref_mut().expect("a fabric");
        let mut pause = false;
        if counted {
            if let Some(buf) = fabric.buffers[node].as_mut() {
                let port = &mut fabric.ingress[at(in_link, class)];
                if !buf.admits(port, pkt.wire as u64) {
                    fabric.drops += 1;
                    let link = &mut self.links[l as usize];
                    link.stats.drops_pkts += 1;
                    link.stats.drops_bytes += pkt.wire as u64;
                    self.counters.dropped_pkts += 1;
                    self.counters.dropped_bytes += pkt.wire as u64;
                    return;
                }
                buf.add(port, pkt.wire as u64);
                if fabric.pfc && buf.should_pause(port) {
                    port.paused = true;
                    pause = true;
                }
            }
        }
        let in_link = if counted { in_link } else { FROM_HOST };
        let before = self.drops.len();
        let wire = pkt.wire as u64;
        let queued = self.links[l as usize].send_lossless(l, self.now, pkt, in_link, &mut self.sched, &mut self.drops);
        self.count_drops(before);
        if !queued && in_link != FROM_HOST {
            // The port's own discipline dropped it: it holds nothing of the switch's buffer.
            let fabric = self.fabric.as_deref_mut().expect("a fabric");
            if let Some(buf) = fabric.buffers[node].as_mut() {
                buf.remove(&mut fabric.ingress[at(in_link, class)], wire);
            }
        }
        if pause {
            self.send_pfc(in_link, class, true);
        }
        self.after_lossless_port(l);
    }

    /// Releases, in their switches' buffers, the packets port `l` sent since the last look, and
    /// resumes the ingress ports that drained enough.
    #[cold]
    #[inline(never)]
    pub(super) fn after_lossless_port(&mut self, l: u32) {
        let Some(fabric) = self.fabric.as_deref_mut() else { return };
        let mut released = std::mem::take(&mut fabric.released);
        released.clear();
        if let Some(port) = self.links[l as usize].lossless_mut() {
            port.take_released(&mut released);
            port.take_transmitted(&mut fabric.transmitted);
        }
        let node = self.links[l as usize].from as usize;
        let mut resumes = Vec::new();
        for r in &released {
            let class = r.class as usize;
            let (Some(buf), port) = (fabric.buffers[node].as_mut(), &mut fabric.ingress[at(r.link, class)]) else {
                continue;
            };
            buf.remove(port, r.wire as u64);
            if fabric.pfc && buf.should_resume(port) {
                port.paused = false;
                resumes.push((r.link, class));
            }
        }
        fabric.released = released;
        for (in_link, class) in resumes {
            self.send_pfc(in_link, class, false);
        }
        self.tell_transmitted();
    }

    /// Tells the senders that asked for it ([`crate::transport::endpoint::Sender::wants_transmitted`])
    /// that a packet of theirs left their NIC, in the order the packets left; what they send
    /// then may leave and be told of in turn.
    fn tell_transmitted(&mut self) {
        let Some(fabric) = self.fabric.as_deref_mut() else { return };
        if fabric.telling || fabric.transmitted.is_empty() {
            return;
        }
        fabric.telling = true;
        while let Some(t) = self.fabric.as_deref_mut().and_then(|f| f.transmitted.pop_front()) {
            let f = t.flow as usize;
            let Some(a) = self.active.get_mut(f).and_then(|a| a.as_mut()) else { continue };
            if !a.sender.wants_transmitted() {
                continue;
            }
            let mut out = std::mem::take(&mut self.out);
            a.sender.on_transmitted(self.now, t.len, t.wire, &mut out);
            self.after_endpoint(f, 0, &mut out);
            self.out = out;
        }
        if let Some(fabric) = self.fabric.as_deref_mut() {
            fabric.telling = false;
        }
    }

    /// Sends a PAUSE (or RESUME) of class `class` of link `in_link` from its far end, over the
    /// link back.
    fn send_pfc(&mut self, in_link: u32, class: usize, pause: bool) {
        let back = self.fabric.as_deref().map_or(u32::MAX, |f| f.back[in_link as usize]);
        if back == u32::MAX {
            return;
        }
        let at = self.links[back as usize].send_frame(self.now, PFC_FRAME_BYTES);
        self.sched.push(at, Event::Pfc { link: in_link, class: class as u8, pause });
    }

    /// A PFC frame for class `class` reached the near end of `link`.
    #[cold]
    #[inline(never)]
    pub(super) fn on_pfc(&mut self, link: u32, class: u8, pause: bool) {
        let c = class as usize;
        self.links[link as usize].set_paused(link, self.now, c, pause, &mut self.sched, &mut self.drops);
        self.count_drops(0);
        let Some(fabric) = self.fabric.as_deref_mut() else { return };
        fabric.log.push(PfcRecord { time: self.now, link, class, pause });
        if pause && !fabric.watch_pending {
            fabric.watch_pending = true;
            self.sched.push(self.now + fabric.watch.interval, Event::PfcWatch);
            self.periodic += 1;
        }
        if !pause {
            self.after_lossless_port(link);
        }
    }

    /// The watch: pause storms and deadlocks among the ports paused now; comes back while any is.
    #[cold]
    #[inline(never)]
    pub(super) fn on_pfc_watch(&mut self) {
        self.periodic -= 1;
        let now = self.now;
        let paused: Vec<(u32, Time)> = self
            .links
            .iter()
            .enumerate()
            .filter_map(|(i, l)| l.lossless().filter(|p| p.paused()).map(|p| (i as u32, p.paused_since())))
            .collect();
        let Some(fabric) = self.fabric.as_deref_mut() else { return };
        fabric.watch_pending = false;
        if paused.is_empty() {
            fabric.candidate.clear();
            return;
        }
        if let Some(bound) = fabric.watch.storm {
            for &(link, since) in &paused {
                let known = fabric.storms.iter().any(|s| s.link == link && s.since == since);
                if now - since > bound && !known {
                    fabric.storms.push(Storm { link, since, seen: now });
                }
            }
        }
        let cycle = paused_cycle(&self.links, &paused);
        let fabric = self.fabric.as_deref_mut().expect("a fabric");
        let confirmed = !cycle.is_empty() && same_cycle(&cycle, &fabric.candidate);
        fabric.candidate = cycle;
        if confirmed && fabric.deadlock.is_none() {
            let cycle = fabric.candidate.clone();
            let ports: Vec<String> = cycle.iter().map(|&l| format!("link {l}")).collect();
            fabric.deadlock = Some(Deadlock { time: now, cycle });
            if fabric.watch.on_deadlock == OnDeadlock::Stop && self.part.is_none() {
                let cause = format!("a PFC deadlock: {} paused in a cycle", ports.join(" -> "));
                let flows = self.open_flow_states(|_| None);
                self.stall = Some(Box::new(Stall { time: now, flows, cause: Some(cause) }));
                self.finished = true;
                return;
            }
        }
        let fabric = self.fabric.as_deref_mut().expect("a fabric");
        fabric.watch_pending = true;
        self.sched.push(now + fabric.watch.interval, Event::PfcWatch);
        self.periodic += 1;
    }
}

/// The index of (link, class) in [`Fabric`]'s ingress ports.
#[inline]
fn at(link: u32, class: usize) -> usize {
    link as usize * CLASSES + class
}

/// A cycle of paused links, each waiting for the next: link `a` waits for link `b` when `b`
/// leaves the node `a` arrives at and `b`'s port holds packets that came in over `a`. Empty if
/// there is none. `paused` lists the paused links.
fn paused_cycle(links: &[crate::net::link::Link], paused: &[(u32, Time)]) -> Vec<u32> {
    let is_paused = |l: u32| paused.iter().any(|&(p, _)| p == l);
    // Edges among paused links.
    let waits_for = |a: u32| -> Vec<u32> {
        let to = links[a as usize].to;
        paused
            .iter()
            .map(|&(b, _)| b)
            .filter(|&b| {
                links[b as usize].from == to
                    && links[b as usize].lossless().is_some_and(|p| p.ingress_links().any(|i| i == a))
            })
            .collect()
    };
    // Depth-first search from each paused link; the path so far on a stack.
    for &(start, _) in paused {
        let mut path = vec![start];
        let mut next: Vec<Vec<u32>> = vec![waits_for(start)];
        while let Some(options) = next.last_mut() {
            match options.pop() {
                Some(b) if b == start => return path,
                Some(b) if !path.contains(&b) && is_paused(b) && b > start => {
                    path.push(b);
                    next.push(waits_for(b));
                }
                Some(_) => {}
                None => {
                    path.pop();
                    next.pop();
                }
            }
        }
    }
    Vec::new()
}

/// Whether two cycles hold the same links.
fn same_cycle(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().all(|x| b.contains(x))
}
