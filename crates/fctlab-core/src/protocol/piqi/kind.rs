//! The `piqi` queue kind: a port's drop-tail FIFO run by [`PiqiLaw`], its keys the law's
//! parameters ([`PiqiParams`], over seed 003's values).

use super::{PiqiLaw, PiqiParams};
use crate::error::SpecResult;
use crate::protocol::laws::Law;
use crate::qdisc::discipline::Limit;
use crate::qdisc::explicit::ExplicitQueue;
use crate::qdisc::kind_keys::KindKeys;
use crate::qdisc::law::PortCtx;
use crate::qdisc::Qdisc;

impl KindKeys for PiqiParams {
    fn build(&self, ctx: PortCtx, limit: Limit, _seed: u64) -> SpecResult<Qdisc> {
        self.validate()?;
        Ok(Qdisc::Explicit(ExplicitQueue::new(ctx, limit, Law::Piqi(PiqiLaw::new(ctx.capacity, *self)))))
    }
}
