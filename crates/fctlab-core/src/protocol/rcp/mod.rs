//! RCP, the rate control protocol (Dukkipati's thesis): routers compute one fair rate per
//! control interval and stamp it into packets; hosts send at the rate the path returns.
//!
//! | part | file |
//! |---|---|
//! | header | `header.rs`: rate, RTT, age forward; the rate echoed back; wire encoding |
//! | router law | `router.rs`: [`RcpLaw`] (thesis eq. 3.1 and its variants) |
//! | router, RCP beside TCP | `coexist.rs`: [`RcpTcpQueue`] (thesis sec. 6.2.1) |
//! | host law (rate) | `host.rs`: [`RcpHost`], and [`FixedRate`] of the fixed-rate study |
//! | queue kinds | `kind.rs`: `queues.*.kind = "rcp"` and `"rcp-tcp"`, their keys [`RcpQueueKeys`] and [`RcpTcpKeys`] (`params.rs`) |
//! | scenario keys | `transport.protocol = "rcp"`, `fixed_rate`, `fallback` (`params.rs`) |
//! | metrics | `rcp_rate_bps`, `rcp_avg_rtt_s`, `rcp_interval_rtt_s`, `rcp_tcp_*` |

pub mod coexist;
pub mod header;
pub mod host;
pub mod kind;
pub mod params;
pub mod router;

pub use coexist::{CoexistMode, RcpTcpParams, RcpTcpQueue, TcRule};
pub use host::{FixedConfig, FixedRate, RcpConfig, RcpHost};
pub use params::{RcpKeys, RcpQueueKeys, RcpTcpKeys};
pub use router::{RcpLaw, RcpParams, RcpVariant};

/// The port of RCP beside TCP, boxed in the closed list of ports as it is large and rare.
pub type RcpTcpPort = Box<RcpTcpQueue>;
