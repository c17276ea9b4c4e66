//! JetMax (Zhang, Leonard, Loguinov; seed 003): routers offer the fair rate of the flows
//! bottlenecked at them; hosts close 60% of the gap to the smallest offer every RTT.
//!
//! | part | file |
//! |---|---|
//! | header | `header.rs`: RT, RS, rate, IPI forward; RS and the rate echoed back; wire encoding |
//! | router law | `router.rs`: [`JetMaxLaw`] (seed 003 eq. 4) |
//! | host law (rate) | `host.rs`: [`JetMaxHost`] (seed 003 eq. 3) |
//! | queue kind | `kind.rs`: `queues.*.kind = "jetmax"`, its keys the router's parameters ([`JetMaxParams`]) |
//! | scenario keys | `transport.protocol = "jetmax"` (`params.rs`) |
//! | metrics | `jetmax_rate_bps`, `jetmax_flows` |

pub mod header;
pub mod host;
pub mod kind;
pub mod params;
pub mod router;

pub use host::{JetMaxConfig, JetMaxHost};
pub use params::JetMaxKeys;
pub use router::{JetMaxLaw, JetMaxParams};
