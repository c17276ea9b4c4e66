//! The result tables as columns, laid out as Arrow lays them out.
//!
//! [`FLOW_COLUMNS`], [`LINK_COLUMNS`] and [`SERIES_COLUMNS`] are the one list of the result
//! columns: their names, order, types and nullability. The Python bindings hand the tables over
//! as Arrow arrays ([`FlowTable::into_columns`] and friends yield exactly these columns, which a
//! test checks), `fctlab.result` derives its polars schemas from them (`_core.COLUMNS`), the test
//! suite's fake core builds its tables from them, and a test checks that `docs/results.md`
//! documents exactly them.
//!
//! Each [`Column`] holds Arrow's buffers themselves: integers and reals as contiguous `i64` and
//! `f64` values, nulls as a validity bitmap, booleans as bits, text as UTF-8 bytes plus offsets,
//! paths as link ids plus offsets. Building a table is one pass over the flow records writing
//! into these buffers (about 200 bytes a flow), and `fctlab-py` exports them through the Arrow
//! C data interface without converting or copying a value: no per-row object is ever made.

use crate::metrics::SeriesRecorder;
use crate::plan::RunInfo;
use crate::world::World;
use std::ops::Range;

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
    opt("acked_s", "f64"),
    col("rtt_prop_s", "f64"),
    col("ideal_fct_s", "f64"),
    opt("first_write_s", "f64"),
    col("delivered_bytes", "i64"),
    col("retx_bytes", "i64"),
    col("timeouts", "i64"),
    col("protocol", "str"),
    col("mss_bytes", "i64"),
    col("header_bytes", "i64"),
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

/// Bits, least significant first: Arrow's layout of booleans and of validity (1 = a value).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bits {
    /// The bits, 8 to a byte.
    pub bytes: Vec<u8>,
    /// How many bits.
    pub len: usize,
}

impl Bits {
    /// Appends one bit.
    #[inline]
    pub fn push(&mut self, bit: bool) {
        if self.len.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if bit {
            self.bytes[self.len / 8] |= 1 << (self.len % 8);
        }
        self.len += 1;
    }

    /// Bit `i`.
    pub fn get(&self, i: usize) -> bool {
        self.bytes[i / 8] & (1 << (i % 8)) != 0
    }

    /// How many bits are 0.
    pub fn zeros(&self) -> usize {
        (0..self.len).filter(|&i| !self.get(i)).count()
    }
}

/// Text: UTF-8 bytes, and the n + 1 offsets where each value starts (Arrow's `large_utf8`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Texts {
    /// Start of value i at `offsets[i]`, its end at `offsets[i + 1]`.
    pub offsets: Vec<i64>,
    /// The values' bytes, one after the other.
    pub data: Vec<u8>,
}

impl Default for Texts {
    fn default() -> Texts {
        Texts { offsets: vec![0], data: Vec::new() }
    }
}

impl Texts {
    /// Appends one value.
    #[inline]
    pub fn push(&mut self, s: &str) {
        self.data.extend_from_slice(s.as_bytes());
        self.offsets.push(self.data.len() as i64);
    }

    /// Value i.
    pub fn get(&self, i: usize) -> &str {
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        std::str::from_utf8(&self.data[a..b]).unwrap_or("")
    }

    /// How many values.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// No values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Lists of ids: all values one after the other, and the n + 1 offsets where each list starts
/// (Arrow's `large_list<int64>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdLists {
    /// Start of list i at `offsets[i]`, its end at `offsets[i + 1]`.
    pub offsets: Vec<i64>,
    /// The lists' values, one after the other.
    pub values: Vec<i64>,
}

impl Default for IdLists {
    fn default() -> IdLists {
        IdLists { offsets: vec![0], values: Vec::new() }
    }
}

impl IdLists {
    /// Appends one list.
    #[inline]
    pub fn push(&mut self, ids: &[u32]) {
        self.values.extend(ids.iter().map(|&l| l as i64));
        self.offsets.push(self.values.len() as i64);
    }

    /// List i.
    pub fn get(&self, i: usize) -> &[i64] {
        &self.values[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// How many lists.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// No lists.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Reals that may be missing: a value per row (0 where missing) and validity bits.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OptF64s {
    /// The values; 0 where missing.
    pub values: Vec<f64>,
    /// 1 where a value is present.
    pub valid: Bits,
}

impl OptF64s {
    /// Appends one value or a null.
    #[inline]
    pub fn push(&mut self, v: Option<f64>) {
        self.values.push(v.unwrap_or(0.0));
        self.valid.push(v.is_some());
    }

    /// Value i, or None.
    pub fn get(&self, i: usize) -> Option<f64> {
        self.valid.get(i).then(|| self.values[i])
    }
}

/// One column's values, laid out as Arrow lays them out, so that the bindings hand them over
/// without converting a value (`fctlab-py`'s `arrow.rs`).
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    /// Integers (`i64` in the tables).
    I64(Vec<i64>),
    /// Reals.
    F64(Vec<f64>),
    /// Reals that may be missing.
    OptF64(OptF64s),
    /// Text.
    Str(Texts),
    /// Booleans.
    Bool(Bits),
    /// Lists of ids (`list[i64]`).
    Ids(IdLists),
}

impl Column {
    /// The type this column has in the tables, and whether it may hold nulls.
    pub fn dtype(&self) -> (&'static str, bool) {
        match self {
            Column::I64(_) => ("i64", false),
            Column::F64(_) => ("f64", false),
            Column::OptF64(_) => ("f64", true),
            Column::Str(_) => ("str", false),
            Column::Bool(_) => ("bool", false),
            Column::Ids(_) => ("list[i64]", false),
        }
    }

    /// Rows.
    pub fn len(&self) -> usize {
        match self {
            Column::I64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::OptF64(v) => v.values.len(),
            Column::Str(v) => v.len(),
            Column::Bool(v) => v.len,
            Column::Ids(v) => v.len(),
        }
    }

    /// No rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of its buffers (capacity).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        match self {
            Column::I64(v) => v.capacity() * size_of::<i64>(),
            Column::F64(v) => v.capacity() * size_of::<f64>(),
            Column::OptF64(v) => v.values.capacity() * size_of::<f64>() + v.valid.bytes.capacity(),
            Column::Str(v) => v.offsets.capacity() * size_of::<i64>() + v.data.capacity(),
            Column::Bool(v) => v.bytes.capacity(),
            Column::Ids(v) => (v.offsets.capacity() + v.values.capacity()) * size_of::<i64>(),
        }
    }
}

/// Integers of the tables: every count and size fctlab produces is far below 2^63 (the bounds of
/// `crate::limits`), so the conversion never changes a value.
#[inline]
fn int(v: u64) -> i64 {
    debug_assert!(v <= i64::MAX as u64);
    v as i64
}

/// Rows of the flows table, column by column.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowTable {
    /// Flow id (index in start order).
    pub id: Vec<i64>,
    /// Sending host name.
    pub src: Texts,
    /// Receiving host name.
    pub dst: Texts,
    /// Payload bytes (-1: long-lived).
    pub size_bytes: Vec<i64>,
    /// Application start, s.
    pub start_s: Vec<f64>,
    /// Time the receiver held every byte, s.
    pub finish_s: OptF64s,
    /// finish - start, s.
    pub fct_s: OptF64s,
    /// Time the sender had every byte acknowledged, s (where RDMA simulators end a flow).
    pub acked_s: OptF64s,
    /// Round-trip propagation delay of the path, s.
    pub rtt_prop_s: Vec<f64>,
    /// Ideal FCT (1.5 RTT + wire bytes / bottleneck rate), s.
    pub ideal_fct_s: Vec<f64>,
    /// Time from start until the application's first write was held (scheduled writers), s.
    pub first_write_s: OptF64s,
    /// Bytes delivered in order.
    pub delivered_bytes: Vec<i64>,
    /// Payload bytes retransmitted.
    pub retx_bytes: Vec<i64>,
    /// Retransmission timeouts.
    pub timeouts: Vec<i64>,
    /// Transport label.
    pub protocol: Texts,
    /// Payload bytes per segment of the flow's transport.
    pub mss_bytes: Vec<i64>,
    /// Header bytes on the wire per data packet of the flow's transport.
    pub header_bytes: Vec<i64>,
    /// Workload entry label.
    pub workload: Texts,
    /// Started inside the measurement window [measure_from, duration).
    pub measured: Bits,
    /// Link ids of the forward path, in order.
    pub path: IdLists,
}

/// One row per directed link.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkTable {
    /// Link id.
    pub id: Vec<i64>,
    /// Link name.
    pub name: Texts,
    /// Node the link leaves.
    pub src: Texts,
    /// Node the link enters.
    pub dst: Texts,
    /// Rate, bit/s.
    pub rate_bps: Vec<i64>,
    /// Propagation delay, s.
    pub delay_s: Vec<f64>,
    /// Packets serialized.
    pub pkts_sent: Vec<i64>,
    /// Bytes serialized.
    pub bytes_sent: Vec<i64>,
    /// Packets dropped by the queue or lost on the wire.
    pub drops_pkts: Vec<i64>,
    /// Bytes dropped or lost.
    pub drops_bytes: Vec<i64>,
    /// bytes_sent * 8 / (rate * run time).
    pub utilization: Vec<f64>,
    /// Time-averaged queue, bytes.
    pub queue_avg_bytes: Vec<f64>,
    /// Largest queue, bytes.
    pub queue_max_bytes: Vec<i64>,
}

impl FlowTable {
    /// The columns in [`FLOW_COLUMNS`] order.
    pub fn into_columns(self) -> Vec<(&'static str, Column)> {
        vec![
            ("id", Column::I64(self.id)),
            ("src", Column::Str(self.src)),
            ("dst", Column::Str(self.dst)),
            ("size_bytes", Column::I64(self.size_bytes)),
            ("start_s", Column::F64(self.start_s)),
            ("finish_s", Column::OptF64(self.finish_s)),
            ("fct_s", Column::OptF64(self.fct_s)),
            ("acked_s", Column::OptF64(self.acked_s)),
            ("rtt_prop_s", Column::F64(self.rtt_prop_s)),
            ("ideal_fct_s", Column::F64(self.ideal_fct_s)),
            ("first_write_s", Column::OptF64(self.first_write_s)),
            ("delivered_bytes", Column::I64(self.delivered_bytes)),
            ("retx_bytes", Column::I64(self.retx_bytes)),
            ("timeouts", Column::I64(self.timeouts)),
            ("protocol", Column::Str(self.protocol)),
            ("mss_bytes", Column::I64(self.mss_bytes)),
            ("header_bytes", Column::I64(self.header_bytes)),
            ("workload", Column::Str(self.workload)),
            ("measured", Column::Bool(self.measured)),
            ("path", Column::Ids(self.path)),
        ]
    }

    /// Rows.
    pub fn len(&self) -> usize {
        self.id.len()
    }

    /// No rows.
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }

    /// Appends the rows of `other` (the pieces a [`FlowStream`] hands over add up to the whole
    /// table).
    pub fn append(&mut self, other: &FlowTable) {
        for i in 0..other.len() {
            self.id.push(other.id[i]);
            self.src.push(other.src.get(i));
            self.dst.push(other.dst.get(i));
            self.size_bytes.push(other.size_bytes[i]);
            self.start_s.push(other.start_s[i]);
            self.finish_s.push(other.finish_s.get(i));
            self.fct_s.push(other.fct_s.get(i));
            self.acked_s.push(other.acked_s.get(i));
            self.rtt_prop_s.push(other.rtt_prop_s[i]);
            self.ideal_fct_s.push(other.ideal_fct_s[i]);
            self.first_write_s.push(other.first_write_s.get(i));
            self.delivered_bytes.push(other.delivered_bytes[i]);
            self.retx_bytes.push(other.retx_bytes[i]);
            self.timeouts.push(other.timeouts[i]);
            self.protocol.push(other.protocol.get(i));
            self.mss_bytes.push(other.mss_bytes[i]);
            self.header_bytes.push(other.header_bytes[i]);
            self.workload.push(other.workload.get(i));
            self.measured.push(other.measured.get(i));
            let path: Vec<u32> = other.path.get(i).iter().map(|&l| l as u32).collect();
            self.path.push(&path);
        }
    }

    /// Room for `n` rows in every fixed-width column.
    fn with_capacity(n: usize) -> FlowTable {
        let f64s = || Vec::with_capacity(n);
        let i64s = || Vec::with_capacity(n);
        let opt = || OptF64s { values: Vec::with_capacity(n), valid: Bits::default() };
        let offsets = || {
            let mut o = Vec::with_capacity(n + 1);
            o.push(0);
            o
        };
        let texts = || Texts { offsets: offsets(), data: Vec::new() };
        FlowTable {
            id: i64s(),
            src: texts(),
            dst: texts(),
            size_bytes: i64s(),
            start_s: f64s(),
            finish_s: opt(),
            fct_s: opt(),
            acked_s: opt(),
            rtt_prop_s: f64s(),
            ideal_fct_s: f64s(),
            first_write_s: opt(),
            delivered_bytes: i64s(),
            retx_bytes: i64s(),
            timeouts: i64s(),
            protocol: texts(),
            mss_bytes: i64s(),
            header_bytes: i64s(),
            workload: texts(),
            measured: Bits::default(),
            path: IdLists { offsets: offsets(), values: Vec::new() },
        }
    }

    /// Bytes of its buffers (capacity): what the rows take once built.
    pub fn heap_bytes(&self) -> usize {
        self.clone().into_columns().iter().map(|(_, c)| c.heap_bytes()).sum()
    }
}

impl LinkTable {
    /// The columns in [`LINK_COLUMNS`] order.
    pub fn into_columns(self) -> Vec<(&'static str, Column)> {
        vec![
            ("id", Column::I64(self.id)),
            ("name", Column::Str(self.name)),
            ("src", Column::Str(self.src)),
            ("dst", Column::Str(self.dst)),
            ("rate_bps", Column::I64(self.rate_bps)),
            ("delay_s", Column::F64(self.delay_s)),
            ("pkts_sent", Column::I64(self.pkts_sent)),
            ("bytes_sent", Column::I64(self.bytes_sent)),
            ("drops_pkts", Column::I64(self.drops_pkts)),
            ("drops_bytes", Column::I64(self.drops_bytes)),
            ("utilization", Column::F64(self.utilization)),
            ("queue_avg_bytes", Column::F64(self.queue_avg_bytes)),
            ("queue_max_bytes", Column::I64(self.queue_max_bytes)),
        ]
    }
}

/// The time series as columns, in [`SERIES_COLUMNS`] order.
pub fn series_columns(s: &SeriesRecorder) -> Vec<(&'static str, Column)> {
    let mut metric = Texts::default();
    let mut target = Texts::default();
    for (m, t) in s.metric.iter().zip(&s.target) {
        metric.push(m.name());
        target.push(t);
    }
    vec![
        ("time_s", Column::F64(s.time.iter().map(|t| t.as_secs_f64()).collect())),
        ("metric", Column::Str(metric)),
        ("target", Column::Str(target)),
        ("value", Column::F64(s.value.clone())),
    ]
}

/// The flows table of a run: every row.
pub fn flow_table(w: &World, info: &RunInfo) -> FlowTable {
    flow_rows(w, info, 0..w.records.len())
}

/// Rows `range` of the flows table (flow ids, in order).
pub fn flow_rows(w: &World, info: &RunInfo, range: Range<usize>) -> FlowTable {
    let mut t = FlowTable::with_capacity(range.len());
    for i in range {
        let r = &w.records[i];
        t.id.push(i as i64);
        t.src.push(&info.node_names[r.src as usize]);
        t.dst.push(&info.node_names[r.dst as usize]);
        t.size_bytes.push(r.size.map_or(-1, int));
        t.start_s.push(r.start.as_secs_f64());
        t.finish_s.push(r.finish.map(|f| f.as_secs_f64()));
        t.fct_s.push(r.fct().map(|f| f.as_secs_f64()));
        t.acked_s.push(r.acked().map(|f| f.as_secs_f64()));
        t.rtt_prop_s.push(r.rtt_prop.as_secs_f64());
        t.ideal_fct_s.push(r.ideal.as_secs_f64());
        t.first_write_s.push(r.first_write.map(|f| (f - r.start).as_secs_f64()));
        t.delivered_bytes.push(int(r.delivered));
        t.retx_bytes.push(int(r.retx_bytes));
        t.timeouts.push(int(r.timeouts));
        t.protocol.push(&info.profile_labels[r.profile as usize]);
        let (mss, header) = info.profile_packet_sizes[r.profile as usize];
        t.mss_bytes.push(mss as i64);
        t.header_bytes.push(header as i64);
        t.workload.push(&info.workload_labels[r.workload as usize]);
        t.measured.push(r.start >= info.measure_from && r.start < info.duration);
        t.path.push(w.path(i));
    }
    t
}

/// Hands the flows table over in pieces while the run goes, in flow id order, so that a caller
/// can write the rows out (`fctlab.stream` streams them to Parquet) instead of holding them.
///
/// Each [`FlowStream::take`] yields the rows after the last piece up to the first flow whose
/// record may still change ([`World::record_is_final`]): flows retire roughly in start order,
/// so the pieces follow the simulated clock, a flow that stays open (a long-lived one, a flow
/// stuck in timeouts) holding back the rows after it until it retires or the run ends. The
/// pieces, one after the other, are exactly the table [`flow_table`] gives at the end of the run.
#[derive(Clone, Debug, Default)]
pub struct FlowStream {
    next: usize,
}

impl FlowStream {
    /// The final rows not yet handed over (none if the next flow is still open).
    pub fn take(&mut self, w: &World, info: &RunInfo) -> FlowTable {
        let mut end = self.next;
        while end < w.records.len() && w.record_is_final(end) {
            end += 1;
        }
        let rows = flow_rows(w, info, self.next..end);
        self.next = end;
        rows
    }

    /// Every row not yet handed over, final or not, without handing it over: at the end of a run,
    /// the rest of the table.
    pub fn rest(&self, w: &World, info: &RunInfo) -> FlowTable {
        flow_rows(w, info, self.next.min(w.records.len())..w.records.len())
    }

    /// Rows handed over so far.
    pub fn taken(&self) -> usize {
        self.next
    }
}

/// The links table of a run.
pub fn link_table(w: &World, info: &RunInfo) -> LinkTable {
    let mut t = LinkTable::default();
    let run = w.now().as_secs_f64();
    for (i, l) in w.links.iter().enumerate() {
        let s = &l.stats;
        t.id.push(i as i64);
        t.name.push(&info.link_names[i]);
        t.src.push(&info.node_names[l.from as usize]);
        t.dst.push(&info.node_names[l.to as usize]);
        t.rate_bps.push(int(l.rate.bps()));
        t.delay_s.push(info.link_delays[i].as_secs_f64());
        t.pkts_sent.push(int(s.pkts_sent));
        t.bytes_sent.push(int(s.bytes_sent));
        t.drops_pkts.push(int(s.drops_pkts + s.lost_pkts));
        t.drops_bytes.push(int(s.drops_bytes + s.lost_bytes));
        t.utilization.push(if run > 0.0 { s.bytes_sent as f64 * 8.0 / (l.rate.bps_f64() * run) } else { 0.0 });
        t.queue_avg_bytes.push(if w.now().0 > 0 { s.queue_area as f64 / w.now().0 as f64 } else { 0.0 });
        t.queue_max_bytes.push(int(s.queue_max_bytes));
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
