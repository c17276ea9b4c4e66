//! The result tables as columns, ready for Arrow / polars.
//!
//! [`FLOW_COLUMNS`], [`LINK_COLUMNS`] and [`SERIES_COLUMNS`] are the one list of the result
//! columns: their names, order, types and nullability. The Python bindings hand the tables over
//! by walking them ([`FlowTable::into_columns`] and friends yield exactly these columns, which a
//! test checks), `fctlab.result` derives its polars schemas from them (`_core.COLUMNS`), the test
//! suite's fake core builds its tables from them, and a test checks that `docs/results.md`
//! documents exactly them.

use crate::metrics::SeriesRecorder;
use crate::scenario::RunInfo;
use crate::world::World;

/// One result column: its name, its type as the docs and Python spell it (`i64`, `f64`, `str`,
/// `bool`, `list[i64]`), and whether it may be null.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ColumnSpec {
    /// Column name.
    pub name: &'static str,
    /// Value type.
    pub dtype: &'static str,
    /// True if rows may hold no value.
    pub nullable: bool,
}

const fn col(name: &'static str, dtype: &'static str) -> ColumnSpec {
    ColumnSpec { name, dtype, nullable: false }
}

const fn opt(name: &'static str, dtype: &'static str) -> ColumnSpec {
    ColumnSpec { name, dtype, nullable: true }
}

/// The flows table (`flows.parquet`), in order.
pub const FLOW_COLUMNS: &[ColumnSpec] = &[
    col("id", "i64"),
    col("src", "str"),
    col("dst", "str"),
    col("size_bytes", "i64"),
    col("start_s", "f64"),
    opt("finish_s", "f64"),
    opt("fct_s", "f64"),
    col("rtt_prop_s", "f64"),
    col("ideal_fct_s", "f64"),
    opt("first_write_s", "f64"),
    col("delivered_bytes", "i64"),
    col("retx_bytes", "i64"),
    col("timeouts", "i64"),
    col("protocol", "str"),
    col("workload", "str"),
    col("measured", "bool"),
    col("path", "list[i64]"),
];

/// The links table (`links.parquet`), in order.
pub const LINK_COLUMNS: &[ColumnSpec] = &[
    col("id", "i64"),
    col("name", "str"),
    col("src", "str"),
    col("dst", "str"),
    col("rate_bps", "i64"),
    col("delay_s", "f64"),
    col("pkts_sent", "i64"),
    col("bytes_sent", "i64"),
    col("drops_pkts", "i64"),
    col("drops_bytes", "i64"),
    col("utilization", "f64"),
    col("queue_avg_bytes", "f64"),
    col("queue_max_bytes", "i64"),
];

/// The time series (`series.parquet`, long form), in order.
pub const SERIES_COLUMNS: &[ColumnSpec] =
    &[col("time_s", "f64"), col("metric", "str"), col("target", "str"), col("value", "f64")];

/// Every result table by name, with its columns.
pub const TABLES: &[(&str, &[ColumnSpec])] =
    &[("flows", FLOW_COLUMNS), ("links", LINK_COLUMNS), ("series", SERIES_COLUMNS)];

/// One column's values.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    /// Non-negative integers (`i64` in the tables).
    U64(Vec<u64>),
    /// Signed integers.
    I64(Vec<i64>),
    /// Reals.
    F64(Vec<f64>),
    /// Reals that may be missing.
    OptF64(Vec<Option<f64>>),
    /// Text.
    Str(Vec<String>),
    /// Booleans.
    Bool(Vec<bool>),
    /// Lists of ids (`list[i64]`).
    Ids(Vec<Vec<u32>>),
}

impl Column {
    /// The type this column has in the tables, and whether it may hold nulls.
    pub fn dtype(&self) -> (&'static str, bool) {
        match self {
            Column::U64(_) | Column::I64(_) => ("i64", false),
            Column::F64(_) => ("f64", false),
            Column::OptF64(_) => ("f64", true),
            Column::Str(_) => ("str", false),
            Column::Bool(_) => ("bool", false),
            Column::Ids(_) => ("list[i64]", false),
        }
    }
}

/// One row per flow.
#[derive(Clone, Debug, Default)]
pub struct FlowTable {
    /// Flow id (index in start order).
    pub id: Vec<u64>,
    /// Sending host name.
    pub src: Vec<String>,
    /// Receiving host name.
    pub dst: Vec<String>,
    /// Payload bytes (-1: long-lived).
    pub size_bytes: Vec<i64>,
    /// Application start, s.
    pub start_s: Vec<f64>,
    /// Time the receiver held every byte, s.
    pub finish_s: Vec<Option<f64>>,
    /// finish - start, s.
    pub fct_s: Vec<Option<f64>>,
    /// Round-trip propagation delay of the path, s.
    pub rtt_prop_s: Vec<f64>,
    /// Ideal FCT (1.5 RTT + wire bytes / bottleneck rate), s.
    pub ideal_fct_s: Vec<f64>,
    /// Time from start until the application's first write was held (scheduled writers), s.
    pub first_write_s: Vec<Option<f64>>,
    /// Bytes delivered in order.
    pub delivered_bytes: Vec<u64>,
    /// Payload bytes retransmitted.
    pub retx_bytes: Vec<u64>,
    /// Retransmission timeouts.
    pub timeouts: Vec<u64>,
    /// Transport label.
    pub protocol: Vec<String>,
    /// Workload entry label.
    pub workload: Vec<String>,
    /// Started inside the measurement window [measure_from, duration).
    pub measured: Vec<bool>,
    /// Link ids of the forward path, in order.
    pub path: Vec<Vec<u32>>,
}

/// One row per directed link.
#[derive(Clone, Debug, Default)]
pub struct LinkTable {
    /// Link id.
    pub id: Vec<u64>,
    /// Link name.
    pub name: Vec<String>,
    /// Node the link leaves.
    pub src: Vec<String>,
    /// Node the link enters.
    pub dst: Vec<String>,
    /// Rate, bit/s.
    pub rate_bps: Vec<u64>,
    /// Propagation delay, s.
    pub delay_s: Vec<f64>,
    /// Packets serialized.
    pub pkts_sent: Vec<u64>,
    /// Bytes serialized.
    pub bytes_sent: Vec<u64>,
    /// Packets dropped by the queue or lost on the wire.
    pub drops_pkts: Vec<u64>,
    /// Bytes dropped or lost.
    pub drops_bytes: Vec<u64>,
    /// bytes_sent * 8 / (rate * run time).
    pub utilization: Vec<f64>,
    /// Time-averaged queue, bytes.
    pub queue_avg_bytes: Vec<f64>,
    /// Largest queue, bytes.
    pub queue_max_bytes: Vec<u64>,
}

impl FlowTable {
    /// The columns in [`FLOW_COLUMNS`] order.
    pub fn into_columns(self) -> Vec<(&'static str, Column)> {
        vec![
            ("id", Column::U64(self.id)),
            ("src", Column::Str(self.src)),
            ("dst", Column::Str(self.dst)),
            ("size_bytes", Column::I64(self.size_bytes)),
            ("start_s", Column::F64(self.start_s)),
            ("finish_s", Column::OptF64(self.finish_s)),
            ("fct_s", Column::OptF64(self.fct_s)),
            ("rtt_prop_s", Column::F64(self.rtt_prop_s)),
            ("ideal_fct_s", Column::F64(self.ideal_fct_s)),
            ("first_write_s", Column::OptF64(self.first_write_s)),
            ("delivered_bytes", Column::U64(self.delivered_bytes)),
            ("retx_bytes", Column::U64(self.retx_bytes)),
            ("timeouts", Column::U64(self.timeouts)),
            ("protocol", Column::Str(self.protocol)),
            ("workload", Column::Str(self.workload)),
            ("measured", Column::Bool(self.measured)),
            ("path", Column::Ids(self.path)),
        ]
    }
}

impl LinkTable {
    /// The columns in [`LINK_COLUMNS`] order.
    pub fn into_columns(self) -> Vec<(&'static str, Column)> {
        vec![
            ("id", Column::U64(self.id)),
            ("name", Column::Str(self.name)),
            ("src", Column::Str(self.src)),
            ("dst", Column::Str(self.dst)),
            ("rate_bps", Column::U64(self.rate_bps)),
            ("delay_s", Column::F64(self.delay_s)),
            ("pkts_sent", Column::U64(self.pkts_sent)),
            ("bytes_sent", Column::U64(self.bytes_sent)),
            ("drops_pkts", Column::U64(self.drops_pkts)),
            ("drops_bytes", Column::U64(self.drops_bytes)),
            ("utilization", Column::F64(self.utilization)),
            ("queue_avg_bytes", Column::F64(self.queue_avg_bytes)),
            ("queue_max_bytes", Column::U64(self.queue_max_bytes)),
        ]
    }
}

/// The time series as columns, in [`SERIES_COLUMNS`] order.
pub fn series_columns(s: &SeriesRecorder) -> Vec<(&'static str, Column)> {
    vec![
        ("time_s", Column::F64(s.time.iter().map(|t| t.as_secs_f64()).collect())),
        ("metric", Column::Str(s.metric.iter().map(|m| m.name().to_string()).collect())),
        ("target", Column::Str(s.target.clone())),
        ("value", Column::F64(s.value.clone())),
    ]
}

/// The flows table of a run.
pub fn flow_table(w: &World, info: &RunInfo) -> FlowTable {
    let mut t = FlowTable::default();
    for (i, r) in w.records.iter().enumerate() {
        t.id.push(i as u64);
        t.src.push(info.node_names[r.src].clone());
        t.dst.push(info.node_names[r.dst].clone());
        t.size_bytes.push(r.size.map_or(-1, |s| s as i64));
        t.start_s.push(r.start.as_secs_f64());
        t.finish_s.push(r.finish.map(|f| f.as_secs_f64()));
        t.fct_s.push(r.fct().map(|f| f.as_secs_f64()));
        t.rtt_prop_s.push(r.rtt_prop.as_secs_f64());
        t.ideal_fct_s.push(r.ideal.as_secs_f64());
        t.first_write_s.push(r.first_write.map(|f| (f - r.start).as_secs_f64()));
        t.delivered_bytes.push(r.delivered);
        t.retx_bytes.push(r.retx_bytes);
        t.timeouts.push(r.timeouts);
        t.protocol.push(info.profile_labels[r.profile].clone());
        t.workload.push(info.workload_labels[r.workload].clone());
        t.measured.push(r.start >= info.measure_from && r.start < info.duration);
        t.path.push(r.path.clone());
    }
    t
}

/// The links table of a run.
pub fn link_table(w: &World, info: &RunInfo) -> LinkTable {
    let mut t = LinkTable::default();
    let run = w.now().as_secs_f64();
    for (i, l) in w.links.iter().enumerate() {
        let s = &l.stats;
        t.id.push(i as u64);
        t.name.push(info.link_names[i].clone());
        t.src.push(info.node_names[l.from as usize].clone());
        t.dst.push(info.node_names[l.to as usize].clone());
        t.rate_bps.push(l.rate.bps());
        t.delay_s.push(info.link_delays[i].as_secs_f64());
        t.pkts_sent.push(s.pkts_sent);
        t.bytes_sent.push(s.bytes_sent);
        t.drops_pkts.push(s.drops_pkts + s.lost_pkts);
        t.drops_bytes.push(s.drops_bytes + s.lost_bytes);
        t.utilization.push(if run > 0.0 { s.bytes_sent as f64 * 8.0 / (l.rate.bps_f64() * run) } else { 0.0 });
        t.queue_avg_bytes.push(if w.now().0 > 0 { s.queue_area as f64 / w.now().0 as f64 } else { 0.0 });
        t.queue_max_bytes.push(s.queue_max_bytes);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables hand over exactly the listed columns, in order, with the listed types.
    fn check(spec: &[ColumnSpec], got: Vec<(&'static str, Column)>) {
        let got: Vec<ColumnSpec> = got
            .iter()
            .map(|(name, c)| {
                let (dtype, nullable) = c.dtype();
                ColumnSpec { name, dtype, nullable }
            })
            .collect();
        assert_eq!(got, spec);
    }

    #[test]
    fn every_table_yields_exactly_its_column_list() {
        check(FLOW_COLUMNS, FlowTable::default().into_columns());
        check(LINK_COLUMNS, LinkTable::default().into_columns());
        check(SERIES_COLUMNS, series_columns(&SeriesRecorder::default()));
    }
}
