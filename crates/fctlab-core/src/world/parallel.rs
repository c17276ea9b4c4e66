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
//! barrier costs (`docs/parallel.md` has the measurements and a model). A packet taken in that
//! arrives before the end of the windows already run is refused: the run stops with
//! [`Stopped::Causality`], never silently.
//!
//! **Threads** ([`super::pool`]) are started with the run and kept to its end; the caller's
//! thread only hands out steps and waits, asking its caller whether to go on
//! ([`Parallel::run_until_polling`]). [`Engine`] chooses what a run uses ([`Layout`]): the
//! partitions the cut can fill, at most one thread per partition and per core. Where one
//! thread is measured faster than all of them (small windows, a core taken by another
//! process), the first thread runs the windows alone ([`super::adapt`]).
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
use super::pool::{Figures, Pool};
pub use super::window::Violation;
use super::window::{Clock, Step};
use super::{Counters, World};
use crate::metrics::flows::PacketCounts;
use crate::metrics::SeriesRecorder;
use crate::net::link::Role;
use crate::sched::Scheduler;
use crate::units::Time;
use std::sync::Arc;

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
    /// Partitions the scenario asked for: more than [`ParallelStats::partitions`] when the
    /// cut could not give each a router (the others would have been empty).
    pub partitions_asked: usize,
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
    /// Windows the first thread ran alone, every partition lent to it, because that was
    /// measured faster than every thread ([`super::adapt`]).
    pub solo_windows: u64,
}

/// A world cut into partitions, run in windows on several threads (kept for the whole run:
/// [`super::pool`]).
pub struct Parallel {
    partition: Arc<Partition>,
    pool: Pool,
    limits: super::RunLimits,
    /// What every thread agreed on at the end of the last step.
    clock: Clock,
    /// The earliest event pending anywhere when the last step paused.
    next_event: Time,
    /// By partition, at the end of the last step.
    figures: Vec<Figures>,
    finished: bool,
    stopped: Option<Stopped>,
    now: Time,
    stats: ParallelStats,
    /// When the run stalled, if it did ([`super::stall`]): the stalled flows are read from the
    /// partitions' worlds once the threads hand them back ([`Parallel::finish_into`]).
    stalled_at: Option<Time>,
}

impl World {
    /// Cuts this world into `partitions` partitions, to run on `threads` threads
    /// ([`Parallel`]); the world keeps what it was built with, less its links, until
    /// [`Parallel::finish_into`] puts the run's results back.
    pub fn into_partitions(&mut self, partitions: usize, threads: usize) -> Result<Parallel, ParallelError> {
        let partition = self.partition(partitions)?;
        self.cut_checked(partition, threads)
    }

    /// Cuts this world as `partition` says, if it can be ([`World::into_partitions`]).
    fn cut_checked(&mut self, partition: Partition, threads: usize) -> Result<Parallel, ParallelError> {
        self.check_can_cut(threads)?;
        Ok(self.cut(partition, threads, super::adapt::STRETCH))
    }

    /// Why this world cannot be cut to run on `threads` threads, if it cannot.
    fn check_can_cut(&self, threads: usize) -> Result<(), ParallelError> {
        if threads == 0 {
            return Err(ParallelError::new("parallel.threads", "expected a whole number >= 1, got 0"));
        }
        if self.external || self.sched.popped() > 0 {
            return Err(ParallelError::new("parallel", "a partitioned run must start from a world that has not run"));
        }
        Ok(())
    }

    /// Cuts this world as `partition` says, to run on `threads` threads (at most one per
    /// partition) that choose between parallel and solo windows over stretches of at least
    /// `stretch` ([`super::adapt`]).
    fn cut(&mut self, partition: Partition, threads: usize, stretch: std::time::Duration) -> Parallel {
        let p = partition.count;
        let parts: Vec<World> = (0..p).map(|q| self.partition_world(&partition, q as u16)).collect();
        self.links = Vec::new();
        let epoch = partition.lookahead.max(Time::from_ms(1));
        let figures = parts.iter().map(|w| Figures { open_flows: w.open_flows, ..Figures::default() }).collect();
        let partition = Arc::new(partition);
        let pool = Pool::start(parts, threads, partition.clone(), epoch, stretch);
        let stats = ParallelStats {
            partitions: p,
            partitions_asked: partition.asked,
            threads: pool.threads(),
            lookahead: partition.lookahead,
            work: partition.work.clone(),
            ..ParallelStats::default()
        };
        Parallel {
            partition,
            pool,
            limits: self.limits,
            clock: Clock::default(),
            next_event: Time::ZERO,
            figures,
            finished: false,
            stopped: None,
            now: Time::ZERO,
            stats,
            stalled_at: None,
        }
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
        let min_wire = self.profiles.iter().map(super::Profile::smallest_packet).min().unwrap_or(40).max(1);
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
    pub(super) fn next_time(&mut self, flushing: bool) -> Time {
        let t = if flushing { self.sched.peek_near_time() } else { self.sched.peek_time() };
        t.unwrap_or(Time::MAX)
    }

    /// Runs every event before `end` (only link events while flushing).
    pub(super) fn run_window(&mut self, end: Time, flushing: bool) {
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
    pub(super) fn all_started_here(&self) -> bool {
        self.plan_id(self.next_plan).is_none()
    }
}

/// Why a partitioned run stopped before its end.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// The caller asked it to (a signal): it cannot go on.
    Interrupted,
    /// A packet crossed a cut faster than the lookahead allows ([`Violation`]).
    Causality(Violation),
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::Interrupted => write!(f, "interrupted"),
            Stopped::Causality(v) => write!(
                f,
                "field `parallel.partitions`: a packet of {} B on link {} arrived at {} s, before the end of \
                 the window its partition had already run ({} s): the lookahead of {} s is longer than this \
                 packet takes across the cut, so the partitioned run would not be the model it defines; the \
                 run is stopped (a fault of fctlab: please report it; partitions = 1 runs the scenario whole)",
                v.wire,
                v.link,
                v.at.as_secs_f64(),
                v.window_end.as_secs_f64(),
                v.lookahead.as_secs_f64()
            ),
        }
    }
}

impl std::error::Error for Stopped {}

impl Parallel {
    /// Runs every event up to and including `until` (as [`World::run_until`]); true once the
    /// run is over. Panics if the run stops short ([`Parallel::run_until_polling`]).
    pub fn run_until(&mut self, until: Time) -> bool {
        self.run_until_polling(until, &mut || true).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Runs every event up to and including `until`; true once the run is over. While the
    /// partitions run, `go_on()` is asked every few milliseconds ([`super::pool::POLL`]): on
    /// false the run stops (`Stopped::Interrupted`) without waiting for the threads, which may
    /// be held in a plug-in's hook. A packet crossing a cut faster than the lookahead stops it
    /// too (`Stopped::Causality`). A stopped run cannot go on.
    pub fn run_until_polling(&mut self, until: Time, go_on: &mut dyn FnMut() -> bool) -> Result<bool, Stopped> {
        if let Some(stopped) = self.stopped {
            return Err(stopped);
        }
        if self.finished {
            return Ok(true);
        }
        let limits = self.limits;
        let until = until.min(limits.max_time).min(if limits.drain { Time::MAX } else { limits.duration });
        let end = limits.max_time.min(if limits.drain { Time::MAX } else { limits.duration });
        // Nothing is pending before `until` anywhere (the last step paused before the earliest
        // pending event, and nothing ran since): the threads would only agree to pause again.
        if !self.clock.flushing && until < self.next_event && until < end {
            self.now = until.max(self.now);
            return Ok(false);
        }
        let Some(ran) = self.pool.run(until, self.clock, go_on) else {
            self.stopped = Some(Stopped::Interrupted);
            return Err(Stopped::Interrupted);
        };
        let (clock, step) = (ran[0].clock, ran[0].step);
        let threads = ran.len();
        self.stats.busy_s.resize(threads, 0.0);
        self.stats.exchange_s.resize(threads, 0.0);
        self.stats.critical_s.resize(threads, 0.0);
        let mut figures = Vec::with_capacity(self.figures.len());
        let mut violation: Option<Violation> = None;
        for (i, r) in ran.into_iter().enumerate() {
            let [busy, exchange, critical] = r.times;
            self.stats.busy_s[i] += busy;
            self.stats.exchange_s[i] += exchange;
            self.stats.critical_s[i] += critical;
            self.stats.handed_over += r.handed;
            self.stats.solo_windows += r.solo_windows;
            figures.extend(r.figures);
            violation = Violation::earliest(violation, r.violation);
        }
        self.figures = figures;
        self.stats.events = self.figures.iter().map(|f| f.events).collect();
        self.stats.windows = clock.windows;
        self.clock = clock;
        if let Step::Paused(next) = step {
            self.next_event = next;
        }
        match step {
            Step::Finished => {
                self.finished = true;
                let flushed = self.figures.iter().map(|f| f.now).max().unwrap_or(Time::ZERO);
                self.now = if clock.flushing { flushed.max(clock.flush_from) } else { until.max(self.now) };
            }
            Step::Stalled(at) => {
                self.finished = true;
                self.now = at;
                self.stalled_at = Some(at);
            }
            _ => self.now = until.max(self.now),
        }
        if let Some(v) = violation {
            self.stopped = Some(Stopped::Causality(v));
            return Err(Stopped::Causality(v));
        }
        Ok(self.finished)
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
        self.figures.iter().map(|f| f.open_flows).sum::<i64>().max(0) as usize
    }

    /// Packet-hops so far, over all partitions.
    pub fn packet_hops(&self) -> u64 {
        self.figures.iter().map(|f| f.packet_hops).sum()
    }

    /// Events processed so far, over all partitions.
    pub fn events(&self) -> u64 {
        self.figures.iter().map(|f| f.events).sum()
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
    /// as after [`World::run_until`] returned true. The partitions' threads hand their worlds
    /// back and exit.
    pub fn finish_into(self, world: &mut World) {
        let now = self.now;
        let mut parts = self.pool.into_worlds();
        let stall = self.stalled_at.map(|at| Box::new(super::stall::of_partitions(&parts, &self.partition.of, at)));
        for w in &mut parts {
            w.now = now;
            w.close();
        }
        let of = &self.partition.of;
        let n_links = parts[0].links.len();
        let mut links = Vec::with_capacity(n_links);
        for l in 0..n_links {
            let (from, to) = {
                let link = &parts[0].links[l];
                (of[link.from as usize] as usize, of[link.to as usize] as usize)
            };
            let stand_in = parts[from].links[l].stand_in();
            let mut own = std::mem::replace(&mut parts[from].links[l], stand_in);
            if from != to {
                own.join_far_end(&mut parts[to].links[l]);
            }
            links.push(own);
        }
        world.links = links;
        for (f, rec) in world.records.iter_mut().enumerate() {
            let (s, d) = (of[rec.src as usize] as usize, of[rec.dst as usize] as usize);
            let (sent, got) = (&parts[s].records[f], &parts[d].records[f]);
            rec.finish = got.finish;
            rec.acked_ps = sent.acked_ps;
            rec.delivered = got.delivered;
            rec.first_write = got.first_write;
            rec.retx_bytes = sent.retx_bytes;
            rec.timeouts = sent.timeouts;
            rec.stopped = sent.stopped;
        }
        for (f, n) in world.packet_counts.iter_mut().enumerate() {
            let (s, d) = (of[world.records[f].src as usize] as usize, of[world.records[f].dst as usize] as usize);
            let (sent, got) = (&parts[s].packet_counts[f], &parts[d].packet_counts[f]);
            *n = PacketCounts { sack_acks: got.sack_acks, ..*sent };
        }
        let mut c = Counters::default();
        for w in &parts {
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
        world.open_flows = parts.iter().map(|w| w.open_flows).sum();
        let mut sched = Scheduler::new();
        sched.add_popped(parts.iter().map(|w| w.events()).sum());
        world.sched = sched;
        world.now = now;
        world.next_plan = world.plans.len();
        world.stall = stall;
        world.finished = true;
    }
}

/// The cores this process may run threads on.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// How a run is laid out: the partitions and threads asked for, and those used.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Partitions the scenario asks for (1 without a `parallel` table).
    pub partitions_asked: usize,
    /// Partitions the run is cut into: at most one per router with its hosts (the cut leaves
    /// none empty); 1 is the whole network in one event loop.
    pub partitions: usize,
    /// Threads asked for (None: the default, one per partition up to the cores).
    pub threads_asked: Option<usize>,
    /// Threads that run the partitions.
    pub threads: usize,
    /// The cores this process may use ([`cores`]).
    pub cores: usize,
}

impl Layout {
    /// One line saying what the run uses instead of what was asked, and why; None when it uses
    /// what was asked (or the default).
    pub fn notice(&self) -> Option<String> {
        let mut said = Vec::new();
        if self.partitions < self.partitions_asked {
            let empty = self.partitions_asked - self.partitions;
            said.push(format!(
                "parallel.partitions = {} asked for, {} used: the cut gives routers, each with its hosts, to \
                 only {} of them (by the work of the flows crossing them); the other {empty} would be empty",
                self.partitions_asked, self.partitions, self.partitions
            ));
        }
        match self.threads_asked {
            Some(t) if self.partitions == 1 && t > 1 => said.push(format!(
                "threads = {t} asked for, 1 used: the scenario is not cut into partitions (no [parallel] table, \
                 or partitions = 1), so it runs whole, as one event loop; a [parallel] table with partitions = N \
                 cuts it, a model of its own (docs/parallel.md)"
            )),
            Some(t) if self.threads < t => {
                let mut why = Vec::new();
                if self.partitions < t {
                    why.push(format!("one per partition ({})", self.partitions));
                }
                if self.cores < t {
                    why.push(format!("one per core ({} available)", self.cores));
                }
                said.push(format!("threads = {t} asked for, {} used: at most {}", self.threads, why.join(" and ")));
            }
            _ => {}
        }
        (!said.is_empty()).then(|| format!("parallel: {}", said.join("; ")))
    }
}

/// A world run whole, or cut into partitions: what a caller drives ([`Engine::run_until`])
/// and reads ([`Engine::world`]) without caring which.
pub struct Engine {
    world: World,
    parallel: Option<Parallel>,
    /// The cut of a partitioned run and its threads, until its first step cuts the world (so
    /// that building a run to validate it costs no partition).
    pending: Option<(Partition, usize)>,
    /// The shortest stretch of windows a partitioned run measures to choose between parallel
    /// and solo windows ([`super::adapt`]).
    stretch: std::time::Duration,
    /// A partitioned run's figures: those known before it runs, then the final ones.
    stats: Option<ParallelStats>,
    layout: Layout,
}

impl Engine {
    /// Runs `world` whole (`partitions` = 1) or cut into `partitions` on exactly `threads`
    /// threads (at most one per partition), however many cores there are.
    pub fn new(world: World, partitions: usize, threads: usize) -> Result<Engine, ParallelError> {
        if threads == 0 {
            return Err(ParallelError::new("parallel.threads", "expected a whole number >= 1, got 0"));
        }
        Engine::laid_out(world, partitions, Some(threads), threads, cores())
    }

    /// Runs `world` as a user asks for it: `partitions` as its `parallel` table says (1
    /// without), on `threads` threads (None: one per partition), at most one per partition and
    /// one per core ([`cores`]). [`Engine::layout`] tells what was used.
    pub fn for_run(world: World, partitions: usize, threads: Option<usize>) -> Result<Engine, ParallelError> {
        if threads == Some(0) {
            return Err(ParallelError::new("parallel.threads", "expected a whole number >= 1, got 0"));
        }
        let cores = cores();
        Engine::laid_out(world, partitions, threads, threads.unwrap_or(usize::MAX).min(cores), cores)
    }

    fn laid_out(
        world: World,
        partitions: usize,
        threads_asked: Option<usize>,
        threads: usize,
        cores: usize,
    ) -> Result<Engine, ParallelError> {
        let mut layout = Layout { partitions_asked: partitions, partitions: 1, threads_asked, threads: 1, cores };
        let (mut pending, mut stats) = (None, None);
        if partitions > 1 {
            let partition = world.partition(partitions)?;
            if partition.count > 1 {
                world.check_can_cut(threads)?;
                layout.partitions = partition.count;
                layout.threads = super::pool::threads_used(threads, partition.count);
                stats = Some(ParallelStats {
                    partitions: partition.count,
                    partitions_asked: partition.asked,
                    threads: layout.threads,
                    lookahead: partition.lookahead,
                    work: partition.work.clone(),
                    ..ParallelStats::default()
                });
                pending = Some((partition, threads));
            }
        }
        Ok(Engine { world, parallel: None, pending, stats, layout, stretch: super::adapt::STRETCH })
    }

    /// Measures stretches of at least `stretch` of wall time to choose between running
    /// windows on every thread and on one ([`super::adapt`]; 20 ms unless set). Results never
    /// depend on it: tests set it to zero to switch at nearly every window.
    #[doc(hidden)]
    pub fn with_stretch(mut self, stretch: std::time::Duration) -> Engine {
        self.stretch = stretch;
        self
    }

    /// The partitions and threads asked for and used.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Runs every event up to and including `until`; true once the run is over. A partitioned
    /// run puts its results into the world when it ends. Panics if a partitioned run stops
    /// short (a packet across a cut faster than the lookahead: [`Stopped::Causality`]).
    pub fn run_until(&mut self, until: Time) -> bool {
        self.run_until_polling(until, &mut || true).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Engine::run_until`], asking `go_on()` every few milliseconds while the partitions of
    /// a partitioned run are busy ([`Parallel::run_until_polling`]); a whole world runs on the
    /// caller's thread and never asks.
    pub fn run_until_polling(&mut self, until: Time, go_on: &mut dyn FnMut() -> bool) -> Result<bool, Stopped> {
        if let Some((partition, threads)) = self.pending.take() {
            self.parallel = Some(self.world.cut(partition, threads, self.stretch));
        }
        let Some(p) = self.parallel.as_mut() else { return Ok(self.world.run_until(until)) };
        if !p.run_until_polling(until, go_on)? {
            return Ok(false);
        }
        if let Some(p) = self.parallel.take() {
            self.stats = Some(p.stats().clone());
            p.finish_into(&mut self.world);
        }
        Ok(true)
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
        (self.parallel.is_none() && self.pending.is_none()).then_some(&mut self.world)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// RCP's small flows on a dumbbell whose bottleneck has no delay, with no RCP router: the
    /// flows fall back to TCP and send 41-51 B packets across the cut.
    fn rcp_falling_back() -> World {
        let json = r#"{"seed": 5, "duration": "0.3s",
            "topology": {"kind": "dumbbell", "hosts_per_side": 4, "bottleneck_rate": "1Mbps",
                         "bottleneck_delay": "0ms", "access_rate": "100Mbps"},
            "transport": {"protocol": "rcp"},
            "workload": [{"kind": "poisson", "rate": 400, "sizes": {"kind": "uniform", "min": 1, "max": 11}}]}"#;
        crate::scenario::build(json, Path::new(".")).unwrap_or_else(|e| panic!("{e}")).0
    }

    /// A lookahead longer than a packet takes across the cut (RCP's 52 B at 1 Mb/s, where its
    /// fallback sends 41-51 B) is caught where the packet comes in: the run stops with
    /// `Stopped::Causality`, naming the packet and the window, instead of running an event in
    /// its past.
    #[test]
    fn a_packet_arriving_inside_a_window_already_run_stops_the_run() {
        let mut world = rcp_falling_back();
        let mut partition = world.partition(2).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(partition.lookahead, Time::from_us(320), "40 B at 1 Mb/s");
        partition.lookahead = Time::from_us(416);
        let mut p = world.cut_checked(partition, 2).unwrap_or_else(|e| panic!("{e}"));
        let stopped = loop {
            match p.run_until_polling(Time::MAX, &mut || true) {
                Ok(true) => break None,
                Ok(false) => {}
                Err(e) => break Some(e),
            }
        };
        let Some(Stopped::Causality(v)) = stopped else { panic!("expected a causality error, got {stopped:?}") };
        assert!(v.at < v.window_end && v.wire < 52, "{v:?}");
        let msg = Stopped::Causality(v).to_string();
        assert!(msg.contains("parallel.partitions") && msg.contains("before the end of the window"), "{msg}");
        assert_eq!(
            p.run_until_polling(Time::MAX, &mut || true),
            Err(Stopped::Causality(v)),
            "a stopped run stays stopped"
        );
    }

    /// A caller that asks to stop gets `Stopped::Interrupted` back within a poll or two, and the
    /// run stays stopped; dropping it then ends its threads.
    #[test]
    fn a_caller_can_stop_a_partitioned_run() {
        let mut world = rcp_falling_back();
        let mut p = world.into_partitions(2, 2).unwrap_or_else(|e| panic!("{e}"));
        let mut asked = 0;
        let mut stop_at_once = || {
            asked += 1;
            false
        };
        // A whole run takes longer than a poll on this machine only sometimes: stop at the
        // first poll, or finish before any.
        match p.run_until_polling(Time::MAX, &mut stop_at_once) {
            Err(Stopped::Interrupted) => {
                assert_eq!(asked, 1);
                assert_eq!(p.run_until_polling(Time::MAX, &mut || true), Err(Stopped::Interrupted));
            }
            Ok(_) => assert_eq!(asked, 0, "no poll, the run was quicker"),
            Err(e) => panic!("{e}"),
        }
    }

    /// Threads share partitions out in equal runs: never more threads than runs.
    #[test]
    fn threads_used_are_the_runs_of_partitions() {
        use super::super::pool::threads_used;
        assert_eq!([1, 2, 3, 4, 5, 9].map(|t| threads_used(t, 5)), [1, 2, 3, 3, 5, 5]);
        assert_eq!(threads_used(2, 4), 2);
    }

    /// The memory estimate of a partitioned run (`limits::partition_memory`) counts at least
    /// what a partition copies of the network.
    #[test]
    fn the_memory_estimate_covers_what_a_partition_copies() {
        use crate::limits::{BYTES_PER_PARTITION_FLOW, BYTES_PER_PARTITION_LINK};
        use std::mem::size_of;
        assert!(BYTES_PER_PARTITION_LINK >= size_of::<crate::net::link::Link>() as u64);
        let flow = size_of::<super::super::FlowPlan>()
            + size_of::<crate::metrics::FlowRecord>()
            + size_of::<PacketCounts>()
            + size_of::<Option<Box<super::super::Active>>>();
        assert!(BYTES_PER_PARTITION_FLOW >= flow as u64, "{flow} bytes a flow");
    }

    /// One step after another costs no thread start: a step with nothing to run before the
    /// caller's time is answered without waking the partitions' threads.
    #[test]
    fn steps_with_nothing_due_do_not_wake_the_threads() {
        let mut world = rcp_falling_back();
        let mut p = world.into_partitions(2, 2).unwrap_or_else(|e| panic!("{e}"));
        assert!(!p.run_until(Time::from_ms(1)));
        let next = p.next_event;
        let windows = p.stats().windows;
        assert!(next > Time::from_ms(1) && next < Time::MAX, "{next:?}");
        // 1,000 steps of 1 ns before the next event: none runs a window.
        for k in 1..=1000 {
            let t = Time::from_ms(1) + Time(k * 1000);
            if t >= next {
                break;
            }
            assert!(!p.run_until(t));
        }
        assert_eq!(p.stats().windows, windows);
    }
}
