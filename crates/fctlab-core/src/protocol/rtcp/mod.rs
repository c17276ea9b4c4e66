//! R-TCP (RCP thesis sec. 6.1.1): TCP whose window is RCP's rate x RTT, paced at the rate.
//!
//! | part | file |
//! |---|---|
//! | host law (window and pacing) | `host.rs`: [`Rtcp`] |
//! | router law | RCP's (`../rcp/router.rs`) |
//! | header | RCP's (`../rcp/header.rs`) |
//! | scenario keys | `transport.protocol = "rtcp"`, `fallback` (`params.rs`) |

pub mod host;
pub mod params;

pub use host::{rate_window, Rtcp, RtcpConfig, RATE_KEPT};
pub use params::RtcpKeys;
