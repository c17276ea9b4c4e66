//! PIQI-RCP (Jain and Loguinov, IWQoS 2007; seed 003): a PI controller of the router's input
//! rate against a virtual capacity, and hosts that follow it once per router interval.
//!
//! | part | file |
//! |---|---|
//! | header | `header.rs`: rate, interval number, router id, both ways; wire encoding |
//! | router law | `router.rs`: [`PiqiLaw`] (seed 003 eq. 6) |
//! | host law (rate) | `host.rs`: [`PiqiHost`] (seed 003 eqs. 7-8) |
//! | queue kind | `kind.rs`: `queues.*.kind = "piqi"`, its keys the router's parameters ([`PiqiParams`]) |
//! | scenario keys | `transport.protocol = "piqi"` (`params.rs`) |
//! | metrics | `piqi_rate_bps` |

pub mod header;
pub mod host;
pub mod kind;
pub mod params;
pub mod router;

pub use host::{PiqiConfig, PiqiHost};
pub use params::PiqiKeys;
pub use router::{PiqiLaw, PiqiParams};
