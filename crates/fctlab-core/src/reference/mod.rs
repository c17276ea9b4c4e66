//! Idealized references that packet-level results are measured against, computed outside the
//! event loop: they need no packets, only capacities, paths, starts and sizes.
//!
//! - [`ps`]: processor sharing generalized to a network, an exact fluid simulation of max-min
//!   fair sharing (the "PS" curve of the RCP work, for any topology and arrival sequence).

pub mod ps;
