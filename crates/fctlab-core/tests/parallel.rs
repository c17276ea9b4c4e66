//! A run cut into partitions (`parallel`, `world::parallel`): the same bytes on any number of
//! threads, every packet accounted for, and clear errors for what it cannot run.

mod common;

use fctlab_core::scenario;
use fctlab_core::world::parallel::Engine;
use fctlab_core::world::World;
use serde_json::{json, Value};
use std::fmt::Write;
use std::path::Path;

/// A k = 4 fat tree with ECMP and short buffers under Poisson arrivals: drops, retransmissions,
/// flows between and within pods. `queue` runs every router port, `transport` every flow.
fn fat_tree(queue: Value, transport: Value, duration: &str) -> Value {
    json!({
        "seed": 3,
        "duration": duration,
        "topology": {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "50us"},
        "routing": {"ecmp": true},
        "queues": {"router": queue},
        "transport": transport,
        "workload": [{"kind": "poisson", "load": 0.5, "sizes": {"kind": "cdf", "name": "rc3-internet"}}],
    })
}

fn tcp() -> Value {
    fat_tree(json!({"kind": "droptail", "limit_packets": 8}), json!({"iw": 10, "min_rto": "2ms"}), "0.05s")
}

/// RCP routers: every port a discipline (serializer-free events), with a periodic tick.
fn rcp() -> Value {
    fat_tree(json!({"kind": "rcp", "limit": "200KB"}), json!({"protocol": "rcp"}), "0.05s")
}

/// Runs `scenario` cut into `partitions` on `threads` threads, to the end.
fn run(scenario: &Value, partitions: usize, threads: usize) -> World {
    run_engine(scenario, partitions, threads, |e| e).0
}

/// [`run`], with `set` applied to the engine first; the world and the run's figures.
fn run_engine(
    scenario: &Value,
    partitions: usize,
    threads: usize,
    set: impl FnOnce(Engine) -> Engine,
) -> (World, Option<fctlab_core::world::parallel::ParallelStats>) {
    let (world, _) = scenario::build(&scenario.to_string(), Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    let mut engine = set(Engine::new(world, partitions, threads).unwrap_or_else(|e| panic!("{e}")));
    // Steps of 7 ms, as a caller showing progress would: the results must not depend on them.
    let mut t = fctlab_core::units::Time::ZERO;
    while !engine.run_until(t) {
        t += fctlab_core::units::Time::from_ms(7);
    }
    let stats = engine.parallel_stats().cloned();
    (engine.into_world(), stats)
}

/// Everything a run's tables are made of, as text.
fn digest(w: &World) -> String {
    let mut s = String::new();
    writeln!(s, "now {:?} events {} {:?}", w.now(), w.events(), w.counters).unwrap();
    for r in &w.records {
        writeln!(s, "{r:?}").unwrap();
    }
    for l in &w.links {
        writeln!(s, "{:?} {:?}", l.stats, l.packets_inside()).unwrap();
    }
    s
}

fn same_on_every_thread_count(scenario: &Value) {
    let one = digest(&run(scenario, 4, 1));
    assert!(one.lines().count() > 100, "a run with something in it");
    for threads in [2, 4, 2] {
        let other = digest(&run(scenario, 4, threads));
        if other != one {
            let line = one.lines().zip(other.lines()).position(|(a, b)| a != b);
            panic!("{threads} threads differ from one, first at line {line:?}");
        }
    }
}

/// The acceptance of a partitioned run: 4 partitions on 1, 2 and 4 threads give the same bytes
/// (flow records, link counters, run counters, time, events).
#[test]
fn tcp_on_four_partitions_gives_the_same_bytes_on_one_two_and_four_threads() {
    same_on_every_thread_count(&tcp());
}

#[test]
fn rcp_on_four_partitions_gives_the_same_bytes_on_one_two_and_four_threads() {
    same_on_every_thread_count(&rcp());
}

/// Solo windows (the first thread runs every partition, lent by the others, when that is
/// measured faster: `world/adapt.rs`) change nothing: with stretches of zero the threads switch
/// between parallel and solo windows all along the run, and give the bytes of one thread.
#[test]
fn switching_between_parallel_and_solo_windows_gives_the_same_bytes() {
    for scenario in [tcp(), rcp()] {
        let one = digest(&run(&scenario, 4, 1));
        for threads in [2, 4] {
            let (w, stats) = run_engine(&scenario, 4, threads, |e| e.with_stretch(std::time::Duration::ZERO));
            let stats = stats.expect("a partitioned run");
            assert!(stats.solo_windows > 0 && stats.solo_windows < stats.windows, "both kinds of window: {stats:?}");
            let other = digest(&w);
            if other != one {
                let line = one.lines().zip(other.lines()).position(|(a, b)| a != b);
                panic!("{threads} threads switching differ from one, first at line {line:?}");
            }
        }
    }
}

/// Packets handed between partitions are neither lost nor doubled: every flow completes, every
/// byte arrives, and sent = delivered + dropped with the network empty at the end.
#[test]
fn a_partitioned_run_completes_every_flow_and_conserves_packets() {
    let w = run(&tcp(), 4, 2);
    assert!(w.records.len() > 100, "{} flows", w.records.len());
    assert!(w.records.iter().all(|r| r.finish.is_some()), "every flow completes");
    assert!(w.records.iter().all(|r| Some(r.delivered) == r.size), "every byte is delivered");
    let c = &w.counters;
    assert!(c.dropped_pkts > 0, "the buffers must overflow for the test to mean something");
    assert!(w.records.iter().any(|r| r.retx_bytes > 0));
    assert_eq!(w.packets_in_network(), (0, 0), "the network is empty at the end");
    assert_eq!(c.sent_pkts, c.delivered_pkts + c.dropped_pkts);
    assert_eq!(c.sent_bytes, c.delivered_bytes + c.dropped_bytes);
    let link_drops: u64 = w.links.iter().map(|l| l.stats.drops_pkts + l.stats.lost_pkts).sum();
    assert_eq!(link_drops, c.dropped_pkts, "every drop happens at some link");
    let hops: u64 = w.links.iter().map(|l| l.stats.pkts_sent - l.stats.lost_pkts).sum();
    assert_eq!(hops, c.packet_hops, "every packet put on a link arrives at its far end");
}

/// Four partitions differ from the whole world only where the module doc says (ties, late
/// packets of finished flows, the end of the epoch): without drops, where a changed tie cannot
/// turn into a different loss and a timeout, the same flows finish in nearly the same time.
/// (With drops, as in [`tcp`], a changed tie changes which packet a full buffer drops, and the
/// mean FCT of a run of 200 flows moves by as much as a change of seed moves it.)
#[test]
fn four_partitions_stay_close_to_the_whole_world() {
    let s = fat_tree(json!({"kind": "droptail"}), json!({"iw": 10}), "0.05s");
    let whole = run(&s, 1, 1);
    let cut = run(&s, 4, 2);
    assert_eq!(whole.records.len(), cut.records.len());
    assert!(whole.records.len() > 100);
    assert_eq!(whole.counters.dropped_pkts + cut.counters.dropped_pkts, 0);
    let fct = |w: &World, i: usize| w.records[i].fct().unwrap().as_secs_f64();
    let n = whole.records.len();
    let mean = |w: &World| (0..n).map(|i| fct(w, i)).sum::<f64>() / n as f64;
    let (a, b) = (mean(&whole), mean(&cut));
    assert!((a - b).abs() < 0.01 * a, "mean FCT {a} s whole, {b} s in four partitions");
    let close = (0..n).filter(|&i| (fct(&whole, i) - fct(&cut, i)).abs() <= 0.01 * fct(&whole, i)).count();
    assert!(close * 10 >= n * 9, "{close} of {n} flows within 1% of their FCT in the whole world");
    let (ha, hb) = (whole.counters.packet_hops as f64, cut.counters.packet_hops as f64);
    assert!((ha - hb).abs() < 0.001 * ha, "packet-hops {ha} whole, {hb} in four partitions");
}

fn build_err(s: &Value) -> String {
    match scenario::build(&s.to_string(), Path::new(".")) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

/// A link of zero delay still takes a packet's serialization to cross, so a cut through such
/// links allows a lookahead of the smallest packet's wire time at the fastest rate.
#[test]
fn a_cut_through_links_without_delay_looks_ahead_by_the_smallest_packets_wire_time() {
    let mut s = tcp();
    s["topology"]["delay"] = json!("0us");
    let (world, _) = scenario::build(&s.to_string(), Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    let engine = Engine::new(world, 2, 1).unwrap_or_else(|e| panic!("{e}"));
    let header = 40; // TCP's header and a pure ACK's wire size, in bytes
    let lookahead = engine.parallel_stats().expect("a partitioned run").lookahead;
    assert_eq!(lookahead, fctlab_core::units::Time(header * 8 * 1000), "{header} B at 1 Gb/s");
}

/// The small flows of the lookahead tests: a dumbbell whose 1 Mb/s bottleneck has no delay
/// (the cut of two partitions crosses it, so the lookahead is the smallest packet's wire time
/// there), 100 Mb/s access links, Poisson arrivals of 1-11 byte flows (one data packet each, as
/// small as packets get), `transport` on the hosts and `queue` on the routers.
fn tiny_flows(transport: Value, queue: Option<Value>, seed: u64) -> Value {
    let mut s = json!({
        "seed": seed,
        "duration": "0.3s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 4, "bottleneck_rate": "1Mbps", "bottleneck_delay": "0ms",
                     "access_rate": "100Mbps"},
        "transport": transport,
        "workload": [{"kind": "poisson", "rate": 400, "sizes": {"kind": "uniform", "min": 1, "max": 11}}],
    });
    if let Some(q) = queue {
        s["queues"] = json!({"router": q});
    }
    s
}

/// The flows table of a world: every record, as text.
fn flows_of(w: &World) -> Vec<String> {
    w.records.iter().map(|r| format!("{r:?}")).collect()
}

/// RCP without an RCP router falls back to TCP, whose packets lack RCP's 12 header bytes: the
/// lookahead is the wire time of those (40 B at 1 Mb/s), not of RCP's 52 B. Before, a 41-51 B
/// packet crossed the cut inside a window the far side had already run.
#[test]
fn the_lookahead_counts_the_packets_of_a_fallback() {
    let (world, _) = scenario::build(&tiny_flows(json!({"protocol": "rcp"}), None, 5).to_string(), Path::new("."))
        .unwrap_or_else(|e| panic!("{e}"));
    let engine = Engine::new(world, 2, 1).unwrap_or_else(|e| panic!("{e}"));
    let lookahead = engine.parallel_stats().expect("a partitioned run").lookahead;
    assert_eq!(lookahead, fctlab_core::units::Time::from_us(320), "40 B at 1 Mb/s");
}

/// Causality on every protocol of the registry: cut where the lookahead is the smallest
/// packet's wire time, two partitions run every flow as the whole network does (the same flows
/// table, byte for byte), with no router of the protocol's kind (the paced protocols fall back
/// to TCP, with smaller packets) and with its router law. A packet crossing faster than the
/// lookahead stops the run with an error (`Stopped::Causality`), which fails the test.
///
/// One difference is known and left out: a paced sender (RCP, JetMax, PIQI-RCP) below one
/// packet per RTT sends probes, and one may reach the receiver after the sender is done; the
/// whole network ignores it (the flow is retired), a partition still holds the receiver, which
/// acknowledges it (docs/parallel.md, "Where a partitioned run differs"). For those, with their
/// routers, the test checks that the run completes without a causality error.
#[test]
fn two_partitions_give_the_whole_networks_flows_on_every_protocol() {
    let queue_keys = |kind: &str| match kind {
        "step" => json!({"kind": "step", "k_packets": 20}),
        "pfabric" => json!({"kind": "pfabric", "limit_packets": 24}),
        k => json!({"kind": k}),
    };
    let mut compared = 0;
    for p in fctlab_core::protocol::PROTOCOLS {
        let key = p.host_key.trim_start_matches("transport.");
        let mut transport = json!({key: p.name});
        if p.name == "hpcc" {
            transport["line_rate"] = json!("100Mbps");
        }
        let queues = [None, p.queue.filter(|&q| q != "prio").map(queue_keys)];
        for queue in queues.iter().enumerate().filter(|(i, q)| *i == 0 || q.is_some()).map(|(_, q)| q.clone()) {
            let with_router = queue.is_some();
            for seed in [5, 6] {
                let s = tiny_flows(transport.clone(), queue.clone(), seed);
                let whole = run(&s, 1, 1);
                let cut = run(&s, 2, 2);
                assert!(whole.records.len() > 50, "{}: {} flows", p.name, whole.records.len());
                assert!(cut.records.iter().all(|r| r.finish.is_some()), "{}: every flow completes", p.name);
                let probes_answered = with_router && matches!(p.name, "rcp" | "jetmax" | "piqi");
                if probes_answered {
                    continue;
                }
                let (a, b) = (flows_of(&whole), flows_of(&cut));
                if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
                    panic!(
                        "{} (router law: {with_router}), seed {seed}: flow {i} differs:\n{}\n{}",
                        p.name, a[i], b[i]
                    );
                }
                compared += 1;
            }
        }
    }
    assert!(compared >= 30, "{compared} runs compared");
}

#[test]
fn time_series_and_partitions_are_refused_naming_the_field() {
    let mut s = tcp();
    s["parallel"] = json!({"partitions": 2});
    s["output"] = json!({"series": {"interval": "1ms", "flows": [0]}});
    let e = build_err(&s);
    assert!(e.contains("parallel.partitions") && e.contains("output.series"), "{e}");
    // One partition is the whole world, which records series.
    s["parallel"] = json!({"partitions": 1});
    common::world(&s);
}

#[test]
fn zero_partitions_or_threads_are_refused() {
    let mut s = tcp();
    s["parallel"] = json!({"partitions": 0});
    let e = build_err(&s);
    assert!(e.contains("parallel.partitions") && e.contains("got 0"), "{e}");
    s["parallel"] = json!({"partitions": 2, "threads": 0});
    let e = build_err(&s);
    assert!(e.contains("parallel.threads") && e.contains("got 0"), "{e}");
}
