//! The lossless fabric (`[fabric]`): shared-buffer switches with PFC.
//!
//! ```text
//!   s0..s7 --10G, 1us-- sw --10G, 1us-- dst        (incast: 8 x 1 MB at once)
//!   a ring of three switches, each with a host, flows two hops clockwise (deadlock)
//! ```
//!
//! Protects: an incast that drops packets without PFC loses none with it, and conserves every
//! packet; PAUSE happens at the threshold the switch's buffer gives and RESUME follows; pause
//! propagates hop by hop; a cyclic buffer dependency is found and stops the run; the fabric
//! changes nothing where it is not asked for.

mod common;

use fctlab_core::world::World;
use serde_json::{json, Value};

/// `n` senders and one receiver on one switch, every link 10 Gb/s and 1 us; each sender sends
/// `size` bytes at t = 0 with a 64-segment initial window.
fn incast(n: usize, size: &str, fabric: Value) -> Value {
    let mut nodes = vec![json!({"name": "sw", "kind": "router"}), json!({"name": "dst", "kind": "host"})];
    let mut links = vec![json!({"a": "dst", "b": "sw", "rate": "10Gbps", "delay": "1us"})];
    let mut flows = Vec::new();
    for i in 0..n {
        nodes.push(json!({"name": format!("s{i}"), "kind": "host"}));
        links.push(json!({"a": format!("s{i}"), "b": "sw", "rate": "10Gbps", "delay": "1us"}));
        flows.push(json!({"src": format!("s{i}"), "dst": "dst", "size": size, "start": "0s"}));
    }
    let mut s = json!({
        "duration": "1ms",
        "topology": {"kind": "graph", "nodes": nodes, "links": links},
        "transport": {"iw": 64, "mss": 1000, "min_rto": "1ms"},
        "workload": [{"kind": "flows", "flows": flows}],
    });
    if !fabric.is_null() {
        s["fabric"] = fabric;
    }
    s
}

fn conserved(w: &World) {
    let c = &w.counters;
    assert_eq!(w.packets_in_network(), (0, 0), "the network is empty at the end");
    assert_eq!(c.sent_pkts, c.delivered_pkts + c.dropped_pkts);
    assert_eq!(c.sent_bytes, c.delivered_bytes + c.dropped_bytes);
    let link_drops: u64 = w.links.iter().map(|l| l.stats.drops_pkts + l.stats.lost_pkts).sum();
    assert_eq!(link_drops, c.dropped_pkts, "every drop happens at some link");
}

#[test]
fn an_incast_drops_without_pfc_and_loses_nothing_with_it() {
    let without = common::run(incast(8, "1MB", json!({"buffer": "300KB", "pfc": false})));
    assert!(without.counters.dropped_pkts > 50, "the buffer must overflow: {}", without.counters.dropped_pkts);
    assert_eq!(without.fabric().unwrap().drops, without.counters.dropped_pkts, "every drop is the buffer's");
    assert!(without.records.iter().all(|r| r.finish.is_some()), "TCP repairs the losses");
    conserved(&without);

    let with = common::run(incast(8, "1MB", json!({"buffer": "300KB"})));
    assert_eq!(with.counters.dropped_pkts, 0, "lossless");
    assert!(with.records.iter().all(|r| r.finish.is_some() && r.delivered == 1_000_000));
    conserved(&with);
    let f = with.fabric().unwrap();
    let pauses = f.log.iter().filter(|r| r.pause).count();
    assert!(pauses >= 8, "every sender paused at least once: {pauses}");
    assert_eq!(pauses, f.log.len() - pauses, "every PAUSE is followed by a RESUME");
    // Every sender's NIC was paused, and only they: nothing pauses the switch's ports (the
    // receiving host never pauses).
    for l in &with.links {
        let paused = l.lossless().unwrap().stats.pauses;
        // Nodes: sw 0, dst 1, s0.. 2...
        let from_sender = l.from >= 2;
        assert_eq!(paused > 0, from_sender, "link {} -> {}: {paused} pauses", l.from, l.to);
    }
    // Lossless and no retransmission: the incast finishes sooner than with drops and timeouts.
    let last = |w: &World| w.records.iter().map(|r| r.finish.unwrap()).max().unwrap();
    assert!(last(&with) < last(&without), "{} vs {}", last(&with), last(&without));
    // 8 MB through one 10 Gb/s port: at least 6.4 ms.
    assert!(last(&with).as_secs_f64() > 8e6 * 8.0 / 10e9);
}

#[test]
fn pause_comes_at_the_buffer_threshold_and_the_port_holds_at_most_its_headroom_more() {
    // Two senders at 10G into one 10G port: the switch fills at 10 Gb/s. Buffer 1 MB, 3 ports
    // of 4 KiB reserve and 2 x 1,250 + 2 x 1,048 + 64 = 4,660 B headroom.
    let w = common::run(incast(2, "2MB", json!({"buffer": "1MB"})));
    assert_eq!(w.counters.dropped_pkts, 0);
    let f = w.fabric().unwrap();
    let sw = f.buffer(0).unwrap();
    // At the end, everything released.
    assert_eq!(sw.shared_used(), 0);
    for l in 0..w.links.len() as u32 {
        for c in 0..fctlab_core::net::packet::CLASSES {
            assert_eq!((f.ingress(l, c).bytes, f.ingress(l, c).hdrm), (0, 0), "link {l} class {c}");
        }
    }
    assert!(f.log.iter().any(|r| r.pause));
    // The threshold for one port alone: (B - H - R - S) / 8 at S = the port's share, i.e.
    // S = (B - H - R) / 9 with two ports sharing: each port pauses at about (B - H - R - 2S)/8,
    // S = (B - H - R)/10. The largest queue the receiver's port held is both ports' shares
    // plus their reserves and headrooms, never more.
    let (b, h, r) = (1_000_000u64, 3 * 4_660u64, 3 * 4 * 1024u64);
    let bound = 2 * ((b - h - r) / 10 + 4 * 1024 + 4_660) + 2 * 1048;
    let port = w.links.iter().find(|l| l.from == 0 && l.to == 1).unwrap();
    assert!(port.stats.queue_max_bytes <= bound, "{} > {bound}", port.stats.queue_max_bytes);
    assert!(port.stats.queue_max_bytes > bound / 2, "{} far below {bound}", port.stats.queue_max_bytes);
}

/// Five switches in a ring, each with one host; host i sends to host i + 2 (two hops
/// clockwise, against three the other way), so each ring link carries two flows and every
/// switch's buffer waits on the next.
fn ring(fabric: Value) -> Value {
    let mut nodes = Vec::new();
    let mut links = Vec::new();
    let mut flows = Vec::new();
    for i in 0..5 {
        nodes.push(json!({"name": format!("sw{i}"), "kind": "router"}));
        nodes.push(json!({"name": format!("h{i}"), "kind": "host"}));
        links.push(json!({"a": format!("h{i}"), "b": format!("sw{i}"), "rate": "40Gbps", "delay": "1us"}));
        links.push(json!({"a": format!("sw{i}"), "b": format!("sw{}", (i + 1) % 5), "rate": "10Gbps", "delay": "1us"}));
        flows.push(json!({"src": format!("h{i}"), "dst": format!("h{}", (i + 2) % 5), "size": "20MB", "start": "0s"}));
    }
    json!({
        "duration": "10ms",
        "max_time": "1s",
        "topology": {"kind": "graph", "nodes": nodes, "links": links},
        "routing": {"ecmp": false},
        "transport": {"iw": 1000, "mss": 1000},
        "workload": [{"kind": "flows", "flows": flows}],
        "fabric": fabric,
    })
}

#[test]
fn a_cyclic_pause_dependency_is_found_and_stops_the_run() {
    let w = common::run(ring(json!({"buffer": "200KB"})));
    let f = w.fabric().unwrap();
    let d = f.deadlock.as_ref().expect("a deadlock");
    assert_eq!(d.cycle.len(), 5, "the five ring links: {:?}", d.cycle);
    for &l in &d.cycle {
        let link = &w.links[l as usize];
        assert!(link.lossless().unwrap().paused(), "link {l} paused");
        // Nodes: sw0 0, h0 1, sw1 2, ...: the ring links join even nodes.
        assert!(link.from.is_multiple_of(2) && link.to.is_multiple_of(2), "a ring link: {} -> {}", link.from, link.to);
    }
    let stall = w.stall().expect("the run stopped as a stall");
    assert!(stall.to_string().contains("PFC deadlock"), "{stall}");
    assert!(w.records.iter().any(|r| r.finish.is_none()));
    assert_eq!(w.counters.dropped_pkts, 0);
}

#[test]
fn a_deadlock_reported_lets_the_run_go_on_and_a_storm_is_reported() {
    let w = common::run(ring(json!({"buffer": "200KB", "on_deadlock": "report", "storm": "1ms"})));
    let f = w.fabric().unwrap();
    assert!(f.deadlock.is_some());
    assert!(!f.storms.is_empty(), "ports paused for good are storms");
    // The run went on past it (the senders' timers fire) to its end by time.
    assert!(w.now() > f.deadlock.as_ref().unwrap().time);
    assert!(w.stall().is_none());
    assert!(w.records.iter().all(|r| r.finish.is_none()));
}

#[test]
fn the_ring_without_the_cycle_does_not_deadlock() {
    // Four of the five flows: the dependencies form a chain, not a cycle.
    let mut s = ring(json!({"buffer": "200KB"}));
    s["workload"][0]["flows"].as_array_mut().unwrap().pop();
    let w = common::run(s);
    let f = w.fabric().unwrap();
    assert!(f.log.iter().any(|r| r.pause), "the 40G host fills the 10G ring link");
    assert!(f.deadlock.is_none());
    assert!(w.records.iter().all(|r| r.finish.is_some()));
    conserved(&w);
}

/// `control_first = "hosts"` (HPCC's simulator: NICs send ACKs first, switches queue them with
/// the data): the hosts' ports serve control first, the switch's do not; true and false are
/// every port's.
#[test]
fn control_first_at_the_hosts_only() {
    for (key, hosts, switch) in [(json!("hosts"), true, false), (json!(true), true, true), (json!(false), false, false)]
    {
        let w = common::run(incast(2, "10KB", json!({"buffer": "1MB", "control_first": key})));
        for l in &w.links {
            let from_switch = l.from == 0;
            let want = if from_switch { switch } else { hosts };
            assert_eq!(l.lossless().unwrap().serves_control_first(), want, "{key}: link {} -> {}", l.from, l.to);
        }
        assert!(w.records.iter().all(|r| r.finish.is_some()));
    }
    let s = incast(2, "10KB", json!({"buffer": "1MB", "control_first": 3}));
    let e = fctlab_core::scenario::build(&s.to_string(), std::path::Path::new(".")).err().expect("refused");
    assert!(e.to_string().contains("expected true, false or \"hosts\", got 3"), "{e}");
}

#[test]
fn bad_fabric_keys_name_the_field() {
    let bad = [
        (json!({"buffer": "1MB", "on_deadlock": "panic"}), "fabric.on_deadlock"),
        (
            json!({"buffer": "1MB", "ecn": [{"rate": "10Gbps", "kmin": "10KB", "kmax": "5KB", "pmax": 0.2}]}),
            "fabric.ecn[0].kmax",
        ),
        (
            json!({"buffer": "1MB", "ecn": [{"rate": "10Gbps", "kmin": "10KB", "kmax": "50KB", "pmax": 2}]}),
            "fabric.ecn[0].pmax",
        ),
        (
            json!({"buffer": "1MB", "ecn": [{"rate": "25Gbps", "kmin": "10KB", "kmax": "50KB", "pmax": 0.2}]}),
            "fabric.ecn",
        ),
        (json!({"buffer": "10KB"}), "fabric.buffer"),
        (json!({"buffer": "1MB", "watch": "0s"}), "fabric.watch"),
        (json!({"buffer": "1MB", "xoff": "1KB"}), "fabric"),
        (json!({"buffer": "1MB", "control_first": "switches"}), "fabric.control_first"),
        (json!({"buffer": "1MB", "control_first": 3}), "fabric.control_first"),
    ];
    for (fabric, field) in bad {
        let s = incast(2, "10KB", fabric.clone());
        let e = fctlab_core::scenario::build(&s.to_string(), std::path::Path::new(".")).err().expect("refused");
        assert!(e.field.starts_with(field), "{fabric}: {} ({e})", e.field);
    }
}

/// Eight senders on `sw1` in an incast at priority 3 onto `dst` behind `sw2`, and one flow from
/// `v` on `sw1` to `w` on `sw2` at priority `victim_prio`: the incast fills `sw2`'s buffer and
/// pauses `sw1 -> sw2`, which the victim flow crosses too.
fn victim(victim_prio: u8) -> Value {
    let mut nodes = vec![
        json!({"name": "sw1", "kind": "router"}),
        json!({"name": "sw2", "kind": "router"}),
        json!({"name": "dst", "kind": "host"}),
        json!({"name": "v", "kind": "host"}),
        json!({"name": "w", "kind": "host"}),
    ];
    let link = |a: &str, b: &str, rate: &str| json!({"a": a, "b": b, "rate": rate, "delay": "1us"});
    let mut links = vec![
        link("sw1", "sw2", "40Gbps"),
        link("dst", "sw2", "10Gbps"),
        link("v", "sw1", "10Gbps"),
        link("w", "sw2", "10Gbps"),
    ];
    let mut flows = Vec::new();
    for i in 0..8 {
        nodes.push(json!({"name": format!("s{i}"), "kind": "host"}));
        links.push(link(&format!("s{i}"), "sw1", "10Gbps"));
        flows.push(json!({"src": format!("s{i}"), "dst": "dst", "size": "2MB", "start": "0s"}));
    }
    json!({
        "duration": "1ms",
        "topology": {"kind": "graph", "nodes": nodes, "links": links},
        "transport": {"iw": 64, "mss": 1000, "min_rto": "1ms", "priority": 3},
        "transports": {"victim": {"priority": victim_prio}},
        "workload": [
            {"kind": "flows", "transport": "victim", "flows": [{"src": "v", "dst": "w", "size": "500KB", "start": "100us"}]},
            {"kind": "flows", "flows": flows},
        ],
        "fabric": {"buffer": "300KB"},
    })
}

#[test]
fn pause_stops_only_its_class_and_a_flow_of_another_class_crosses_the_paused_link() {
    let apart = common::run(victim(1));
    let together = common::run(victim(3));
    for w in [&apart, &together] {
        assert_eq!(w.counters.dropped_pkts, 0, "lossless");
        assert!(w.records.iter().all(|r| r.finish.is_some()));
        conserved(w);
    }
    // sw1 -> sw2 is link 0 (sw1's side of the first duplex pair): paused, class 3 only.
    let f = apart.fabric().unwrap();
    assert!(f.log.iter().any(|r| r.link == 0 && r.pause), "the incast pauses sw1 -> sw2");
    assert!(f.log.iter().all(|r| r.class == 3), "only the incast's class is paused");
    let port = apart.links[0].lossless().unwrap();
    assert!(port.class_paused_time(apart.now(), 3) > fctlab_core::units::Time::ZERO);
    assert_eq!(port.class_paused_time(apart.now(), 1), fctlab_core::units::Time::ZERO);
    // The victim's FCT: in a class of its own it crosses the paused link; in the incast's class
    // it waits behind the incast's packets and its pauses.
    // Nodes: sw1 0, sw2 1, dst 2, v 3, w 4.
    let fct = |w: &World| {
        let r = w.records.iter().find(|r| r.src == 3).unwrap();
        r.finish.unwrap() - r.start
    };
    // 500 KB at 10 Gb/s: 400 us of serialization at least.
    assert!(fct(&apart).as_secs_f64() < 0.6e-3, "apart: {}", fct(&apart));
    assert!(fct(&together).0 > fct(&apart).0 * 3, "together {} vs apart {}", fct(&together), fct(&apart));
}

/// Host `a` sends two DCQCN queue pairs at once, to `b` and `c`, each starting at the 10 Gb/s
/// line rate through its one 10 Gb/s NIC.
fn two_pairs(transport: Value, fabric: bool) -> Value {
    let nodes = ["a", "b", "c"].map(|n| json!({"name": n, "kind": "host"}));
    let mut nodes = nodes.to_vec();
    nodes.push(json!({"name": "sw", "kind": "router"}));
    let links: Vec<Value> =
        ["a", "b", "c"].iter().map(|h| json!({"a": h, "b": "sw", "rate": "10Gbps", "delay": "1us"})).collect();
    let mut base = json!({"protocol": "dcqcn", "queue_pair": true, "line_rate": "10Gbps", "mss": 1000});
    for (k, v) in transport.as_object().unwrap() {
        base[k] = v.clone();
    }
    let flows = [
        json!({"src": "a", "dst": "b", "size": "1MB", "start": "0s"}),
        json!({"src": "a", "dst": "c", "size": "1MB", "start": "0s"}),
    ];
    let mut s = json!({
        "duration": "1ms",
        "topology": {"kind": "graph", "nodes": nodes, "links": links},
        "queues": {"host": {"kind": "round_robin"}},
        "transport": base,
        "workload": [{"kind": "flows", "flows": flows}],
    });
    if fabric {
        s["fabric"] = json!({"buffer": "1MB"});
    }
    s
}

#[test]
fn a_pulled_queue_pair_keeps_one_packet_in_its_nic_and_a_pushed_one_piles_up() {
    let nic = |w: &World| w.links.iter().find(|l| l.from == 0).unwrap().stats.queue_max_bytes;
    let pushed = common::run(two_pairs(json!({}), true));
    let pulled = common::run(two_pairs(json!({"nic_pull": true}), true));
    for w in [&pushed, &pulled] {
        assert!(w.records.iter().all(|r| r.finish.is_some() && r.delivered == 1_000_000));
        conserved(w);
    }
    // Pushed: two flows at 10 Gb/s into one 10 Gb/s NIC, half of what they send waits there.
    assert!(nic(&pushed) > 200_000, "pushed: {} B in the NIC", nic(&pushed));
    // Pulled: at most one packet of each flow (and an ACK) waits.
    assert!(nic(&pulled) <= 3 * 1100, "pulled: {} B in the NIC", nic(&pulled));
    // The NIC is as busy either way: both finish 2 MB over 10 Gb/s in about 1.6 ms.
    let last = |w: &World| w.records.iter().map(|r| r.finish.unwrap()).max().unwrap().as_secs_f64();
    assert!((last(&pulled) - last(&pushed)).abs() < 0.05 * last(&pushed), "{} vs {}", last(&pulled), last(&pushed));
}

#[test]
fn nic_pull_is_refused_where_no_nic_can_pull() {
    let err = |s: Value| match fctlab_core::scenario::build(&s.to_string(), std::path::Path::new(".")) {
        Ok(_) => panic!("accepted: {s}"),
        Err(e) => e.to_string(),
    };
    let e = err(two_pairs(json!({"nic_pull": true}), false));
    assert!(e.contains("transport.nic_pull") && e.contains("[fabric]"), "{e}");
    let e = err(two_pairs(json!({"nic_pull": true, "queue_pair": false}), true));
    assert!(e.contains("transport.nic_pull") && e.contains("without queue_pair"), "{e}");
    let e = err(two_pairs(json!({"nic_pull": true, "protocol": "hpcc"}), true));
    assert!(e.contains("transport.nic_pull") && e.contains("rate-based"), "{e}");
}
