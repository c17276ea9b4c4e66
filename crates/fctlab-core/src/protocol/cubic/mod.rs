//! CUBIC (RFC 9438) with HyStart (Linux) or HyStart++ (RFC 9406): a host law only.
//!
//! | part | file |
//! |---|---|
//! | host law (window) | `host.rs`: [`Cubic`] |
//! | slow-start exit | `hystart.rs`: [`HyStart`], also offered to NewReno |
//! | router law | none: any queue |
//! | header | none |
//! | scenario keys | `transport.cc = "cubic"`, `transport.hystart` (`../tcp.rs`) |

pub mod host;
pub mod hystart;

pub use host::Cubic;
pub use hystart::{HyStart, HyStartMode};
