//! PyO3 glue only: `fctlab._core.Simulation` wraps a built `World`; the GIL is released while
//! the simulation runs. All logic lives in `fctlab-core` (simulation) and `fctlab-emu`
//! (emulation processes).

mod arrow;
mod plugin;

use arrow::ArrowTable;
use fctlab_core::metrics::tables::{link_table, series_columns, FlowStream, TABLES};
use fctlab_core::reference::local::max_min_fct_local_stats;
use fctlab_core::reference::ps::{max_min_fct, PsFlow};
use fctlab_core::reference::srpt::srpt_fct as greedy_srpt_fct;
use fctlab_core::scenario::{self, RunInfo};
use fctlab_core::units::Time;
use fctlab_core::world::lossless::Fabric;
use fctlab_core::world::parallel::{Engine, Layout, ParallelStats, Stopped};
use fctlab_core::world::{Stall, World};
use fctlab_emu::{
    self as emu,
    control::Control,
    host::{run_host, HostConfig},
    kernel_link::{self, KernelLink},
    report::{absorb, HostReport},
    router::{run_router, RouterConfig},
    sock::Sock,
};
use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyString};
use std::net::SocketAddrV4;
use std::path::Path;
use std::time::Instant;

create_exception!(
    _core,
    ScenarioError,
    pyo3::exceptions::PyValueError,
    "A scenario that cannot be built; the message names the field."
);

create_exception!(
    _core,
    PluginError,
    pyo3::exceptions::PyRuntimeError,
    "A plug-in failed during a run; the message names the plug-in, the hook, the flow and the time."
);

/// A built scenario, advanced in steps by `run_until`: the world whole, or cut into the
/// partitions of the scenario's `parallel` table.
#[pyclass(module = "fctlab._core")]
struct Simulation {
    engine: Engine,
    info: RunInfo,
    wall_s: f64,
    /// The rows of the flows table handed over so far (`take_flows`).
    flows: FlowStream,
}

#[pymethods]
impl Simulation {
    /// Validates and builds the scenario (JSON text); relative paths resolve against `base_dir`.
    /// `threads` overrides the scenario's `parallel.threads` (results do not depend on it); a
    /// run uses at most one thread per partition and per core (`parallel` tells what it uses).
    #[new]
    #[pyo3(signature = (scenario_json, base_dir, threads=None))]
    fn new(scenario_json: &str, base_dir: &str, threads: Option<usize>) -> PyResult<Simulation> {
        let (world, info) = scenario::build(scenario_json, Path::new(base_dir))
            .map_err(|e| plugin::take_interrupt().unwrap_or_else(|| ScenarioError::new_err(e.to_string())))?;
        scenario::refuse_in_simulation(&world).map_err(|e| ScenarioError::new_err(e.to_string()))?;
        if threads == Some(0) {
            return Err(PyValueError::new_err("threads: expected a whole number >= 1, got 0"));
        }
        let asked = threads.or(info.threads);
        let engine =
            Engine::for_run(world, info.partitions, asked).map_err(|e| ScenarioError::new_err(e.to_string()))?;
        Ok(Simulation { engine, info, wall_s: 0.0, flows: FlowStream::default() })
    }

    /// How the run is laid out: `partitions` and `threads` used, `partitions_asked`,
    /// `threads_asked` (None: the default), `cores`, and `notice`, one line saying what the run
    /// uses instead of what was asked and why (None when it uses what was asked).
    #[getter]
    fn parallel<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let l = self.engine.layout();
        let d = PyDict::new(py);
        d.set_item("partitions", l.partitions)?;
        d.set_item("partitions_asked", l.partitions_asked)?;
        d.set_item("threads", l.threads)?;
        d.set_item("threads_asked", l.threads_asked)?;
        d.set_item("cores", l.cores)?;
        d.set_item("notice", l.notice())?;
        Ok(d)
    }

    /// True if the scenario asks for a packet capture (`[output.pcap]`).
    #[getter]
    fn captures(&self) -> bool {
        self.engine.world().capture_plan().is_some()
    }

    /// Starts writing the scenario's packet capture to a new file at `path`, before the run;
    /// nothing without `[output.pcap]`.
    fn start_capture(&mut self, path: &str) -> PyResult<()> {
        let world = self.engine.world_mut().ok_or_else(|| PyValueError::new_err("a partitioned run has no capture"))?;
        world.start_capture(Path::new(path)).map_err(|e| io_err(&format!("cannot write the capture {path}"), e))
    }

    /// Ends the capture: flushes its file; returns the packets written (0 without a capture).
    fn finish_capture(&mut self) -> PyResult<u64> {
        let Some(world) = self.engine.world_mut() else { return Ok(0) };
        world.finish_capture().map_err(|e| io_err("cannot write the capture", e))
    }

    /// What each flow's endpoints counted, by flow id, as lists: `data_pkts` (data packets
    /// sent, retransmissions included), `retx_pkts` (retransmissions), `sack_acks` (ACKs sent
    /// with SACK blocks); final once the run is over. Not flows-table columns: they are there to
    /// check a capture against (docs/pcap.md).
    fn flow_counters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let n = &self.engine.world().packet_counts;
        let out = PyDict::new(py);
        out.set_item("data_pkts", n.iter().map(|c| c.data_pkts).collect::<Vec<_>>())?;
        out.set_item("retx_pkts", n.iter().map(|c| c.retx_pkts).collect::<Vec<_>>())?;
        out.set_item("sack_acks", n.iter().map(|c| c.sack_acks).collect::<Vec<_>>())?;
        Ok(out)
    }

    /// Runs up to simulated time `t` seconds with the GIL released; True once the run is over.
    /// Raises `PluginError` if a plug-in failed, but a KeyboardInterrupt a hook raised (a signal
    /// arrived while it ran) as itself. A partitioned run runs on threads of its own
    /// while this thread looks for signals every few milliseconds, as the Python between two
    /// steps does: a signal handler's exception (KeyboardInterrupt for Ctrl-C) stops the run
    /// and is raised here, even while the partitions are held in a blocked plug-in hook.
    fn run_until(&mut self, py: Python<'_>, t: f64) -> PyResult<bool> {
        let engine = &mut self.engine;
        let t0 = Instant::now();
        let mut signalled: Option<PyErr> = None;
        let done = py.detach(|| {
            let mut go_on = || match Python::attach(|py| py.check_signals()) {
                Ok(()) => true,
                Err(e) => {
                    signalled = Some(e);
                    false
                }
            };
            engine.run_until_polling(Time::from_secs_f64(t.max(0.0)), &mut go_on)
        });
        self.wall_s += t0.elapsed().as_secs_f64();
        if let Some(e) = signalled.or_else(plugin::take_interrupt) {
            return Err(e);
        }
        if let Some(fault) = self.engine.plugin_fault() {
            return Err(PluginError::new_err(fault.to_string()));
        }
        match done {
            Ok(done) => Ok(done),
            // Interrupted only by a signal, whose exception is raised above.
            Err(Stopped::Interrupted) => Err(pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted")),
            Err(e @ Stopped::Causality(_)) => Err(ScenarioError::new_err(e.to_string())),
        }
    }

    /// Current simulated time, s.
    #[getter]
    fn now(&self) -> f64 {
        self.engine.now().as_secs_f64()
    }

    /// The arrival window's end, s (draining may go beyond it).
    #[getter]
    fn horizon(&self) -> f64 {
        self.info.duration.as_secs_f64()
    }

    /// Flows started and not yet complete.
    #[getter]
    fn open_flows(&self) -> usize {
        self.engine.open_flows()
    }

    /// What stopped the run if it stalled (nothing could happen any more while flows were
    /// open), as a dict (`stall_dict`, every open flow); None otherwise, or while it runs.
    #[getter]
    fn stall<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.engine.stall().map(|s| stall_dict(py, s, &self.info.node_names, usize::MAX)).transpose()
    }

    /// What the build found worth telling about the run that is not an error, one sentence
    /// each (e.g. equal-cost paths single-path routing leaves unused); empty for most runs.
    #[getter]
    fn notices(&self) -> Vec<String> {
        self.info.notices.clone()
    }

    /// The rows of the flows table that became final since the last call, in flow id order (an
    /// `ArrowTable`), or None if there are none: the flows that retired (completed, sender
    /// done) with every flow before them, and once the run is over every row left.
    fn take_flows(&mut self, py: Python<'_>) -> Option<ArrowTable> {
        let (world, info, flows) = (self.engine.world(), &self.info, &mut self.flows);
        let rows = py.detach(|| flows.take(world, info));
        (!rows.is_empty()).then(|| ArrowTable::new(rows.into_columns()))
    }

    /// The result tables as Arrow tables, plus run metadata. The flows table holds the rows not
    /// yet handed over by `take_flows` (every row if it was never called).
    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = results_dict(py, self.engine.world(), &self.info, self.wall_s, &self.flows)?;
        let meta = out.get_item("meta")?.expect("meta").cast_into::<PyDict>()?;
        layout_meta(&meta, self.engine.layout())?;
        if let Some(stats) = self.engine.parallel_stats() {
            parallel_meta(&meta, stats)?;
        }
        Ok(out)
    }
}

/// The result tables of a world as Arrow tables (`ArrowTable`, `arrow.rs`), plus run metadata;
/// the flows table from the first row `flows` has not handed over.
fn results_dict<'py>(
    py: Python<'py>,
    world: &World,
    info: &RunInfo,
    wall_s: f64,
    flows: &FlowStream,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let tables = py.detach(|| {
        [
            ("flows", flows.rest(world, info).into_columns()),
            ("links", link_table(world, info).into_columns()),
            ("series", series_columns(&world.series)),
        ]
    });
    for (table, columns) in tables {
        out.set_item(table, Bound::new(py, ArrowTable::new(columns))?)?;
    }

    let c = &world.counters;
    let (q_pkts, q_bytes) = world.packets_in_network();
    let meta = PyDict::new(py);
    meta.set_item("seed", info.seed)?;
    meta.set_item("sim_time_s", world.now().as_secs_f64())?;
    meta.set_item("wall_s", wall_s)?;
    meta.set_item("events", world.events())?;
    meta.set_item("packet_hops", c.packet_hops)?;
    meta.set_item("flows_started", world.records.iter().filter(|r| r.start <= world.now()).count())?;
    meta.set_item("flows_completed", world.records.iter().filter(|r| r.finish.is_some()).count())?;
    meta.set_item("sent_pkts", c.sent_pkts)?;
    meta.set_item("sent_bytes", c.sent_bytes)?;
    meta.set_item("delivered_pkts", c.delivered_pkts)?;
    meta.set_item("delivered_bytes", c.delivered_bytes)?;
    meta.set_item("dropped_pkts", c.dropped_pkts)?;
    meta.set_item("dropped_bytes", c.dropped_bytes)?;
    meta.set_item("in_network_pkts", q_pkts)?;
    meta.set_item("in_network_bytes", q_bytes)?;
    meta.set_item("version", env!("CARGO_PKG_VERSION"))?;
    if let Some(stall) = world.stall() {
        meta.set_item("stall", stall_dict(py, stall, &info.node_names, STALL_FLOWS_IN_META)?)?;
    }
    if let Some(fabric) = world.fabric() {
        meta.set_item("fabric", fabric_dict(py, world, fabric, info)?)?;
        out.set_item("pfc_log", pfc_log(world, fabric, info))?;
    }
    out.set_item("meta", meta)?;
    out.set_item("notices", info.notices.clone())?;
    Ok(out)
}

/// The most stalled flows a run's metadata lists (the flows table has a row for every one).
const STALL_FLOWS_IN_META: usize = 100;

/// A stall as a dict: `time_s`, `message` (one line), `open_flows` (how many), and `flows`, the
/// first `limit` open flows by id, each with its sender's state and `line`, one line on it.
fn stall_dict<'py>(py: Python<'py>, stall: &Stall, names: &[String], limit: usize) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("time_s", stall.time.as_secs_f64())?;
    out.set_item("message", stall.to_string())?;
    out.set_item("open_flows", stall.flows.len())?;
    let name = |n: u32| names.get(n as usize).cloned().unwrap_or_else(|| n.to_string());
    let mut flows = Vec::new();
    for f in stall.flows.iter().take(limit) {
        let d = PyDict::new(py);
        d.set_item("flow", f.flow)?;
        d.set_item("src", name(f.src))?;
        d.set_item("dst", name(f.dst))?;
        d.set_item("size_bytes", f.size)?;
        d.set_item("window_bytes", f.window)?;
        d.set_item("rate_bps", f.rate_bps)?;
        d.set_item("outstanding_bytes", f.outstanding)?;
        d.set_item("acked_bytes", f.acked)?;
        d.set_item("state", f.state)?;
        d.set_item("last_event_s", f.last_event.0.as_secs_f64())?;
        d.set_item("last_event", f.last_event.1.describe())?;
        d.set_item("line", f.line(names))?;
        flows.push(d);
    }
    out.set_item("flows", flows)?;
    Ok(out)
}

/// A lossless fabric's run in its metadata: frames, drops, storms, a deadlock, and every port
/// that was paused or marked (its counters, its time paused).
fn fabric_dict<'py>(py: Python<'py>, world: &World, f: &Fabric, info: &RunInfo) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let link = |l: u32| info.link_names.get(l as usize).cloned().unwrap_or_else(|| l.to_string());
    let pauses = f.log.iter().filter(|r| r.pause).count();
    out.set_item("pause_frames", pauses)?;
    out.set_item("resume_frames", f.log.len() - pauses)?;
    out.set_item("buffer_drops", f.drops)?;
    let mut ports = Vec::new();
    for (i, l) in world.links.iter().enumerate() {
        let Some(p) = l.lossless() else { continue };
        if p.stats.pauses == 0 && p.stats.ecn_marks == 0 {
            continue;
        }
        let d = PyDict::new(py);
        d.set_item("link", link(i as u32))?;
        d.set_item("pauses", p.stats.pauses)?;
        d.set_item("resumes", p.stats.resumes)?;
        d.set_item("paused_s", p.paused_time(world.now()).as_secs_f64())?;
        let by_class = PyDict::new(py);
        for c in 0..fctlab_core::net::packet::CLASSES {
            let t = p.class_paused_time(world.now(), c);
            if t > fctlab_core::units::Time::ZERO {
                by_class.set_item(c, t.as_secs_f64())?;
            }
        }
        d.set_item("paused_s_by_class", by_class)?;
        d.set_item("ecn_marks", p.stats.ecn_marks)?;
        ports.push(d);
    }
    out.set_item("ports", ports)?;
    let mut storms = Vec::new();
    for s in &f.storms {
        let d = PyDict::new(py);
        d.set_item("link", link(s.link))?;
        d.set_item("paused_since_s", s.since.as_secs_f64())?;
        d.set_item("seen_s", s.seen.as_secs_f64())?;
        storms.push(d);
    }
    out.set_item("storms", storms)?;
    if let Some(d) = &f.deadlock {
        let dd = PyDict::new(py);
        dd.set_item("time_s", d.time.as_secs_f64())?;
        dd.set_item("cycle", d.cycle.iter().map(|&l| link(l)).collect::<Vec<_>>())?;
        out.set_item("deadlock", dd)?;
    }
    Ok(out)
}

/// The PFC frames a fabric's ports received, one line each as HPCC's `pfc.txt` has them: time
/// (ns), the node whose port received it, that node's kind (0 host, 1 switch), the port's link,
/// and 1 for a PAUSE, 0 for a RESUME. HPCC's file names no class (its runs pause one); the
/// metadata's `fabric.ports[].paused_s_by_class` has the classes.
fn pfc_log(world: &World, f: &Fabric, info: &RunInfo) -> Vec<String> {
    f.log
        .iter()
        .map(|r| {
            let from = world.links[r.link as usize].from as usize;
            let node = info.node_names.get(from).cloned().unwrap_or_else(|| from.to_string());
            let kind = u8::from(!world.is_host(from));
            let link = info.link_names.get(r.link as usize).cloned().unwrap_or_else(|| r.link.to_string());
            format!("{} {node} {kind} {link} {}", r.time.0 / 1000, u8::from(r.pause))
        })
        .collect()
}

/// What a run asked to be cut into, and what it used, in its metadata: nothing for a run that
/// asked for neither partitions nor threads.
fn layout_meta(meta: &Bound<'_, PyDict>, l: Layout) -> PyResult<()> {
    if l.partitions_asked == 1 && l.threads_asked.is_none() {
        return Ok(());
    }
    meta.set_item("partitions", l.partitions)?;
    meta.set_item("partitions_asked", l.partitions_asked)?;
    meta.set_item("threads", l.threads)?;
    meta.set_item("threads_asked", l.threads_asked)?;
    Ok(())
}

/// A partitioned run's figures, in its metadata.
fn parallel_meta(meta: &Bound<'_, PyDict>, s: &ParallelStats) -> PyResult<()> {
    meta.set_item("partitions", s.partitions)?;
    meta.set_item("threads", s.threads)?;
    meta.set_item("lookahead_s", s.lookahead.as_secs_f64())?;
    meta.set_item("windows", s.windows)?;
    meta.set_item("handed_over_pkts", s.handed_over)?;
    meta.set_item("partition_events", s.events.clone())?;
    meta.set_item("thread_busy_s", s.busy_s.clone())?;
    meta.set_item("thread_exchange_s", s.exchange_s.clone())?;
    meta.set_item("solo_windows", s.solo_windows)?;
    Ok(())
}

/// One process of an emulation (`fctlab.emulate`): the router (every link of the scenario) or
/// one host (its endpoints), in real time over a UDP socket; the GIL is released while it runs.
#[pyclass(module = "fctlab._core")]
struct Emulation {
    world: World,
    info: RunInfo,
    sock: Option<Sock>,
    wall_s: f64,
}

fn addr(field: &str, text: &str) -> PyResult<SocketAddrV4> {
    text.parse()
        .map_err(|_| PyValueError::new_err(format!("field `{field}`: expected IPv4 ADDRESS:PORT, got {text:?}")))
}

fn io_err(what: &str, e: std::io::Error) -> PyErr {
    pyo3::exceptions::PyOSError::new_err(format!("{what}: {e}"))
}

#[pymethods]
impl Emulation {
    /// Validates and builds the scenario (JSON text) as `Simulation` does.
    #[new]
    fn new(scenario_json: &str, base_dir: &str) -> PyResult<Emulation> {
        let (world, info) =
            scenario::build(scenario_json, Path::new(base_dir)).map_err(|e| ScenarioError::new_err(e.to_string()))?;
        scenario::check_kernel_flows(&world).map_err(|e| ScenarioError::new_err(e.to_string()))?;
        Ok(Emulation { world, info, sock: None, wall_s: 0.0 })
    }

    /// Node ids of the hosts that send or receive a flow, ascending.
    fn hosts(&self) -> Vec<u32> {
        let mut h: Vec<u32> = self.world.plans().iter().flat_map(|p| [p.src as u32, p.dst as u32]).collect();
        h.sort_unstable();
        h.dedup();
        h
    }

    /// Node names by node id.
    fn node_names(&self) -> Vec<String> {
        self.info.node_names.clone()
    }

    /// Start times (s) and sizes (bytes, None: long-lived) of the planned flows.
    fn flow_plan(&self) -> Vec<(f64, Option<u64>)> {
        self.world.plans().iter().map(|p| (p.start.as_secs_f64(), p.size)).collect()
    }

    /// (arrival window end, hard stop), s.
    fn limits(&self) -> (f64, f64) {
        let l = self.world.limits();
        (l.duration.as_secs_f64(), l.max_time.as_secs_f64())
    }

    /// The fastest rate a flow can reach: the largest, over flows, of the slowest link on the
    /// flow's path, bit/s (0 without flows).
    fn max_flow_rate(&self) -> f64 {
        let links = &self.world.links;
        let slowest =
            |path: &[u32]| path.iter().map(|&l| links[l as usize].rate.bps_f64()).fold(f64::INFINITY, f64::min);
        (0..self.world.records.len()).map(|f| slowest(self.world.path(f))).filter(|r| r.is_finite()).fold(0.0, f64::max)
    }

    /// Binds this process's socket to `ip` (any port) and prints `ready PORT`; returns the port.
    fn bind(&mut self, ip: &str) -> PyResult<u16> {
        let ip: std::net::Ipv4Addr = ip
            .parse()
            .map_err(|_| PyValueError::new_err(format!("field `bind`: expected an IPv4 address, got {ip:?}")))?;
        let sock = emu::bind(SocketAddrV4::new(ip, 0)).map_err(|e| io_err(&format!("binding {ip}"), e))?;
        let port = sock.local_addr().map_err(|e| io_err("socket", e))?.port();
        self.sock = Some(sock);
        Ok(port)
    }

    /// The kernel stacks (`stack = "linux"`) the flows use: (field, cc, iw or None), each once.
    fn kernel_stacks(&self) -> Vec<(String, String, Option<u32>)> {
        scenario::kernel_stacks(&self.world).into_iter().map(|k| (k.field, k.cc, k.iw)).collect()
    }

    /// Runs the router (after `bind`) until `stop` on standard input, its end, or `max_wall_s`;
    /// `kernel_links` (`KernelLink`s) are the hosts whose kernel TCP frames it carries.
    /// Returns its report as JSON.
    #[pyo3(signature = (scale, max_wall_s, kernel_links=Vec::new()))]
    fn run_router(
        &mut self,
        py: Python<'_>,
        scale: f64,
        max_wall_s: f64,
        kernel_links: Vec<PyRef<'_, PyKernelLink>>,
    ) -> PyResult<String> {
        let kernel_links = kernel_links.iter().map(|l| l.0.clone()).collect();
        let sock = self.sock.take().ok_or_else(|| PyValueError::new_err("run_router: call bind first"))?;
        let cfg = RouterConfig {
            bind: sock.local_addr().map_err(|e| io_err("socket", e))?,
            hosts: Vec::new(),
            scale,
            max_wall_s,
            kernel_links,
        };
        let world = &mut self.world;
        let t0 = Instant::now();
        let report =
            py.detach(|| run_router(world, sock, cfg, &mut Control::stdin())).map_err(|e| io_err("router", e))?;
        self.wall_s = t0.elapsed().as_secs_f64();
        serde_json::to_string(&report).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// True if the scenario asks for a packet capture (`[output.pcap]`): the router writes it.
    #[getter]
    fn captures(&self) -> bool {
        self.world.capture_plan().is_some()
    }

    /// Router: starts writing the capture of what its links deliver to a new file at `path`,
    /// before `run_router`; nothing without `[output.pcap]`.
    fn start_capture(&mut self, path: &str) -> PyResult<()> {
        self.world.start_capture(Path::new(path)).map_err(|e| io_err(&format!("cannot write the capture {path}"), e))
    }

    /// Router: ends the capture (flushes its file); returns the packets written.
    fn finish_capture(&mut self) -> PyResult<u64> {
        self.world.finish_capture().map_err(|e| io_err("cannot write the capture", e))
    }

    /// Runs host `node` (after `bind`) against the router at `router` (IP:PORT) until `stop`, the
    /// end of standard input, or `max_wall_s`; `peers` (node, IPv4) are the hosts' addresses
    /// for its kernel TCP flows. Returns its report as JSON.
    #[pyo3(signature = (node, router, scale, max_wall_s, peers=Vec::new()))]
    fn run_host(
        &mut self,
        py: Python<'_>,
        node: u32,
        router: &str,
        scale: f64,
        max_wall_s: f64,
        peers: Vec<(u32, String)>,
    ) -> PyResult<String> {
        let peers = peers
            .iter()
            .map(|(n, ip)| {
                ip.parse().map(|ip| (*n, ip)).map_err(|_| {
                    PyValueError::new_err(format!("field `peers`: expected IPv4 addresses, got {ip:?} for node {n}"))
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let sock = self.sock.take().ok_or_else(|| PyValueError::new_err("run_host: call bind first"))?;
        if !self.world.is_host(node as usize) {
            return Err(PyValueError::new_err(format!("field `node`: expected the node id of a host, got {node}")));
        }
        let cfg = HostConfig { node, router: addr("router", router)?, scale, max_wall_s, peers };
        let world = &self.world;
        let report = py.detach(|| run_host(world, sock, cfg, &mut Control::stdin())).map_err(|e| io_err("host", e))?;
        serde_json::to_string(&report).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Folds a host's report (JSON from `run_host`) into the flow records.
    fn absorb(&mut self, report_json: &str) -> PyResult<()> {
        let report: HostReport = serde_json::from_str(report_json).map_err(|e| {
            PyValueError::new_err(format!("host report: expected the JSON of run_host, got an error: {e}"))
        })?;
        absorb(&mut self.world, &report).map_err(PyValueError::new_err)
    }

    /// The result tables, as `Simulation.results`.
    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        results_dict(py, &self.world, &self.info, self.wall_s, &FlowStream::default())
    }
}

/// `fctlab._core.KernelLink`: what the router process is told of a host whose kernel TCP it
/// carries (`fctlab_emu::kernel_link`), checked when it is made.
#[pyclass(module = "fctlab._core", name = "KernelLink", frozen, eq)]
#[derive(PartialEq)]
struct PyKernelLink(KernelLink);

/// `field `kernel_link.NAME`: MESSAGE, got VALUE` as `exc`.
fn link_err<E: pyo3::PyTypeInfo>(name: &str, expected: &str, value: &Bound<'_, PyAny>) -> PyErr {
    let got = value.repr().map_or_else(|_| "?".to_string(), |r| r.to_string());
    PyErr::new::<E, _>(format!("field `kernel_link.{name}`: expected {expected}, got {got}"))
}

/// The text of a `str` argument, or a TypeError naming the field.
fn link_text(name: &str, expected: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    match value.cast::<PyString>() {
        Ok(s) => Ok(s.to_str()?.to_string()),
        Err(_) => Err(link_err::<PyTypeError>(name, expected, value)),
    }
}

#[pymethods]
impl PyKernelLink {
    /// Host `node` reached over the veth whose router end is `ifname` (a Linux interface name),
    /// the host end's address `host_ip` (IPv4 text) and `host_mac` (text "02:00:00:00:00:03" or
    /// 6 bytes). A bad value raises ValueError (a wrong type TypeError) naming the field, the
    /// value and what was expected.
    #[new]
    fn new(
        node: &Bound<'_, PyAny>,
        ifname: &Bound<'_, PyAny>,
        host_ip: &Bound<'_, PyAny>,
        host_mac: &Bound<'_, PyAny>,
    ) -> PyResult<PyKernelLink> {
        const NODE: &str = "a node id (an int, 0 <= node < 2^32)";
        if !node.is_instance_of::<PyInt>() || node.is_instance_of::<PyBool>() {
            return Err(link_err::<PyTypeError>("node", NODE, node));
        }
        let node: u32 = node.extract().map_err(|_| link_err::<PyValueError>("node", NODE, node))?;
        let ifname = link_text("ifname", "an interface name (str)", ifname)?;
        let ip_text = link_text("host_ip", "an IPv4 address (str)", host_ip)?;
        let within = |e: fctlab_core::error::SpecError| PyValueError::new_err(e.within("kernel_link").to_string());
        let ip = kernel_link::parse_ip(&ip_text).map_err(within)?;
        let mac = if let Ok(b) = host_mac.cast::<PyBytes>() {
            <[u8; 6]>::try_from(b.as_bytes()).map_err(|_| {
                let got = host_mac.repr().map_or_else(|_| "?".to_string(), |r| r.to_string());
                PyValueError::new_err(format!(
                    "field `kernel_link.host_mac`: expected 6 bytes or text like \"02:00:00:00:00:03\", got {got} ({} bytes)",
                    b.as_bytes().len()
                ))
            })?
        } else {
            let text = link_text("host_mac", "a MAC address (str, or 6 bytes)", host_mac)?;
            kernel_link::parse_mac(&text).map_err(within)?
        };
        KernelLink::new(node, &ifname, ip, mac).map(PyKernelLink).map_err(within)
    }

    /// Topology node id of the host.
    #[getter]
    fn node(&self) -> u32 {
        self.0.node()
    }

    /// The router end of its veth, e.g. "r3".
    #[getter]
    fn ifname(&self) -> &str {
        self.0.ifname()
    }

    /// The host's IPv4 address, e.g. "198.18.0.2".
    #[getter]
    fn host_ip(&self) -> String {
        self.0.host_ip().to_string()
    }

    /// The host end's MAC address, e.g. "02:00:00:00:00:03".
    #[getter]
    fn host_mac(&self) -> String {
        kernel_link::format_mac(self.0.host_mac())
    }

    fn __repr__(&self) -> String {
        format!(
            "KernelLink(node={}, ifname={:?}, host_ip={:?}, host_mac={:?})",
            self.0.node(),
            self.0.ifname(),
            self.0.host_ip().to_string(),
            kernel_link::format_mac(self.0.host_mac())
        )
    }

    /// The JSON list of `links`, for the router process (`list_from_json` reads it back).
    #[staticmethod]
    fn list_to_json(links: Vec<PyRef<'_, PyKernelLink>>) -> String {
        let links: Vec<KernelLink> = links.iter().map(|l| l.0.clone()).collect();
        kernel_link::to_json(&links)
    }

    /// The links of a JSON list written by `list_to_json`, checked again; ValueError naming
    /// `kernel_links[i].FIELD`.
    #[staticmethod]
    fn list_from_json(text: &str) -> PyResult<Vec<PyKernelLink>> {
        let links = kernel_link::from_json(text).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(links.into_iter().map(PyKernelLink).collect())
    }
}

/// The result columns of every table: `{table: [(name, dtype, nullable), ...]}` (the core's
/// list, `fctlab_core::metrics::tables::TABLES`).
fn columns<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (table, cols) in TABLES {
        let list: Vec<(&str, &str, bool)> = cols.iter().map(|c| (c.name, c.dtype, c.nullable)).collect();
        d.set_item(*table, list)?;
    }
    Ok(d)
}

/// The flows i = (starts[i], bits[i], paths[i]) of a fluid reference; errors call flow i `flows[i]`.
fn fluid_flows(starts: Vec<f64>, bits: Vec<f64>, paths: Vec<Vec<i64>>) -> PyResult<Vec<PsFlow>> {
    if starts.len() != bits.len() || starts.len() != paths.len() {
        return Err(PyValueError::new_err(format!(
            "expected starts, bits and paths of one length, got {}, {} and {}",
            starts.len(),
            bits.len(),
            paths.len()
        )));
    }
    let mut flows = Vec::with_capacity(starts.len());
    for (i, ((start, bits), path)) in starts.into_iter().zip(bits).zip(paths).enumerate() {
        let path = path
            .iter()
            .enumerate()
            .map(|(k, &l)| {
                u32::try_from(l).map_err(|_| {
                    PyValueError::new_err(format!("field `flows[{i}].path[{k}]`: expected a link index >= 0, got {l}"))
                })
            })
            .collect::<PyResult<Vec<u32>>>()?;
        flows.push(PsFlow { start, bits, path });
    }
    Ok(flows)
}

/// Fluid max-min completion times (s) of flows i = (starts[i], bits[i], paths[i]) on links of
/// the given capacities (bit/s), with the GIL released; errors call flow i `flows[i]`.
#[pyfunction]
fn ps_fct(
    py: Python<'_>,
    capacities: Vec<f64>,
    starts: Vec<f64>,
    bits: Vec<f64>,
    paths: Vec<Vec<i64>>,
) -> PyResult<Vec<f64>> {
    let flows = fluid_flows(starts, bits, paths)?;
    py.detach(|| max_min_fct(&capacities, &flows)).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// [`ps_fct`]'s completion times computed by local fills (`fctlab_core::reference::local`), and
/// what that took: `(fct, {"events", "fills", "filled_flows"})`; with the GIL released.
#[pyfunction]
fn local_fct<'py>(
    py: Python<'py>,
    capacities: Vec<f64>,
    starts: Vec<f64>,
    bits: Vec<f64>,
    paths: Vec<Vec<i64>>,
) -> PyResult<(Vec<f64>, Bound<'py, PyDict>)> {
    let flows = fluid_flows(starts, bits, paths)?;
    let (fct, stats) =
        py.detach(|| max_min_fct_local_stats(&capacities, &flows)).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let d = PyDict::new(py);
    d.set_item("events", stats.events)?;
    d.set_item("fills", stats.fills)?;
    d.set_item("filled_flows", stats.filled_flows)?;
    d.set_item("largest_fill", stats.largest_fill)?;
    d.set_item("peak_active", stats.peak_active)?;
    Ok((fct, d))
}

/// Fluid completion times (s) under greedy SRPT, pFabric's "Ideal" on any topology
/// (`fctlab_core::reference::srpt`), of flows i = (starts[i], bits[i], paths[i]) on links of
/// the given capacities (bit/s), with the GIL released; errors call flow i `flows[i]`.
#[pyfunction]
fn srpt_fct(
    py: Python<'_>,
    capacities: Vec<f64>,
    starts: Vec<f64>,
    bits: Vec<f64>,
    paths: Vec<Vec<i64>>,
) -> PyResult<Vec<f64>> {
    let flows = fluid_flows(starts, bits, paths)?;
    py.detach(|| greedy_srpt_fct(&capacities, &flows)).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Wall-clock nanoseconds per packet through the router law `law` (one of `ROUTER_LAWS`) over
/// `packets` packets (`fctlab_core::qdisc::cost`), with the GIL released.
#[pyfunction]
fn router_cost(py: Python<'_>, law: &str, packets: u64) -> PyResult<f64> {
    if packets == 0 {
        return Err(PyValueError::new_err("field `packets`: expected at least 1 packet, got 0"));
    }
    let law = law.to_string();
    py.detach(|| fctlab_core::qdisc::cost::ns_per_packet(&law, packets)).ok_or_else(|| {
        PyValueError::new_err(format!(
            "field `law`: expected one of {:?}, got {law:?}",
            fctlab_core::qdisc::cost::laws()
        ))
    })
}

/// The protocol registry (`fctlab_core::protocol::PROTOCOLS`), one dict per protocol.
fn protocols(py: Python<'_>) -> PyResult<Vec<Bound<'_, pyo3::types::PyDict>>> {
    fctlab_core::protocol::PROTOCOLS
        .iter()
        .map(|p| {
            let d = pyo3::types::PyDict::new(py);
            d.set_item("name", p.name)?;
            d.set_item("title", p.title)?;
            d.set_item("host_key", p.host_key)?;
            d.set_item("queue", p.queue)?;
            d.set_item("header_bytes", p.header_bytes)?;
            d.set_item("metrics", p.metrics.to_vec())?;
            d.set_item("folder", p.folder)?;
            d.set_item("wire_tags", p.wire_tags.to_vec())?;
            Ok(d)
        })
        .collect()
}

/// The congestion header of wire tag `tag` and words `words`, as fctlab reads it off the wire:
/// its words back (tag, w0, w1, w2) if accepted; ValueError naming the field refused.
#[pyfunction]
fn decode_header(tag: u8, words: (u32, u32, u32)) -> PyResult<(u8, u32, u32, u32)> {
    let h = fctlab_core::protocol::header_from_wire(tag, [words.0, words.1, words.2])
        .map_err(|field| PyValueError::new_err(format!("{field}: refused (tag {tag}, words {words:?})")))?;
    let (t, w) = fctlab_core::protocol::header_to_wire(h);
    Ok((t, w[0], w[1], w[2]))
}

/// The compiled core of fctlab.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    fctlab_core::plugin::set_python_loader(Box::new(plugin::load));
    m.add_class::<plugin::PyWindow>()?;
    m.add_class::<plugin::PyConnection>()?;
    m.add_class::<plugin::PyPort>()?;
    m.add_class::<plugin::PyPacket>()?;
    m.add_function(wrap_pyfunction!(decode_header, m)?)?;
    m.add("PluginError", m.py().get_type::<PluginError>())?;
    m.add("PLUGIN_API_VERSION", fctlab_core::plugin::API_VERSION)?;
    m.add("PLUGIN_API_SOURCES", plugin::API_SOURCES.into_iter().collect::<std::collections::BTreeMap<_, _>>())?;
    m.add_class::<Simulation>()?;
    m.add_class::<Emulation>()?;
    m.add_class::<PyKernelLink>()?;
    m.add_class::<ArrowTable>()?;
    m.add_function(wrap_pyfunction!(ps_fct, m)?)?;
    m.add_function(wrap_pyfunction!(local_fct, m)?)?;
    m.add_function(wrap_pyfunction!(srpt_fct, m)?)?;
    m.add_function(wrap_pyfunction!(router_cost, m)?)?;
    m.add("ROUTER_LAWS", fctlab_core::qdisc::cost::laws())?;
    m.add("PROTOCOLS", protocols(m.py())?)?;
    m.add("MAX_PARTITIONS", fctlab_core::world::parallel::MAX_PARTITIONS)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("COLUMNS", columns(m.py())?)?;
    Ok(())
}
