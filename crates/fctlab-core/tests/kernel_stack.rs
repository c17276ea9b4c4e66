//! `stack = "linux"` in the scenario (crates/fctlab-core/src/scenario/stack.rs): which flows the
//! kernel runs, the fields it takes, and the simulation's refusal.

mod common;

use fctlab_core::scenario::{self, kernel_stacks, refuse_in_simulation, KernelStack};
use fctlab_core::world::Profile;
use serde_json::{json, Value};
use std::path::Path;

/// Flow 0 (l0 -> r0) on `transport`, flow 1 (l1 -> r1) on the named transport "kern".
fn two_flows(transport: Value, transports: Value) -> Value {
    let mut s = common::dumbbell(json!([]), transport, 100);
    s["transports"] = transports;
    s["workload"] = json!([
        {"kind": "flows", "flows": [{"src": "l0", "dst": "r0", "start": 0, "size": 1460}]},
        {"kind": "flows", "transport": "kern", "flows": [{"src": "l1", "dst": "r1", "start": 0, "size": 1460}]},
    ]);
    s
}

fn err(s: &Value) -> String {
    match scenario::build(&s.to_string(), Path::new(".")) {
        Ok(_) => panic!("expected an error for {s}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_named_kernel_transport_runs_only_its_flows_and_a_simulation_refuses_it() {
    let s = two_flows(json!({"cc": "cubic", "iw": 4}), json!({"kern": {"stack": "linux", "cc": "bbr"}}));
    let (w, info) = scenario::build(&s.to_string(), Path::new(".")).unwrap();
    assert!(w.kernel_stack(0).is_none(), "flow 0 uses fctlab's TCP");
    let k = w.kernel_stack(1).expect("flow 1 is the kernel's");
    // The kernel's transport is a profile of its own.
    assert!(matches!(&w.profiles()[w.plans()[1].profile], Profile::Kernel(p) if p == k));
    assert!(matches!(w.profiles()[w.plans()[0].profile], Profile::Tcp { .. }));
    // iw is inherited from [transport], as every field a named transport leaves out.
    assert_eq!(k, &KernelStack { cc: "bbr".into(), iw: Some(4), prio: 0, field: "transports.kern.stack".into() });
    assert_eq!(kernel_stacks(&w), vec![k.clone()]);
    assert_eq!(info.profile_labels, vec!["tcp-cubic-iw4".to_string(), "kern".to_string()]);
    let e = refuse_in_simulation(&w).unwrap_err().to_string();
    assert!(e.starts_with("field `transports.kern.stack`: stack = \"linux\" runs only in `fctlab emulate`"), "{e}");
}

#[test]
fn the_default_kernel_transport_is_labelled_by_its_cc_and_fctlab_worlds_pass() {
    let s =
        common::dumbbell(json!([{"src": "l0", "dst": "r0", "start": 0, "size": 1460}]), json!({"stack": "linux"}), 10);
    let (w, info) = scenario::build(&s.to_string(), Path::new(".")).unwrap();
    assert_eq!(w.kernel_stack(0).map(|k| (k.cc.as_str(), k.iw)), Some(("cubic", None)));
    assert_eq!(info.profile_labels[0], "linux-cubic");
    let s =
        common::dumbbell(json!([{"src": "l0", "dst": "r0", "start": 0, "size": 1460}]), json!({"stack": "fctlab"}), 10);
    assert!(refuse_in_simulation(&common::world(&s)).is_ok());
}

#[test]
fn kernel_fields_are_checked_and_fctlab_fields_refused() {
    let one = |t: Value| common::dumbbell(json!([{"src": "l0", "dst": "r0", "start": 0, "size": 1460}]), t, 10);
    let cases = [
        (json!({"stack": "linux", "cc": "bbr!"}), "field `transport.cc`: expected a kernel congestion control name"),
        (json!({"stack": "linux", "iw": 0}), "field `transport.iw`: expected 1 <= iw <= 1000 segments, got 0"),
        (json!({"stack": "linux", "mss": 9000}), "field `transport.mss`: expected 1460 (or unset)"),
        (json!({"stack": "linux", "protocol": "rc3"}), "field `transport.protocol`: expected \"tcp\""),
        (json!({"stack": "linux", "rwnd": "64KB"}), "field `transport.rwnd`: set, but stack = \"linux\" takes only"),
        (json!({"stack": "linux", "priority": 64}), "field `transport.priority`: expected a band <= 63"),
        (json!({"stack": "bsd"}), "transport.stack"),
        (
            json!({"cc": "bbr"}),
            "field `transport.cc`: expected \"newreno\", \"cubic\", \"dctcp\", \"pfabric\", \"swift\" or a plug-in",
        ),
    ];
    for (t, want) in cases {
        let e = err(&one(t.clone()));
        assert!(e.contains(want), "{t}: {e}");
    }
    // "newreno" is the kernel's "reno".
    let w = common::world(&one(json!({"stack": "linux", "cc": "newreno"})));
    assert_eq!(w.kernel_stack(0).unwrap().cc, "reno");
}
