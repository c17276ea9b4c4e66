//! One run on several cores: the network cut into partitions, each a [`World`] of its own, run
//! side by side in windows of simulated time (conservative synchronisation).
//!
//! **The cut.** Each node belongs to one partition ([`super::partition`]); a partition holds the
//! links leaving its nodes whole, and the far end of each link coming in from another
//! ([`Role`]). A packet put on a link across is handed over ([`crate::sched::Scheduler::export`])
//! with its arrival time, at least the *lookahead* L later (the shortest such link's delay plus
//! the serialization of the smallest packet). A flow's sender runs in its source's partition
//! and its receiver in its destination's.
//!
//! **Windows.** Every round, the partitions publish the time of their earliest pending event
//! (or packet handed over), and all run every event before `T + L`, T the smallest published
//! time: nothing another partition does in the window can reach them before its end. At the
//! window's end they exchange the packets handed over, and a barrier starts the next round. So
//! a window costs one barrier, and the run scales while a window holds much more work than a
//! barrier costs (`docs/parallel.md` has the measurements and a model).
//!
//! **Same bytes on any number of threads.** A partitioned run is defined by its partitions, not
//! by its threads: the threads only share out the partitions, and each partition runs its
//! events in the order of their keys. Those keys do not depend on the threads' timing: local
//! events are numbered in the order the partition creates them, and the arrivals of a link
//! coming in from another partition are keyed by link id ([`crate::sched`]). The end of a run
//! does not depend on the windows either: the run stops at the first multiple of the *epoch*
//! (1 ms, or L if longer) after its last flow completes, windows never cross an epoch, and
//! then, as a whole world does, lets the packets still in the network arrive.
//!
//! **Against a whole world.** One partition is the whole world. With several, three things
//! differ, all deterministic: events at the same picosecond may run in another order (an
//! arrival from another partition goes first); a flow whose ends are in different partitions
//! frees its sender when every byte is acknowledged, and its receiver only at the end (a whole
//! world frees both then, and ignores packets of the flow arriving later); a draining run
//! handles the events up to the end of the epoch of its last completion (a whole world stops
//! at the completion itself), so its time and counters run on a little further.

use super::partition;
pub use super::partition::Partition;
use super::{Counters, World};
use crate::metrics::flows::PacketCounts;
use crate::metrics::SeriesRecorder;
use crate::net::link::Role;
use crate::sched::{Export, Scheduler};
use crate::units::Time;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// The most partitions a run may be cut into.
pub const MAX_PARTITIONS: usize = 1024;

/// What makes a world one partition of a partitioned run.
#[derive(Debug)]
pub(crate) struct Part {
    /// This partition's index.
    me: u16,
    /// By node id: its partition.
    of: Arc<[u16]>,
    /// The flows with an end here, in plan order (start time).
    pub(crate) flows: Vec<u32>,
}

impl Part {
    /// Whether node `n` is simulated here.
    #[inline]
    pub(crate) fn is_local(&self, n: usize) -> bool {
        self.of[n] == self.me
    }
}

/// Why a world cannot run partitioned: the scenario field at fault and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParallelError {
    /// The scenario field (`parallel.partitions`, ...).
    pub field: &'static str,
    /// What is wrong, and what was expected.
    pub msg: String,
}

impl ParallelError {
    fn new(field: &'static str, msg: impl Into<String>) -> ParallelError {
        ParallelError { field, msg: msg.into() }
    }
}

impl std::fmt::Display for ParallelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "field `{}`: {}", self.field, self.msg)
    }
}

impl std::error::Error for ParallelError {}

/// The figures of a partitioned run, for its report.
#[derive(Clone, Debug, Default)]
pub struct ParallelStats {
    /// Partitions.
    pub partitions: usize,
    /// Threads that ran them.
    pub threads: usize,
    /// The lookahead, the longest a window can be.
    pub lookahead: Time,
    /// Windows run (barriers crossed).
    pub windows: u64,
    /// Packets handed from one partition to another.
    pub handed_over: u64,
    /// Estimated work per partition (bytes times hops of the planned flows).
    pub work: Vec<u64>,
    /// Events each partition ran.
    pub events: Vec<u64>,
    /// Seconds each thread spent running events.
    pub busy_s: Vec<f64>,
    /// Seconds each thread spent handing packets over and taking them in (the rest of its
    /// time, it waited at the barrier).
    pub exchange_s: Vec<f64>,
    /// By thread: the sum over windows of the longest time one of its partitions took to run
    /// the window. Run on one thread, this is the critical path: how long the events would take
    /// with a core per partition and barriers that cost nothing (`docs/parallel.md`'s model).
    pub critical_s: Vec<f64>,
}

/// A world cut into partitions, run in windows on several threads.
pub struct Parallel {
    parts: Vec<World>,
    partition: Partition,
    threads: usize,
    /// Windows never cross a multiple of this; a draining run ends on one.
    epoch: Time,
    /// Every event before this has run.
    done_before: Time,
    /// Draining is over: only link events run, until the network is empty.
    flushing: bool,
    finished: bool,
    now: Time,
    stats: ParallelStats,
    /// What stopped the run if it stalled ([`super::stall`]).
    stall: Option<Box<super::Stall>>,
}

/// Where a round of the window loop leaves the run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Step {
    /// Run every event before this time.
    Window(Time),
    /// Every event due by the caller's time has run.
    Paused,
    /// Every flow is complete and every event before this epoch's end has run: let the
    /// network empty.
    Flush(Time),
    /// The run is over.
    Finished,
    /// Nothing can happen any more in any partition, yet flows are open (found after the last
    /// event, at this time): the run stalled.
    Stalled(Time),
}

impl World {
    /// Cuts this world into `partitions` partitions, to run on `threads` threads
    /// ([`Parallel`]); the world keeps what it was built with, less its links, until
    /// [`Parallel::finish_into`] puts the run's results back.
    pub fn into_partitions(&mut self, partitions: usize, threads: usize) -> Result<Parallel, ParallelError> {
        if threads == 0 {
            return Err(ParallelError::new("parallel.threads", "expected a whole number >= 1, got 0"));
        }
        if self.external || self.sched.popped() > 0 {
            return Err(ParallelError::new("parallel", "a partitioned run must start from a world that has not run"));
        }
        let partition = self.partition(partitions)?;
        let parts = (0..partitions).map(|q| self.partition_world(&partition, q as u16)).collect();
        self.links = Vec::new();
        let epoch = partition.lookahead.max(Time::from_ms(1));
        let stats = ParallelStats {
            partitions,
            threads: threads.min(partitions),
            lookahead: partition.lookahead,
            work: partition.work.clone(),
            ..ParallelStats::default()
        };
        Ok(Parallel {
            parts,
            partition,
            threads: threads.min(partitions),
            epoch,
            done_before: Time::ZERO,
            flushing: false,
            finished: false,
            now: Time::ZERO,
            stats,
            stall: None,
        })
    }

    /// How `partitions` partitions would cut this world, or why they cannot.
    pub fn partition(&self, partitions: usize) -> Result<Partition, ParallelError> {
        if partitions == 0 || partitions > MAX_PARTITIONS {
            let msg = format!("expected a whole number from 1 to {MAX_PARTITIONS}, got {partitions}");
            return Err(ParallelError::new("parallel.partitions", msg));
        }
        if self.series.first_sample().is_some() && partitions > 1 {
            return Err(ParallelError::new(
                "parallel.partitions",
                format!(
                    "a run cut into {partitions} partitions cannot record `output.series` (a sample reads every \
                     link and flow at one instant); use 1 partition or drop the series"
                ),
            ));
        }
        if self.capture_plan().is_some() && partitions > 1 {
            return Err(ParallelError::new(
                "parallel.partitions",
                format!(
                    "a run cut into {partitions} partitions cannot write `output.pcap` (one file in time \
                     order); use 1 partition or drop the capture"
                ),
            ));
        }
        let min_wire = self.profiles.iter().map(min_header).min().unwrap_or(40).max(1);
        let fastest = |l: usize| {
            let changes = self.rate_changes.iter().filter(|c| c.link as usize == l).map(|c| c.rate.0);
            changes.fold(self.links[l].rate.0, u64::max)
        };
        let flows = self.plans.iter().zip(&self.records).map(|(p, r)| (p.src, p.size, self.paths.get(r.path)));
        let partition = partition::choose(&self.links, &self.is_host, flows, partitions, min_wire, fastest);
        if partition.lookahead == Time::ZERO {
            return Err(ParallelError::new(
                "parallel.partitions",
                format!(
                    "{partitions} partitions cut a link of zero delay, so no partition could run ahead of \
                     another; use fewer partitions or give the links a delay"
                ),
            ));
        }
        Ok(partition)
    }

    /// Partition `q` of this world: its links (whole or the far end), its flows' ends, its
    /// share of the periodic events.
    fn partition_world(&mut self, partition: &Partition, q: u16) -> World {
        let of: Arc<[u16]> = partition.of.clone().into();
        let here = |n: u32| of[n as usize] == q;
        let mut links = Vec::with_capacity(self.links.len());
        for l in self.links.iter_mut() {
            let (from, to) = (here(l.from), here(l.to));
            let own = if from {
                let mut own = std::mem::replace(l, l.stand_in());
                own.set_role(if to { Role::Whole } else { Role::Export });
                own
            } else {
                let mut far = l.stand_in();
                if to {
                    far.set_role(Role::Import);
                }
                far
            };
            links.push(own);
        }
        let ends_here = |p: &super::FlowPlan| here(p.src as u32) || here(p.dst as u32);
        let flows: Vec<u32> = (0..self.plans.len() as u32).filter(|&f| ends_here(&self.plans[f as usize])).collect();
        let rate_changes: Vec<_> =
            self.rate_changes.iter().copied().filter(|c| here(links[c.link as usize].from)).collect();
        let mut part = World::assemble(
            links,
            self.is_host.clone(),
            self.routes.clone(),
            self.profiles.clone(),
            self.plans.clone(),
            self.records.clone(),
            self.paths.clone(),
            self.limits,
            self.seed,
            SeriesRecorder::default(),
            Some(Box::new(Part { me: q, of, flows })),
        );
        part.schedule_rate_changes(rate_changes);
        part.watch_plugins(self.plugins);
        part
    }

    /// The earliest pending event (only link events while flushing), or `Time::MAX`.
    fn next_time(&mut self, flushing: bool) -> Time {
        let t = if flushing { self.sched.peek_near_time() } else { self.sched.peek_time() };
        t.unwrap_or(Time::MAX)
    }

    /// Runs every event before `end` (only link events while flushing).
    fn run_window(&mut self, end: Time, flushing: bool) {
        let last = Time(end.0 - 1);
        let watch = self.plugins.is_some();
        if flushing {
            while self.sched.peek_near_time().is_some_and(|t| t <= last) {
                let Some((t, ev)) = self.sched.pop_near() else { break };
                self.now = t;
                self.handle(ev);
                if watch && self.partition_plugin_failed() {
                    return;
                }
            }
        } else {
            while let Some((t, ev)) = self.sched.pop_by(last) {
                self.now = t;
                self.handle(ev);
                if watch && self.partition_plugin_failed() {
                    return;
                }
            }
        }
    }

    /// Whether every flow starting here has started.
    fn all_started_here(&self) -> bool {
        self.plan_id(self.next_plan).is_none()
    }
}

/// The smallest header an endpoint of `profile` puts on a packet.
fn min_header(profile: &super::Profile) -> u32 {
    match profile {
        super::Profile::Tcp { cfg, .. } => cfg.header,
        super::Profile::Paced { cfg, rx, .. } => cfg.header.min(rx.header),
        super::Profile::Kernel(k) => k.planned_tcp().header,
    }
}

/// What the threads share during one call of [`Parallel::run_until`].
struct Shared<'a> {
    barrier: SpinBarrier,
    /// By (round parity, partition): its earliest pending event or packet handed over. Each
    /// figure is written for round parity k and read after the barrier; a thread writes the
    /// same parity again only past the next barrier, when every thread has read it.
    next: Vec<AtomicU64>,
    /// By (round parity, partition): [`World::open_flows`]'s signed count.
    open: Vec<AtomicI64>,
    /// By (round parity, partition): every flow starting there has started.
    started: Vec<AtomicBool>,
    /// By (round parity, partition): a plug-in had failed when the partition's window ended.
    /// The fault flag itself is shared and live: read after the barrier, a thread already
    /// running the next window could raise it between two other threads' reads, and the one
    /// that saw it would stop while the other ran on to a barrier nobody else reaches.
    faulted: Vec<AtomicBool>,
    /// By (round parity, partition): the time of its last event if nothing there can move a
    /// flow on ([`World::is_stuck`]), else `u64::MAX`.
    stuck: Vec<AtomicU64>,
    /// Packets handed over, by (round parity, from partition, to partition).
    boxes: Vec<Mutex<Vec<Export>>>,
    partition: &'a Partition,
}

impl Shared<'_> {
    fn mailbox(&self, parity: usize, from: usize, to: usize) -> &Mutex<Vec<Export>> {
        let p = self.partition.count;
        &self.boxes[(parity * p + from) * p + to]
    }
}

/// The state every thread keeps alike: each decides the next step from the same shared figures.
#[derive(Copy, Clone, Debug)]
struct Clock {
    done_before: Time,
    flushing: bool,
    flush_from: Time,
    parity: usize,
    windows: u64,
}

impl Parallel {
    /// Runs every event up to and including `until` (as [`World::run_until`]); true once the
    /// run is over.
    pub fn run_until(&mut self, until: Time) -> bool {
        if self.finished {
            return true;
        }
        let limits = self.parts[0].limits;
        let until = until.min(limits.max_time).min(if limits.drain { Time::MAX } else { limits.duration });
        let p = self.partition.count;
        let shared = Shared {
            barrier: SpinBarrier::new(self.threads),
            next: (0..2 * p).map(|_| AtomicU64::new(0)).collect(),
            open: (0..2 * p).map(|_| AtomicI64::new(0)).collect(),
            started: (0..2 * p).map(|_| AtomicBool::new(false)).collect(),
            faulted: (0..2 * p).map(|_| AtomicBool::new(false)).collect(),
            stuck: (0..2 * p).map(|_| AtomicU64::new(u64::MAX)).collect(),
            boxes: (0..2 * p * p).map(|_| Mutex::new(Vec::new())).collect(),
            partition: &self.partition,
        };
        let clock = Clock {
            done_before: self.done_before,
            flushing: self.flushing,
            flush_from: self.now,
            parity: 0,
            windows: 0,
        };
        let epoch = self.epoch;
        let per_thread = p.div_ceil(self.threads);
        let (end, handed, times) = std::thread::scope(|s| {
            let shared = &shared;
            let mut handles = Vec::new();
            for (i, chunk) in self.parts.chunks_mut(per_thread).enumerate() {
                let base = i * per_thread;
                handles.push(s.spawn(move || worker(chunk, base, shared, clock, until, epoch)));
            }
            let results: Vec<(Clock, Step, u64, [f64; 3])> =
                handles.into_iter().map(|h| h.join().expect("a partition's thread panicked")).collect();
            let handed = results.iter().map(|r| r.2).sum::<u64>();
            let times: Vec<[f64; 3]> = results.iter().map(|r| r.3).collect();
            ((results[0].0, results[0].1), handed, times)
        });
        let (clock, step) = end;
        self.stats.busy_s.resize(times.len(), 0.0);
        self.stats.exchange_s.resize(times.len(), 0.0);
        self.stats.critical_s.resize(times.len(), 0.0);
        for (i, [busy, exchange, critical]) in times.into_iter().enumerate() {
            self.stats.busy_s[i] += busy;
            self.stats.exchange_s[i] += exchange;
            self.stats.critical_s[i] += critical;
        }
        self.stats.events = self.parts.iter().map(|w| w.events()).collect();
        self.stats.windows += clock.windows;
        self.stats.handed_over += handed;
        self.done_before = clock.done_before;
        self.flushing = clock.flushing;
        match step {
            Step::Finished => {
                self.finished = true;
                let flushed = self.parts.iter().map(|w| w.now).max().unwrap_or(Time::ZERO);
                self.now = if clock.flushing { flushed.max(clock.flush_from) } else { until.max(self.now) };
            }
            Step::Stalled(at) => {
                self.finished = true;
                self.now = at;
                self.stall = Some(Box::new(super::stall::of_partitions(&self.parts, &self.partition.of, at)));
            }
            _ => self.now = until.max(self.now),
        }
        self.finished
    }

    /// Runs to the end.
    pub fn run(&mut self) {
        while !self.run_until(Time::MAX) {}
    }

    /// Current simulated time.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Flows started and not yet complete, over all partitions.
    pub fn open_flows(&self) -> usize {
        self.parts.iter().map(|w| w.open_flows).sum::<i64>().max(0) as usize
    }

    /// Packet-hops so far, over all partitions.
    pub fn packet_hops(&self) -> u64 {
        self.parts.iter().map(|w| w.counters.packet_hops).sum()
    }

    /// Events processed so far, over all partitions.
    pub fn events(&self) -> u64 {
        self.parts.iter().map(|w| w.events()).sum()
    }

    /// True once the run is over.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The run's partition figures.
    pub fn stats(&self) -> &ParallelStats {
        &self.stats
    }

    /// The partition of each node.
    pub fn partition_of(&self) -> &[u16] {
        &self.partition.of
    }

    /// Puts the run's results into `world` (the world [`World::into_partitions`] was called
    /// on): its links, the flows' records, the counters, the time; the world is then finished,
    /// as after [`World::run_until`] returned true.
    pub fn finish_into(mut self, world: &mut World) {
        let now = self.now;
        for w in &mut self.parts {
            w.now = now;
            w.close();
        }
        let of = &self.partition.of;
        let n_links = self.parts[0].links.len();
        let mut links = Vec::with_capacity(n_links);
        for l in 0..n_links {
            let (from, to) = {
                let link = &self.parts[0].links[l];
                (of[link.from as usize] as usize, of[link.to as usize] as usize)
            };
            let stand_in = self.parts[from].links[l].stand_in();
            let mut own = std::mem::replace(&mut self.parts[from].links[l], stand_in);
            if from != to {
                own.join_far_end(&mut self.parts[to].links[l]);
            }
            links.push(own);
        }
        world.links = links;
        for (f, rec) in world.records.iter_mut().enumerate() {
            let (s, d) = (of[rec.src as usize] as usize, of[rec.dst as usize] as usize);
            let (sent, got) = (&self.parts[s].records[f], &self.parts[d].records[f]);
            rec.finish = got.finish;
            rec.delivered = got.delivered;
            rec.first_write = got.first_write;
            rec.retx_bytes = sent.retx_bytes;
            rec.timeouts = sent.timeouts;
            rec.stopped = sent.stopped;
        }
        for (f, n) in world.packet_counts.iter_mut().enumerate() {
            let (s, d) = (of[world.records[f].src as usize] as usize, of[world.records[f].dst as usize] as usize);
            let (sent, got) = (&self.parts[s].packet_counts[f], &self.parts[d].packet_counts[f]);
            *n = PacketCounts { sack_acks: got.sack_acks, ..*sent };
        }
        let mut c = Counters::default();
        for w in &self.parts {
            let x = &w.counters;
            c.sent_pkts += x.sent_pkts;
            c.sent_bytes += x.sent_bytes;
            c.delivered_pkts += x.delivered_pkts;
            c.delivered_bytes += x.delivered_bytes;
            c.dropped_pkts += x.dropped_pkts;
            c.dropped_bytes += x.dropped_bytes;
            c.packet_hops += x.packet_hops;
        }
        world.counters = c;
        world.open_flows = self.parts.iter().map(|w| w.open_flows).sum();
        let mut sched = Scheduler::new();
        sched.add_popped(self.events());
        world.sched = sched;
        world.now = now;
        world.next_plan = world.plans.len();
        world.stall = self.stall.take();
        world.finished = true;
    }
}

/// One thread's loop: rounds of publish, barrier, take what was handed over, decide, run.
fn worker(
    parts: &mut [World],
    base: usize,
    shared: &Shared,
    mut clock: Clock,
    until: Time,
    epoch: Time,
) -> (Clock, Step, u64, [f64; 3]) {
    let of = &shared.partition.of;
    let p = shared.partition.count;
    let lookahead = shared.partition.lookahead;
    let mut handed = 0u64;
    let zero = std::time::Duration::ZERO;
    let (mut busy, mut exchange, mut critical) = (zero, zero, zero);
    loop {
        let t0 = std::time::Instant::now();
        // Publish: hand over this window's packets, and what comes next here.
        for (i, w) in parts.iter_mut().enumerate() {
            let me = base + i;
            let stuck = if w.is_stuck() { w.now.0 } else { u64::MAX };
            let mut next = w.next_time(clock.flushing);
            if !w.sched.exports.is_empty() {
                handed += w.sched.exports.len() as u64;
                next = w.sched.exports.iter().fold(next, |t, e| t.min(e.0));
                // By destination partition, each link's packets kept in wire order (a stable
                // sort), then one mailbox lock per destination.
                let to_of = |e: &Export| of[w.links[e.1 as usize].to as usize];
                w.sched.exports.sort_by_key(to_of);
                for same in w.sched.exports.chunk_by(|a, b| to_of(a) == to_of(b)) {
                    let to = to_of(&same[0]) as usize;
                    shared.mailbox(clock.parity, me, to).lock().expect("mailbox").extend_from_slice(same);
                }
                w.sched.exports.clear();
            }
            let slot = clock.parity * p + me;
            shared.next[slot].store(next.0, Ordering::Relaxed);
            shared.open[slot].store(w.open_flows, Ordering::Relaxed);
            shared.started[slot].store(w.all_started_here(), Ordering::Relaxed);
            shared.faulted[slot].store(w.plugins.is_some_and(|s| s.is_raised()), Ordering::Relaxed);
            shared.stuck[slot].store(stuck, Ordering::Relaxed);
        }
        exchange += t0.elapsed();
        shared.barrier.wait();
        let t0 = std::time::Instant::now();
        // Take in the packets handed over to this thread's partitions, in partition order.
        for (i, w) in parts.iter_mut().enumerate() {
            let me = base + i;
            for from in 0..p {
                let mut inbox = shared.mailbox(clock.parity, from, me).lock().expect("mailbox");
                for (at, l, pkt) in inbox.drain(..) {
                    w.links[l as usize].import(l, at, pkt, &mut w.sched);
                }
            }
        }
        let round = clock.parity * p..(clock.parity + 1) * p;
        let t = Time(shared.next[round.clone()].iter().map(|x| x.load(Ordering::Relaxed)).min().unwrap_or(u64::MAX));
        let open: i64 = shared.open[round.clone()].iter().map(|x| x.load(Ordering::Relaxed)).sum();
        let all_started = shared.started[round.clone()].iter().all(|x| x.load(Ordering::Relaxed));
        let faulted = shared.faulted[round.clone()].iter().any(|x| x.load(Ordering::Relaxed));
        let stuck = shared.stuck[round].iter().map(|x| x.load(Ordering::Relaxed)).max().filter(|&t| t != u64::MAX);
        clock.parity ^= 1;
        exchange += t0.elapsed();
        let limits = parts[0].limits;
        // A plug-in failed in the last window: every thread reads the flags published before
        // the barrier, the same for all, so all stop together.
        let step = if faulted {
            Step::Finished
        } else if let Some(last) = stuck.map(Time).filter(|&last| open > 0 && last < parts[0].end_by_time()) {
            // Every partition is stuck (so every flow has started), flows are open, and the run
            // has not reached its end by time: as a whole world, a stall.
            Step::Stalled(last)
        } else {
            decide(&mut clock, t, open, all_started, until, epoch, lookahead, limits)
        };
        match step {
            Step::Window(end) => {
                let mut longest = zero;
                for w in parts.iter_mut() {
                    let t0 = std::time::Instant::now();
                    w.run_window(end, clock.flushing);
                    let took = t0.elapsed();
                    busy += took;
                    longest = longest.max(took);
                }
                critical += longest;
                clock.done_before = end;
                clock.windows += 1;
            }
            Step::Flush(at) => {
                clock.flushing = true;
                clock.flush_from = at;
                for w in parts.iter_mut() {
                    w.now = at;
                }
            }
            Step::Paused | Step::Finished | Step::Stalled(_) => {
                return (clock, step, handed, [busy, exchange, critical].map(|d| d.as_secs_f64()));
            }
        }
    }
}

/// The next step, from the figures every thread reads alike: `t` the earliest pending event
/// anywhere, `open` the flows open, `all_started` whether every flow has started.
#[allow(clippy::too_many_arguments)]
fn decide(
    clock: &mut Clock,
    t: Time,
    open: i64,
    all_started: bool,
    until: Time,
    epoch: Time,
    lookahead: Time,
    limits: super::RunLimits,
) -> Step {
    if clock.flushing {
        if t == Time::MAX || t > limits.max_time {
            return Step::Finished;
        }
        return Step::Window(Time(t.0.saturating_add(lookahead.0).min(limits.max_time.0.saturating_add(1))));
    }
    let ceil_epoch = |x: Time| Time(x.0.div_ceil(epoch.0).saturating_mul(epoch.0));
    let drained = limits.drain && all_started && open == 0;
    if drained {
        // Stop at the end of the epoch the last completion fell in, once every event before it ran.
        let stop = ceil_epoch(clock.done_before);
        if t >= stop {
            return Step::Flush(stop);
        }
    }
    if t == Time::MAX && all_started {
        return Step::Finished; // nothing can happen any more
    }
    if t > until {
        let end = limits.max_time.min(if limits.drain { Time::MAX } else { limits.duration });
        return if until >= end { Step::Finished } else { Step::Paused };
    }
    let next_epoch = Time((t.0 / epoch.0).saturating_add(1).saturating_mul(epoch.0));
    let end = t.0.saturating_add(lookahead.0).min(next_epoch.0).min(until.0.saturating_add(1));
    Step::Window(Time(end))
}

/// A barrier for a few threads that spin a while, then sleep: a window is often shorter than
/// putting a thread to sleep and waking it costs, so a waiter first spins; but when there are
/// more threads than free cores, the thread everyone waits for may need the core a spinner
/// holds, so after [`SpinBarrier::SPINS`] a waiter sleeps on a condition variable. The last
/// thread to arrive wakes the sleepers (a lock and a notify only when one sleeps).
struct SpinBarrier {
    n: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

impl SpinBarrier {
    /// Spins before sleeping: a few microseconds, about what a sleep and a wake-up cost.
    const SPINS: u32 = 4_000;

    fn new(n: usize) -> SpinBarrier {
        SpinBarrier {
            n,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    fn wait(&self) {
        if self.n == 1 {
            return;
        }
        let gen = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.arrived.store(0, Ordering::Relaxed);
            // SeqCst pairs with the sleeper's: either it sees the new generation before it
            // sleeps, or this thread sees it counted and takes the lock to wake it.
            self.generation.fetch_add(1, Ordering::SeqCst);
            if self.sleepers.load(Ordering::SeqCst) > 0 {
                let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
                self.wake.notify_all();
            }
            return;
        }
        for _ in 0..Self::SPINS {
            if self.generation.load(Ordering::Acquire) != gen {
                return;
            }
            std::hint::spin_loop();
        }
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        while self.generation.load(Ordering::SeqCst) == gen {
            guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A world run whole, or cut into partitions: what a caller drives ([`Engine::run_until`])
/// and reads ([`Engine::world`]) without caring which.
pub struct Engine {
    world: World,
    parallel: Option<Parallel>,
    /// A partitioned run's figures, once it is over.
    stats: Option<ParallelStats>,
}

impl Engine {
    /// Runs `world` whole (`partitions` = 1) or cut into `partitions` on `threads` threads.
    pub fn new(mut world: World, partitions: usize, threads: usize) -> Result<Engine, ParallelError> {
        let parallel = if partitions == 1 { None } else { Some(world.into_partitions(partitions, threads)?) };
        Ok(Engine { world, parallel, stats: None })
    }

    /// Runs every event up to and including `until`; true once the run is over. A partitioned
    /// run puts its results into the world when it ends.
    pub fn run_until(&mut self, until: Time) -> bool {
        let Some(p) = self.parallel.as_mut() else { return self.world.run_until(until) };
        if !p.run_until(until) {
            return false;
        }
        if let Some(p) = self.parallel.take() {
            self.stats = Some(p.stats().clone());
            p.finish_into(&mut self.world);
        }
        true
    }

    /// Runs to the end.
    pub fn run(&mut self) {
        while !self.run_until(Time::MAX) {}
    }

    /// The fault that stopped the run, if a plug-in failed.
    pub fn plugin_fault(&self) -> Option<crate::plugin::Fault> {
        self.world.plugin_fault()
    }

    /// The stall that stopped the run, if it stalled (once the run is over).
    pub fn stall(&self) -> Option<&super::Stall> {
        self.world.stall()
    }

    /// The world: as built while a partitioned run goes on (its results come in at the end),
    /// the running world otherwise.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The world, to start or end its capture: None while a partitioned run goes on.
    pub fn world_mut(&mut self) -> Option<&mut World> {
        self.parallel.is_none().then_some(&mut self.world)
    }

    /// The world, to hand to what reads a finished run.
    pub fn into_world(self) -> World {
        self.world
    }

    /// Current simulated time.
    pub fn now(&self) -> Time {
        self.parallel.as_ref().map_or(self.world.now(), |p| p.now())
    }

    /// Flows started and not yet complete.
    pub fn open_flows(&self) -> usize {
        self.parallel.as_ref().map_or(self.world.open_flows(), |p| p.open_flows())
    }

    /// Packet-hops so far.
    pub fn packet_hops(&self) -> u64 {
        self.parallel.as_ref().map_or(self.world.counters.packet_hops, |p| p.packet_hops())
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.parallel.as_ref().map_or(self.world.events(), |p| p.events())
    }

    /// A partitioned run's figures (so far, or final); None for a whole world.
    pub fn parallel_stats(&self) -> Option<&ParallelStats> {
        self.parallel.as_ref().map(|p| p.stats()).or(self.stats.as_ref())
    }
}
