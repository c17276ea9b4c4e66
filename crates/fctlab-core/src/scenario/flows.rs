//! The flow plan: the workload's arrivals on the built network, each flow's profile, paths,
//! propagation RTT and ideal FCT, and the memory the flows (and RC3's bursts) will take, and
//! the writes their scheduled applications will make.

use super::transports::ProfileChoice;
use super::{Nodes, ScenarioSpec};
use crate::error::{SpecError, SpecResult};
use crate::limits::{
    backlogged_share, shown, Memory, BYTES_PER_FLOW, BYTES_PER_OPEN_FLOW, BYTES_PER_QUEUED_SEGMENT, MAX_APP_WRITES,
    MAX_FLOW_SEGMENTS,
};
use crate::metrics::{FlowRecord, PathInterner, Paths};
use crate::routing::{flow_hash, Routes};
use crate::topology::Topology;
use crate::transport::app::LONG_LIVED_CHUNK;
use crate::units::{Rate, Time};
use crate::workload::{self, FlowArrival, WorkloadCtx};
use crate::world::{AppTemplate, FlowPlan, Profile};
use std::collections::BTreeMap;
use std::path::Path;

/// Build step: the workload's flows in start order (at least one entry required).
pub(super) fn arrivals(
    spec: &ScenarioSpec,
    topo: &Topology,
    nodes: &Nodes,
    base_dir: &Path,
) -> SpecResult<Vec<FlowArrival>> {
    if spec.workload.is_empty() {
        return Err(SpecError::new("workload", "expected at least one workload entry, got none"));
    }
    let access = topo.access_rate();
    let mut link_rates = BTreeMap::new();
    for (name, &id) in &topo.named {
        link_rates.insert(name.clone(), topo.links[id].rate);
    }
    for l in &topo.links {
        link_rates.insert(l.name.clone(), l.rate);
    }
    let default_pairs = topo.default_pairs.as_ref().map(|(a, b)| (a.as_str(), b.as_str()));
    let ctx = WorkloadCtx {
        node_names: &nodes.names,
        hosts: &nodes.hosts,
        attach: &nodes.attach,
        access_rate: &access,
        groups: &topo.groups,
        link_rates: &link_rates,
        default_pairs,
        duration: spec.duration.0,
        seed: spec.seed,
        base_dir,
    };
    workload::generate(&spec.workload, &ctx)
}

/// Build step: the memory the flows of each workload entry take, refused if too much.
pub(super) fn flow_memory(entries: usize, arrivals: &[FlowArrival]) -> SpecResult<Memory> {
    let mut memory = Memory::new();
    let mut per_entry = vec![0u64; entries];
    for a in arrivals {
        per_entry[a.entry] += 1;
    }
    for (i, &n) in per_entry.iter().enumerate() {
        memory.add(format!("workload[{i}]"), format!("its {n} flows"), n, BYTES_PER_FLOW);
    }
    memory.check()?;
    Ok(memory)
}

/// The flows of a run: what the world starts, and the records it fills in.
pub(super) struct FlowSet {
    /// By flow id: what to start.
    pub plans: Vec<FlowPlan>,
    /// By flow id: the flow's record.
    pub records: Vec<FlowRecord>,
    /// The forward paths the records index, each once.
    pub paths: Paths,
    /// The largest burst a flow queues at its host at once.
    pub largest_burst: Burst,
    /// Per workload entry: the writes its flows' scheduled applications make.
    pub app_writes: Vec<u64>,
    /// What the flows offer the network, for the estimate of the flows open at once.
    pub offered: Offered,
}

/// The wire bits the finite flows offer each forward path, and when they start: from these,
/// [`FlowSet::add_open_flows`] estimates how many flows are open at once.
#[derive(Default)]
pub(super) struct Offered {
    /// By path id: wire bits of the finite flows routed over it.
    path_bits: Vec<f64>,
    /// The first and the last start of a finite flow.
    span: Option<(Time, Time)>,
}

impl Offered {
    /// Counts a finite flow of `wire` bytes starting at `start` over path `path`.
    fn add(&mut self, path: u32, wire: u64, start: Time) {
        let p = path as usize;
        if self.path_bits.len() <= p {
            self.path_bits.resize(p + 1, 0.0);
        }
        self.path_bits[p] += wire as f64 * 8.0;
        self.span = Some(self.span.map_or((start, start), |(a, b)| (a.min(start), b.max(start))));
    }
}

impl FlowSet {
    /// Counts into `memory` the flows open at once, per workload entry of `entries`: each
    /// long-lived flow, and of the finite flows the share their path's most loaded link cannot
    /// have carried by the last arrival ([`backlogged_share`]: the bits its flows offer against
    /// its rate over the time between the first and the last start). A run whose links keep up
    /// adds nothing here; one whose flows arrive faster than the network serves them holds
    /// them all open together.
    pub fn add_open_flows(&self, topo: &Topology, entries: usize, memory: &mut Memory) {
        let span = self.offered.span.map_or(0.0, |(a, b)| (b - a).as_secs_f64());
        let mut link_bits = vec![0.0f64; topo.links.len()];
        for (p, &bits) in self.offered.path_bits.iter().enumerate() {
            for &l in self.paths.get(p as u32) {
                link_bits[l as usize] += bits;
            }
        }
        // Each path's share left open, and the link that leaves it.
        let worst: Vec<(f64, u32)> = (0..self.offered.path_bits.len())
            .map(|p| {
                let share = |&l: &u32| {
                    let link = &topo.links[l as usize];
                    (backlogged_share(link_bits[l as usize], link.rate.0 as f64 * span), l)
                };
                self.paths.get(p as u32).iter().map(share).fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a })
            })
            .collect();
        let mut open = vec![(0.0f64, 0u64, None::<(f64, u32)>); entries];
        for r in &self.records {
            let e = &mut open[r.workload as usize];
            if r.size.is_none() {
                e.1 += 1;
            } else if let Some(&(share, l)) = worst.get(r.path as usize) {
                e.0 += share;
                if share > 0.0 && e.2.is_none_or(|(s, _)| share > s) {
                    e.2 = Some((share, l));
                }
            }
        }
        for (i, &(finite, long_lived, link)) in open.iter().enumerate() {
            let n = finite.ceil() as u64 + long_lived;
            if n == 0 {
                continue;
            }
            let why = match link {
                Some(_) if span == 0.0 => " (they all start at the same time)".to_string(),
                Some((_, l)) => {
                    let link = &topo.links[l as usize];
                    let rho = link_bits[l as usize] / (link.rate.0 as f64 * span);
                    format!(
                        " (link \"{}\" is offered {} times what it carries between the first and the last start, \
                         so they wait for it)",
                        link.name,
                        shown(((rho * 10.0).round() / 10.0).max(1.0))
                    )
                }
                None => " (long-lived)".to_string(),
            };
            memory.add(format!("workload[{i}]"), format!("about {n} flows open at once{why}"), n, BYTES_PER_OPEN_FLOW);
        }
    }

    /// Refuses a run whose scheduled applications would make more than [`MAX_APP_WRITES`]
    /// writes, naming the workload entry with the most, and the estimate.
    pub fn check_app_writes(&self) -> SpecResult<()> {
        let total = self.app_writes.iter().fold(0u64, |t, &w| t.saturating_add(w));
        if total <= MAX_APP_WRITES {
            return Ok(());
        }
        let (entry, &most) = self.app_writes.iter().enumerate().max_by_key(|e| *e.1).unwrap_or((0, &0));
        Err(SpecError::new(
            format!("workload[{entry}]"),
            format!(
                "its flows' scheduled applications (transport.app) would make {} writes ({} in the whole run: \
                 the initial write, then one per chunk of the rest of each flow), each an event of the run; \
                 expected at most {} per run: write larger chunks",
                shown(most as f64),
                shown(total as f64),
                shown(MAX_APP_WRITES as f64)
            ),
        ))
    }
}

/// The largest burst of segments a flow queues at its host at once: RC3's low-priority loop
/// sends every segment of a write (a long-lived writer's one endless write included), and any
/// window-based sender sends its initial window (up to the flow's size) as one burst.
#[derive(Default)]
pub(super) struct Burst {
    segments: u64,
    flow: usize,
    entry: usize,
    cause: BurstCause,
}

/// What sends a [`Burst`].
#[derive(Clone, Copy)]
enum BurstCause {
    /// A loop beside the window (RC3's low-priority loop) of the protocol named, for a flow
    /// with a size: it queues every segment of a write at once.
    Hook(&'static str),
    /// The same loop, for a long-lived writer's one write.
    HookLongLived(&'static str),
    /// A window-based sender's initial window of this many segments.
    InitialWindow(u32),
}

impl Default for BurstCause {
    fn default() -> BurstCause {
        BurstCause::InitialWindow(0)
    }
}

impl Burst {
    /// Counts the burst's segments into `memory`.
    pub fn add_to(&self, memory: &mut Memory) {
        let Burst { segments, flow, entry, cause } = *self;
        let what = match cause {
            BurstCause::Hook(name) => format!(
                "{} flow {flow}'s {segments} segments (queued at once by its low-priority loop)",
                name.to_uppercase()
            ),
            BurstCause::HookLongLived(name) => format!(
                "{} flow {flow}'s {segments} segments (its long-lived writer's one write, queued at once by its \
                 low-priority loop)",
                name.to_uppercase()
            ),
            BurstCause::InitialWindow(iw) => {
                format!("flow {flow}'s initial window (iw = {iw}): {segments} segments queued at once at its host")
            }
        };
        memory.add(format!("workload[{entry}]"), what, segments, BYTES_PER_QUEUED_SEGMENT);
    }
}

/// What planning a flow reads of the built scenario.
pub(super) struct Planner<'a> {
    /// The network.
    pub topo: &'a Topology,
    /// Its routes.
    pub routes: &'a Routes,
    /// Node names, for errors.
    pub names: &'a [String],
    /// The transport profiles.
    pub profiles: &'a [Profile],
    /// The scenario seed (ECMP's flow hash).
    pub seed: u64,
    /// The arrival window: where a long-lived flow's writer stops by default.
    pub duration: Time,
}

impl Planner<'_> {
    /// Build step: plans every arrival in order, its profile drawn from `choice`.
    ///
    /// The arrivals are consumed as they are planned, their memory given back as the plans and
    /// records take its place: a run's build peaks at about its flows' plans and records rather
    /// than at those plus every arrival (64 bytes a flow, 640 MB for 10^7 flows).
    pub fn plan(&self, mut arrivals: Vec<FlowArrival>, choice: &mut ProfileChoice) -> SpecResult<FlowSet> {
        /// Arrivals planned between two returns of their memory.
        const GIVE_BACK: usize = 1 << 20;
        let mut set = FlowSet {
            plans: Vec::with_capacity(arrivals.len()),
            records: Vec::with_capacity(arrivals.len()),
            paths: Paths::default(),
            largest_burst: Burst::default(),
            app_writes: Vec::new(),
            offered: Offered::default(),
        };
        let mut paths = PathInterner::default();
        // Taken from the end, so that the vector shrinks: last start first.
        arrivals.reverse();
        let mut f = 0;
        while let Some(a) = arrivals.pop() {
            if !self.routes.reachable(a.src, a.dst) || !self.routes.reachable(a.dst, a.src) {
                return Err(SpecError::new(
                    format!("workload[{}]", a.entry),
                    format!("no route between hosts \"{}\" and \"{}\"", self.names[a.src], self.names[a.dst]),
                ));
            }
            let profile = choice.pick(a.entry, a.src);
            self.add(f, &a, profile, &mut set, &mut paths)?;
            f += 1;
            if arrivals.capacity() - arrivals.len() >= GIVE_BACK {
                arrivals.shrink_to_fit();
            }
        }
        set.paths = paths.finish();
        Ok(set)
    }

    /// Adds flow `f` with `profile` to `set`, after timing it on its paths.
    fn add(
        &self,
        f: usize,
        a: &FlowArrival,
        profile: usize,
        set: &mut FlowSet,
        paths: &mut PathInterner,
    ) -> SpecResult<()> {
        let hash = flow_hash(f as u64, self.seed);
        let fwd = self.routes.path(a.src, a.dst, hash);
        let rev = self.routes.path(a.dst, a.src, hash);
        // The initial window of a window-based sender (a paced sender has none).
        let (mss, header) = self.profiles[profile].packet_sizes();
        let (handshake, hook, iw, app) = match &self.profiles[profile] {
            Profile::Tcp { cfg, app } => (true, cfg.hook.map(|h| h.protocol()), Some(cfg.iw), *app),
            Profile::Paced { cfg, app, .. } => (cfg.handshake, None, None, *app),
            Profile::Kernel(k) => (true, None, Some(k.planned_tcp().iw), None),
        };
        if let (Some(size), Some(AppTemplate::Scheduled { initial, chunk, .. })) = (a.size, app) {
            if set.app_writes.len() <= a.entry {
                set.app_writes.resize(a.entry + 1, 0);
            }
            let writes = 1 + (size - initial.min(size)).div_ceil(chunk);
            set.app_writes[a.entry] = set.app_writes[a.entry].saturating_add(writes);
        }
        let stop = a.stop.unwrap_or(self.duration);
        let flow = FlowShape { size: a.size, start: a.start, stop, mss, header, handshake };
        let (rtt_prop, ideal, segments) = flow.timing(self.topo, &fwd, &rev).map_err(|m| {
            SpecError::new(
                format!("workload[{}]", a.entry),
                format!("flow {f} from \"{}\" to \"{}\": {m}", self.names[a.src], self.names[a.dst]),
            )
        })?;
        // A loop beside the window (RC3's low-priority loop) queues every segment of a write at
        // once, a long-lived writer's one endless write included; any window sends its first
        // window.
        let long_lived = a.size.is_none();
        let all = if long_lived { LONG_LIVED_CHUNK.div_ceil(mss as u64) } else { segments };
        let burst = match (hook, iw) {
            (Some(name), _) => {
                Some((all, if long_lived { BurstCause::HookLongLived(name) } else { BurstCause::Hook(name) }))
            }
            (None, Some(iw)) => Some((all.min(iw as u64), BurstCause::InitialWindow(iw))),
            (None, None) => None,
        };
        if let Some((segments, cause)) = burst {
            if segments > set.largest_burst.segments {
                set.largest_burst = Burst { segments: segments.min(MAX_FLOW_SEGMENTS), flow: f, entry: a.entry, cause };
            }
        }
        set.plans.push(FlowPlan {
            start: a.start,
            src: a.src,
            dst: a.dst,
            size: a.size,
            stop: a.stop,
            profile,
            workload: a.entry,
        });
        let path = paths.intern(fwd);
        if let Some(size) = a.size {
            set.offered.add(path, size + segments * header as u64, a.start);
        }
        set.records.push(record(a, profile, rtt_prop, ideal, path));
        Ok(())
    }
}

/// The record of a flow not yet started.
fn record(a: &FlowArrival, profile: usize, rtt_prop: Time, ideal: Time, path: u32) -> FlowRecord {
    // Node ids are below MAX_NODES (2^20), profiles and entries few: each fits a u32.
    FlowRecord {
        src: a.src as u32,
        dst: a.dst as u32,
        size: a.size,
        start: a.start,
        finish: None,
        acked_ps: None,
        stopped: false,
        rtt_prop,
        ideal,
        first_write: None,
        delivered: 0,
        retx_bytes: 0,
        timeouts: 0,
        profile: profile as u32,
        workload: a.entry as u32,
        path,
    }
}

/// What the build needs of one flow to time it and bound its segments.
struct FlowShape {
    size: Option<u64>,
    start: Time,
    /// When a long-lived flow's writer stops.
    stop: Time,
    mss: u32,
    header: u32,
    handshake: bool,
}

impl FlowShape {
    /// The round-trip propagation delay of the flow's paths, its ideal FCT (the handshake's
    /// round trip if any, then the last byte's one-way trip after the bottleneck serialized
    /// every wire byte), and the most segments it can send. Errors, for the message after the
    /// flow's name: a sum beyond the clock, or more segments than a u32 index counts.
    fn timing(&self, topo: &Topology, fwd: &[u32], rev: &[u32]) -> Result<(Time, Time, u64), String> {
        let beyond_clock = "more than 2^64 ps (213 days), which the clock cannot hold";
        let rtt = fwd.iter().chain(rev).try_fold(0u64, |t, &l| t.checked_add(topo.links[l as usize].delay.ps()));
        let Some(rtt) = rtt else {
            return Err(format!("its paths' propagation delays add up to {beyond_clock}; expected shorter delays"));
        };
        let bottleneck = fwd.iter().map(|&l| topo.links[l as usize].rate).min().unwrap_or(Rate(1));
        let mss = self.mss as u64;
        let segment_limit = |segments: u64, what: String| {
            Err(format!(
                "{what} {segments} segments of {mss} B; expected at most {MAX_FLOW_SEGMENTS} (2^32 - 1) segments per \
                 flow, {} B at this mss",
                MAX_FLOW_SEGMENTS * mss
            ))
        };
        let Some(size) = self.size else {
            // A long-lived flow sends at most what its bottleneck carries until its writer stops.
            let segments = bottleneck.bytes_in(self.stop.saturating_sub(self.start)).div_ceil(mss);
            if segments > MAX_FLOW_SEGMENTS {
                return segment_limit(
                    segments,
                    format!("long-lived at up to {bottleneck} until {}, it can send", self.stop),
                );
            }
            return Ok((Time(rtt), Time::ZERO, segments));
        };
        let segments = size.div_ceil(mss);
        if segments > MAX_FLOW_SEGMENTS {
            return segment_limit(segments, format!("its {size} B are"));
        }
        let wire = size + segments * self.header as u64;
        let fixed = if self.handshake { rtt.checked_add(rtt / 2) } else { Some(rtt / 2) };
        let ideal = fixed.zip(bottleneck.checked_tx_time(wire)).and_then(|(a, b)| a.checked_add(b.ps()));
        let Some(ideal) = ideal else {
            return Err(format!(
                "its ideal FCT at the bottleneck's {bottleneck} is {beyond_clock}; expected a smaller flow"
            ));
        };
        Ok((Time(rtt), Time(ideal), segments))
    }
}
