//! Workloads: the list of flows a run offers to the network, each with a start time, a
//! host pair and a size (or a stop time for long-lived flows).
//!
//! A scenario has `workload = [entry, ...]`; each entry is tagged by `kind`:
//! `poisson` and `pareto` (open-loop arrivals at an offered load, [`arrivals`]),
//! `list` (a CSV file), `flows` (inline) and `long_lived` ([`flowlist`]).
//! Sizes come from [`sizes`] (parametric) and [`cdf`] (empirical tables); host pairs from
//! [`pairs`]. This module knows no topology: the scenario hands it a [`WorkloadCtx`].
//!
//! Randomness: entry i draws from three streams of the scenario seed, labelled
//! `workload{i}.arrivals`, `workload{i}.sizes` and `workload{i}.pairs`, so that changing
//! one part of an entry (its sizes, say) keeps the others (its arrival times) as they were.

pub mod arrivals;
pub mod cdf;
pub mod flowlist;
pub mod pairs;
pub mod sizes;

use crate::error::{SpecError, SpecResult};
use crate::limits::shown;
use crate::rng::Rng;
use crate::units::{Rate, Time};
use arrivals::OpenLoopSpec;
use flowlist::{FlowsSpec, ListSpec, LongLivedSpec};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// What the workload needs to know of the topology and the run (filled by the scenario).
pub struct WorkloadCtx<'a> {
    /// Node names, indexed by node id.
    pub node_names: &'a [String],
    /// Node ids of all hosts.
    pub hosts: &'a [usize],
    /// Per node id: the router a host hangs from (routers: themselves).
    pub attach: &'a [usize],
    /// Per node id: a host's uplink rate (routers: unused).
    pub access_rate: &'a [Rate],
    /// Host groups: name -> node ids.
    pub groups: &'a BTreeMap<String, Vec<usize>>,
    /// Named links -> rate, for `load_on`.
    pub link_rates: &'a BTreeMap<String, Rate>,
    /// The topology's natural (src group, dst group), e.g. a dumbbell's two sides.
    pub default_pairs: Option<(&'a str, &'a str)>,
    /// Length of the run: the default end of arrivals.
    pub duration: Time,
    /// The scenario seed.
    pub seed: u64,
    /// Directory that relative file names are read from.
    pub base_dir: &'a Path,
}

/// One flow to start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowArrival {
    /// When the sending application starts.
    pub start: Time,
    /// Source node id.
    pub src: usize,
    /// Destination node id.
    pub dst: usize,
    /// Payload bytes; None = long-lived (runs until `stop`).
    pub size: Option<u64>,
    /// When a long-lived flow stops sending; None = at the end of the run.
    pub stop: Option<Time>,
    /// Index of the workload entry that made it.
    pub entry: usize,
}

/// One entry of the scenario's `workload` list.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkloadEntry {
    /// Poisson arrivals.
    Poisson(OpenLoopSpec),
    /// Pareto inter-arrival gaps (`shape` required).
    Pareto(OpenLoopSpec),
    /// Flows from a CSV file.
    List(ListSpec),
    /// Flows written in the scenario.
    Flows(FlowsSpec),
    /// Long-lived flows with start and stop times.
    LongLived(LongLivedSpec),
}

impl WorkloadEntry {
    /// The entry's `kind` as the scenario writes it.
    pub fn kind(&self) -> &'static str {
        match self {
            WorkloadEntry::Poisson(_) => "poisson",
            WorkloadEntry::Pareto(_) => "pareto",
            WorkloadEntry::List(_) => "list",
            WorkloadEntry::Flows(_) => "flows",
            WorkloadEntry::LongLived(_) => "long_lived",
        }
    }

    /// The transport named for these flows, if any.
    pub fn transport(&self) -> Option<&str> {
        match self {
            WorkloadEntry::Poisson(s) | WorkloadEntry::Pareto(s) => s.transport.as_deref(),
            WorkloadEntry::List(s) => s.transport.as_deref(),
            WorkloadEntry::Flows(s) => s.transport.as_deref(),
            WorkloadEntry::LongLived(s) => s.transport.as_deref(),
        }
    }

    /// Transports that carry a share of this entry's flows (`poisson` and `pareto` only).
    pub fn mix(&self) -> &[arrivals::MixSpec] {
        match self {
            WorkloadEntry::Poisson(s) | WorkloadEntry::Pareto(s) => &s.mix,
            _ => &[],
        }
    }

    /// The label carried to the per-flow table, if any.
    pub fn label(&self) -> Option<&str> {
        match self {
            WorkloadEntry::Poisson(s) | WorkloadEntry::Pareto(s) => s.label.as_deref(),
            WorkloadEntry::List(s) => s.label.as_deref(),
            WorkloadEntry::Flows(s) => s.label.as_deref(),
            WorkloadEntry::LongLived(s) => s.label.as_deref(),
        }
    }

    /// The open-loop body, if this is a `poisson` or `pareto` entry.
    fn open_loop(&self) -> Option<&OpenLoopSpec> {
        match self {
            WorkloadEntry::Poisson(s) | WorkloadEntry::Pareto(s) => Some(s),
            _ => None,
        }
    }

    /// The flows of entry number `index`; errors relative to the entry.
    fn flows(&self, index: usize, ctx: &WorkloadCtx) -> SpecResult<Vec<FlowArrival>> {
        let spec = match self {
            WorkloadEntry::List(s) => return s.flows(index, ctx),
            WorkloadEntry::Flows(s) => return s.flows(index, ctx),
            WorkloadEntry::LongLived(s) => return s.flows(index, ctx),
            WorkloadEntry::Poisson(s) | WorkloadEntry::Pareto(s) => s,
        };
        let open = spec.build(self.kind(), ctx)?;
        let stream = |purpose: &str| Rng::stream(ctx.seed, &format!("workload{index}.{purpose}"));
        let (mut arrivals_rng, mut sizes_rng, mut pairs_rng) = (stream("arrivals"), stream("sizes"), stream("pairs"));
        let times = open.process.times(open.start, open.stop, &mut arrivals_rng).map_err(|m| match spec.load {
            Some(load) => SpecError::new("load", format!("load = {load} {m}")),
            None => SpecError::new("rate", format!("rate = {} {m}", shown(open.process.rate()))),
        })?;
        let flows = times
            .into_iter()
            .map(|start| {
                let size = open.sizes.sample(&mut sizes_rng);
                let (src, dst) = open.pairs.sample(&mut pairs_rng, ctx.attach);
                FlowArrival { start, src, dst, size: Some(size), stop: None, entry: index }
            })
            .collect();
        Ok(flows)
    }
}

/// All flows of all entries, sorted by start time; ties keep entry order, then draw order.
pub fn generate(entries: &[WorkloadEntry], ctx: &WorkloadCtx) -> SpecResult<Vec<FlowArrival>> {
    let mut all = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        all.extend(entry.flows(i, ctx).map_err(|e| e.within(&format!("workload[{i}]")))?);
    }
    // A stable sort: equal start times stay in generation order.
    all.sort_by_key(|f| f.start);
    Ok(all)
}

/// The offered payload rate of an open-loop entry in bits/s (lambda * 8 * mean size), for
/// reports; None for listed flows or an entry that does not build.
pub fn offered_rate_bps(entry: &WorkloadEntry, ctx: &WorkloadCtx) -> Option<f64> {
    let spec = entry.open_loop()?;
    spec.build(entry.kind(), ctx).ok().map(|open| open.offered_rate_bps())
}

/// Reads a scenario's `workload` list from JSON; serde errors name the field's path.
pub fn parse_entries(json: &str) -> SpecResult<Vec<WorkloadEntry>> {
    let de = &mut serde_json::Deserializer::from_str(json);
    crate::spec_de::tagged_vec(de).map_err(|e: serde_json::Error| {
        let (path, msg) = crate::spec_de::join_path("workload".to_string(), crate::spec_de::json_message(json, &e));
        SpecError::new(path, msg)
    })
}

#[cfg(test)]
pub(crate) mod test_topo {
    //! A topology for tests: RC3's Internet-2 shape (10 routers, host h on router h mod 10).

    use super::WorkloadCtx;
    use crate::units::{Rate, Time};
    use std::collections::BTreeMap;
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Owns what a [`WorkloadCtx`] borrows, and a scratch directory for files.
    pub struct TestTopo {
        pub node_names: Vec<String>,
        pub hosts: Vec<usize>,
        pub attach: Vec<usize>,
        pub access_rate: Vec<Rate>,
        pub groups: BTreeMap<String, Vec<usize>>,
        pub link_rates: BTreeMap<String, Rate>,
        pub duration: Time,
        pub seed: u64,
        pub base_dir: PathBuf,
    }

    impl TestTopo {
        /// Routers r0..r9, hosts h10.. at 1 Gb/s; groups "left" (routers 0-4), "right" (5-9);
        /// one named link "bottleneck" of 10 Gb/s.
        pub fn internet2(hosts: usize) -> TestTopo {
            static DIRS: AtomicUsize = AtomicUsize::new(0);
            let n = 10 + hosts;
            let node_names = (0..n).map(|i| if i < 10 { format!("r{i}") } else { format!("h{i}") }).collect();
            let host_ids: Vec<usize> = (10..n).collect();
            let attach = (0..n).map(|i| i % 10).collect();
            let access_rate = (0..n).map(|i| if i < 10 { Rate(0) } else { Rate::from_gbps(1) }).collect();
            let mut groups = BTreeMap::new();
            groups.insert("left".to_string(), host_ids.iter().copied().filter(|h| h % 10 < 5).collect());
            groups.insert("right".to_string(), host_ids.iter().copied().filter(|h| h % 10 >= 5).collect());
            let mut link_rates = BTreeMap::new();
            link_rates.insert("bottleneck".to_string(), Rate::from_gbps(10));
            let base_dir = std::env::temp_dir().join(format!(
                "fctlab-workload-{}-{}",
                std::process::id(),
                DIRS.fetch_add(1, Ordering::Relaxed)
            ));
            std::fs::create_dir_all(&base_dir).unwrap();
            TestTopo {
                node_names,
                hosts: host_ids,
                attach,
                access_rate,
                groups,
                link_rates,
                duration: Time::from_secs(1),
                seed: 1,
                base_dir,
            }
        }

        /// The context the workload sees.
        pub fn ctx(&self) -> WorkloadCtx<'_> {
            WorkloadCtx {
                node_names: &self.node_names,
                hosts: &self.hosts,
                attach: &self.attach,
                access_rate: &self.access_rate,
                groups: &self.groups,
                link_rates: &self.link_rates,
                default_pairs: None,
                duration: self.duration,
                seed: self.seed,
                base_dir: &self.base_dir,
            }
        }
    }

    impl Drop for TestTopo {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.base_dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::test_topo::TestTopo;
    use super::*;

    fn entries(json: &str) -> Vec<WorkloadEntry> {
        parse_entries(json).unwrap()
    }

    fn run(json: &str, topo: &TestTopo) -> SpecResult<Vec<FlowArrival>> {
        generate(&parse_entries(json)?, &topo.ctx())
    }

    /// Payload bits offered per second of the window, relative to `capacity_bps`.
    fn achieved_load(flows: &[FlowArrival], window: Time, capacity_bps: f64) -> f64 {
        let bytes: u64 = flows.iter().filter_map(|f| f.size).sum();
        bytes as f64 * 8.0 / window.as_secs_f64() / capacity_bps
    }

    #[test]
    fn poisson_rc3_internet_offers_30_percent_of_every_access_link() {
        let mut topo = TestTopo::internet2(100);
        topo.duration = Time::from_secs(20);
        let json = r#"[{"kind": "poisson", "load": 0.3, "sizes": {"kind": "cdf", "name": "rc3-internet"}}]"#;
        let flows = run(json, &topo).unwrap();
        // RC3: about 13.9k flows/s over the 100 hosts.
        assert!(flows.len() >= 200_000, "{}", flows.len());
        assert!((flows.len() as f64 / 20.0 - 13_924.0).abs() < 200.0, "{}", flows.len());
        let load = achieved_load(&flows, topo.duration, 100e9);
        assert!((load - 0.3).abs() / 0.3 < 0.03, "{load}");
        let offered = offered_rate_bps(&entries(json)[0], &topo.ctx()).unwrap();
        assert!((offered - 30e9).abs() < 1.0, "{offered}");
        // The default pairs of a multi-router topology: never the same router.
        assert!(flows.iter().all(|f| topo.attach[f.src] != topo.attach[f.dst]));
    }

    #[test]
    fn load_on_a_named_link_is_relative_to_its_rate() {
        let mut topo = TestTopo::internet2(100);
        topo.duration = Time::from_secs(40);
        let json = r#"[{"kind": "poisson", "load": 0.5, "load_on": "bottleneck",
                        "sizes": {"kind": "exponential", "mean": "100KB"}}]"#;
        let flows = run(json, &topo).unwrap();
        assert!(flows.len() >= 200_000, "{}", flows.len());
        let load = achieved_load(&flows, topo.duration, 10e9);
        assert!((load - 0.5).abs() / 0.5 < 0.03, "{load}");
    }

    #[test]
    fn pareto_arrivals_offer_the_asked_load() {
        let mut topo = TestTopo::internet2(100);
        topo.duration = Time::from_secs(4);
        let json = r#"[{"kind": "pareto", "shape": 2.5, "load": 0.3,
                        "sizes": {"kind": "uniform", "min": 1, "max": 100000}}]"#;
        let flows = run(json, &topo).unwrap();
        assert!(flows.len() >= 200_000, "{}", flows.len());
        let load = achieved_load(&flows, topo.duration, 100e9);
        assert!((load - 0.3).abs() / 0.3 < 0.03, "{load}");
    }

    #[test]
    fn arrivals_respect_the_window() {
        let topo = TestTopo::internet2(20);
        let json = r#"[{"kind": "poisson", "rate": 5000, "start": "200ms", "stop": "300ms",
                        "sizes": {"kind": "fixed", "size": 1000}}]"#;
        let flows = run(json, &topo).unwrap();
        assert!(flows.iter().all(|f| f.start > Time::from_ms(200) && f.start < Time::from_ms(300)));
        assert!((400..600).contains(&flows.len()), "{}", flows.len());
    }

    #[test]
    fn same_seed_same_flows_other_seed_other_flows() {
        let mut topo = TestTopo::internet2(100);
        let json = r#"[{"kind": "poisson", "load": 0.3, "sizes": {"kind": "cdf", "name": "websearch"}},
                       {"kind": "pareto", "shape": 1.5, "rate": 300, "sizes": {"kind": "fixed", "size": 10}}]"#;
        let a = run(json, &topo).unwrap();
        let b = run(json, &topo).unwrap();
        assert!(!a.is_empty());
        assert_eq!(a, b);
        topo.seed = 2;
        let c = run(json, &topo).unwrap();
        assert_ne!(a, c);
    }

    #[test]
    fn changing_sizes_keeps_arrival_times_and_pairs() {
        let topo = TestTopo::internet2(100);
        let a = run(r#"[{"kind": "poisson", "rate": 2000, "sizes": {"kind": "fixed", "size": 10}}]"#, &topo).unwrap();
        let b = run(r#"[{"kind": "poisson", "rate": 2000, "sizes": {"kind": "cdf", "name": "fb-hadoop"}}]"#, &topo)
            .unwrap();
        let key = |f: &FlowArrival| (f.start, f.src, f.dst);
        assert_eq!(a.iter().map(key).collect::<Vec<_>>(), b.iter().map(key).collect::<Vec<_>>());
        assert_ne!(a.iter().map(|f| f.size).collect::<Vec<_>>(), b.iter().map(|f| f.size).collect::<Vec<_>>());
    }

    #[test]
    fn entries_merge_sorted_by_start_ties_in_entry_order() {
        let topo = TestTopo::internet2(20);
        let json = r#"[{"kind": "flows", "flows": [{"src": "h10", "dst": "h11", "start": "2s", "size": 5},
                                                   {"src": "h12", "dst": "h13", "start": "1s", "size": 6}]},
                       {"kind": "long_lived", "flows": [{"src": "h14", "dst": "h15", "start": "1s", "stop": "3s"}],
                        "transport": "xcp", "label": "long"}]"#;
        let flows = run(json, &topo).unwrap();
        let order: Vec<(usize, usize)> = flows.iter().map(|f| (f.entry, f.src)).collect();
        assert_eq!(order, vec![(0, 12), (1, 14), (0, 10)]);
        let e = entries(json);
        assert_eq!((e[1].transport(), e[1].label(), e[0].transport()), (Some("xcp"), Some("long"), None));
        assert_eq!(offered_rate_bps(&e[0], &topo.ctx()), None);
    }

    #[test]
    fn load_and_rate_errors_name_the_value() {
        let topo = TestTopo::internet2(20);
        let sizes = r#""sizes": {"kind": "fixed", "size": 1000}"#;
        let check = |body: &str, field: &str, wanted: &[&str]| {
            let e = run(&format!(r#"[{{"kind": "flows", "flows": []}}, {{{body}, {sizes}}}]"#), &topo).unwrap_err();
            assert_eq!(e.field, field, "{e}");
            assert!(wanted.iter().all(|w| e.message.contains(w)), "{e}");
        };
        check(r#""kind": "poisson", "load": 1.0"#, "workload[1].load", &["(0, 1)", "got 1"]);
        check(r#""kind": "poisson", "load": 1.5"#, "workload[1].load", &["got 1.5"]);
        check(r#""kind": "poisson", "load": 0"#, "workload[1].load", &["(0, 1)", "got 0"]);
        check(r#""kind": "poisson", "load": -0.2"#, "workload[1].load", &["got -0.2"]);
        check(
            r#""kind": "poisson", "load": 0.3, "rate": 100"#,
            "workload[1].load",
            &["exactly one", "load = 0.3", "rate = 100"],
        );
        check(r#""kind": "poisson""#, "workload[1].load", &["got neither"]);
        check(r#""kind": "poisson", "rate": 0"#, "workload[1].rate", &["> 0", "got 0"]);
        check(
            r##""kind": "poisson", "load": 0.3, "load_on": "core""##,
            "workload[1].load_on",
            &["\"core\"", "access, bottleneck"],
        );
        check(r#""kind": "pareto", "shape": 1.0, "rate": 10"#, "workload[1].shape", &["> 1", "got 1"]);
        check(r#""kind": "pareto", "rate": 10"#, "workload[1].shape", &["got none"]);
        check(r#""kind": "poisson", "shape": 2, "rate": 10"#, "workload[1].shape", &["only \"pareto\""]);
        check(r#""kind": "poisson", "rate": 1e9"#, "workload[1].rate", &["at most", "rate = 1000000000"]);
        check(
            r#""kind": "poisson", "rate": 10, "pairs": {"kind": "uniform", "src": "nowhere"}"#,
            "workload[1].pairs.src",
            &["\"nowhere\"", "left, right"],
        );
    }

    #[test]
    fn size_errors_carry_the_entry_prefix() {
        let topo = TestTopo::internet2(20);
        let e = run(
            r#"[{"kind": "poisson", "rate": 10, "sizes": {"kind": "cdf", "points": [[1, 0.5], [2, 0.7]]}}]"#,
            &topo,
        )
        .unwrap_err();
        assert_eq!(e.field, "workload[0].sizes.points[1]");
        assert!(e.message.contains("got 0.7"), "{e}");
        let e =
            run(r#"[{"kind": "poisson", "rate": 10, "sizes": {"kind": "pareto", "shape": 0.9, "mean": 100}}]"#, &topo)
                .unwrap_err();
        assert!(e.field == "workload[0].sizes.shape" && e.message.contains("got 0.9"), "{e}");
    }

    #[test]
    fn unknown_fields_are_refused_with_their_path() {
        let e =
            parse_entries(r#"[{"kind": "poisson", "rate": 10, "sizes": {"kind": "fixed", "size": 1}, "laod": 0.3}]"#)
                .unwrap_err();
        assert!(e.field.starts_with("workload[0]"), "{e}");
        assert!(e.message.contains("unknown field `laod`"), "{e}");
        let e = parse_entries(r#"[{"kind": "poisson", "rate": 10, "sizes": {"kind": "fixed", "size": 1, "mean": 3}}]"#)
            .unwrap_err();
        assert!(e.message.contains("unknown field `mean`"), "{e}");
        let e = parse_entries(r#"[{"kind": "closed_loop"}]"#).unwrap_err();
        assert!(e.message.contains("unknown variant `closed_loop`"), "{e}");
    }

    #[test]
    fn default_pairs_of_the_topology_are_used() {
        let topo = TestTopo::internet2(20);
        let mut ctx = topo.ctx();
        ctx.default_pairs = Some(("left", "right"));
        let e = entries(r#"[{"kind": "poisson", "rate": 1000, "sizes": {"kind": "fixed", "size": 1}}]"#);
        let flows = generate(&e, &ctx).unwrap();
        assert!(!flows.is_empty());
        assert!(flows.iter().all(|f| f.src % 10 < 5 && f.dst % 10 >= 5));
        // Load relative to the access links of the 10 "left" senders only.
        let e = entries(r#"[{"kind": "poisson", "load": 0.5, "sizes": {"kind": "fixed", "size": 1000}}]"#);
        let offered = offered_rate_bps(&e[0], &ctx).unwrap();
        assert!((offered - 0.5 * 10e9).abs() < 1.0, "{offered}");
    }
}
