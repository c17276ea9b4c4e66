//! The event loop: links, hosts, routers and flows, driven by one [`Scheduler`].
//!
//! The world knows nothing of scenario files: [`crate::scenario`] builds it from a spec.
//! A host hands each arriving packet to the flow's sender or receiver (flow ids index an
//! arena: no lookup), sends what comes out through its NIC, and keeps one wake-up per
//! endpoint in the heap. A router looks up the next hop and offers the packet to that link.
//!
//! A world can also be one partition of a larger run ([`parallel`]): its links to other
//! partitions export the packets they carry instead of delivering them, its stand-ins of those
//! links import what other partitions send, and it starts only the flows whose source it holds.
//!
//! Each flow is carried by a [`Profile`]: fctlab's TCP, a paced sender, or the kernel's own TCP
//! ([`Profile::Kernel`], `stack = "linux"`), which only an emulation runs.
//!
//! Emulation (the `fctlab-emu` crate) drives a world through a few public methods, in their
//! own `impl` block: it detaches the hosts ([`World::detach_hosts`]), moves time
//! ([`World::advance`], [`World::next_event_time`]), puts the real hosts' packets in
//! ([`World::inject`], [`World::first_hop_drain`]), takes those that reach a host
//! ([`World::take_egress`]) and ends the run ([`World::close_external`]). Two fields serve it
//! alone, the `external` flag and the `egress` queue, and they stay in the world: the event
//! handler, which simulation and emulation share, must send a packet reaching a detached host
//! to the queue instead of to its endpoint (and start no flow), which costs one predictable
//! branch where a packet reaches a host and one where a flow starts. Moving them out would
//! cost more than they do: a trait object for the host side would put an indirect call on
//! every delivery, a type parameter would spread to every user of `World` (the tables, the
//! bindings, the tests), and a queue owned by the emulator would have to be passed through
//! the handler of every event.

use crate::capture::{Capture, CapturePlan, FlowFacts};
use crate::metrics::flows::PacketCounts;
use crate::metrics::metric::Metric;
use crate::metrics::series::{FlowSample, LinkSample};
use crate::metrics::{FlowRecord, Paths, SeriesRecorder};
use crate::net::link::Link;
use crate::net::packet::Packet;
use crate::plan::KernelStack;
use crate::plugin::{Fault, FaultSlot};
use crate::routing::Routes;
use crate::sched::{Event, Scheduler};
use crate::transport::app::App;
use crate::transport::endpoint::{Receiver, Sender};
use crate::transport::paced::PacedSender;
use crate::transport::tcp::{TcpReceiver, TcpSender};
use crate::transport::{Endpoint, FlowAddr};
use crate::units::{Rate, Time};

mod adapt;
mod barrier;
pub mod lossless;
pub mod parallel;
mod partition;
mod pool;
pub mod stall;
mod window;

pub use crate::plan::{AppTemplate, FlowPlan, Profile, RunLimits};
pub use stall::{FlowEvent, Stall, StalledFlow};

/// Live state of a started flow.
struct Active {
    sender: Sender,
    receiver: Receiver,
    /// Earliest wake-up in the heap for [sender, receiver].
    armed: [Option<Time>; 2],
    /// The flow's last event, for a stall's report.
    last: (Time, FlowEvent),
}

/// Run-wide packet counters (conservation: sent = delivered + dropped + in flight + queued).
#[derive(Clone, Debug, Default)]
pub struct Counters {
    /// Packets emitted by endpoints.
    pub sent_pkts: u64,
    /// Bytes (wire) emitted by endpoints.
    pub sent_bytes: u64,
    /// Packets that reached their destination host.
    pub delivered_pkts: u64,
    /// Bytes that reached their destination host.
    pub delivered_bytes: u64,
    /// Packets dropped by queues, lost on links or unroutable.
    pub dropped_pkts: u64,
    /// Bytes dropped.
    pub dropped_bytes: u64,
    /// Packets that crossed one link (the benchmark's unit of work).
    pub packet_hops: u64,
}

/// A scheduled change of one link's rate (`[[link_rate]]`, [`Link::set_rate`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RateChange {
    /// When.
    pub at: Time,
    /// Link id.
    pub link: u32,
    /// The new serialization rate.
    pub rate: Rate,
    /// Whether the port's discipline learns it.
    pub notify_queue: bool,
}

/// The simulated network and its flows.
pub struct World {
    now: Time,
    sched: Scheduler,
    /// Directed links, indexed by link id.
    pub links: Vec<Link>,
    is_host: Vec<bool>,
    routes: Routes,
    profiles: Vec<Profile>,
    plans: Vec<FlowPlan>,
    next_plan: usize,
    active: Vec<Option<Box<Active>>>,
    /// One row per planned flow.
    pub records: Vec<FlowRecord>,
    /// What each flow's endpoints counted packet by packet, by flow id (folded as the records
    /// are; not flows-table columns: the bindings read them to check a capture against).
    pub packet_counts: Vec<PacketCounts>,
    /// The flows' forward paths, which the records index.
    paths: Paths,
    /// Flows started less flows completed or stopped. In a partition of a partitioned run, the
    /// flows started here less those completed here: a flow starts at its source's partition
    /// and completes at its destination's, so only the sum over partitions means anything.
    open_flows: i64,
    limits: RunLimits,
    seed: u64,
    out: Vec<Packet>,
    drops: Vec<Packet>,
    /// Packet counters.
    pub counters: Counters,
    /// Time series, if asked for.
    pub series: SeriesRecorder,
    /// The capture the scenario plans (`[output.pcap]`), started by [`World::start_capture`].
    capture_plan: Option<CapturePlan>,
    /// The capture being written: every packet a link delivers is offered to it.
    capture: Option<Box<Capture>>,
    finished: bool,
    /// Scheduled link-rate changes in time order, and the next one to apply.
    rate_changes: Vec<RateChange>,
    next_rate_change: usize,
    /// Hosts are outside (real processes, [`World::detach_hosts`]): packets reaching a host
    /// wait in `egress`, flows are not started here, and the run ends when the driver says so.
    external: bool,
    egress: Vec<Packet>,
    /// This world is one partition of a partitioned run ([`parallel`]); None for a whole world.
    part: Option<Box<parallel::Part>>,
    /// Where the build's plug-ins report a fault, checked after every event (None: no
    /// plug-ins, nothing checked).
    plugins: Option<&'static FaultSlot>,
    /// Periodic events in the queue (samples and control ticks): they move no flow on, so a
    /// queue holding only these has nothing left to do ([`stall`]).
    periodic: usize,
    /// What stopped the run if it stalled ([`World::stall`]).
    stall: Option<Box<Stall>>,
    /// The lossless fabric (`[fabric]`: shared buffers, PFC), if the network is one.
    fabric: Option<Box<lossless::Fabric>>,
}

impl World {
    /// A world ready to run. `plans` must be sorted by start time.
    // The scenario build is the one caller and names every part; a builder would only rename them.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        links: Vec<Link>,
        is_host: Vec<bool>,
        routes: Routes,
        profiles: Vec<Profile>,
        plans: Vec<FlowPlan>,
        records: Vec<FlowRecord>,
        paths: Paths,
        limits: RunLimits,
        seed: u64,
        series: SeriesRecorder,
    ) -> World {
        World::assemble(links, is_host, routes, profiles, plans, records, paths, limits, seed, series, None)
    }

    /// A world of these parts, whole (`part` None) or one partition of a partitioned run, with
    /// its first events scheduled.
    #[allow(clippy::too_many_arguments)]
    fn assemble(
        links: Vec<Link>,
        is_host: Vec<bool>,
        routes: Routes,
        profiles: Vec<Profile>,
        plans: Vec<FlowPlan>,
        records: Vec<FlowRecord>,
        paths: Paths,
        limits: RunLimits,
        seed: u64,
        series: SeriesRecorder,
        part: Option<Box<parallel::Part>>,
    ) -> World {
        let n = plans.len();
        let mut world = World {
            now: Time::ZERO,
            sched: Scheduler::new(),
            links,
            is_host,
            routes,
            profiles,
            plans,
            next_plan: 0,
            active: (0..n).map(|_| None).collect(),
            packet_counts: vec![PacketCounts::default(); records.len()],
            records,
            paths,
            open_flows: 0,
            limits,
            seed,
            out: Vec::with_capacity(64),
            drops: Vec::with_capacity(64),
            counters: Counters::default(),
            series,
            capture_plan: None,
            capture: None,
            finished: false,
            rate_changes: Vec::new(),
            next_rate_change: 0,
            external: false,
            egress: Vec::new(),
            part,
            plugins: None,
            periodic: 0,
            stall: None,
            fabric: None,
        };
        world.schedule_first_events();
        world
    }

    /// The events a world starts with: its first flow's start, every discipline's first tick
    /// (stand-ins of other partitions' links have none), the first series sample.
    fn schedule_first_events(&mut self) {
        if let Some(f) = self.plan_id(0) {
            self.sched.push(self.plans[f].start, Event::FlowStart);
        }
        for (i, l) in self.links.iter().enumerate() {
            if let Some(t) = l.first_tick() {
                self.sched.push(t, Event::QdiscTick(i as u32));
                self.periodic += 1;
            }
        }
        if let Some(first) = self.series.first_sample() {
            self.sched.push(first, Event::Sample);
            self.periodic += 1;
        }
    }

    /// Plans the capture `[output.pcap]` asks for (the scenario build calls this).
    pub fn plan_capture(&mut self, plan: Option<CapturePlan>) {
        self.capture_plan = plan;
    }

    /// The capture the scenario plans, if any.
    pub fn capture_plan(&self) -> Option<&CapturePlan> {
        self.capture_plan.as_ref()
    }

    /// Starts writing the planned capture to a new file at `path` (nothing without a plan);
    /// from then on every packet a captured link delivers is written.
    pub fn start_capture(&mut self, path: &std::path::Path) -> std::io::Result<()> {
        if let Some(plan) = &self.capture_plan {
            let c = Capture::open(plan, path, &self.links, self.records.len(), self.seed)?;
            self.capture = Some(Box::new(c));
        }
        Ok(())
    }

    /// Ends the capture: flushes its file and returns the packets written (0 without one), or
    /// the first error met while writing it.
    pub fn finish_capture(&mut self) -> std::io::Result<u64> {
        match self.capture.take() {
            Some(mut c) => c.finish(),
            None => Ok(0),
        }
    }

    /// Changes link rates at the given times (sorted by time; each link must have a
    /// discipline port, see [`Link::use_qdisc_port`]).
    pub fn schedule_rate_changes(&mut self, changes: Vec<RateChange>) {
        debug_assert!(changes.windows(2).all(|w| w[0].at <= w[1].at));
        if let Some(c) = changes.first() {
            self.sched.push(c.at.max(self.now), Event::LinkRate);
        }
        self.rate_changes = changes;
        self.next_rate_change = 0;
    }

    /// Applies every change due now and schedules the next.
    fn apply_rate_changes(&mut self) {
        while let Some(c) = self.rate_changes.get(self.next_rate_change).copied() {
            if c.at > self.now {
                self.sched.push(c.at, Event::LinkRate);
                return;
            }
            self.links[c.link as usize].set_rate(c.rate, c.notify_queue);
            self.next_rate_change += 1;
        }
    }

    /// Current simulated time.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.sched.popped()
    }

    /// Events waiting in the queue.
    pub fn pending_events(&self) -> usize {
        self.sched.len()
    }

    /// True once the run is over.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The scenario seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Flows started and not yet complete (long-lived flows count until their stop).
    pub fn open_flows(&self) -> usize {
        self.open_flows.max(0) as usize
    }

    /// Whether node `n` is simulated by this world: always, unless it is a partition of a
    /// partitioned run and `n` belongs to another.
    #[inline]
    fn is_local(&self, n: usize) -> bool {
        self.part.as_ref().is_none_or(|p| p.is_local(n))
    }

    /// Whether flow `f`'s record is final, so that its row of the flows table can be handed over
    /// while the run goes on ([`crate::metrics::tables::FlowStream`]): the run is over, or the
    /// flow started and retired (it completed and its sender is done: `retire` folded its
    /// counters into the record and freed its state, and nothing writes the record again).
    /// Never while the hosts are detached: an emulation folds their reports in after the run.
    pub fn record_is_final(&self, f: usize) -> bool {
        !self.external && (self.finished || (f < self.next_plan && self.active[f].is_none()))
    }

    fn check_finished(&mut self) -> bool {
        let all_started = self.next_plan >= self.plans.len();
        let done = if self.limits.drain {
            all_started && self.open_flows == 0 && self.now >= self.limits.duration.min(self.last_start())
        } else {
            self.now >= self.limits.duration
        };
        if done || self.now >= self.limits.max_time {
            self.finished = true;
        }
        self.finished
    }

    fn last_start(&self) -> Time {
        self.plans.last().map_or(Time::ZERO, |p| p.start)
    }

    /// Watches `slot`, where the build's plug-ins report a fault: the run stops after the
    /// event that raised one ([`World::plugin_fault`]).
    pub fn watch_plugins(&mut self, slot: Option<&'static FaultSlot>) {
        self.plugins = slot;
    }

    /// The fault that stopped the run, if a plug-in failed (stamped with the event's time).
    pub fn plugin_fault(&self) -> Option<Fault> {
        self.plugins.and_then(|s| s.fault())
    }

    /// True if a plug-in failed in the event just handled; stamps the fault with its time. A
    /// whole world runs on one thread, so any fault is its own.
    #[inline]
    fn plugin_failed(&self) -> bool {
        match self.plugins {
            Some(slot) if slot.is_raised() => {
                crate::plugin::take_pending();
                slot.stamp(self.now);
                true
            }
            _ => false,
        }
    }

    /// [`World::plugin_failed`] for one partition among others: only a fault raised on this
    /// thread, since the last check, is its own.
    #[inline]
    pub(crate) fn partition_plugin_failed(&self) -> bool {
        match self.plugins {
            Some(slot) if crate::plugin::take_pending() => {
                slot.stamp(self.now);
                true
            }
            _ => false,
        }
    }

    /// Runs every event up to and including `until`; returns true once the run is over (also
    /// when a plug-in failed: [`World::plugin_fault`], the flows' records left as they were).
    pub fn run_until(&mut self, until: Time) -> bool {
        let until =
            until.min(self.limits.max_time).min(if self.limits.drain { Time::MAX } else { self.limits.duration });
        while !self.finished {
            match self.sched.pop_by(until) {
                Some((t, ev)) => {
                    if let Some(Event::LinkArrival(next)) = self.sched.peek_near() {
                        self.links[next as usize].prefetch_arrival();
                    }
                    self.now = t;
                    self.handle(ev);
                    if self.plugin_failed() {
                        self.finished = true;
                        return true;
                    }
                    if self.open_flows == 0 && self.check_finished() {
                        break;
                    }
                }
                _ => {
                    if self.sched.is_empty() {
                        // Nothing can happen any more: flows still open are stuck for good, and
                        // unless the run reached its end by time that is a stall, found after
                        // its last event whatever `until` is.
                        self.stop_if_stalled();
                        if self.finished {
                            break;
                        }
                    }
                    self.now = self.now.max(until);
                    self.check_finished();
                    if self.sched.is_empty() && !self.finished && self.next_plan >= self.plans.len() {
                        self.finished = true;
                    }
                    break;
                }
            }
        }
        if self.finished {
            self.flush();
            self.close();
        }
        self.finished
    }

    /// After the last flow completed (drain mode), lets the packets still in the network reach
    /// their hosts, so that every packet sent is accounted delivered or dropped.
    fn flush(&mut self) {
        if !self.limits.drain || self.open_flows > 0 {
            return;
        }
        while self.sched.peek_near_time().is_some() {
            let Some((t, ev)) = self.sched.pop_near() else { break };
            if t > self.limits.max_time {
                break;
            }
            self.now = t;
            self.handle(ev);
        }
    }

    /// Runs to the end.
    pub fn run(&mut self) {
        while !self.run_until(self.limits.max_time) {}
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::LinkArrival(l) => {
                if self.capture.is_some() {
                    self.capture_arrival(l);
                }
                let pkt = self.links[l as usize].on_arrival(l, &mut self.sched);
                self.counters.packet_hops += 1;
                let node = self.links[l as usize].to as usize;
                if self.is_host[node] {
                    if self.external {
                        self.counters.delivered_pkts += 1;
                        self.counters.delivered_bytes += pkt.wire as u64;
                        self.egress.push(pkt);
                    } else {
                        self.deliver(pkt);
                    }
                } else if self.fabric.is_some() {
                    self.forward_lossless(node, l, pkt);
                } else {
                    self.forward(node, pkt);
                }
            }
            Event::LinkFree(l) => {
                self.links[l as usize].on_free(l, self.now, &mut self.sched, &mut self.drops);
                self.count_drops(0);
                if self.fabric.is_some() {
                    self.after_lossless_port(l);
                }
            }
            Event::Pfc { link, class, pause } => self.on_pfc(link, class, pause),
            Event::PfcWatch => {
                self.on_pfc_watch();
                self.stop_if_stalled();
            }
            Event::FlowStart if self.external => {}
            Event::FlowStart => self.start_next_flow(),
            Event::Timer { flow, side } => self.on_timer(flow as usize, side as usize),
            Event::QdiscTick(l) => {
                self.periodic -= 1;
                let next = self.links[l as usize].tick(self.now);
                if let Some(t) = next {
                    self.sched.push(t, Event::QdiscTick(l));
                    self.periodic += 1;
                }
                self.stop_if_stalled();
            }
            Event::LinkRate => self.apply_rate_changes(),
            Event::Sample => {
                self.periodic -= 1;
                let next = self.take_sample();
                if !self.finished {
                    self.sched.push(next, Event::Sample);
                    self.periodic += 1;
                }
                self.stop_if_stalled();
            }
        }
    }

    /// Offers the packet link `l` is about to deliver to the capture. Out of line, and reading
    /// the packet where it waits on the link: a run without a capture pays only the test of
    /// `self.capture` (the packet the event moves on is not touched here).
    #[cold]
    #[inline(never)]
    fn capture_arrival(&mut self, l: u32) {
        let (Some(c), Some(pkt)) = (self.capture.as_deref_mut(), self.links[l as usize].head_in_flight()) else {
            return;
        };
        let (records, profiles) = (&self.records, &self.profiles);
        c.record(self.now, l, pkt, || {
            let r = records.get(pkt.flow as usize);
            FlowFacts {
                stream_end: r.and_then(|r| r.size),
                mss: r.map_or(0, |r| profiles[r.profile as usize].packet_sizes().0),
            }
        });
    }

    /// Takes one sample of the series (each sampled link's counters and its port's own rows,
    /// each sampled flow's sender); returns the time of the next.
    fn take_sample(&mut self) -> Time {
        let flows = self.flow_samples();
        let (now, links) = (self.now, &mut self.links);
        let read_link = |l: u32, law_rows: &mut dyn FnMut(Metric, f64)| {
            let link = &mut links[l as usize];
            let queued_bytes = link.queued_bytes(now);
            let sample = LinkSample {
                queued_bytes,
                serialized_bit_ps: link.serialized_bit_ps(now),
                offered_bytes: link.offered_bytes(),
                drops_bytes: link.stats.drops_bytes,
            };
            link.law_metrics(now, &mut |m, v| law_rows(m, v));
            sample
        };
        self.series.sample(now, read_link, &flows)
    }

    /// What the series read of each sampled flow's sender (None: not active).
    fn flow_samples(&self) -> Vec<(u32, Option<FlowSample>)> {
        let sample = |a: &Active| FlowSample {
            cwnd: a.sender.cwnd(),
            send_rate_bps: a.sender.send_rate_bps(),
            acked_bytes: a.sender.acked_bytes(),
            cc: a.sender.cc_metric(),
        };
        self.series
            .flows()
            .iter()
            .map(|&f| (f, self.active.get(f as usize).and_then(|a| a.as_deref()).map(sample)))
            .collect()
    }

    /// Sends `pkt` from `node` towards its destination.
    #[inline]
    fn forward(&mut self, node: usize, pkt: Packet) {
        // The ECMP hash is recomputed per hop rather than carried (the packet stays within
        // two cache lines), and only where there is a choice of next hops.
        let seed = self.seed;
        match self.routes.next_hop_with(node, pkt.dst as usize, || crate::routing::flow_hash(pkt.flow as u64, seed)) {
            Some(l) => {
                let before = self.drops.len();
                self.links[l as usize].send(l, self.now, pkt, &mut self.sched, &mut self.drops);
                self.count_drops(before);
            }
            None => {
                self.counters.dropped_pkts += 1;
                self.counters.dropped_bytes += pkt.wire as u64;
            }
        }
    }

    /// Counts (and forgets) the packets links discarded from `drops[before..]`.
    #[inline]
    fn count_drops(&mut self, before: usize) {
        for d in self.drops.drain(before..) {
            self.counters.dropped_pkts += 1;
            self.counters.dropped_bytes += d.wire as u64;
        }
    }

    fn deliver(&mut self, pkt: Packet) {
        self.counters.delivered_pkts += 1;
        self.counters.delivered_bytes += pkt.wire as u64;
        let f = pkt.flow as usize;
        let side = if pkt.is_forward() { 1 } else { 0 };
        let Some(a) = self.active[f].as_mut() else { return };
        let mut out = std::mem::take(&mut self.out);
        if side == 1 {
            a.last = (self.now, FlowEvent::ReceiverPacket);
            a.receiver.on_packet(self.now, &pkt, &mut out);
        } else {
            a.last = (self.now, FlowEvent::SenderPacket);
            a.sender.on_packet(self.now, &pkt, &mut out);
        }
        self.after_endpoint(f, side, &mut out);
        self.out = out;
    }

    fn on_timer(&mut self, f: usize, side: usize) {
        let now = self.now;
        let Some(a) = self.active[f].as_mut() else { return };
        if a.armed[side] != Some(now) {
            return; // a stale wake-up: a later one replaced it
        }
        a.armed[side] = None;
        let mut out = std::mem::take(&mut self.out);
        let due = if side == 0 { a.sender.poll_timeout() } else { a.receiver.poll_timeout() };
        if due.is_some_and(|t| t <= now) {
            if side == 0 {
                a.last = (now, FlowEvent::SenderTimer);
                a.sender.on_timeout(now, &mut out);
            } else {
                a.last = (now, FlowEvent::ReceiverTimer);
                a.receiver.on_timeout(now, &mut out);
            }
        }
        self.after_endpoint(f, side, &mut out);
        self.out = out;
    }

    /// Sends what an endpoint emitted, re-arms its wake-up, and notes completion.
    fn after_endpoint(&mut self, f: usize, side: usize, out: &mut Vec<Packet>) {
        let host = if side == 0 { self.plans[f].src } else { self.plans[f].dst };
        for p in out.drain(..) {
            self.counters.sent_pkts += 1;
            self.counters.sent_bytes += p.wire as u64;
            if self.fabric.is_some() {
                self.forward_lossless(host, crate::net::lossless::FROM_HOST, p);
            } else {
                self.forward(host, p);
            }
        }
        let Some(a) = self.active[f].as_mut() else { return };
        let due = if side == 0 { a.sender.poll_timeout() } else { a.receiver.poll_timeout() };
        if let Some(t) = due {
            if a.armed[side].is_none_or(|armed| t < armed) {
                let t = t.max(self.now);
                a.armed[side] = Some(t);
                self.sched.push(t, Event::Timer { flow: f as u32, side: side as u8 });
            }
        }
        let plan = &self.plans[f];
        // A partition holds one side of a flow whose ends it does not both hold; the source's
        // partition stops a long-lived flow, and retires a finite one when its sender is done
        // (every byte acknowledged: the receiver, elsewhere, has completed).
        let (src_here, dst_here) = match &self.part {
            None => (true, true),
            Some(p) => (p.is_local(plan.src), p.is_local(plan.dst)),
        };
        let rec = &mut self.records[f];
        if rec.finish.is_none() {
            if let Some(t) = a.receiver.completed_at() {
                rec.finish = Some(t);
                self.open_flows -= 1;
                self.series.flow_ended(self.paths.get(rec.path));
            } else if plan.size.is_none()
                && src_here
                && self.now >= plan.stop.unwrap_or(self.limits.duration)
                && !rec.stopped
            {
                // A long-lived flow without `stop` stops at the duration, as its application does.
                rec.stopped = true;
                self.open_flows -= 1;
                self.series.flow_ended(self.paths.get(rec.path));
            }
        }
        let receiver_done = rec.finish.is_some() || (!dst_here && plan.size.is_some());
        if src_here && receiver_done && a.sender.is_done() {
            self.retire(f);
        }
    }

    /// Copies a finished flow's counters into its record and frees its state. Called at the
    /// event that made its sender done: the last acknowledgement's arrival.
    fn retire(&mut self, f: usize) {
        if let Some(a) = self.active[f].take() {
            let rec = &mut self.records[f];
            rec.set_acked(self.now);
            fold_counters(&a, rec, &mut self.packet_counts[f]);
        }
    }

    /// The flow id of the `i`-th flow this world starts: every planned flow in order, or in a
    /// partition, those with an end there.
    #[inline]
    fn plan_id(&self, i: usize) -> Option<usize> {
        match &self.part {
            None => (i < self.plans.len()).then_some(i),
            Some(p) => p.flows.get(i).map(|&f| f as usize),
        }
    }

    fn start_next_flow(&mut self) {
        let now = self.now;
        while let Some(f) = self.plan_id(self.next_plan).filter(|&f| self.plans[f].start <= now) {
            self.next_plan += 1;
            let plan = &self.plans[f];
            let addr = flow_addr(f, plan, self.seed);
            let sender = new_sender(plan, &self.profiles[plan.profile], addr, plan.start, self.limits.duration);
            let receiver = new_receiver(plan, &self.profiles[plan.profile], addr, plan.size);
            let last = (now, FlowEvent::Started);
            self.active[f] = Some(Box::new(Active { sender, receiver, armed: [None, None], last }));
            if !self.is_local(plan.src) {
                continue; // the receiver's side of a flow sent from another partition
            }
            self.open_flows += 1;
            self.series.flow_started(self.paths.get(self.records[f].path));
            let mut out = std::mem::take(&mut self.out);
            if let Some(a) = self.active[f].as_mut() {
                a.sender.start(now, self.records[f].rtt_prop, &mut out);
            }
            self.after_endpoint(f, 0, &mut out);
            self.out = out;
        }
        if let Some(f) = self.plan_id(self.next_plan) {
            self.sched.push(self.plans[f].start, Event::FlowStart);
        }
    }

    /// End of run: fold the counters of flows still open into their records.
    fn close(&mut self) {
        for ((a, rec), n) in self.active.iter().zip(self.records.iter_mut()).zip(self.packet_counts.iter_mut()) {
            if let Some(a) = a {
                fold_counters(a, rec, n);
            }
        }
        for l in &mut self.links {
            l.settle(self.now);
        }
    }

    /// The planned flows, by flow id.
    pub fn plans(&self) -> &[FlowPlan] {
        &self.plans
    }

    /// Flow `f`'s forward path (link ids, source to destination), as routed at plan time.
    pub fn path(&self, f: usize) -> &[u32] {
        self.paths.get(self.records[f].path)
    }

    /// Bytes the world holds for its flows for the whole run: plans, records, paths and the
    /// slots of their live state (capacity; the live state of a started flow comes on top
    /// until it retires).
    pub fn flow_bytes(&self) -> usize {
        use std::mem::size_of;
        self.plans.capacity() * size_of::<FlowPlan>()
            + self.records.capacity() * size_of::<FlowRecord>()
            + self.active.capacity() * size_of::<Option<Box<Active>>>()
            + self.paths.heap_bytes()
    }

    /// The transport profiles the plans index.
    pub fn profiles(&self) -> &[Profile] {
        &self.profiles
    }

    /// The run's limits.
    pub fn limits(&self) -> RunLimits {
        self.limits
    }

    /// The kernel stack that runs flow `f` (its profile is [`Profile::Kernel`]), if any.
    pub fn kernel_stack(&self, f: usize) -> Option<&KernelStack> {
        self.profiles.get(self.plans.get(f)?.profile)?.kernel_stack()
    }

    /// Nodes of the network.
    pub fn node_count(&self) -> usize {
        self.is_host.len()
    }

    /// Whether node `n` is a host.
    pub fn is_host(&self, n: usize) -> bool {
        self.is_host.get(n).copied().unwrap_or(false)
    }

    /// Packets queued or on the wire anywhere.
    pub fn packets_in_network(&self) -> (u64, u64) {
        let mut pk = 0;
        let mut by = 0;
        for l in &self.links {
            let (p, b) = l.packets_inside();
            pk += p;
            by += b;
        }
        (pk, by)
    }
}

/// Driving the world from outside: emulation (the `fctlab-emu` crate) runs the hosts as real
/// processes and the network here (see the module doc).
impl World {
    /// Hands the hosts to outside drivers (emulation): from now on packets reaching a host
    /// are queued for [`World::take_egress`], packets enter through [`World::inject`], no flow
    /// starts here, and time moves only through [`World::advance`].
    pub fn detach_hosts(&mut self) {
        self.external = true;
    }

    /// Handles every event due by `until` (outside hosts: no end-of-run logic) and moves the
    /// clock to `until`.
    pub fn advance(&mut self, until: Time) {
        while let Some((t, ev)) = self.sched.pop_by(until) {
            self.now = t;
            self.handle(ev);
        }
        self.now = self.now.max(until);
    }

    /// Time of the earliest pending event.
    pub fn next_event_time(&mut self) -> Option<Time> {
        self.sched.peek_time()
    }

    /// How long the first link `pkt` takes from host `node` needs to send what it holds now:
    /// a packet arriving that much late leaves no later than it would have.
    pub fn first_hop_drain(&mut self, node: usize, pkt: &Packet) -> Time {
        let seed = self.seed;
        let hop =
            self.routes.next_hop_with(node, pkt.dst as usize, || crate::routing::flow_hash(pkt.flow as u64, seed));
        match hop {
            Some(l) => self.links[l as usize].drain_time(self.now),
            None => Time::ZERO,
        }
    }

    /// Sends `pkt`, emitted now by host `node`, into the network.
    pub fn inject(&mut self, node: usize, pkt: Packet) {
        self.counters.sent_pkts += 1;
        self.counters.sent_bytes += pkt.wire as u64;
        self.forward(node, pkt);
    }

    /// The packets that reached a host since the last call.
    pub fn take_egress(&mut self, into: &mut Vec<Packet>) {
        into.append(&mut self.egress);
    }

    /// Ends a run driven from outside: folds the link counters (see [`World::run_until`]).
    pub fn close_external(&mut self) {
        self.finished = true;
        for l in &mut self.links {
            l.settle(self.now);
        }
    }
}

/// The application a plan's flow runs (`duration`: when a long-lived flow without `stop` stops).
fn app_of(plan: &FlowPlan, profile: &Profile, duration: Time) -> App {
    let template = match profile {
        Profile::Tcp { app, .. } | Profile::Paced { app, .. } => *app,
        // The kernel's flows write their size at once (stack.rs refuses any other app).
        Profile::Kernel(_) => None,
    };
    match (plan.size, plan.stop, template) {
        (None, stop, _) => App::LongLived { stop: stop.unwrap_or(duration) },
        (Some(size), _, None) => App::Bulk { size },
        (Some(size), _, Some(AppTemplate::Scheduled { initial, chunk, interval })) => {
            App::Scheduled { initial, chunk, interval, total: size }
        }
    }
}

/// The sending endpoint of a planned flow whose application starts at `start` (the world's
/// and the emulator's hosts build them alike).
pub fn new_sender(plan: &FlowPlan, profile: &Profile, addr: FlowAddr, start: Time, duration: Time) -> Sender {
    let app = app_of(plan, profile, duration);
    match profile {
        Profile::Tcp { cfg, .. } => Sender::Tcp(TcpSender::new(*cfg, addr, app, start)),
        Profile::Paced { cfg, .. } => Sender::Paced(PacedSender::new(*cfg, addr, app, start)),
        Profile::Kernel(k) => Sender::Tcp(TcpSender::new(k.planned_tcp(), addr, app, start)),
    }
}

/// The receiving endpoint of a planned flow; `size` tells it the flow's length (None: it learns
/// the end from the stream).
pub fn new_receiver(plan: &FlowPlan, profile: &Profile, addr: FlowAddr, size: Option<u64>) -> Receiver {
    let cfg = match profile {
        Profile::Tcp { cfg, .. } => *cfg,
        Profile::Paced { rx, .. } => *rx,
        Profile::Kernel(k) => k.planned_tcp(),
    };
    let mut receiver = TcpReceiver::new(cfg, addr, size);
    // Measurement only: when the application's first write was held in full.
    if let App::Scheduled { initial, .. } = app_of(plan, profile, Time::MAX) {
        receiver.watch_first_write(initial);
    }
    Receiver::Tcp(receiver)
}

/// The addressing of planned flow `f` of a run with this seed.
pub fn flow_addr(f: usize, plan: &FlowPlan, seed: u64) -> FlowAddr {
    FlowAddr {
        flow: f as u32,
        src: plan.src as u32,
        dst: plan.dst as u32,
        hash: crate::routing::flow_hash(f as u64, seed),
    }
}

/// Copies an endpoint pair's counters into the flow's record and packet counts.
fn fold_counters(a: &Active, rec: &mut FlowRecord, packets: &mut PacketCounts) {
    let (retx, timeouts) = a.sender.loss_stats();
    rec.retx_bytes = retx;
    rec.timeouts = timeouts;
    rec.delivered = a.receiver.delivered();
    rec.first_write = a.receiver.first_write_at();
    let (data_pkts, retx_pkts) = a.sender.packet_stats();
    *packets = PacketCounts { data_pkts, retx_pkts, sack_acks: a.receiver.sack_acks() };
}
