//! CUBIC (RFC 9438) with HyStart (Linux) or HyStart++ (RFC 9406): a host law only.
//!
//! | part | file |
//! |---|---|
//! | host law (window) | `host.rs`: [`Cubic`] |
//! | slow-start exit | [`HyStart`] (`transport/cc/hystart.rs`, shared with every loss-based window) |
//! | router law | none: any queue |
//! | header | none |
//! | scenario keys | `transport.cc = "cubic"`, `transport.hystart` (`../tcp.rs`) |

pub mod host;

pub use crate::transport::cc::hystart::{HyStart, HyStartMode};
pub use host::Cubic;
