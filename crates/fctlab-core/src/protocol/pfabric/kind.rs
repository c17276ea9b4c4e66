//! The `pfabric` queue kind: a switch port run by [`PFabricQueue`] (sec. 4.1). Its buffer must
//! be given: a small one is the point of the design.

use super::PFabricQueue;
use crate::error::{SpecError, SpecResult};
use crate::protocol::laws::ProtocolQueue;
use crate::qdisc::discipline::Limit;
use crate::qdisc::kind_keys::KindKeys;
use crate::qdisc::law::PortCtx;
use crate::qdisc::Qdisc;
use serde::Deserialize;

/// A `pfabric` queue's keys: none beside the buffer every kind has, which it requires
/// (`limit` or `limit_packets`; the paper's is 36KB at 10 Gb/s).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PFabricKeys {}

impl KindKeys for PFabricKeys {
    fn build(&self, _ctx: PortCtx, limit: Limit, _seed: u64) -> SpecResult<Qdisc> {
        if let Limit::Bytes(b) = limit {
            // The buffer of a table that gives none (`Limit::UNLIMITED`), or more.
            if b >= u64::MAX / 4 {
                return Err(SpecError::new(
                    "limit",
                    "missing: a pfabric queue's small buffer is the point (the paper: 36KB at 10 Gb/s); \
                     give `limit` or `limit_packets`",
                ));
            }
        }
        Ok(Qdisc::Protocol(ProtocolQueue::PFabric(PFabricQueue::new(limit))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Rate;

    #[test]
    fn the_buffer_is_required() {
        let ctx = PortCtx { router: 1, link: 0, capacity: Rate::from_gbps(10) };
        let e = PFabricKeys {}.build(ctx, Limit::UNLIMITED, 1).unwrap_err();
        assert!(e.field == "limit" && e.message.starts_with("missing: "), "{e}");
        assert!(matches!(PFabricKeys {}.build(ctx, Limit::Bytes(36_000), 1), Ok(Qdisc::Protocol(_))));
    }
}
