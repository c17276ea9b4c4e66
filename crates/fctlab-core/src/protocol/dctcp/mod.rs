//! DCTCP (Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010; RFC 8257): TCP whose
//! window shrinks in proportion to the fraction of its bytes that met a queue above K.
//!
//! | part | file |
//! |---|---|
//! | host law (window) | `host.rs`: [`Dctcp`], the fraction alpha (eq. 1) and cwnd (1 - alpha/2) (eq. 2), NewReno's growth and loss reaction underneath |
//! | receiver | `echo.rs`: [`DctcpEcho`], the exact echo of CE with delayed ACKs (sec. 3.1, Fig. 10; RFC 8257 sec. 3.2), the registry's `EcnEcho::Dctcp`, which a receiver in `EcnMode::Exact` runs |
//! | router | any ECN marking queue: `kind = "step"` (the paper's marking at K) or `"red"` (`qdisc/aqm.rs`) |
//! | header | none: the IP ECN field and TCP's ECE flag ([`crate::net::packet::Ecn`]) |
//! | scenario keys | `params.rs`: [`DctcpKeys`], `dctcp_g` and `dctcp_alpha` under `transport.cc = "dctcp"` (the table's `tcp_cc` row), ECN forced to the exact echo, HyStart off by default |
//! | analysis | `analysis.rs`: [`SawtoothQueue`], sec. 3.3's queue and alpha for N long flows, and how closely it pins the marked fraction |
//!
//! The once-per-window timing of a reduction is RFC 3168's, kept by the TCP sender for every
//! ECN-capable connection (`transport/ecn.rs`); DCTCP decides only by how much.
//!
//! Every packet of a DCTCP connection is ECN-capable (data, retransmissions, SYN, ACKs), as
//! Linux sends them, so a marking queue never drops a DCTCP packet in place of a mark.

pub mod analysis;
pub mod echo;
pub mod host;
pub mod params;

pub use analysis::SawtoothQueue;
pub use echo::DctcpEcho;
pub use host::{Dctcp, DctcpConfig};
pub use params::DctcpKeys;
