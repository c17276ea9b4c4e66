//! PyO3 glue only: `fctlab._core.Simulation` wraps a built `World`; the GIL is released while
//! the simulation runs. All logic lives in `fctlab-core`.

use fctlab_core::metrics::tables::{flow_table, link_table};
use fctlab_core::reference::ps::{max_min_fct, PsFlow};
use fctlab_core::scenario::{self, RunInfo};
use fctlab_core::units::Time;
use fctlab_core::world::World;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::Path;
use std::time::Instant;

create_exception!(
    _core,
    ScenarioError,
    pyo3::exceptions::PyValueError,
    "A scenario that cannot be built; the message names the field."
);

/// A built scenario, advanced in steps by `run_until`.
#[pyclass(module = "fctlab._core")]
struct Simulation {
    world: World,
    info: RunInfo,
    wall_s: f64,
}

#[pymethods]
impl Simulation {
    /// Validates and builds the scenario (JSON text); relative paths resolve against `base_dir`.
    #[new]
    fn new(scenario_json: &str, base_dir: &str) -> PyResult<Simulation> {
        let (world, info) =
            scenario::build(scenario_json, Path::new(base_dir)).map_err(|e| ScenarioError::new_err(e.to_string()))?;
        Ok(Simulation { world, info, wall_s: 0.0 })
    }

    /// Runs up to simulated time `t` seconds with the GIL released; True once the run is over.
    fn run_until(&mut self, py: Python<'_>, t: f64) -> bool {
        let world = &mut self.world;
        let t0 = Instant::now();
        let done = py.detach(|| world.run_until(Time::from_secs_f64(t.max(0.0))));
        self.wall_s += t0.elapsed().as_secs_f64();
        done
    }

    /// Current simulated time, s.
    #[getter]
    fn now(&self) -> f64 {
        self.world.now().as_secs_f64()
    }

    /// The arrival window's end, s (draining may go beyond it).
    #[getter]
    fn horizon(&self) -> f64 {
        self.info.duration.as_secs_f64()
    }

    /// Flows started and not yet complete.
    #[getter]
    fn open_flows(&self) -> usize {
        self.world.open_flows()
    }

    /// The result tables as dicts of columns, plus run metadata.
    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        let f = flow_table(&self.world, &self.info);
        let flows = PyDict::new(py);
        flows.set_item("id", f.id)?;
        flows.set_item("src", f.src)?;
        flows.set_item("dst", f.dst)?;
        flows.set_item("size_bytes", f.size_bytes)?;
        flows.set_item("start_s", f.start_s)?;
        flows.set_item("finish_s", f.finish_s)?;
        flows.set_item("fct_s", f.fct_s)?;
        flows.set_item("rtt_prop_s", f.rtt_prop_s)?;
        flows.set_item("ideal_fct_s", f.ideal_fct_s)?;
        flows.set_item("first_write_s", f.first_write_s)?;
        flows.set_item("delivered_bytes", f.delivered_bytes)?;
        flows.set_item("retx_bytes", f.retx_bytes)?;
        flows.set_item("timeouts", f.timeouts)?;
        flows.set_item("protocol", f.protocol)?;
        flows.set_item("workload", f.workload)?;
        flows.set_item("measured", f.measured)?;
        flows.set_item("path", f.path)?;
        out.set_item("flows", flows)?;

        let l = link_table(&self.world, &self.info);
        let links = PyDict::new(py);
        links.set_item("id", l.id)?;
        links.set_item("name", l.name)?;
        links.set_item("src", l.src)?;
        links.set_item("dst", l.dst)?;
        links.set_item("rate_bps", l.rate_bps)?;
        links.set_item("delay_s", l.delay_s)?;
        links.set_item("pkts_sent", l.pkts_sent)?;
        links.set_item("bytes_sent", l.bytes_sent)?;
        links.set_item("drops_pkts", l.drops_pkts)?;
        links.set_item("drops_bytes", l.drops_bytes)?;
        links.set_item("utilization", l.utilization)?;
        links.set_item("queue_avg_bytes", l.queue_avg_bytes)?;
        links.set_item("queue_max_bytes", l.queue_max_bytes)?;
        out.set_item("links", links)?;

        let s = &self.world.series;
        let series = PyDict::new(py);
        series.set_item("time_s", s.time.iter().map(|t| t.as_secs_f64()).collect::<Vec<_>>())?;
        series.set_item("metric", s.metric.iter().map(|m| m.name()).collect::<Vec<_>>())?;
        series.set_item("target", s.target.clone())?;
        series.set_item("value", s.value.clone())?;
        out.set_item("series", series)?;

        let c = &self.world.counters;
        let (q_pkts, q_bytes) = self.world.packets_in_network();
        let meta = PyDict::new(py);
        meta.set_item("seed", self.info.seed)?;
        meta.set_item("sim_time_s", self.world.now().as_secs_f64())?;
        meta.set_item("wall_s", self.wall_s)?;
        meta.set_item("events", self.world.events())?;
        meta.set_item("packet_hops", c.packet_hops)?;
        meta.set_item("flows_started", self.world.records.iter().filter(|r| r.start <= self.world.now()).count())?;
        meta.set_item("flows_completed", self.world.records.iter().filter(|r| r.finish.is_some()).count())?;
        meta.set_item("sent_pkts", c.sent_pkts)?;
        meta.set_item("sent_bytes", c.sent_bytes)?;
        meta.set_item("delivered_pkts", c.delivered_pkts)?;
        meta.set_item("delivered_bytes", c.delivered_bytes)?;
        meta.set_item("dropped_pkts", c.dropped_pkts)?;
        meta.set_item("dropped_bytes", c.dropped_bytes)?;
        meta.set_item("in_network_pkts", q_pkts)?;
        meta.set_item("in_network_bytes", q_bytes)?;
        meta.set_item("version", env!("CARGO_PKG_VERSION"))?;
        out.set_item("meta", meta)?;
        Ok(out)
    }
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
    py.detach(|| max_min_fct(&capacities, &flows)).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The compiled core of fctlab.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(ps_fct, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    Ok(())
}
