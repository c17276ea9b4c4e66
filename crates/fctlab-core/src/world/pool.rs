//! The threads of a partitioned run ([`super::parallel`]): started once, kept for the whole run.
//!
//! Each thread owns a run of consecutive partitions (their [`World`]s) from the first step to
//! the last, and sleeps on its command channel between steps. A step ([`Pool::run`]) sends every
//! thread the caller's time; the threads run rounds of windows among themselves (publish,
//! barrier, take in, decide, run) until that time, and each sends back a [`Ran`] report. The
//! caller's thread runs no partition: it waits for the reports and, every [`POLL`], asks its
//! caller whether to go on (the Python front checks for Ctrl-C and SIGTERM there, so a run whose
//! partitions are busy in a blocked plug-in hook still stops). Asked to stop, it raises a flag the
//! threads read before each barrier; they all stop at the same round, and the run is over. At the
//! end the threads hand their worlds back ([`Pool::into_worlds`]) and exit.
//!
//! **Solo windows.** The first thread may run windows alone ([`super::adapt`] decides when: a
//! busy core, or windows too small for a barrier). It says so before a round's barrier; after
//! taking in what was handed over, the other threads *lend* it their partitions (a move of their
//! `Vec<World>`, no copy) and sleep on a channel. It then runs every partition, round after
//! round, with no barrier, until it decides to run on every thread again: it publishes that
//! round's figures for all partitions, hands each thread its partitions back with the clock,
//! and they rejoin at the barrier. At the end of a step it always hands them back, so between
//! steps every thread holds its own, as the caller expects.
//!
//! Nothing here is allocated per step: the channels, the barrier, the figures each partition
//! publishes per round and one inbox per (round parity, partition) live as long as the pool.

use super::adapt::Adapt;
use super::barrier::{Barrier, Waiter};
use super::partition::Partition;
use super::window::{decide, Clock, Step, Violation};
use super::World;
use crate::sched::Export;
use crate::units::Time;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the caller's thread asks whether to go on while the partitions run.
pub(super) const POLL: Duration = Duration::from_millis(20);

/// What the threads share for the whole run.
struct Shared {
    barrier: Barrier,
    /// By (round parity, partition): its earliest pending event or packet handed over. Each
    /// figure is written for round parity k and read after the barrier; a thread writes the
    /// same parity again only past the next barrier, when every thread has read it.
    next: Vec<AtomicU64>,
    /// By (round parity, partition): [`World::open_flows`]'s signed count.
    open: Vec<AtomicI64>,
    /// By (round parity, partition): every flow starting there has started.
    started: Vec<AtomicBool>,
    /// By (round parity, partition): the run must stop: a plug-in had failed when the
    /// partition's window ended, a packet came in too late, or the caller asked to stop. The
    /// live flags themselves (the fault slot, `abort`) are read before the barrier and published
    /// here: read after it, a flag raised between two threads' reads would stop one thread and
    /// leave the other at a barrier nobody else reaches.
    stop: Vec<AtomicBool>,
    /// By (round parity, partition): the time of its last event if nothing there can move a
    /// flow on ([`World::is_stuck`]), else `u64::MAX`.
    stuck: Vec<AtomicU64>,
    /// The caller asked to stop.
    abort: AtomicBool,
    /// By round parity: the first thread runs this round's window alone ([`Adapt`]).
    solo: [AtomicBool; 2],
    /// By partition: events run so far, published with the round's figures (what [`Adapt`]
    /// measures).
    events: Vec<AtomicU64>,
    /// Packets handed over, by (round parity, destination partition). Every partition that
    /// hands some over appends them, link by link in wire order; the order among partitions
    /// does not matter, since the destination keys each link's arrivals by link id.
    inbox: Vec<Mutex<Vec<Export>>>,
    partition: Arc<Partition>,
    epoch: Time,
}

impl Shared {
    fn inbox(&self, parity: usize, to: usize) -> &Mutex<Vec<Export>> {
        &self.inbox[parity * self.partition.count + to]
    }
}

/// What one partition's figures are after a step.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct Figures {
    pub(super) open_flows: i64,
    pub(super) packet_hops: u64,
    pub(super) events: u64,
    pub(super) now: Time,
}

/// One thread's report of a step.
#[derive(Debug)]
pub(super) struct Ran {
    /// The clock every thread agrees on at the step's end.
    pub(super) clock: Clock,
    pub(super) step: Step,
    /// Packets this thread's partitions handed over.
    pub(super) handed: u64,
    /// Seconds busy, exchanging, and on the critical path ([`super::parallel::ParallelStats`]).
    pub(super) times: [f64; 3],
    /// By partition of this thread, from its first.
    pub(super) figures: Vec<Figures>,
    /// The first packet that came in too late here, if one did.
    pub(super) violation: Option<Violation>,
    /// Windows this thread ran alone, every partition lent to it.
    pub(super) solo_windows: u64,
}

/// Partitions a thread lends the first for solo windows.
struct Lent {
    thread: usize,
    parts: Vec<World>,
    /// A packet that came in too late while this thread took in its own.
    violation: Option<Violation>,
}

/// What the first thread sends back with the partitions it was lent.
enum Back {
    /// Rejoin at this round's barrier (its figures are published), from this clock.
    Resume(Vec<World>, Clock),
    /// The step ended with this clock and step.
    End(Vec<World>, Clock, Step),
}

/// A thread's part in solo windows.
enum Solo {
    /// The first thread: it decides, and borrows the others' partitions.
    Lead {
        adapt: Adapt,
        lent: Receiver<Lent>,
        back: Vec<Sender<Back>>,
        /// Partitions owned by each thread, by thread.
        owned: Vec<usize>,
    },
    /// Any other thread.
    Follow { lend: Sender<Lent>, back: Receiver<Back> },
    /// The only thread.
    Alone,
}

enum Command {
    /// Run every event up to and including this time, from this clock.
    Run(Time, Clock),
    /// Hand the worlds back and exit.
    Return,
}

enum Report {
    Ran(usize, Ran),
    Worlds(usize, Vec<World>),
    Panicked(usize, String),
}

/// The threads of a partitioned run and the partitions they own.
pub(super) struct Pool {
    shared: Arc<Shared>,
    commands: Vec<Sender<Command>>,
    /// Read by the caller's thread only (the lock makes the pool shareable, as the Python
    /// bindings need; it is never contended).
    reports: Mutex<Receiver<Report>>,
    handles: Vec<JoinHandle<()>>,
    /// The first partition of each thread.
    bases: Vec<usize>,
    /// A step was interrupted: threads may still be busy (in a blocked hook), never join them.
    abandoned: bool,
}

/// The threads that run `partitions` partitions when `threads` are asked for: each an equal run
/// of consecutive partitions, so at most one per partition (5 partitions on 4 threads: runs of
/// 2, 2 and 1, three threads).
pub(super) fn threads_used(threads: usize, partitions: usize) -> usize {
    let per_thread = partitions.div_ceil(threads.clamp(1, partitions.max(1)));
    partitions.div_ceil(per_thread.max(1)).max(1)
}

impl Pool {
    /// Starts `threads` threads, each owning an equal run of `parts` (one partition each,
    /// by partition index); the first measures stretches of at least `stretch` to choose
    /// between parallel and solo windows ([`Adapt`]).
    pub(super) fn start(
        parts: Vec<World>,
        threads: usize,
        partition: Arc<Partition>,
        epoch: Time,
        stretch: Duration,
    ) -> Pool {
        let p = partition.count;
        let threads = threads_used(threads, p);
        let shared = Arc::new(Shared {
            barrier: Barrier::new(threads),
            next: (0..2 * p).map(|_| AtomicU64::new(0)).collect(),
            open: (0..2 * p).map(|_| AtomicI64::new(0)).collect(),
            started: (0..2 * p).map(|_| AtomicBool::new(false)).collect(),
            stop: (0..2 * p).map(|_| AtomicBool::new(false)).collect(),
            stuck: (0..2 * p).map(|_| AtomicU64::new(u64::MAX)).collect(),
            abort: AtomicBool::new(false),
            solo: [AtomicBool::new(false), AtomicBool::new(false)],
            events: (0..p).map(|_| AtomicU64::new(0)).collect(),
            inbox: (0..2 * p).map(|_| Mutex::new(Vec::new())).collect(),
            partition,
            epoch,
        });
        let (report_tx, reports) = mpsc::channel();
        let per_thread = p.div_ceil(threads);
        let mut parts = parts.into_iter();
        let (mut commands, mut handles, mut bases) = (Vec::new(), Vec::new(), Vec::new());
        let owned: Vec<usize> = (0..p).step_by(per_thread).map(|b| per_thread.min(p - b)).collect();
        // Solo windows' channels: every other thread lends to the first, which sends back to each.
        let (lend, lent) = mpsc::channel();
        let mut lent = Some(lent);
        let (backs, mut back_rx): (Vec<Sender<Back>>, Vec<Receiver<Back>>) =
            (1..owned.len()).map(|_| mpsc::channel()).unzip();
        let mut backs = Some(backs);
        back_rx.reverse();
        for base in (0..p).step_by(per_thread) {
            let mine: Vec<World> = parts.by_ref().take(per_thread).collect();
            let (tx, rx) = mpsc::channel();
            let (shared, report_tx) = (shared.clone(), report_tx.clone());
            let thread = bases.len();
            let solo = match (owned.len(), thread) {
                (1, _) => Solo::Alone,
                (_, 0) => Solo::Lead {
                    adapt: Adapt::new(stretch),
                    lent: lent.take().expect("one first thread"),
                    back: backs.take().expect("one first thread"),
                    owned: owned.clone(),
                },
                _ => Solo::Follow { lend: lend.clone(), back: back_rx.pop().expect("a channel per thread") },
            };
            let handle = std::thread::Builder::new()
                .name(format!("fctlab-partitions-{base}"))
                .spawn(move || serve(thread, base, mine, &shared, &rx, &report_tx, solo))
                .expect("cannot start a thread for the partitions");
            commands.push(tx);
            handles.push(handle);
            bases.push(base);
        }
        Pool { shared, commands, reports: Mutex::new(reports), handles, bases, abandoned: false }
    }

    /// Threads running.
    pub(super) fn threads(&self) -> usize {
        self.commands.len()
    }

    /// One step: every event up to and including `until`, from `clock`. Every [`POLL`] of wall
    /// time the step takes, `go_on()` is asked; on false the threads are told to stop, and None
    /// is returned at once (the pool cannot run again). Otherwise each thread's report, in
    /// thread order.
    pub(super) fn run(&mut self, until: Time, clock: Clock, go_on: &mut dyn FnMut() -> bool) -> Option<Vec<Ran>> {
        if self.abandoned {
            return None;
        }
        for c in &self.commands {
            c.send(Command::Run(until, clock)).expect("a partition thread is gone");
        }
        let mut ran: Vec<Option<Ran>> = (0..self.threads()).map(|_| None).collect();
        let mut left = self.threads();
        let mut asked = Instant::now();
        while left > 0 {
            let wait = POLL.saturating_sub(asked.elapsed());
            let report = self.reports.get_mut().unwrap_or_else(|e| e.into_inner()).recv_timeout(wait);
            match report {
                Ok(Report::Ran(thread, r)) => {
                    ran[thread] = Some(r);
                    left -= 1;
                }
                Ok(Report::Panicked(thread, msg)) => {
                    self.abandoned = true;
                    panic!("the thread of partitions {}.. panicked: {msg}", self.bases[thread]);
                }
                Ok(Report::Worlds(..)) => unreachable!("worlds are returned only when asked"),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => panic!("the partition threads are gone"),
            }
            if left > 0 && asked.elapsed() >= POLL {
                if !go_on() {
                    self.shared.abort.store(true, Ordering::Relaxed);
                    self.abandoned = true;
                    return None;
                }
                asked = Instant::now();
            }
        }
        Some(ran.into_iter().map(|r| r.expect("every thread reported")).collect())
    }

    /// The partitions' worlds, by partition index; the threads exit.
    pub(super) fn into_worlds(mut self) -> Vec<World> {
        assert!(!self.abandoned, "an interrupted run has no worlds to return");
        for c in &self.commands {
            c.send(Command::Return).expect("a partition thread is gone");
        }
        let mut by_base: Vec<(usize, Vec<World>)> = Vec::with_capacity(self.threads());
        for _ in 0..self.threads() {
            let report = self.reports.get_mut().unwrap_or_else(|e| e.into_inner()).recv();
            match report.expect("the partition threads are gone") {
                Report::Worlds(base, worlds) => by_base.push((base, worlds)),
                Report::Panicked(thread, msg) => {
                    panic!("the thread of partitions {}.. panicked: {msg}", self.bases[thread])
                }
                Report::Ran(..) => unreachable!("no step is running"),
            }
        }
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
        by_base.sort_by_key(|b| b.0);
        by_base.into_iter().flat_map(|b| b.1).collect()
    }
}

impl Drop for Pool {
    /// Closing the command channels ends idle threads (they drop their worlds); they are joined
    /// unless a step was interrupted, when one may be stuck in a plug-in's hook for good.
    fn drop(&mut self) {
        self.commands.clear();
        if !self.abandoned {
            for h in self.handles.drain(..) {
                let _ = h.join();
            }
        }
    }
}

/// A thread's life: steps until told to return its worlds (or until the pool is gone).
fn serve(
    thread: usize,
    base: usize,
    mut parts: Vec<World>,
    shared: &Shared,
    commands: &Receiver<Command>,
    reports: &Sender<Report>,
    mut solo: Solo,
) {
    let mut waiter = Waiter::default();
    while let Ok(cmd) = commands.recv() {
        match cmd {
            Command::Run(until, clock) => {
                let step = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    rounds(thread, &mut parts, base, shared, clock, until, &mut waiter, &mut solo)
                }));
                let report = match step {
                    Ok(mut ran) => {
                        ran.figures = parts.iter().map(figures).collect();
                        Report::Ran(thread, ran)
                    }
                    Err(e) => {
                        let msg = e
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        let _ = reports.send(Report::Panicked(thread, msg));
                        return;
                    }
                };
                if reports.send(report).is_err() {
                    return;
                }
            }
            Command::Return => {
                let _ = reports.send(Report::Worlds(base, std::mem::take(&mut parts)));
                return;
            }
        }
    }
}

fn figures(w: &World) -> Figures {
    Figures { open_flows: w.open_flows, packet_hops: w.counters.packet_hops, events: w.events(), now: w.now }
}

/// One step of one thread: rounds of publish, barrier, take what was handed over, decide, run,
/// until every thread decides alike to pause or finish. `parts` are the partitions from `base`
/// on; the first thread holds every partition while it runs solo windows.
#[allow(clippy::too_many_arguments)]
fn rounds(
    thread: usize,
    parts: &mut Vec<World>,
    base: usize,
    shared: &Shared,
    mut clock: Clock,
    until: Time,
    waiter: &mut Waiter,
    solo: &mut Solo,
) -> Ran {
    let (p, lookahead) = (shared.partition.count, shared.partition.lookahead);
    let mut handed = 0u64;
    let zero = Duration::ZERO;
    let (mut busy, mut exchange, mut critical) = (zero, zero, zero);
    let mut violation: Option<Violation> = None;
    // The first thread holds every partition (solo windows).
    let mut holding_all = false;
    // This thread rejoins at the barrier: the round's figures are already published.
    let mut rejoin = false;
    let mut solo_windows = 0u64;
    if let Solo::Lead { adapt, .. } = solo {
        adapt.step_starts(Instant::now());
    }
    loop {
        let t0 = Instant::now();
        if !rejoin {
            publish(parts, base, shared, clock, &mut violation, &mut handed);
        }
        rejoin = false;
        if let Solo::Lead { adapt, back, owned, .. } = solo {
            let events = shared.events.iter().map(|e| e.load(Ordering::Relaxed)).sum();
            let next_solo = adapt.next_solo(t0, events);
            shared.solo[clock.parity].store(next_solo, Ordering::Relaxed);
            if holding_all && !next_solo {
                give_back(parts, owned, back, |parts| Back::Resume(parts, clock));
                holding_all = false;
            }
        }
        exchange += t0.elapsed();
        if !holding_all {
            shared.barrier.wait(waiter);
        }
        let t0 = Instant::now();
        // Take in the packets handed over to the partitions held. Each arrives at or after the
        // end of the windows run so far, by the lookahead's definition; one that does not would
        // be an event in the past, and is refused.
        for (i, w) in parts.iter_mut().enumerate() {
            let mut inbox = shared.inbox(clock.parity, base + i).lock().expect("inbox");
            for (at, l, pkt) in inbox.drain(..) {
                if at < clock.done_before {
                    let v = Violation { link: l, at, window_end: clock.done_before, wire: pkt.wire, lookahead };
                    violation = Violation::earliest(violation, Some(v));
                    continue;
                }
                w.links[l as usize].import(l, at, pkt, &mut w.sched);
            }
        }
        let round = clock.parity * p..(clock.parity + 1) * p;
        let t = Time(shared.next[round.clone()].iter().map(|x| x.load(Ordering::Relaxed)).min().unwrap_or(u64::MAX));
        let open: i64 = shared.open[round.clone()].iter().map(|x| x.load(Ordering::Relaxed)).sum();
        let all_started = shared.started[round.clone()].iter().all(|x| x.load(Ordering::Relaxed));
        let stop = shared.stop[round.clone()].iter().any(|x| x.load(Ordering::Relaxed));
        let stuck = shared.stuck[round].iter().map(|x| x.load(Ordering::Relaxed)).max().filter(|&t| t != u64::MAX);
        let go_solo = shared.solo[clock.parity].load(Ordering::Relaxed) && !holding_all;
        clock.parity ^= 1;
        if go_solo {
            match solo {
                Solo::Follow { lend, back } => {
                    let parts_lent = std::mem::take(parts);
                    let lent = Lent { thread, parts: parts_lent, violation: violation.take() };
                    lend.send(lent).expect("the partitions' first thread is gone");
                    exchange += t0.elapsed();
                    match back.recv().expect("the partitions' first thread is gone") {
                        Back::Resume(mine, at) => {
                            (*parts, clock, rejoin) = (mine, at, true);
                            continue;
                        }
                        Back::End(mine, at, step) => {
                            (*parts, clock) = (mine, at);
                            let times = [busy, exchange, critical].map(|d| d.as_secs_f64());
                            return Ran { clock, step, handed, times, figures: Vec::new(), violation, solo_windows };
                        }
                    }
                }
                Solo::Lead { lent, owned, .. } => {
                    let mut others: Vec<Option<Lent>> = (1..owned.len()).map(|_| None).collect();
                    for _ in 1..owned.len() {
                        let l = lent.recv().expect("a partition thread is gone");
                        let at = l.thread - 1;
                        others[at] = Some(l);
                    }
                    for l in others.into_iter().map(|l| l.expect("every thread lent its partitions")) {
                        parts.extend(l.parts);
                        violation = Violation::earliest(violation, l.violation);
                    }
                    holding_all = true;
                }
                Solo::Alone => unreachable!("a lone thread never runs solo windows"),
            }
        }
        exchange += t0.elapsed();
        let limits = parts[0].limits;
        // Every thread reads the flags published before the barrier, the same for all, so all
        // stop together.
        let step = if stop {
            Step::Finished
        } else if let Some(last) = stuck.map(Time).filter(|&last| open > 0 && last < parts[0].end_by_time()) {
            // Every partition is stuck (so every flow has started), flows are open, and the run
            // has not reached its end by time: as a whole world, a stall.
            Step::Stalled(last)
        } else {
            decide(&mut clock, t, open, all_started, until, shared.epoch, lookahead, limits)
        };
        match step {
            Step::Window(end) => {
                // A partition that took a packet in too late runs no more: the run stops at the
                // next round.
                if violation.is_none() {
                    let mut longest = zero;
                    for w in parts.iter_mut() {
                        let t0 = Instant::now();
                        w.run_window(end, clock.flushing);
                        let took = t0.elapsed();
                        busy += took;
                        longest = longest.max(took);
                    }
                    critical += longest;
                }
                clock.done_before = end;
                clock.windows += 1;
                solo_windows += holding_all as u64;
            }
            Step::Flush(at) => {
                clock.flushing = true;
                clock.flush_from = at;
                for w in parts.iter_mut() {
                    w.now = at;
                }
            }
            Step::Paused(_) | Step::Finished | Step::Stalled(_) => {
                if let (true, Solo::Lead { back, owned, .. }) = (holding_all, &*solo) {
                    give_back(parts, owned, back, |parts| Back::End(parts, clock, step));
                }
                let times = [busy, exchange, critical].map(|d| d.as_secs_f64());
                return Ran { clock, step, handed, times, figures: Vec::new(), violation, solo_windows };
            }
        }
    }
}

/// Publishes each partition held for this round: hands over the packets its last window sent
/// across the cut, and writes its figures in the round's slots.
fn publish(
    parts: &mut [World],
    base: usize,
    shared: &Shared,
    clock: Clock,
    violation: &mut Option<Violation>,
    handed: &mut u64,
) {
    let partition = &shared.partition;
    let (of, p) = (&partition.of, partition.count);
    let abort = shared.abort.load(Ordering::Relaxed);
    for (i, w) in parts.iter_mut().enumerate() {
        let me = base + i;
        let stuck = if w.is_stuck() { w.now.0 } else { u64::MAX };
        let mut next = w.next_time(clock.flushing);
        if !w.sched.exports.is_empty() {
            *handed += w.sched.exports.len() as u64;
            next = w.sched.exports.iter().fold(next, |t, e| t.min(e.0));
            // By destination partition, each link's packets kept in wire order (a stable
            // sort), then one inbox lock per destination.
            let to_of = |e: &Export| of[w.links[e.1 as usize].to as usize];
            w.sched.exports.sort_by_key(to_of);
            for same in w.sched.exports.chunk_by(|a, b| to_of(a) == to_of(b)) {
                let to = to_of(&same[0]) as usize;
                shared.inbox(clock.parity, to).lock().expect("inbox").extend_from_slice(same);
            }
            w.sched.exports.clear();
        }
        let slot = clock.parity * p + me;
        shared.next[slot].store(next.0, Ordering::Relaxed);
        shared.open[slot].store(w.open_flows, Ordering::Relaxed);
        shared.started[slot].store(w.all_started_here(), Ordering::Relaxed);
        let faulted = w.plugins.is_some_and(|s| s.is_raised());
        shared.stop[slot].store(faulted || violation.is_some() || abort, Ordering::Relaxed);
        shared.stuck[slot].store(stuck, Ordering::Relaxed);
        shared.events[me].store(w.events(), Ordering::Relaxed);
    }
}

/// The first thread hands every other its partitions back, each with `message`.
fn give_back(parts: &mut Vec<World>, owned: &[usize], back: &[Sender<Back>], message: impl Fn(Vec<World>) -> Back) {
    let mut rest = parts.split_off(owned[0]);
    for (to, &n) in back.iter().zip(&owned[1..]) {
        let tail = rest.split_off(n);
        to.send(message(std::mem::replace(&mut rest, tail))).expect("a partition thread is gone");
    }
}
