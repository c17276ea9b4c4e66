//! JetMax's scenario keys: the host has none of its own (`protocol = "jetmax"`: the TCP part
//! only); the router's (`kind = "jetmax"`) are [`super::JetMaxParams`]'s.

use super::header;
use super::JetMaxConfig;
use crate::error::SpecResult;
use crate::plan::{Common, Profile, ProtocolKeys};
use crate::protocol::{RateConfig, UNLIMITED_RATE};
use serde::Deserialize;

/// Seed 003's gain tau of eq. 3.
const TAU: f64 = 0.6;

/// JetMax's host keys: none beyond the TCP part.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JetMaxKeys {}

impl ProtocolKeys for JetMaxKeys {
    fn profile(&self, c: Common) -> SpecResult<Profile> {
        Ok(c.paced(header::BYTES, RateConfig::JetMax(JetMaxConfig { tau: TAU, unlimited: UNLIMITED_RATE }), true, None))
    }
}
