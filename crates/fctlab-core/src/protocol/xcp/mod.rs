//! XCP (Katabi et al. 2002; seed 003): routers give each packet a window change from an
//! efficiency and a fairness controller; hosts add it to their window.
//!
//! | part | file |
//! |---|---|
//! | header | `header.rs`: window, RTT, feedback forward; the feedback echoed back; wire encoding |
//! | router law | `router.rs`: [`XcpLaw`] (seed 003 eqs. 1-2) |
//! | host law (window) | `host.rs`: [`Xcp`] |
//! | queue kind | `kind.rs`: `queues.*.kind = "xcp"`, its keys the router's gains ([`XcpParams`]) |
//! | scenario keys | `transport.protocol = "xcp"` (`params.rs`) |

pub mod header;
pub mod host;
pub mod kind;
pub mod params;
pub mod router;

pub use host::{Xcp, XcpConfig};
pub use params::XcpKeys;
pub use router::{XcpLaw, XcpParams};
