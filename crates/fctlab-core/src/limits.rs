//! The largest values a scenario may hold, and the run's memory estimate, in one place
//! (docs/scenario.md, "Limits", lists them).
//!
//! Times are u64 picoseconds (2^64 ps is about 213 days), rates u64 bit/s, sizes u64 bytes,
//! segment indices u32. Each bound keeps a value, and the sums the build and the event loop make
//! of valid values, inside its integer: a value beyond a bound is refused where it is parsed,
//! naming the field, never saturated or wrapped. Memory is bounded the same way: [`Memory`]
//! adds up what a run will allocate in proportion to user numbers (flows, series rows, RC3's
//! low-priority burst) before anything is allocated, and refuses more than [`MAX_RUN_MEMORY`].

use crate::error::{SpecError, SpecResult};
use crate::units::{Rate, Time};

/// Longest time any field may give: 10^6 s (11.6 days). The event loop adds a few such times
/// (`max_time` = duration + 300 s, a timer at now + RTO, an arrival at now + serialization +
/// delay): with every term at most this, such sums stay below 2^64 ps with room to spare.
pub const MAX_TIME: Time = Time::from_secs(1_000_000);
/// [`MAX_TIME`] as messages write it.
pub const MAX_TIME_SHOWN: &str = "1e6 s (11.6 days)";

/// Fastest rate any field may give: 10^15 bit/s (1 Pb/s), far below 2^63 (the results' signed
/// 64-bit `rate_bps` column).
pub const MAX_RATE: Rate = Rate(1_000_000_000_000_000);
/// [`MAX_RATE`] as messages write it.
pub const MAX_RATE_SHOWN: &str = "1e15 bit/s (1000 Tbps)";

/// Largest size any byte field may give: 10^15 bytes (1 PB).
pub const MAX_BYTES: u64 = 1_000_000_000_000_000;
/// [`MAX_BYTES`] as messages write it.
pub const MAX_BYTES_SHOWN: &str = "1e15 B (1 PB)";

/// Largest payload per segment (`mss`): 1 MiB.
pub const MAX_MSS: u64 = 1 << 20;

/// Largest header per packet (`header`): 64 KiB. A packet's wire size (mss + header) is a u32,
/// and its serialization at 1 bit/s (8.9e6 s) plus a time and a delay stays below 2^64 ps.
pub const MAX_HEADER: u64 = 1 << 16;

/// Most segments one flow may have: segment indices are u32 (the SACK scoreboard, RC3's
/// low-priority loop), so a flow holds at most 2^32 - 1 segments (6.27 TB at MSS 1460).
pub const MAX_FLOW_SEGMENTS: u64 = u32::MAX as u64;

/// Most nodes one topology may have: far beyond any study here, low enough that a typo in a
/// count is an error rather than an out-of-memory abort.
pub const MAX_NODES: u64 = 1 << 20;

/// Most flows one open-loop workload entry may generate (expected count, and a hard stop while
/// generating): more is a mistake (a rate in bits/s given as flows/s, say).
pub const MAX_FLOWS_PER_ENTRY: f64 = 20e6;

/// Most writes the scheduled applications of one run may make (`app = { kind = "scheduled" }`:
/// the initial write, then one per `chunk` of the rest of each flow). Each write is an event of
/// the run, and usually a segment of its own: 10^9 of them take many minutes, more is a mistake
/// (a chunk of a few bytes, say) rather than a study.
pub const MAX_APP_WRITES: u64 = 1_000_000_000;

/// Largest estimated memory of one run: 16 GiB.
pub const MAX_RUN_MEMORY: u64 = 16 << 30;

/// Estimated bytes per flow over a run's life: its plan, record and state slot in the core (200
/// bytes: `metrics/flows.rs`), then its row of the flows table as Arrow columns and in polars
/// (measured: about 500 bytes at the peak of an in-memory run of 10^6 one-packet flows, results
/// included; a streamed run, `fctlab run -o`, holds less).
pub const BYTES_PER_FLOW: u64 = 640;

/// Estimated bytes per flow open at once, beyond [`BYTES_PER_FLOW`]: its sender and receiver
/// (window, scoreboard, timers) and the packets of its window waiting in queues (measured: about
/// 1.7 KB a flow on a leaf-spine whose spine links are offered thousands of times what they
/// carry, 2.5 x 10^5 and 5 x 10^5 flows all open at the end; [`backlogged_share`]).
pub const BYTES_PER_OPEN_FLOW: u64 = 2048;

/// The share of the flows crossing a link that are still open when the arrivals end, from the
/// bits they offer it and the bits it can carry meanwhile: none while it can carry them all,
/// else the backlog's share, 1 - capacity / offered (a link offered ten times its capacity
/// leaves nine tenths of the work, spread over its flows, to after the last arrival). The
/// number of flows open at once is what a run holds the live state of ([`BYTES_PER_OPEN_FLOW`]):
/// counting the flows alone misses that flows which arrive faster than the network serves them
/// are all open together (2.5 x 10^6 flows of a 2 ms run took 6 GB, not the 1.6 GB their count
/// gives).
pub fn backlogged_share(offered_bits: f64, capacity_bits: f64) -> f64 {
    if offered_bits > capacity_bits {
        (1.0 - capacity_bits / offered_bits).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Estimated bytes per row of the time series, core and Python (measured: about 370).
pub const BYTES_PER_SERIES_ROW: u64 = 400;

/// Estimated bytes per segment a flow queues at its host at once (RC3's low-priority loop sends
/// every segment of a write at once, any window its initial window): each is a packet queued at
/// the host at the same moment (measured: 290).
pub const BYTES_PER_QUEUED_SEGMENT: u64 = 320;

/// Estimated bytes per directed link over a run's life: its port, counters and in-flight list
/// in the core (`Link`: 464 B), its description, its row of the links table in Python, and its
/// node's share (measured: an Internet-2 of 10^6 hosts, 2 x 10^6 links, peaks at 3.0 GB of
/// address space beyond the interpreter's, results included).
pub const BYTES_PER_LINK: u64 = 1536;

/// Estimated bytes per node: its name, kind, routing and attachment entries.
pub const BYTES_PER_NODE: u64 = 128;

/// Bytes per routing-table entry (destination group x node): a u32, plus a margin for the
/// distinct lists of equal-cost next hops, stored once each (see `routing.rs`, "Memory").
pub const BYTES_PER_ROUTE_ENTRY: u64 = 8;

/// Estimated bytes per directed link in each partition of a partitioned run: the partition
/// holds its own links whole and a stand-in for every other (a `Link` is 320 bytes), so that
/// link ids index its array as they index the whole network's (measured: 55 MB per partition of
/// a leaf-spine of 90,000 hosts, 180,072 links).
pub const BYTES_PER_PARTITION_LINK: u64 = 336;

/// Estimated bytes per node in each partition: its copy of the host flags and the routing
/// table's per-node entries.
pub const BYTES_PER_PARTITION_NODE: u64 = 48;

/// Estimated bytes per planned flow in each partition: its copy of the plan (72 bytes), the
/// record (120), the packet counts (24) and the state slot (8).
pub const BYTES_PER_PARTITION_FLOW: u64 = 256;

/// Counts what a run cut into `partitions` partitions holds on top of the whole network: each
/// partition's copy of the links, nodes and flows ([`BYTES_PER_PARTITION_LINK`], ...). Nothing
/// for one partition, which is the whole network.
pub fn partition_memory(memory: &mut Memory, partitions: u64, links: u64, nodes: u64, flows: u64) {
    if partitions <= 1 {
        return;
    }
    let each = links
        .saturating_mul(BYTES_PER_PARTITION_LINK)
        .saturating_add(nodes.saturating_mul(BYTES_PER_PARTITION_NODE))
        .saturating_add(flows.saturating_mul(BYTES_PER_PARTITION_FLOW));
    memory.add(
        "parallel.partitions",
        format!(
            "{partitions} partitions, each with its copy of the {links} links, {nodes} nodes and {flows} flows \
             ({} each),",
            gib(each)
        ),
        partitions,
        each,
    );
}

/// A time field's value, refused beyond [`MAX_TIME`]; `shown` is the value as the user wrote it.
pub fn check_time(secs: f64, shown: &str) -> Result<Time, String> {
    if secs > MAX_TIME.as_secs_f64() {
        return Err(format!("expected a duration <= {MAX_TIME_SHOWN}, got {shown}"));
    }
    Ok(Time::from_secs_f64(secs))
}

/// A number as messages show it: plain, or in exponent form when very large or very small
/// (Rust's plain form of 1e300 has 301 digits).
pub fn shown(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-6..1e16).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// The memory a run will allocate in proportion to user numbers, by the field responsible.
#[derive(Debug, Default)]
pub struct Memory {
    parts: Vec<(String, String, u64)>,
}

impl Memory {
    /// Nothing counted yet.
    pub fn new() -> Memory {
        Memory::default()
    }

    /// Counts `count` items of `bytes_each`, caused by `field`; `what` says what they are.
    pub fn add(&mut self, field: impl Into<String>, what: impl Into<String>, count: u64, bytes_each: u64) {
        self.parts.push((field.into(), what.into(), count.saturating_mul(bytes_each)));
    }

    /// Estimated bytes in all.
    pub fn total(&self) -> u64 {
        self.parts.iter().fold(0u64, |t, p| t.saturating_add(p.2))
    }

    /// Refuses an estimate beyond [`MAX_RUN_MEMORY`], or beyond what this process can still
    /// allocate ([`allocatable`]), naming the field of the largest part.
    pub fn check(&self) -> SpecResult<()> {
        self.check_within(allocatable())
    }

    /// [`Memory::check`] against a given allocatable amount (None: no machine bound).
    fn check_within(&self, machine: Option<(u64, String)>) -> SpecResult<()> {
        let total = self.total();
        let (bound, why) = match machine {
            Some((bytes, why)) if bytes < MAX_RUN_MEMORY => (bytes, format!(" ({why})")),
            _ => (MAX_RUN_MEMORY, String::new()),
        };
        if total <= bound {
            return Ok(());
        }
        let Some((field, what, bytes)) = self.parts.iter().max_by_key(|p| p.2) else { return Ok(()) };
        Err(SpecError::new(
            field.clone(),
            format!(
                "{what} would take about {} of memory ({} for the whole run); expected at most {} per run{why}",
                gib(*bytes),
                gib(total),
                gib(bound)
            ),
        ))
    }
}

/// What this process can still allocate, and why, where the machine says: the room left under
/// its address-space limit (`RLIMIT_AS`, as `ulimit -v` sets it: beyond it an allocation fails
/// and the process aborts), or the system's available memory (`MemAvailable`: beyond it the
/// kernel's OOM killer ends the process), whichever is less. None where neither is known.
pub fn allocatable() -> Option<(u64, String)> {
    let mut bounds: Vec<(u64, String)> = Vec::new();
    if let Some(room) = address_space_room() {
        bounds.push(room);
    }
    if let Some(avail) = meminfo_available() {
        bounds.push((avail, format!("the {} of memory the system has available", gib(avail))));
    }
    bounds.into_iter().min_by_key(|b| b.0)
}

/// The room left under `RLIMIT_AS`: the limit less the address space in use.
fn address_space_room() -> Option<(u64, String)> {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given and reads nothing else.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } != 0 || lim.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().next()?.parse().ok()?;
    // SAFETY: sysconf reads a constant of the system.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
    let limit: u64 = lim.rlim_cur;
    let room = limit.saturating_sub(pages * page);
    Some((
        room,
        format!("the {} this process may still map under its address-space limit of {}", gib(room), gib(limit)),
    ))
}

/// `MemAvailable` of /proc/meminfo, in bytes.
fn meminfo_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Bytes as GiB for messages.
fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_of_bounded_times_fit_the_clock() {
        // max_time (duration + 300 s) + a timer of MAX_TIME + the slowest packet's serialization
        // (mss + header at 1 bit/s) + a MAX_TIME delay.
        let slowest = Rate(1).tx_time(MAX_MSS + MAX_HEADER);
        let sum = [MAX_TIME, Time::from_secs(300), MAX_TIME, slowest, MAX_TIME]
            .iter()
            .try_fold(0u64, |t, x| t.checked_add(x.ps()));
        assert!(sum.is_some());
        assert!((MAX_MSS + MAX_HEADER) <= u32::MAX as u64);
    }

    #[test]
    fn numbers_are_shown_short() {
        assert_eq!(shown(1e300), "1e300");
        assert_eq!(shown(9223372036854775808.0), "9.223372036854776e18");
        assert_eq!(
            (shown(1500.0), shown(0.25), shown(-3.0), shown(f64::NAN)),
            ("1500".into(), "0.25".into(), "-3".into(), "NaN".into())
        );
    }

    #[test]
    fn the_estimate_names_the_largest_part() {
        let mut m = Memory::new();
        m.add("workload[0]", "1000 flows", 1000, BYTES_PER_FLOW);
        assert!(m.check().is_ok());
        m.add("output.series.interval", "1e12 series rows", 1_000_000_000_000, BYTES_PER_SERIES_ROW);
        let e = m.check_within(None).unwrap_err();
        assert_eq!(e.field, "output.series.interval");
        assert!(e.message.contains("1e12 series rows would take about 372529.0 GiB"), "{e}");
        assert!(e.message.contains("expected at most 16.0 GiB per run"), "{e}");
    }

    /// Partitions multiply the links, nodes and flows each holds: 9 partitions of a leaf-spine
    /// of 900,000 hosts (1.8 M links) need about 5.4 GiB beyond the whole network, refused under
    /// a 3 GiB limit, naming `parallel.partitions` (they aborted on an allocation).
    #[test]
    fn partitions_count_their_copies_of_the_network() {
        let mut m = Memory::new();
        partition_memory(&mut m, 1, 1_800_072, 900_013, 9);
        assert_eq!(m.total(), 0, "one partition is the whole network");
        partition_memory(&mut m, 9, 1_800_072, 900_013, 9);
        let each =
            1_800_072 * BYTES_PER_PARTITION_LINK + 900_013 * BYTES_PER_PARTITION_NODE + 9 * BYTES_PER_PARTITION_FLOW;
        assert_eq!(m.total(), 9 * each);
        let e = m.check_within(Some((3 << 30, "a 3 GiB limit".into()))).unwrap_err();
        assert_eq!(e.field, "parallel.partitions");
        assert!(e.message.contains("9 partitions, each with its copy of the 1800072 links"), "{e}");
        assert!(e.message.contains("(0.6 GiB each), would take about 5.4 GiB"), "{e}");
    }

    #[test]
    fn a_link_offered_more_than_it_carries_leaves_the_surplus_open() {
        assert_eq!(backlogged_share(0.0, 0.0), 0.0);
        assert_eq!(backlogged_share(5e9, 10e9), 0.0, "below capacity: nothing left");
        assert_eq!(backlogged_share(10e9, 10e9), 0.0);
        assert!((backlogged_share(40e9, 10e9) - 0.75).abs() < 1e-12);
        assert_eq!(backlogged_share(1.0, 0.0), 1.0, "flows all starting at once");
    }

    #[test]
    fn the_machine_can_lower_the_bound_and_says_why() {
        let mut m = Memory::new();
        m.add("workload[0]", "1000000 flows", 1_000_000, BYTES_PER_FLOW);
        assert!(m.check_within(None).is_ok());
        assert!(m.check_within(Some((64 << 30, "plenty".into()))).is_ok(), "a larger machine bound changes nothing");
        let e = m.check_within(Some((1 << 29, "the 0.5 GiB left".into()))).unwrap_err();
        assert!(e.message.contains("expected at most 0.5 GiB per run (the 0.5 GiB left)"), "{e}");
        // This machine knows its available memory.
        let (bytes, why) = allocatable().expect("Linux reports MemAvailable");
        assert!(bytes > 0 && why.contains("GiB"), "{why}");
    }
}
