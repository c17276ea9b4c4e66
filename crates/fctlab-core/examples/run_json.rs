//! Runs a scenario given as a JSON file (as the Python package resolves it) and prints speed
//! figures; for profiling the core without Python. Usage: `run_json SCENARIO.json`.

use fctlab_core::scenario;
use std::path::Path;
use std::time::Instant;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: run_json SCENARIO.json");
        std::process::exit(2);
    };
    let json = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot read {path}: {e}");
            std::process::exit(2);
        }
    };
    let base = Path::new(&path).parent().unwrap_or(Path::new("."));
    let (mut world, _) = match scenario::build(&json, base) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let t0 = Instant::now();
    let mut t = fctlab_core::units::Time::ZERO;
    let mut max_pending = 0;
    while !world.run_until(t) {
        max_pending = max_pending.max(world.pending_events());
        t += fctlab_core::units::Time::from_ms(10);
    }
    if std::env::var_os("FCTLAB_DEBUG").is_some() {
        eprintln!("largest event queue seen: {max_pending}");
    }
    let wall = t0.elapsed().as_secs_f64();
    let hops = world.counters.packet_hops;
    println!(
        "sim {:.3} s, wall {:.3} s, {} events, {} packet-hops, {:.2} M hops/s, {:.2} sim s / wall s",
        world.now().as_secs_f64(),
        wall,
        world.events(),
        hops,
        hops as f64 / wall / 1e6,
        world.now().as_secs_f64() / wall
    );
}
