//! How the flows of one transport are carried ([`Profile`]), and the application every flow of
//! it runs ([`AppTemplate`]): what a protocol's keys build ([`crate::protocol::keys`]) and the
//! world starts flows with.

use super::KernelStack;
use crate::transport::paced::PacedConfig;
use crate::transport::tcp::TcpConfig;
use crate::units::Time;

/// How the flows of one workload entry are carried.
// A run has one profile per transport, read when a flow starts: the paced variant's size (its
// TCP fallback and receiver configs) costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Profile {
    /// TCP with this configuration; `app` overrides the bulk application if set.
    Tcp { cfg: TcpConfig, app: Option<AppTemplate> },
    /// A paced, rate-based sender (RCP, fixed rate, ...); `rx` configures the (TCP) receiver
    /// that echoes the congestion header.
    Paced { cfg: PacedConfig, rx: TcpConfig, app: Option<AppTemplate> },
    /// The kernel's own TCP (`stack = "linux"`): only an emulation runs these flows, on real
    /// sockets (the `fctlab-emu` crate); a simulation refuses the world
    /// ([`crate::scenario::refuse_in_simulation`]). The build plans the flows (their timing,
    /// bursts, scripted drops) as [`KernelStack::planned_tcp`], and a world run without that
    /// check would run them as that TCP.
    Kernel(KernelStack),
}

impl Profile {
    /// Label for the flow table's `protocol` column.
    pub fn label(&self) -> String {
        match self {
            Profile::Tcp { cfg, .. } => cfg.label(),
            Profile::Paced { cfg, .. } => cfg.law.label(),
            Profile::Kernel(k) => format!("linux-{}", k.cc),
        }
    }

    /// The (payload, header) bytes of this profile's data packets: `mss`, and the headers on
    /// the wire its sender puts on each (its congestion header included; a paced sender's
    /// fallback to TCP sends fewer).
    pub fn packet_sizes(&self) -> (u32, u32) {
        match self {
            Profile::Tcp { cfg, .. } => (cfg.mss, cfg.header),
            Profile::Paced { cfg, .. } => (cfg.mss, cfg.header),
            Profile::Kernel(k) => {
                let cfg = k.planned_tcp();
                (cfg.mss, cfg.header)
            }
        }
    }

    /// The fewest bytes a packet of this profile's flows has on the wire: its smallest header
    /// (a pure ACK or a SYN has nothing else), whichever endpoint sends it, the TCP a paced
    /// sender falls back to included (its packets lack the congestion header). A partitioned
    /// run's lookahead rests on it ([`crate::world::parallel`]).
    pub fn smallest_packet(&self) -> u32 {
        match self {
            Profile::Tcp { cfg, .. } => cfg.header,
            Profile::Paced { cfg, rx, .. } => {
                let fallback = cfg.fallback.map_or(u32::MAX, |f| f.header);
                cfg.header.min(rx.header).min(fallback)
            }
            Profile::Kernel(k) => k.planned_tcp().header,
        }
    }

    /// The kernel stack that runs this profile's flows, if it is one.
    pub fn kernel_stack(&self) -> Option<&KernelStack> {
        match self {
            Profile::Kernel(k) => Some(k),
            Profile::Tcp { .. } | Profile::Paced { .. } => None,
        }
    }
}

/// An application shape applied to every flow of a profile.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum AppTemplate {
    /// `initial` bytes at start, then `chunk` every `interval`, up to the flow size.
    Scheduled { initial: u64, chunk: u64, interval: Time },
}
