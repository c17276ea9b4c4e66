//! The keys of the ECN marking queues (`aqm.rs`): `kind = "red"` and `kind = "step"`, each
//! checked here and built into its port (errors name the key inside the queue's table).

use super::aqm::{AqmQueue, MarkAt, Marker, NonEct, QueueUnit, Red, RedParams, StepParams};
use super::Limit;
use crate::error::{SpecError, SpecResult};
use crate::quantity::BytesQ;
use crate::rng::Rng;
use crate::units::Rate;
use serde::de::{self, Deserializer};
use serde::Deserialize;

impl<'de> Deserialize<'de> for NonEct {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<NonEct, D::Error> {
        match String::deserialize(d)?.as_str() {
            "drop" => Ok(NonEct::Drop),
            "pass" => Ok(NonEct::Pass),
            other => Err(de::Error::custom(format!("expected \"drop\" or \"pass\", got {other:?}"))),
        }
    }
}

impl<'de> Deserialize<'de> for MarkAt {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<MarkAt, D::Error> {
        match String::deserialize(d)?.as_str() {
            "enqueue" => Ok(MarkAt::Enqueue),
            "dequeue" => Ok(MarkAt::Dequeue),
            other => Err(de::Error::custom(format!("expected \"enqueue\" or \"dequeue\", got {other:?}"))),
        }
    }
}

/// A `red` queue's keys: the thresholds in bytes (`min_th`, `max_th`) or in packets
/// (`min_packets`, `max_packets`; default 5 and 15), and RED's constants.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedKeys {
    #[serde(default)]
    min_th: Option<BytesQ>,
    #[serde(default)]
    max_th: Option<BytesQ>,
    #[serde(default)]
    min_packets: Option<f64>,
    #[serde(default)]
    max_packets: Option<f64>,
    /// Marking probability at `max_th` (default 0.1).
    #[serde(default)]
    max_p: Option<f64>,
    /// Weight of the newest sample in the average (default 0.002).
    #[serde(default)]
    w_q: Option<f64>,
    /// Gentle mode (default true).
    #[serde(default)]
    gentle: Option<bool>,
    /// (R5), marks spread by the count since the last (default true); false: each arrival
    /// marked with probability p_b alone (DCQCN's switch, with `w_q = 1`, `gentle = false`).
    #[serde(default)]
    spread: Option<bool>,
    /// What happens to a packet that is not ECN-capable where RED marks (default "drop").
    #[serde(default)]
    non_ect: Option<NonEct>,
}

/// A `step` queue's keys: K in bytes (`k`) or packets (`k_packets`), where the queue is read.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepKeys {
    #[serde(default)]
    k: Option<BytesQ>,
    #[serde(default)]
    k_packets: Option<u64>,
    /// "enqueue" (default: the queue an arrival finds) or "dequeue" (the queue a departure
    /// leaves).
    #[serde(default)]
    at: Option<MarkAt>,
    /// What happens to a packet that is not ECN-capable above K at enqueue (default "drop").
    #[serde(default)]
    non_ect: Option<NonEct>,
}

/// `x` if it lies in `(lo, hi]`, else an error naming `field`.
fn in_range(field: &str, x: f64, lo: f64, hi: f64) -> SpecResult<f64> {
    if x > lo && x <= hi {
        Ok(x)
    } else {
        Err(SpecError::new(field, format!("expected a number in ({lo}, {hi}], got {x}")))
    }
}

impl RedKeys {
    /// A RED queue of `limit` on a port of `capacity`, drawing from `rng`.
    pub fn build(&self, limit: Limit, capacity: Rate, rng: Rng) -> SpecResult<AqmQueue> {
        let d = RedParams::default();
        let bytes = self.min_th.is_some() || self.max_th.is_some();
        let packets = self.min_packets.is_some() || self.max_packets.is_some();
        let (unit, min_th, max_th, names) = match (bytes, packets) {
            (true, true) => {
                return Err(SpecError::new(
                    "min_th",
                    "give the thresholds in bytes (`min_th`, `max_th`) or in packets (`min_packets`, `max_packets`), not both",
                ))
            }
            (true, false) => match (self.min_th, self.max_th) {
                (Some(a), Some(b)) => (QueueUnit::Bytes, a.0 as f64, b.0 as f64, ("min_th", "max_th")),
                _ => return Err(SpecError::new("max_th", "expected both `min_th` and `max_th`, got one")),
            },
            (false, _) => (
                QueueUnit::Packets,
                self.min_packets.unwrap_or(d.min_th),
                self.max_packets.unwrap_or(d.max_th),
                ("min_packets", "max_packets"),
            ),
        };
        if !(min_th >= 0.0 && min_th.is_finite()) {
            return Err(SpecError::new(names.0, format!("expected a threshold >= 0, got {min_th}")));
        }
        if !(max_th > min_th && max_th.is_finite()) {
            return Err(SpecError::new(
                names.1,
                format!("expected a threshold above {} = {min_th}, got {max_th}", names.0),
            ));
        }
        let p = RedParams {
            min_th,
            max_th,
            max_p: in_range("max_p", self.max_p.unwrap_or(d.max_p), 0.0, 1.0)?,
            w_q: in_range("w_q", self.w_q.unwrap_or(d.w_q), 0.0, 1.0)?,
            gentle: self.gentle.unwrap_or(d.gentle),
            spread: self.spread.unwrap_or(d.spread),
            unit,
        };
        Ok(AqmQueue::new(limit, Marker::Red(Red::new(p, capacity, rng)), self.non_ect.unwrap_or(NonEct::Drop)))
    }
}

impl StepKeys {
    /// A queue of `limit` marking at the step.
    pub fn build(&self, limit: Limit) -> SpecResult<AqmQueue> {
        let (k, unit) = match (self.k, self.k_packets) {
            (Some(_), Some(_)) => return Err(SpecError::new("k", "give `k` (bytes) or `k_packets`, not both")),
            (Some(b), None) => (b.0, QueueUnit::Bytes),
            (None, Some(p)) => (p, QueueUnit::Packets),
            (None, None) => {
                return Err(SpecError::new(
                    "k",
                    "missing: a step queue needs its threshold, `k` (bytes) or `k_packets`",
                ))
            }
        };
        let at = self.at.unwrap_or(MarkAt::Enqueue);
        Ok(AqmQueue::new(limit, Marker::Step(StepParams { k, unit, at }), self.non_ect.unwrap_or(NonEct::Drop)))
    }
}
