//! Flows given one by one: a CSV file, an inline list, or long-lived flows with start and
//! stop times (the explicit-congestion-control studies' scenarios).
//!
//! CSV format: a header naming the columns `start,src,dst,size` (any order), then one flow
//! per line: start in seconds, source and destination host names, size in bytes. Blank
//! lines and `#` comments are skipped; fields are not quoted (host names hold no commas).

use super::pairs::HostIndex;
use super::{FlowArrival, WorkloadCtx};
use crate::error::{SpecError, SpecResult};
use crate::limits::check_time;
use crate::quantity::{BytesQ, TimeQ};
use serde::Deserialize;

/// The body of a `list` entry: flows from a CSV file (relative to the scenario).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListSpec {
    /// CSV file with header `start,src,dst,size`.
    pub file: String,
    /// Transport of these flows.
    pub transport: Option<String>,
    /// Label carried to the per-flow table.
    pub label: Option<String>,
}

/// One flow of a `flows` entry.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Source host name.
    pub src: String,
    /// Destination host name.
    pub dst: String,
    /// Start time.
    pub start: TimeQ,
    /// Payload bytes (>= 1).
    pub size: BytesQ,
}

/// The body of a `flows` entry: sized flows written in the scenario.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowsSpec {
    /// The flows.
    pub flows: Vec<FlowSpec>,
    /// Transport of these flows.
    pub transport: Option<String>,
    /// Label carried to the per-flow table.
    pub label: Option<String>,
}

/// One flow of a `long_lived` entry: it sends until `stop` (or the end of the run).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LongFlowSpec {
    /// Source host name.
    pub src: String,
    /// Destination host name.
    pub dst: String,
    /// Start time.
    pub start: TimeQ,
    /// When the flow stops sending; absent = at the end of the run.
    pub stop: Option<TimeQ>,
}

/// The body of a `long_lived` entry.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LongLivedSpec {
    /// The flows.
    pub flows: Vec<LongFlowSpec>,
    /// Transport of these flows.
    pub transport: Option<String>,
    /// Label carried to the per-flow table.
    pub label: Option<String>,
}

/// Resolves a (src, dst) pair of host names; errors name the field `src` or `dst`.
fn endpoints(index: &HostIndex, src: &str, dst: &str) -> SpecResult<(usize, usize)> {
    let s = index.host("src", src)?;
    let d = index.host("dst", dst)?;
    if s == d {
        return Err(SpecError::new("dst", format!("expected a host other than the source, got \"{dst}\"")));
    }
    Ok((s, d))
}

impl FlowsSpec {
    /// The listed flows, in list order.
    pub fn flows(&self, entry: usize, ctx: &WorkloadCtx) -> SpecResult<Vec<FlowArrival>> {
        let index = HostIndex::new(ctx);
        let mut out = Vec::with_capacity(self.flows.len());
        for (j, f) in self.flows.iter().enumerate() {
            let at = format!("flows[{j}]");
            let (src, dst) = endpoints(&index, &f.src, &f.dst).map_err(|e| e.within(&at))?;
            if f.size.0 == 0 {
                return Err(SpecError::new("size", "expected a size >= 1 byte, got 0").within(&at));
            }
            out.push(FlowArrival { start: f.start.0, src, dst, size: Some(f.size.0), stop: None, entry });
        }
        Ok(out)
    }
}

impl LongLivedSpec {
    /// The listed long-lived flows, in list order.
    pub fn flows(&self, entry: usize, ctx: &WorkloadCtx) -> SpecResult<Vec<FlowArrival>> {
        let index = HostIndex::new(ctx);
        let mut out = Vec::with_capacity(self.flows.len());
        for (j, f) in self.flows.iter().enumerate() {
            let at = format!("flows[{j}]");
            let (src, dst) = endpoints(&index, &f.src, &f.dst).map_err(|e| e.within(&at))?;
            let stop = f.stop.map(|t| t.0);
            if let Some(stop) = stop {
                if stop <= f.start.0 {
                    let e = SpecError::new("stop", format!("expected stop > start = {}, got {stop}", f.start.0));
                    return Err(e.within(&at));
                }
            } else if f.start.0 >= ctx.duration {
                // Without `stop` a flow stops at the duration, which it would start after.
                let e = SpecError::new(
                    "start",
                    format!(
                        "expected a start before the duration {} for a long-lived flow without `stop` (or give it \
                         a `stop`), got {}",
                        ctx.duration, f.start.0
                    ),
                );
                return Err(e.within(&at));
            }
            out.push(FlowArrival { start: f.start.0, src, dst, size: None, stop, entry });
        }
        Ok(out)
    }
}

/// Column positions of the CSV header.
struct Columns {
    start: usize,
    src: usize,
    dst: usize,
    size: usize,
}

fn parse_header(fields: &[&str]) -> Result<Columns, String> {
    let find = |name: &str| fields.iter().position(|f| f.eq_ignore_ascii_case(name));
    match (find("start"), find("src"), find("dst"), find("size")) {
        (Some(start), Some(src), Some(dst), Some(size)) if fields.len() == 4 => Ok(Columns { start, src, dst, size }),
        _ => Err(format!("expected the header \"start,src,dst,size\", got \"{}\"", fields.join(","))),
    }
}

impl ListSpec {
    /// The flows of the CSV file, in file order.
    pub fn flows(&self, entry: usize, ctx: &WorkloadCtx) -> SpecResult<Vec<FlowArrival>> {
        let path = ctx.base_dir.join(&self.file);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| SpecError::new("file", format!("cannot read \"{}\": {e}", path.display())))?;
        let file = &self.file;
        let at_line = |n: usize, message: String| SpecError::new("file", format!("\"{file}\" line {n}: {message}"));
        let index = HostIndex::new(ctx);
        let mut columns = None;
        let mut out = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let n = i + 1;
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            let Some(cols) = &columns else {
                columns = Some(parse_header(&fields).map_err(|m| at_line(n, m))?);
                continue;
            };
            if fields.len() != 4 {
                return Err(at_line(
                    n,
                    format!("expected 4 comma-separated fields, got {} in \"{line}\"", fields.len()),
                ));
            }
            let start: f64 =
                fields[cols.start].parse().ok().filter(|s: &f64| s.is_finite() && *s >= 0.0).ok_or_else(|| {
                    at_line(n, format!("expected a start time in seconds >= 0, got \"{}\"", fields[cols.start]))
                })?;
            let start = check_time(start, &format!("\"{}\"", fields[cols.start])).map_err(|m| at_line(n, m))?;
            let size: u64 = fields[cols.size].parse().ok().filter(|&s| s >= 1).ok_or_else(|| {
                at_line(n, format!("expected a size in whole bytes >= 1, got \"{}\"", fields[cols.size]))
            })?;
            let (src, dst) = endpoints(&index, fields[cols.src], fields[cols.dst])
                .map_err(|e| at_line(n, format!("{}: {}", e.field, e.message)))?;
            out.push(FlowArrival { start, src, dst, size: Some(size), stop: None, entry });
        }
        if columns.is_none() {
            return Err(SpecError::new(
                "file",
                format!("\"{file}\": expected the header \"start,src,dst,size\", got an empty file"),
            ));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_topo::TestTopo;
    use super::*;
    use crate::units::Time;

    #[test]
    fn csv_rows_become_flows_in_file_order() {
        let topo = TestTopo::internet2(100);
        std::fs::write(
            topo.base_dir.join("flows.csv"),
            "# from a trace\nsrc,dst,start,size\nh10,h11,0.5,1460\n\nh12,h10,0.25,20000 # late row\n",
        )
        .unwrap();
        let spec = ListSpec { file: "flows.csv".into(), transport: None, label: None };
        let flows = spec.flows(3, &topo.ctx()).unwrap();
        assert_eq!(flows.len(), 2);
        assert_eq!(
            flows[0],
            FlowArrival { start: Time::from_ms(500), src: 10, dst: 11, size: Some(1460), stop: None, entry: 3 }
        );
        assert_eq!((flows[1].start, flows[1].src, flows[1].size), (Time::from_ms(250), 12, Some(20000)));
    }

    #[test]
    fn csv_errors_name_the_line_and_value() {
        let topo = TestTopo::internet2(100);
        let ctx = topo.ctx();
        let cases = [
            ("a.csv", "start,src,dst\n", "expected the header"),
            ("b.csv", "start,src,dst,size\n0.1,h10,h11,0\n", "line 2: expected a size in whole bytes >= 1, got \"0\""),
            ("c.csv", "start,src,dst,size\n0.1,h10,h999,10\n", "line 2: dst: expected a host name, got \"h999\""),
            ("d.csv", "start,src,dst,size\nsoon,h10,h11,10\n", "got \"soon\""),
            ("e.csv", "start,src,dst,size\n0.1,h10,h10,10\n", "other than the source"),
            (
                "f.csv",
                "start,src,dst,size\n1e9,h10,h11,10\n",
                "line 2: expected a duration <= 1e6 s (11.6 days), got \"1e9\"",
            ),
        ];
        for (name, text, wanted) in cases {
            std::fs::write(topo.base_dir.join(name), text).unwrap();
            let e = ListSpec { file: name.into(), transport: None, label: None }.flows(0, &ctx).unwrap_err();
            assert!(e.field == "file" && e.message.contains(wanted), "{name}: {e}");
        }
        let e = ListSpec { file: "missing.csv".into(), transport: None, label: None }.flows(0, &ctx).unwrap_err();
        assert!(e.message.contains("cannot read") && e.message.contains("missing.csv"), "{e}");
    }

    #[test]
    fn long_lived_flows_have_no_size_and_keep_their_stop() {
        let topo = TestTopo::internet2(100);
        let spec: LongLivedSpec = serde_json::from_str(
            r#"{"flows": [{"src": "h10", "dst": "h11", "start": 0}, {"src": "h11", "dst": "h12", "start": "2s", "stop": "5s"}]}"#,
        )
        .unwrap();
        let flows = spec.flows(0, &topo.ctx()).unwrap();
        assert_eq!((flows[0].size, flows[0].stop), (None, None));
        assert_eq!((flows[1].size, flows[1].stop), (None, Some(Time::from_secs(5))));
        let bad: LongLivedSpec =
            serde_json::from_str(r#"{"flows": [{"src": "h10", "dst": "h11", "start": "3s", "stop": "1s"}]}"#).unwrap();
        let e = bad.flows(0, &topo.ctx()).unwrap_err();
        assert!(e.field == "flows[0].stop" && e.message.contains("1.000000000s"), "{e}");
    }

    #[test]
    fn a_long_lived_flow_without_stop_must_start_before_the_duration() {
        let topo = TestTopo::internet2(100);
        let ctx = WorkloadCtx { duration: Time::from_secs(1), ..topo.ctx() };
        for start in ["1s", "2s"] {
            let late: LongLivedSpec = serde_json::from_str(&format!(
                r#"{{"flows": [{{"src": "h10", "dst": "h11", "start": 0}}, {{"src": "h10", "dst": "h11", "start": "{start}"}}]}}"#
            ))
            .unwrap();
            let e = late.flows(0, &ctx).unwrap_err();
            assert_eq!(e.field, "flows[1].start", "{e}");
            assert!(
                e.message.contains("before the duration 1.000000000s") && e.message.contains("without `stop`"),
                "{e}"
            );
        }
        // With its own `stop`, a flow may start after the duration (a draining run reaches it).
        let stopped: LongLivedSpec =
            serde_json::from_str(r#"{"flows": [{"src": "h10", "dst": "h11", "start": "2s", "stop": "3s"}]}"#).unwrap();
        assert_eq!(stopped.flows(0, &ctx).unwrap()[0].stop, Some(Time::from_secs(3)));
    }
}
