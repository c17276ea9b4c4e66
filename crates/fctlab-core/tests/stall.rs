//! A stalled run (`world::stall`): when nothing can happen any more while flows are open, the
//! run stops there and names each open flow with its sender's state, the same way whole and
//! partitioned, whatever the steps it is driven in; a run that reaches its end by time with
//! flows open is not a stall.
//!
//! The stalling law is a host law plug-in written here, in Rust, and handed to the scenario
//! build through the loader the Python front uses (`python:FILE:CLASS`): `OddZero` sets the
//! window of every odd flow to 0 on each ACK (the others run NewReno), `Reno` stalls none.

use fctlab_core::plugin::{
    set_python_loader, DynHost, Header, HostFactory, HostInit, HostTraits, Library, PluginRttSample, RouterFactory,
    SendCtx, Window,
};
use fctlab_core::scenario;
use fctlab_core::units::Time;
use fctlab_core::world::parallel::Engine;
use fctlab_core::world::{FlowEvent, Stall, World};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// NewReno (RFC 5681) that, if `stalls`, sets the window to 0 on every ACK: once every byte sent
/// is acknowledged, the flow has nothing in flight and no timer, and never sends again.
struct Law {
    stalls: bool,
}

impl DynHost for Law {
    fn on_ack(&mut self, w: &mut Window, _now: Time, acked: u64, _srtt: Option<Time>) -> Result<(), String> {
        if self.stalls {
            w.cwnd = 0;
        } else if acked > 0 {
            w.cwnd += if w.in_slow_start() { acked.min(w.abc) } else { (w.mss * w.mss / w.cwnd).max(1) };
        }
        Ok(())
    }
    fn on_congestion(&mut self, w: &mut Window, _now: Time, flight: u64) -> Result<(), String> {
        w.ssthresh = (flight / 2).max(2 * w.mss);
        w.cwnd = w.ssthresh;
        Ok(())
    }
    fn on_timeout(&mut self, w: &mut Window, now: Time, flight: u64) -> Result<(), String> {
        self.on_congestion(w, now, flight)?;
        w.cwnd = w.mss;
        Ok(())
    }
    fn on_recovery_end(&mut self, w: &mut Window, _now: Time) -> Result<(), String> {
        w.cwnd = w.ssthresh;
        Ok(())
    }
    fn on_loss_signal(&mut self, _w: &mut Window, _now: Time) -> Result<(), String> {
        Ok(())
    }
    fn on_rtt_sample(&mut self, _w: &mut Window, _s: &PluginRttSample) -> Result<(), String> {
        Ok(())
    }
    fn header(&self, _w: &Window, _ctx: &SendCtx) -> Result<Header, String> {
        Ok(Header::NONE)
    }
    fn on_feedback(&mut self, _w: &mut Window, _echo: Header, _srtt: Option<Time>) -> Result<bool, String> {
        Ok(false)
    }
    fn traits(&self) -> Result<HostTraits, String> {
        Ok(HostTraits { wants_rtt_samples: false, reacts_to_loss: true, pacing_rate_bps: u64::MAX })
    }
}

/// The library of one class: which flows it stalls.
struct Lib {
    odd_stall: bool,
}

impl HostFactory for Lib {
    fn create(&self, init: &HostInit) -> Result<Box<dyn DynHost>, String> {
        Ok(Box::new(Law { stalls: self.odd_stall && init.flow % 2 == 1 }))
    }
}

impl Library for Lib {
    fn name(&self) -> String {
        if self.odd_stall { "OddZero" } else { "Reno" }.into()
    }
    fn host(&self) -> Option<&dyn HostFactory> {
        Some(self)
    }
    fn router(&self) -> Option<&dyn RouterFactory> {
        None
    }
}

/// The folder the scenarios are built from, with the file the laws are named by; the loader
/// installed once for the whole test binary.
fn base_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        set_python_loader(Box::new(|_file, class| match class {
            "OddZero" => Ok(Box::new(Lib { odd_stall: true }) as Box<dyn Library>),
            "Reno" => Ok(Box::new(Lib { odd_stall: false }) as Box<dyn Library>),
            other => Err(format!("no class {other}")),
        }));
        let dir = std::env::temp_dir().join(format!("fctlab-stall-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("law.py"), "# the laws are in tests/stall.rs\n").unwrap();
        dir
    })
}

/// A 100 Mb/s dumbbell under Poisson arrivals of 100-segment flows (above any first window, so
/// that a stalled flow never completes), every flow under the law `class`.
fn dumbbell(class: &str) -> Value {
    json!({
        "seed": 1,
        "duration": "1s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 2, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "5ms", "access_rate": "1Gbps", "access_delay": "0.5ms"},
        "transport": {"cc": format!("python:law.py:{class}")},
        "workload": [{"kind": "poisson", "load": 0.3, "load_on": "bottleneck",
                      "sizes": {"kind": "fixed", "size": 146000}}],
    })
}

/// A k = 4 fat tree under Poisson arrivals of 100-segment flows, cut into `partitions`, its
/// router ports `queue`.
fn fat_tree(class: &str, queue: Value, partitions: usize) -> Value {
    json!({
        "seed": 5,
        "duration": "20ms",
        "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "50us"},
        "routing": {"ecmp": true},
        "queues": {"router": queue},
        "transport": {"iw": 10, "min_rto": "2ms", "cc": format!("python:law.py:{class}")},
        "workload": [{"kind": "poisson", "load": 0.5, "sizes": {"kind": "fixed", "size": 146000}}],
        "parallel": {"partitions": partitions},
    })
}

fn with(mut scenario: Value, key: &str, value: Value) -> Value {
    scenario[key] = value;
    scenario
}

fn build(scenario: &Value) -> World {
    scenario::build(&scenario.to_string(), base_dir()).unwrap_or_else(|e| panic!("{e}")).0
}

/// Runs `scenario` to the end on `threads` threads, in steps of `step` (None: in one call).
fn run(scenario: &Value, threads: usize, step: Option<Time>) -> World {
    let partitions = scenario["parallel"]["partitions"].as_u64().unwrap_or(1) as usize;
    let mut engine = Engine::new(build(scenario), partitions, threads).unwrap_or_else(|e| panic!("{e}"));
    match step {
        None => engine.run(),
        Some(step) => {
            let mut t = Time::ZERO;
            while !engine.run_until(t) {
                t += step;
            }
        }
    }
    assert!(engine.plugin_fault().is_none());
    engine.into_world()
}

/// The flows a run left open: started and neither completed nor stopped.
fn open_flows(w: &World) -> Vec<u32> {
    let open = |r: &&fctlab_core::metrics::FlowRecord| r.start <= w.now() && r.finish.is_none() && !r.stopped;
    w.records.iter().enumerate().filter(|(_, r)| open(r)).map(|(f, _)| f as u32).collect()
}

/// The stall of a run that must have stalled, checked against its records: it lists every open
/// flow, each an odd one whose window the law set to 0, and the run stopped at it.
fn stalled(w: &World) -> Stall {
    let stall = w.stall().unwrap_or_else(|| panic!("no stall; ended at {:?} with {} open", w.now(), w.open_flows()));
    let ids: Vec<u32> = stall.flows.iter().map(|f| f.flow).collect();
    assert_eq!(ids, open_flows(w), "the stall names exactly the open flows");
    assert!(!ids.is_empty());
    for f in &stall.flows {
        assert_eq!(f.flow % 2, 1, "{f}");
        assert_eq!((f.window, f.state), (Some(0), "established"), "{f}");
        assert_eq!(f.last_event.1, FlowEvent::SenderPacket, "{f}");
        assert!(f.last_event.0 <= stall.time && f.acked > 0 && f.acked < f.size.unwrap(), "{f}");
    }
    assert!(w.records.iter().enumerate().any(|(f, r)| f % 2 == 0 && r.finish.is_some()), "the even flows run on");
    assert_eq!(w.now(), stall.time, "the run ends at its stall");
    assert!(stall.time < w.limits().max_time);
    stall.clone()
}

#[test]
fn a_whole_world_whose_queue_runs_dry_with_flows_open_stalls_at_its_last_event_whatever_its_steps() {
    let scenario = dumbbell("OddZero");
    let stall = stalled(&run(&scenario, 1, None));
    for step in [Time::from_ms(7), Time::from_ms(5)] {
        assert_eq!(stalled(&run(&scenario, 1, Some(step))), stall, "steps of {step:?}");
    }
    let text = stall.to_string();
    assert!(text.starts_with("the run stalled: by t = ") && text.contains(" flows were still open"), "{text}");
    let line = stall.flows[0].line(&[]);
    assert!(
        line.contains("window 0 B") && line.contains("B outstanding") && line.contains("last event at t ="),
        "{line}"
    );
}

#[test]
fn periodic_samples_do_not_hide_a_stall() {
    let plain = stalled(&run(&dumbbell("OddZero"), 1, None));
    let interval = Time::from_ms(10);
    let series = json!({"series": {"interval": "10ms", "links": ["bottleneck"], "flows": [0, 1]}});
    let sampled = stalled(&run(&with(dumbbell("OddZero"), "output", series), 1, Some(Time::from_ms(7))));
    // Found at the first sample after the last event, not at max_time (301 s).
    assert!(sampled.time >= plain.time && sampled.time < plain.time + interval, "{} vs {}", sampled.time, plain.time);
    let ids = |s: &Stall| s.flows.iter().map(|f| f.flow).collect::<Vec<_>>();
    assert_eq!(ids(&sampled), ids(&plain));
}

#[test]
fn a_partitioned_run_stalls_as_the_whole_world_does_on_any_number_of_threads() {
    let droptail = json!({"kind": "droptail", "limit_packets": 8});
    let whole = stalled(&run(&fat_tree("OddZero", droptail.clone(), 1), 1, None));
    let ids = |s: &Stall| s.flows.iter().map(|f| f.flow).collect::<Vec<_>>();
    let four = fat_tree("OddZero", droptail, 4);
    let one_thread = stalled(&run(&four, 1, Some(Time::from_ms(3))));
    assert_eq!(ids(&one_thread), ids(&whole), "the same flows stall");
    assert_eq!(stalled(&run(&four, 2, None)), one_thread, "2 threads, in one call");
    // RCP's routers tick for ever: the partitions hold only their ticks, and the run stalls.
    let rcp = fat_tree("OddZero", json!({"kind": "rcp", "limit_packets": 8}), 4);
    let ticking = stalled(&run(&rcp, 2, Some(Time::from_ms(3))));
    assert_eq!(ids(&ticking), ids(&whole));
    assert!(ticking.time < Time::from_secs(10), "found long before max_time: {}", ticking.time);
}

#[test]
fn a_run_that_reaches_its_end_by_time_with_flows_open_has_not_stalled() {
    // Without draining the run ends at the duration, stalled flows or not (the queue still
    // holds their later timers): flows cut by the duration are incomplete, not stuck.
    let w = run(&with(dumbbell("OddZero"), "drain", json!(false)), 1, Some(Time::from_ms(7)));
    assert!(w.stall().is_none() && !open_flows(&w).is_empty());
    assert_eq!(w.now(), Time::from_secs(1));
    // A flow too long for max_time is open at the end: the ordinary end, whole or partitioned.
    let long = |partitions: usize| {
        let mut s = fat_tree("Reno", json!({"kind": "droptail", "limit_packets": 8}), partitions);
        s["workload"] = json!([{"kind": "flows", "flows": [{"src": "h0", "dst": "h15", "start": 0, "size": "1GB"}]}]);
        s["max_time"] = json!("50ms");
        s
    };
    for partitions in [1, 4] {
        let w = run(&long(partitions), 2, None);
        assert!(w.stall().is_none() && open_flows(&w) == vec![0], "{partitions} partitions");
    }
}
