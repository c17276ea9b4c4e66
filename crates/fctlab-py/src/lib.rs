//! PyO3 glue only: `fctlab._core.Simulation` wraps a built `World`; the GIL is released while
//! the simulation runs. All logic lives in `fctlab-core`.

use fctlab_core::metrics::tables::{flow_table, link_table, series_columns, Column, TABLES};
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
        let tables = [
            ("flows", flow_table(&self.world, &self.info).into_columns()),
            ("links", link_table(&self.world, &self.info).into_columns()),
            ("series", series_columns(&self.world.series)),
        ];
        for (table, columns) in tables {
            let d = PyDict::new(py);
            for (name, column) in columns {
                set_column(&d, name, column)?;
            }
            out.set_item(table, d)?;
        }

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

/// Puts one column into a table's dict as a Python list.
fn set_column(d: &Bound<'_, PyDict>, name: &str, column: Column) -> PyResult<()> {
    match column {
        Column::U64(v) => d.set_item(name, v),
        Column::I64(v) => d.set_item(name, v),
        Column::F64(v) => d.set_item(name, v),
        Column::OptF64(v) => d.set_item(name, v),
        Column::Str(v) => d.set_item(name, v),
        Column::Bool(v) => d.set_item(name, v),
        Column::Ids(v) => d.set_item(name, v),
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

/// Wall-clock nanoseconds per packet through the router law `law` (one of `ROUTER_LAWS`) over
/// `packets` packets (`fctlab_core::qdisc::cost`), with the GIL released.
#[pyfunction]
fn router_cost(py: Python<'_>, law: &str, packets: u64) -> PyResult<f64> {
    if packets == 0 {
        return Err(PyValueError::new_err("field `packets`: expected at least 1 packet, got 0"));
    }
    let law = law.to_string();
    py.detach(|| fctlab_core::qdisc::cost::ns_per_packet(&law, packets)).ok_or_else(|| {
        PyValueError::new_err(format!("field `law`: expected one of {:?}, got {law:?}", fctlab_core::qdisc::cost::LAWS))
    })
}

/// The compiled core of fctlab.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(ps_fct, m)?)?;
    m.add_function(wrap_pyfunction!(router_cost, m)?)?;
    m.add("ROUTER_LAWS", fctlab_core::qdisc::cost::LAWS.to_vec())?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("COLUMNS", columns(m.py())?)?;
    Ok(())
}
