//! The `xcp` queue kind: a port's drop-tail FIFO run by [`XcpLaw`], its keys the law's gains
//! ([`XcpParams`], over their defaults).

use super::{XcpLaw, XcpParams};
use crate::error::SpecResult;
use crate::protocol::laws::Law;
use crate::qdisc::discipline::Limit;
use crate::qdisc::explicit::ExplicitQueue;
use crate::qdisc::kind_keys::KindKeys;
use crate::qdisc::law::PortCtx;
use crate::qdisc::Qdisc;

impl KindKeys for XcpParams {
    fn build(&self, ctx: PortCtx, limit: Limit, _seed: u64) -> SpecResult<Qdisc> {
        self.validate()?;
        Ok(Qdisc::Explicit(ExplicitQueue::new(ctx, limit, Law::Xcp(XcpLaw::new(*self)))))
    }
}
