//! The keys of a `prio` queue (`prio.rs`): its number of bands, checked here and built into its
//! port (errors name the key inside the queue's table).

use super::prio::Prio;
use super::Limit;
use crate::error::{SpecError, SpecResult};
use serde::Deserialize;

/// A `prio` queue's keys.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrioKeys {
    /// Number of bands (default 8).
    #[serde(default)]
    bands: Option<usize>,
}

impl PrioKeys {
    /// A strict priority queue of `limit` over these bands (default 8).
    pub fn build(&self, limit: Limit) -> SpecResult<Prio> {
        let n = self.bands.unwrap_or(8);
        if !(1..=32).contains(&n) {
            return Err(SpecError::new("bands", format!("expected 1 to 32 bands, got {n}")));
        }
        Ok(Prio::new(n, limit))
    }
}
