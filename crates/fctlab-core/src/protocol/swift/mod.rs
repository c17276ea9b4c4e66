//! Swift (Kumar et al., "Swift: Delay is Simple and Effective for Congestion Control in the
//! Datacenter", SIGCOMM 2020): AIMD on the measured delay against a target delay that grows
//! with the path's hops and as the window shrinks, with pacing below one packet.
//!
//! | part | file |
//! |---|---|
//! | host law (window and pacing delay) | `host.rs`: [`Swift`], Algorithm 1 over fctlab's TCP; the fabric delay is the ACK's RTT sample |
//! | target delay | `target.rs`: [`TargetDelay`], sec. 3.5's base, topology-based and flow-based scaling |
//! | router | none: any queue (the delay is the signal) |
//! | header | none |
//! | scenario keys | `params.rs`: [`SwiftKeys`], `swift_*` under `transport.cc = "swift"` (the table's `tcp_cc` row), ECN off, no slow start |
//! | metrics | `swift_target_s` (per flow) |
//!
//! What differs from the paper: fctlab has no NIC or host delay, so there is no endpoint
//! delay and no endpoint window (ecwnd); the hop count is a scenario key (`swift_hops`), as
//! fctlab's packets carry no TTL; the TCP window loop below it repairs losses with SACK and
//! times out with RFC 6298's RTO.

pub mod host;
pub mod params;
pub mod target;
#[cfg(test)]
mod tests;

pub use host::{Swift, SwiftConfig};
pub use params::SwiftKeys;
pub use target::TargetDelay;
