//! Emulation: the simulator's endpoints and links driven in real time over real UDP sockets.
//!
//! The protocol code is sans-IO (endpoints take `(now, packet)` and return packets and a
//! timer), so the code validated in simulation runs unchanged here; only the driver differs.
//! An emulation is several processes (started by `fctlab emulate`, `python/fctlab/emulate/`):
//! one per host with flows, running that host's endpoints ([`host`]), and one router process
//! running every link and queue discipline of the topology ([`router`]), all on one run clock
//! ([`clock`]). They exchange datagrams in fctlab's wire format ([`wire`]) with the priority
//! band in the DSCP bits ([`sock`]), and take orders on standard input ([`control`]). At the
//! end the hosts' reports fill the router's flow records ([`report`]), so the result tables are
//! those of `fctlab run`.
//!
//! | module | what it holds |
//! |---|---|
//! | [`wire`] | the versioned datagram format; a decoder that refuses garbage, never panics |
//! | [`clock`] | run time from `CLOCK_MONOTONIC`, shared epoch, time scaling |
//! | [`sock`] | UDP sockets with DSCP priority; the `ppoll` wait |
//! | [`control`] | `start` / `stop` on standard input (end of file stops), event lines out |
//! | [`host`] | a host's endpoints in real time |
//! | [`router`] | the topology's links and queues in real time ([`fctlab_core::world::World`], hosts detached) |
//! | [`kernel`] | the kernel's own TCP as a host's endpoints (`stack = "linux"`) |
//! | [`kernel_ports`] | the ports that tell kernel TCP flows apart: the listening port, a source port per flow |
//! | [`kernel_link`] | what the router is told of each kernel TCP host (checked; JSON between processes) |
//! | [`raw`] | the router's packet socket: kernel TCP frames through the same links and queues |
//! | [`report`] | what each process reports; folding the hosts' reports into flow records |

pub mod clock;
pub mod control;
pub mod host;
pub mod kernel;
pub mod kernel_link;
pub mod kernel_ports;
pub mod raw;
pub mod report;
pub mod router;
pub mod sock;
pub mod wire;

/// Binds a process's socket (port 0: any) and prints `ready PORT` for the orchestrator.
pub fn bind(addr: std::net::SocketAddrV4) -> std::io::Result<sock::Sock> {
    let sock = sock::Sock::bind(addr)?;
    control::say(&format!("ready {}", sock.local_addr()?.port()));
    Ok(sock)
}
