//! # fctlab-core: a deterministic packet-level simulator for flow-completion-time studies
//!
//! Module map (read top-down; each file is one concern):
//!
//! | module | what it holds |
//! |---|---|
//! | [`units`] | `Time` (integer picoseconds), `Rate` (bits/s): the only numbers the event loop sees |
//! | [`quantity`] | scenario quantities with units (`"10Gbps"`, `"40ms"`, `"5MB"`) |
//! | [`error`] | `SpecError`: user errors naming the field, the value and what was expected |
//! | [`limits`] | the largest values a scenario may hold, and the run's memory estimate |
//! | [`rng`] | xoshiro256++ streams, one per consumer, derived from the scenario seed |
//! | [`workload`] | flow sizes (`sizes`), arrival processes (`arrivals`), host pairs, flow lists |
//! | [`topology`] | dumbbell, parking lot, Internet-2 (RC3), fat-tree, graphs from files; host groups |
//! | [`routing`] | static shortest paths (delay, then hops), optional ECMP by flow hash; dense tables, or sparse rows on large graphs |
//! | [`sched`] | the event queue: (time, insertion order), FIFO among ties; a partition's imported arrivals first, by (time, link); link events in a 4-ary heap (`quad`) while few are pending, on a timing wheel (`wheel`) while many are (`near`), timers in a radix heap (`radix`) |
//! | [`net`] | `Packet` (one `Copy` struct, carrying the registry's `CongestionHeader`) and `Link` (queue + serializer + propagation) |
//! | [`plan`] | what a build passes down to the layers below the scenario: a transport's `Profile` (and the `Common` TCP part and `ProtocolKeys` a protocol builds it from), flow plans, run limits, `KernelStack`, `RunInfo`; the scenario layer fills them in, and nothing imports the scenario layer |
//! | [`protocol`] | the protocol registry, one folder per protocol (`newreno/`, `cubic/`, `rc3/`, `rcp/`, `rtcp/`, `xcp/`, `jetmax/`, `piqi/`): each its host law, router law, header and scenario keys, joined to the rest by `protocol/mod.rs` and its table `protocol/registry.rs` (one row per protocol, which generates the header enum, the router laws, the protocols' own queue disciplines, the info rows, the host laws' lists (`protocol/hosts.rs`: `Controller`, `RateLaw` and their configs) and the `protocol = "..."` values (`protocol/keys.rs`)) |
//! | [`plugin`] | protocols outside fctlab: a host law or router law loaded when a scenario names it (`rust:PATH`, a library against the `fctlab-plugin` crate; `python:FILE:CLASS`, through the Python front), registered as `Controller::Plugin` and `Law::Plugin`; a failing hook stops the run with a fault naming the plug-in, hook, flow and time |
//! | [`qdisc`] | queue disciplines, the router plug-in: drop-tail, strict priority, deficit round robin (`drr`), explicit-feedback FIFOs run by a protocol's router law (`explicit`; `law`: the interface), and a protocol's own discipline (`Qdisc::Protocol`, from the registry); each discipline's scenario keys beside it (`<kind>_keys.rs`), checked there, and `KindKeys` (`kind_keys.rs`), which a protocol's queue kind's keys implement in its folder; `cost`, the per-packet cost micro-benchmark of each law |
//! | [`transport`] | sans-IO endpoints: the connection core both senders share (`conn/`: handshake, scoreboard, RTO, what to retransmit, go-back-N's step back), the TCP window loop and receiver (`tcp/`, with its one plug-in, RC3's loop), the window host law's interface (`cc/`), the paced loop of rate-based senders and the rate host law's interface (`paced/`), applications |
//! | [`world`] | the event loop: hosts hand packets to endpoints, routers forward; `world::parallel` runs it cut into partitions on several threads (`world/partition.rs` chooses the cut, `world/pool.rs` keeps the threads for the run, `world/adapt.rs` chooses between windows on every thread and on one, `world/window.rs` is the step they all decide alike, `world/barrier.rs` is where they meet); `world::stall`, a run in which nothing can happen any more while flows are open |
//! | [`scenario`] | the one scenario schema and the build from spec to `World`, one file per concern: queues, transports, the flow plan, losses, outputs (`scenario/`); the top layer, which only the crate's users import |
//! | [`metrics`] | flow records, link counters, time series, result tables |
//! | [`capture`] | `[output.pcap]`: the packets links deliver as a pcapng file, with Ethernet/IPv4/TCP headers and the explicit protocols' shim |
//! | [`reference`] | idealized references computed without packets: processor sharing (`ps`, the max-min fluid; `local`, the same by local fills, for estimates) and pFabric's greedy SRPT ideal (`srpt`) |
//!
//! How a run flows: scenario JSON -> [`scenario::parse`] -> [`scenario::build_spec`]
//! (topology, routes, queues, flow plans) -> [`world::World::run_until`] -> tables (or, with a
//! `parallel` table, [`world::parallel::Engine`], which drives the world whole or partitioned).
//!
//! This crate only simulates. Emulation, the same endpoints and queue disciplines in real time
//! over UDP sockets (wire format, host and router processes, the kernel's TCP), is the
//! `fctlab-emu` crate, which drives a [`world::World`] through its public methods
//! (`detach_hosts`, `inject`, `advance`, `take_egress`); the Python bindings are `fctlab-py`.

pub mod capture;
pub mod error;
pub mod limits;
pub mod metrics;
pub mod net;
pub mod plan;
pub mod plugin;
pub mod protocol;
pub mod qdisc;
pub mod quantity;
pub mod reference;
pub mod rng;
pub mod routing;
pub mod scenario;
pub mod sched;
pub mod spec_de;
pub mod topology;
pub mod transport;
pub mod units;
pub mod workload;
pub mod world;
