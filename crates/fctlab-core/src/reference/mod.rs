//! Idealized references that packet-level results are measured against, computed outside the
//! event loop: they need no packets, only capacities, paths, starts and sizes.
//!
//! - [`ps`]: processor sharing generalized to a network, an exact fluid simulation of max-min
//!   fair sharing (the "PS" curve of the RCP work, for any topology and arrival sequence).
//! - [`local`]: the same max-min fluid as [`ps`], recomputed locally at each event (only the
//!   flows a change reaches are water-filled again): what `fctlab estimate --method fluid` runs
//!   on a loaded fabric, where `ps` would water-fill thousands of flows per event.
//! - [`srpt`]: pFabric's "Ideal" generalized to a network, an exact fluid simulation of greedy
//!   shortest-remaining-first scheduling: at each event the flows with the fewest bits left each
//!   take what their path has left.
//! - `departures`: the pending departures of [`local`], a min-heap indexed by flow (a
//!   re-rated flow moves its entry).
//! - `shared`: what they share: their input ([`ps::PsFlow`]), the checks of capacities and flows (errors name the field),
//!   flows grouped by link set, ordered heap keys. `testing` (tests only): their fixtures.

mod departures;
pub mod local;
pub mod ps;
mod shared;
pub mod srpt;
#[cfg(test)]
mod testing;
