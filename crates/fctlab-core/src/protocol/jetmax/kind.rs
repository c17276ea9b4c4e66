//! The `jetmax` queue kind: a port's drop-tail FIFO run by [`JetMaxLaw`], its keys the law's
//! parameters ([`JetMaxParams`], over their defaults), on a router whose node id fits the
//! header's 16-bit router fields.

use super::header::JETMAX_NO_ROUTER;
use super::{JetMaxLaw, JetMaxParams};
use crate::error::{SpecError, SpecResult};
use crate::protocol::laws::Law;
use crate::qdisc::discipline::Limit;
use crate::qdisc::explicit::ExplicitQueue;
use crate::qdisc::kind_keys::KindKeys;
use crate::qdisc::law::PortCtx;
use crate::qdisc::Qdisc;

impl KindKeys for JetMaxParams {
    fn build(&self, ctx: PortCtx, limit: Limit, _seed: u64) -> SpecResult<Qdisc> {
        self.validate()?;
        if ctx.router >= JETMAX_NO_ROUTER as u32 {
            return Err(SpecError::new(
                "kind",
                format!(
                    "a jetmax queue on router node {}: expected routers with node ids below {JETMAX_NO_ROUTER}, \
                     the most JetMax's 16-bit router fields carry",
                    ctx.router
                ),
            ));
        }
        Ok(Qdisc::Explicit(ExplicitQueue::new(ctx, limit, Law::JetMax(JetMaxLaw::new(*self)))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Rate;

    #[test]
    fn a_router_id_beyond_the_header_fields_is_refused() {
        let ctx = |router| PortCtx { router, link: 0, capacity: Rate::from_gbps(1) };
        let keys = JetMaxParams::default();
        let e = keys.build(ctx(JETMAX_NO_ROUTER as u32), Limit::Packets(10), 1).unwrap_err();
        assert!(e.field == "kind" && e.message.contains("node ids below 65535"), "{e}");
        assert!(matches!(keys.build(ctx(JETMAX_NO_ROUTER as u32 - 1), Limit::Packets(10), 1), Ok(Qdisc::Explicit(_))));
    }
}
