//! TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the Datacenter", SIGCOMM
//! 2015): the sender's rate follows the gradient of the RTT it measures, with a floor Tlow
//! below which it always climbs and a ceiling Thigh above which it always falls.
//!
//! | part | file |
//! |---|---|
//! | host law (rate) | `host.rs`: [`Timely`], Algorithm 1 (EWMA of RTT differences, normalized gradient, Tlow/Thigh, additive step, multiplicative decrease, HAI) |
//! | switch | any queue: TIMELY reads only RTTs |
//! | header | none: the ACK's timestamp echo times the round trip |
//! | scenario keys | `params.rs`: [`TimelyKeys`], `protocol = "timely"` |

pub mod host;
pub mod params;

pub use host::{HaiAfter, Timely, TimelyConfig};
pub use params::TimelyKeys;
