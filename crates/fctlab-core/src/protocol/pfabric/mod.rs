//! pFabric (Alizadeh et al., "pFabric: Minimal Near-Optimal Datacenter Transport", SIGCOMM
//! 2013): packets carry their flow's remaining size as a priority, switches send and drop by
//! it, and the hosts' rate control is minimal.
//!
//! | part | file |
//! |---|---|
//! | header | `header.rs`: [`PFabricHeader`], the remaining bytes (forward only; a packet without it, an ACK or a SYN-ACK, has the highest priority) |
//! | switch | `switch.rs`: [`PFabricQueue`], send the earliest packet of the flow that holds the highest-priority packet, drop the lowest-priority packet on overflow (sec. 4.1) |
//! | host law (window) | `host.rs`: [`PFabric`], start at one BDP, no cut for SACK-detected losses, a timeout halves ssthresh and restarts from one segment, probe mode after five timeouts in a row (sec. 4.2) |
//! | queue kind | `kind.rs`: `queues.*.kind = "pfabric"` ([`PFabricKeys`], none of its own; the buffer is required) |
//! | scenario keys | `params.rs`: [`PFabricCcKeys`], `transport.cc = "pfabric"` (the table's `tcp_cc` row) with `iw` as the BDP window; no keys of its own, `hystart` and `ecn = true` refused |
//!
//! The SRPT ideal pFabric is measured against is in `crate::reference`.

pub mod header;
pub mod host;
pub mod kind;
pub mod params;
pub mod switch;

pub use header::PFabricHeader;
pub use host::{PFabric, PFabricConfig};
pub use kind::PFabricKeys;
pub use params::PFabricCcKeys;
pub use switch::PFabricQueue;
