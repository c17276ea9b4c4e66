//! Emulation in one process: the router and each host on its own thread, real UDP sockets on
//! loopback, real time. Flows must complete, and their FCTs must match the simulation's.

#[path = "../../fctlab-core/tests/common/mod.rs"]
mod common;

use fctlab_core::world::World;
use fctlab_emu::bind;
use fctlab_emu::clock::monotonic_ns;
use fctlab_emu::control::Control;
use fctlab_emu::host::{run_host, HostConfig};
use fctlab_emu::report::{absorb, HostReport, RouterReport};
use fctlab_emu::router::{run_router, RouterConfig};
use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::fd::RawFd;
use std::thread;

fn pipe() -> (RawFd, RawFd) {
    let mut fds = [0; 2];
    // SAFETY: fds has room for two descriptors.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    (fds[0], fds[1])
}

fn send(fd: RawFd, s: &str) {
    // SAFETY: a live buffer of the length given.
    let n = unsafe { libc::write(fd, s.as_ptr() as *const libc::c_void, s.len()) };
    assert_eq!(n as usize, s.len());
}

/// Emulates `json` for `wall_s` seconds; returns the router's world with the hosts' records
/// folded in, and the reports.
fn emulate(json: &serde_json::Value, wall_s: f64) -> (World, RouterReport, Vec<HostReport>) {
    let lo = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0);
    let world = common::world(json);
    let mut hosts: Vec<u32> = world.plans().iter().flat_map(|p| [p.src as u32, p.dst as u32]).collect();
    hosts.sort();
    hosts.dedup();
    let router_sock = bind(lo).unwrap();
    let router_addr = router_sock.local_addr().unwrap();
    let mut host_addrs = Vec::new();
    let mut threads = Vec::new();
    let mut controls = Vec::new();
    for &node in &hosts {
        let sock = bind(lo).unwrap();
        host_addrs.push((node, sock.local_addr().unwrap()));
        let (r, w) = pipe();
        controls.push(w);
        let json = json.clone();
        threads.push(thread::spawn(move || {
            let world = common::world(&json);
            let cfg = HostConfig { node, router: router_addr, scale: 1.0, max_wall_s: wall_s + 5.0, peers: Vec::new() };
            run_host(&world, sock, cfg, &mut Control::new(r)).unwrap()
        }));
    }
    let (r, w) = pipe();
    let cfg =
        RouterConfig { bind: lo, hosts: host_addrs, scale: 1.0, max_wall_s: wall_s + 5.0, kernel_links: Vec::new() };
    let router = thread::spawn(move || {
        let mut world = world;
        let report = run_router(&mut world, router_sock, cfg, &mut Control::new(r)).unwrap();
        (world, report)
    });
    let start = format!("start {}\n", monotonic_ns() + 50_000_000);
    for &c in controls.iter().chain([&w]) {
        send(c, &start);
    }
    thread::sleep(std::time::Duration::from_secs_f64(wall_s + 0.05));
    for &c in &controls {
        send(c, "stop\n");
    }
    let reports: Vec<HostReport> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    send(w, "stop\n");
    let (mut world, report) = router.join().unwrap();
    for r in &reports {
        absorb(&mut world, r).unwrap();
    }
    (world, report, reports)
}

/// Single flows of 1 to 100 segments, one after another, on a 10 Mb/s x 20 ms dumbbell.
fn single_flows(transport: serde_json::Value) -> serde_json::Value {
    let flows: Vec<_> = [1, 10, 100]
        .iter()
        .enumerate()
        .map(|(i, segs)| serde_json::json!({"src": "l0", "dst": "r0", "start": format!("{}s", 0.5 * i as f64), "size": segs * 1460}))
        .collect();
    serde_json::json!({
        "seed": 3,
        "duration": "2s",
        "topology": {"kind": "dumbbell", "hosts_per_side": 1, "bottleneck_rate": "10Mbps",
                     "bottleneck_delay": "10ms", "access_rate": "100Mbps", "access_delay": "0s"},
        "queues": {"router": {"kind": "droptail", "limit_packets": 100}},
        "transport": transport,
        "workload": [{"kind": "flows", "flows": flows}],
    })
}

fn compare(transport: serde_json::Value) {
    compare_json(single_flows(transport));
}

fn compare_json(json: serde_json::Value) {
    let sim = common::run(json.clone());
    let (emu, router, hosts) = emulate(&json, 1.6);
    assert_eq!(router.bad_datagrams, 0);
    for h in &hosts {
        assert_eq!((h.bad_datagrams, h.lost_sends), (0, 0), "host {}", h.node);
    }
    // The FCTs match within 5% whenever the processes kept up with real time; on a loaded
    // machine they may not, and then their reports must say so (never a silent distortion).
    let behind = router.late_1ms > 0
        || router.late_arrivals > 0
        || hosts.iter().any(|h| h.max_timer_lag_ps > 1_000_000_000 || h.max_start_lag_ps > 1_000_000_000);
    for (f, (s, e)) in sim.records.iter().zip(&emu.records).enumerate() {
        let (s_fct, e_fct) =
            (s.fct().unwrap().as_secs_f64(), e.fct().expect("the emulated flow completed").as_secs_f64());
        eprintln!("flow {f}: emu {e_fct:.6} sim {s_fct:.6}");
        assert!(
            (e_fct - s_fct).abs() <= 0.05 * s_fct || behind,
            "flow {f}: emulated FCT {e_fct:.6} s, simulated {s_fct:.6} s, and no process reported falling behind"
        );
        assert_eq!(e.delivered, s.size.unwrap(), "the receiver learnt the end from the FIN");
    }
}

#[test]
fn tcp_flows_complete_in_emulation_as_in_simulation() {
    compare(serde_json::json!({"cc": "newreno", "iw": 4}));
}

#[test]
fn sequence_numbers_wrap_on_the_wire() {
    // A seed whose flow 1 (146 KB) starts 50 KB below 2^32 in the 32-bit sequence space: its
    // segments, ACKs and SACK blocks cross the wrap on the wire.
    let seed = (0..1_000_000u64)
        .find(|&s| fctlab_emu::wire::isn(1, s).wrapping_add(100_000) < 100_000 - 50_000)
        .expect("some seed puts the ISN just below the wrap");
    let isn = fctlab_emu::wire::isn(1, seed) as u64;
    assert!(isn + 146_000 > 1 << 32 && isn < 1 << 32);
    let mut json = single_flows(serde_json::json!({"cc": "newreno", "iw": 4}));
    json["seed"] = seed.into();
    compare_json(json);
}
