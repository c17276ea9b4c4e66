//! PIQI-RCP's scenario keys: the host has none of its own (`protocol = "piqi"`: the TCP part
//! only); the router's (`kind = "piqi"`) are [`super::PiqiParams`]'s.

use super::header;
use super::PiqiConfig;
use crate::error::SpecResult;
use crate::plan::{Common, Profile, ProtocolKeys};
use crate::protocol::{RateConfig, UNLIMITED_RATE};
use serde::Deserialize;

/// Seed 003's gains of eqs. 7-8: on the gap to the router's rate, and on its last change.
const TAU1: f64 = 0.01;
const TAU2: f64 = 0.1;

/// PIQI-RCP's host keys: none beyond the TCP part.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PiqiKeys {}

impl ProtocolKeys for PiqiKeys {
    fn profile(&self, c: Common) -> SpecResult<Profile> {
        let law = RateConfig::Piqi(PiqiConfig { tau1: TAU1, tau2: TAU2, unlimited: UNLIMITED_RATE });
        Ok(c.paced(header::BYTES, law, true, None))
    }
}
