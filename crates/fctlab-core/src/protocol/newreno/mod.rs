//! NewReno (RFC 5681, RFC 6582): a host law only, the window of plain TCP.
//!
//! | part | file |
//! |---|---|
//! | host law (window) | `host.rs`: [`NewReno`], slow start (optionally ended by HyStart, `transport/cc/hystart.rs`) and congestion avoidance |
//! | router law | none: any queue |
//! | header | none |
//! | scenario keys | `transport.cc = "newreno"` (`../tcp.rs`) and the TCP part (`scenario/transports/tcp_part.rs`) |

pub mod host;

pub use host::NewReno;
