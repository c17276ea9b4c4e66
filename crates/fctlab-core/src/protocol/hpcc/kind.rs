//! The `hpcc` queue kind: a switch port's drop-tail FIFO run by [`HpccLaw`], which pushes a
//! telemetry record onto each departing HPCC data packet. The kind has no keys of its own.

use super::HpccLaw;
use crate::error::SpecResult;
use crate::protocol::laws::Law;
use crate::qdisc::discipline::Limit;
use crate::qdisc::explicit::ExplicitQueue;
use crate::qdisc::kind_keys::KindKeys;
use crate::qdisc::law::PortCtx;
use crate::qdisc::Qdisc;
use serde::Deserialize;

/// An `hpcc` queue's keys: none beside the buffer every kind has.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HpccQueueKeys {}

impl KindKeys for HpccQueueKeys {
    fn build(&self, ctx: PortCtx, limit: Limit, _seed: u64) -> SpecResult<Qdisc> {
        Ok(Qdisc::Explicit(ExplicitQueue::new(ctx, limit, Law::Hpcc(HpccLaw::new()))))
    }
}
