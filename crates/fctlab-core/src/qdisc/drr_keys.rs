//! The keys of a `drr` queue (`drr.rs`): its classes' weights and how packets are sorted into
//! them, checked here and built into its port (errors name the key inside the queue's table).

use super::drr::{Classify, Drr};
use super::Limit;
use crate::error::{SpecError, SpecResult};
use serde::Deserialize;

/// A `drr` queue's keys.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrrKeys {
    /// One weight per class, each > 0 (2 to 32 classes).
    weights: Vec<f64>,
    /// How packets are sorted into classes: `"priority"` (default; class = the packet's
    /// priority mark) or `"header"` (class 0: explicit-feedback packets, 1: the rest).
    #[serde(default)]
    classify: Option<ClassifySpec>,
}

/// How a `drr` queue sorts packets into classes.
#[derive(Copy, Clone, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClassifySpec {
    /// By priority mark.
    Priority,
    /// Explicit-feedback header or not.
    Header,
}

impl DrrKeys {
    /// A deficit round robin queue of `limit` over these classes.
    pub fn build(&self, limit: Limit) -> SpecResult<Drr> {
        let weights = &self.weights;
        if !(2..=32).contains(&weights.len()) {
            return Err(SpecError::new("weights", format!("expected 2 to 32 weights, got {}", weights.len())));
        }
        if let Some(w) = weights.iter().find(|w| !(**w > 0.0 && w.is_finite())) {
            return Err(SpecError::new("weights", format!("expected every weight > 0, got {w}")));
        }
        let classify = match self.classify {
            None | Some(ClassifySpec::Priority) => Classify::Priority,
            Some(ClassifySpec::Header) => {
                if weights.len() != 2 {
                    return Err(SpecError::new(
                        "weights",
                        format!("expected 2 weights with classify = \"header\", got {}", weights.len()),
                    ));
                }
                Classify::Header
            }
        };
        Ok(Drr::new(weights, classify, limit))
    }
}
