//! Runs a scenario given as a JSON file (as the Python package resolves it) and prints speed
//! figures; for profiling the core without Python.
//!
//! Usage: `run_json SCENARIO.json [--base DIR] [--max-hops N] [--build-only] [--json]`
//!
//! - `--base DIR`: the directory relative file names (flow lists, graph files) are read from;
//!   default: the directory of SCENARIO.json.
//! - `--max-hops N`: stop at the end of the first step after which at least N packet-hops
//!   were made, instead of running to the end (a shortened run whose length does not depend
//!   on the machine: `fctlab bench --instructions` counts it under cachegrind). A step is
//!   10 ms, or a hundredth of the arrival window if that is shorter (a loaded fabric makes
//!   millions of hops in 10 us).
//! - `--build-only`: build the scenario and stop before its first event (the instructions of
//!   the build, to subtract from a run's).
//! - `--json`: print the figures as one JSON object instead of the line of text.
//! - `--pcap FILE`: write the scenario's capture (`[output.pcap]`) to FILE; the wall time
//!   includes writing it (what docs/benchmark.md's capture figure measures).
//! - `--partitions N`, `--threads T`: run the world cut into N partitions on T threads
//!   (default: the scenario's `parallel` table, else one partition).
//! - `--stretch-ms MS`: the shortest stretch of windows over which a partitioned run measures
//!   parallel against solo windows (default 20; `docs/parallel.md`). A stretch longer than the
//!   run keeps every window parallel: how `docs/parallel.md` measures two threads against one.

use fctlab_core::scenario;
use fctlab_core::units::Time;
use fctlab_core::world::parallel::Engine;
use std::path::PathBuf;
use std::time::Instant;

const USAGE: &str =
    "usage: run_json SCENARIO.json [--base DIR] [--max-hops N] [--build-only] [--json] [--partitions N] [--threads T] [--stretch-ms MS] [--pcap FILE]";

struct Args {
    path: String,
    base: Option<PathBuf>,
    max_hops: Option<u64>,
    build_only: bool,
    json: bool,
    partitions: Option<usize>,
    threads: Option<usize>,
    pcap: Option<PathBuf>,
    stretch_ms: Option<u64>,
}

fn usage_error(msg: &str) -> ! {
    eprintln!("error: {msg}\n{USAGE}");
    std::process::exit(2);
}

fn parse_args() -> Args {
    let mut args = Args {
        path: String::new(),
        base: None,
        max_hops: None,
        build_only: false,
        json: false,
        partitions: None,
        threads: None,
        pcap: None,
        stretch_ms: None,
    };
    let mut it = std::env::args().skip(1);
    let mut path = None;
    while let Some(a) = it.next() {
        match a.as_str() {
            "--base" => match it.next() {
                Some(d) => args.base = Some(PathBuf::from(d)),
                None => usage_error("--base needs a directory"),
            },
            "--max-hops" => match it.next().map(|n| n.parse::<u64>()) {
                Some(Ok(n)) if n > 0 => args.max_hops = Some(n),
                _ => usage_error("--max-hops needs a whole number >= 1"),
            },
            "--partitions" => match it.next().map(|n| n.parse::<usize>()) {
                Some(Ok(n)) if n > 0 => args.partitions = Some(n),
                _ => usage_error("--partitions needs a whole number >= 1"),
            },
            "--threads" => match it.next().map(|n| n.parse::<usize>()) {
                Some(Ok(n)) if n > 0 => args.threads = Some(n),
                _ => usage_error("--threads needs a whole number >= 1"),
            },
            "--stretch-ms" => match it.next().map(|n| n.parse::<u64>()) {
                Some(Ok(n)) => args.stretch_ms = Some(n),
                _ => usage_error("--stretch-ms needs a whole number of milliseconds"),
            },
            "--pcap" => match it.next() {
                Some(f) => args.pcap = Some(PathBuf::from(f)),
                None => usage_error("--pcap needs a file name"),
            },
            "--build-only" => args.build_only = true,
            "--json" => args.json = true,
            _ if a.starts_with("--") => usage_error(&format!("unknown option {a}")),
            _ if path.is_none() => path = Some(a),
            _ => usage_error(&format!("one scenario file, got a second one: {a}")),
        }
    }
    match path {
        Some(p) => args.path = p,
        None => usage_error("no scenario file given"),
    }
    args
}

fn main() {
    let args = parse_args();
    let path = &args.path;
    let json = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot read {path}: {e}");
            std::process::exit(2);
        }
    };
    let base = args.base.clone().unwrap_or_else(|| {
        let parent = std::path::Path::new(path).parent().unwrap_or(std::path::Path::new("."));
        parent.to_path_buf()
    });
    let (world, info) = match scenario::build(&json, &base) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let partitions = args.partitions.unwrap_or(info.partitions);
    let threads = args.threads.or(info.threads).unwrap_or(partitions);
    let mut engine = match Engine::new(world, partitions, threads) {
        Ok(e) => match args.stretch_ms {
            Some(ms) => e.with_stretch(std::time::Duration::from_millis(ms)),
            None => e,
        },
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let t0 = Instant::now();
    if let Some(f) = &args.pcap {
        let started = match engine.world_mut() {
            Some(w) if w.capture_plan().is_some() => w.start_capture(f),
            _ => usage_error("--pcap needs a scenario with [output.pcap], run whole"),
        };
        if let Err(e) = started {
            eprintln!("error: cannot write {}: {e}", f.display());
            std::process::exit(1);
        }
    }
    let step = Time::from_ms(10).min(Time(engine.world().limits().duration.0 / 100).max(Time(1)));
    let mut t = Time::ZERO;
    let mut max_pending = 0;
    let mut finished = false;
    if !args.build_only {
        loop {
            if engine.run_until(t) {
                finished = true;
                break;
            }
            max_pending = max_pending.max(engine.world().pending_events());
            if args.max_hops.is_some_and(|n| engine.packet_hops() >= n) {
                break;
            }
            t += step;
        }
    }
    if let Some(Err(e)) = engine.world_mut().filter(|_| args.pcap.is_some()).map(|w| w.finish_capture()) {
        eprintln!("error: cannot write the capture: {e}");
        std::process::exit(1);
    }
    if let Some(fault) = engine.plugin_fault() {
        eprintln!("error: {fault}");
        std::process::exit(1);
    }
    if std::env::var_os("FCTLAB_DEBUG").is_some() {
        eprintln!("largest event queue seen: {max_pending}");
    }
    let wall = t0.elapsed().as_secs_f64();
    if let Some(s) = engine.parallel_stats().filter(|_| std::env::var_os("FCTLAB_DEBUG").is_some()) {
        eprintln!("{s:?}");
    }
    let hops = engine.packet_hops();
    let sim = engine.now().as_secs_f64();
    let world = engine.world();
    if args.json {
        let out = serde_json::json!({
            "sim_s": sim,
            "wall_s": wall,
            "events": world.events(),
            "packet_hops": hops,
            "finished": finished,
        });
        println!("{out}");
        return;
    }
    println!(
        "sim {:.3} s, wall {:.3} s, {} events, {} packet-hops, {:.2} M hops/s, {:.2} sim s / wall s",
        sim,
        wall,
        world.events(),
        hops,
        hops as f64 / wall / 1e6,
        sim / wall
    );
}
