//! Optional outputs: the `[output]` schema, the series recorder it asks for with the memory
//! its rows will take, and the packet capture it plans.

use super::names::{resolve_link, unknown_link};
use crate::capture::CapturePlan;
use crate::error::{SpecError, SpecResult};
use crate::limits::{shown, Memory, BYTES_PER_SERIES_ROW};
use crate::metrics::series::{ROWS_PER_FLOW, ROWS_PER_LINK};
use crate::metrics::{FlowRecord, SeriesRecorder};
use crate::net::link::Link;
use crate::quantity::TimeQ;
use crate::topology::Topology;
use crate::units::Time;
use serde::Deserialize;

/// Optional outputs.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Time series.
    #[serde(default)]
    pub series: Option<SeriesSpec>,
    /// A packet capture (pcapng) of some links.
    #[serde(default)]
    pub pcap: Option<PcapSpec>,
}

/// What to capture (`docs/pcap.md`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    /// Links whose packets are captured, one interface each (named as `output.series.links`).
    pub links: Vec<String>,
    /// Flow ids captured (with `workloads`; both empty: every flow).
    #[serde(default)]
    pub flows: Vec<u32>,
    /// Workload entries every flow of which is captured.
    #[serde(default)]
    pub workloads: Vec<usize>,
    /// Payload bytes kept per packet beyond the headers (and the shim): 0, headers only.
    #[serde(default)]
    pub payload_bytes: u32,
}

/// The most payload bytes a capture keeps per packet: a jumbo frame's.
pub const MAX_PCAP_PAYLOAD: u32 = 9_000;

/// Which series to sample.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeriesSpec {
    /// Sampling interval.
    pub interval: TimeQ,
    /// Links whose queue, throughput, input and active flows (and router law) are sampled.
    #[serde(default)]
    pub links: Vec<String>,
    /// Flow ids whose cwnd and sending rate are sampled.
    #[serde(default)]
    pub flows: Vec<u32>,
    /// Workload entries (indices in `workload`) every flow of which is sampled as `flows` are:
    /// the way to name flows whose ids depend on when other entries' flows start.
    #[serde(default)]
    pub workloads: Vec<usize>,
}

/// Build step: the series recorder of `output` (none without `[output.series]`), its rows
/// counted into `memory` for a run that ends by `end` (its latest end: [`RunEnd`]) with the
/// flows of `records`, from `entries` workload entries.
pub(super) fn build_series(
    output: &OutputSpec,
    topo: &Topology,
    links: &[Link],
    records: &[FlowRecord],
    entries: usize,
    end: RunEnd,
    memory: &mut Memory,
) -> SpecResult<SeriesRecorder> {
    let Some(s) = &output.series else {
        return Ok(SeriesRecorder::none());
    };
    if s.interval.0 == Time::ZERO {
        return Err(SpecError::new("output.series.interval", "expected a duration > 0, got 0"));
    }
    let sampled = chosen_flows("output.series", &s.flows, &s.workloads, records, entries)?;
    let mut ls = Vec::new();
    // Rows per sample (series.rs): queue, throughput, input and active flows of each link and
    // its router law's rows (R and d of an RCP port, g and N of a JetMax port), cwnd,
    // sending rate and bytes acknowledged of each flow.
    let mut rows_per_sample = sampled.len() as u64 * ROWS_PER_FLOW;
    for (i, name) in s.links.iter().enumerate() {
        let id =
            resolve_link(topo, name).ok_or_else(|| unknown_link(&format!("output.series.links[{i}]"), name, topo))?;
        ls.push((id as u32, name.clone()));
        rows_per_sample += ROWS_PER_LINK + links[id].law_metric_count() as u64;
    }
    add_series_memory(s, rows_per_sample, end, memory);
    Ok(SeriesRecorder::new(s.interval.0, ls, sampled))
}

/// Build step: the capture `output.pcap` plans (None without it), its links and flows checked.
pub(super) fn build_pcap(
    output: &OutputSpec,
    topo: &Topology,
    records: &[FlowRecord],
    entries: usize,
) -> SpecResult<Option<CapturePlan>> {
    let Some(p) = &output.pcap else { return Ok(None) };
    if p.links.is_empty() {
        return Err(SpecError::new("output.pcap.links", "expected at least one link name, got an empty list"));
    }
    let mut links: Vec<(u32, String)> = Vec::with_capacity(p.links.len());
    for (i, name) in p.links.iter().enumerate() {
        let id =
            resolve_link(topo, name).ok_or_else(|| unknown_link(&format!("output.pcap.links[{i}]"), name, topo))?;
        if let Some((_, first)) = links.iter().find(|(l, _)| *l == id as u32) {
            return Err(SpecError::new(
                format!("output.pcap.links[{i}]"),
                format!("link \"{name}\" is already captured (as \"{first}\"); expected each link once"),
            ));
        }
        links.push((id as u32, name.clone()));
    }
    if p.payload_bytes > MAX_PCAP_PAYLOAD {
        return Err(SpecError::new(
            "output.pcap.payload_bytes",
            format!("expected 0 to {MAX_PCAP_PAYLOAD} bytes, got {}", p.payload_bytes),
        ));
    }
    let flows = if p.flows.is_empty() && p.workloads.is_empty() {
        None
    } else {
        let mut fs = chosen_flows("output.pcap", &p.flows, &p.workloads, records, entries)?;
        fs.sort_unstable();
        Some(fs)
    };
    Ok(Some(CapturePlan { links, flows, payload: p.payload_bytes }))
}

/// The flow ids `table` (`output.series`, `output.pcap`) names: `flows` in their order, then
/// the flows of `workloads` entries in id order, each once.
fn chosen_flows(
    table: &str,
    flows: &[u32],
    workloads: &[usize],
    records: &[FlowRecord],
    entries: usize,
) -> SpecResult<Vec<u32>> {
    let mut out = Vec::with_capacity(flows.len());
    for (i, &f) in flows.iter().enumerate() {
        if f as usize >= records.len() {
            return Err(SpecError::new(
                format!("{table}.flows[{i}]"),
                format!("no flow {f}: the workload has {} flows", records.len()),
            ));
        }
        if !out.contains(&f) {
            out.push(f);
        }
    }
    for (i, &w) in workloads.iter().enumerate() {
        if w >= entries {
            return Err(SpecError::new(
                format!("{table}.workloads[{i}]"),
                format!("no workload entry {w}: expected 0 to {}", entries.saturating_sub(1)),
            ));
        }
    }
    let listed: std::collections::HashSet<u32> = out.iter().copied().collect();
    out.extend(
        records
            .iter()
            .enumerate()
            .filter(|(id, r)| workloads.contains(&(r.workload as usize)) && !listed.contains(&(*id as u32)))
            .map(|(id, _)| id as u32),
    );
    Ok(out)
}

/// The latest time a run can end, and the field that says so: `max_time` for a run that
/// drains (it may stop sooner, when every flow completed, but nothing says when), `duration`
/// for one that does not (it stops there: `world::RunLimits`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct RunEnd {
    /// The time.
    pub at: Time,
    /// `"max_time"` or `"duration"`.
    pub field: &'static str,
}

impl RunEnd {
    /// The end of a run of `duration` that drains (`drain`) until at most `max_time`.
    pub fn of(duration: Time, drain: bool, max_time: Time) -> RunEnd {
        if drain {
            RunEnd { at: max_time, field: "max_time" }
        } else {
            RunEnd { at: duration.min(max_time), field: "duration" }
        }
    }
}

/// Counts the series rows sampled every `s.interval` until the run's `end` into `memory`.
fn add_series_memory(s: &SeriesSpec, rows_per_sample: u64, end: RunEnd, memory: &mut Memory) {
    let samples = end.at.ps() / s.interval.0.ps();
    memory.add(
        "output.series.interval",
        format!(
            "{:.3e} series rows ({rows_per_sample} per sample, one every {} s until {} = {} s)",
            samples as f64 * rows_per_sample as f64,
            shown(s.interval.0.as_secs_f64()),
            end.field,
            shown(end.at.as_secs_f64())
        ),
        samples.saturating_mul(rows_per_sample),
        BYTES_PER_SERIES_ROW,
    );
}
