//! The flows table handed over in pieces while the run goes (`FlowStream`): the pieces, one
//! after the other, are exactly the table of the finished run, and they come as flows retire.

use fctlab_core::metrics::tables::{flow_table, FlowStream, FlowTable};
use fctlab_core::scenario::{self, RunInfo};
use fctlab_core::units::Time;
use fctlab_core::world::World;
use serde_json::{json, Value};
use std::path::Path;

fn build(s: &Value) -> (World, RunInfo) {
    scenario::build(&s.to_string(), Path::new(".")).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `s` in steps of `step`, taking the final rows after each; returns the world, its run
/// info, the pieces' concatenation and how many rows came before the run ended.
fn streamed(s: &Value, step: Time) -> (World, RunInfo, FlowTable, usize) {
    let (mut w, info) = build(s);
    let mut stream = FlowStream::default();
    let mut all = FlowTable::default();
    let mut t = Time::ZERO;
    let mut before_end = 0;
    loop {
        t += step;
        let done = w.run_until(t);
        let piece = stream.take(&w, &info);
        assert_eq!(piece.id.first().copied(), (!piece.is_empty()).then_some(all.len() as i64), "in id order");
        all.append(&piece);
        if done {
            break;
        }
        before_end = all.len();
    }
    assert_eq!(stream.taken(), w.records.len(), "every row is handed over once the run is over");
    assert!(stream.rest(&w, &info).is_empty());
    (w, info, all, before_end)
}

/// A dumbbell loaded to drops (retransmissions, timeouts: flows retire out of order), with
/// scheduled writers on part of the flows (`first_write_s`).
fn loaded() -> Value {
    json!({
        "seed": 3,
        "duration": "1s",
        "measure_from": "200ms",
        "topology": {"kind": "dumbbell", "hosts_per_side": 4, "bottleneck_rate": "100Mbps",
                     "bottleneck_delay": "5ms", "access_rate": "1Gbps"},
        "queues": {"router": {"kind": "droptail", "limit_packets": 20}},
        "transports": {"video": {"app": {"kind": "scheduled", "initial": "20KB", "chunk": "10KB", "interval": "5ms"}}},
        "workload": [
            {"kind": "poisson", "load": 0.8, "load_on": "bottleneck", "sizes": {"kind": "exponential", "mean": "30KB", "round_to": 1460},
             "mix": [{"transport": "video", "fraction": 0.2}]},
        ],
    })
}

#[test]
fn the_pieces_are_the_whole_table_and_come_as_flows_retire() {
    let (w, info, all, before_end) = streamed(&loaded(), Time::from_ms(20));
    let whole = flow_table(&w, &info);
    assert!(whole.len() > 300 && w.records.iter().any(|r| r.timeouts > 0), "a loaded run: {}", whole.len());
    assert!(whole.first_write_s.valid.zeros() < whole.len(), "some scheduled writers");
    assert_eq!(all, whole, "the pieces add up to the table of the finished run, value for value");
    assert!(before_end * 2 > whole.len(), "most rows come while the run goes: {before_end} of {}", whole.len());
}

#[test]
fn the_sender_hears_of_the_end_at_least_a_return_trip_after_the_receiver() {
    // acked_s is the last ACK's arrival: the reverse path's 5 ms + access delays after finish_s
    // at least, for every flow that completed before the run ended.
    let (w, info, _, _) = streamed(&loaded(), Time::from_ms(20));
    let t = flow_table(&w, &info);
    let mut both = 0;
    for i in 0..t.len() {
        if let (Some(finish), Some(acked)) = (t.finish_s.get(i), t.acked_s.get(i)) {
            let back = t.rtt_prop_s[i] / 2.0;
            assert!(acked - finish >= back - 1e-12, "flow {i}: acked {acked} finish {finish}, {back} back");
            both += 1;
        } else {
            assert!(t.acked_s.get(i).is_none(), "flow {i}: acknowledged without completing");
        }
    }
    assert!(both > 300, "{both} flows completed and were acknowledged");
}

#[test]
fn an_open_flow_holds_back_the_rows_after_it_until_the_end() {
    // Flow 0 is long-lived until 1.5 s (its row is final only then: at the end of the run).
    let mut s = loaded();
    s["workload"] = json!([
        {"kind": "long_lived", "flows": [{"src": "l0", "dst": "r0", "start": "0s", "stop": "1.5s"}]},
        {"kind": "poisson", "load": 0.3, "load_on": "bottleneck", "sizes": {"kind": "fixed", "size": 14600},
         "start": "1ms"},
    ]);
    s["duration"] = json!("2s");
    let (w, info, all, before_end) = streamed(&s, Time::from_ms(20));
    assert_eq!(before_end, 0, "nothing passes the open flow 0");
    assert_eq!(all, flow_table(&w, &info));
}

#[test]
fn the_table_takes_about_200_bytes_a_flow() {
    // Arrow buffers: 13 fixed-width columns of 8 bytes, text and paths as values plus offsets.
    let (w, info) = {
        let (mut w, info) = build(&loaded());
        w.run();
        (w, info)
    };
    let t = flow_table(&w, &info);
    let per_row = t.heap_bytes() as f64 / t.len() as f64;
    assert!(per_row < 220.0, "{per_row:.0} bytes a row");
}
