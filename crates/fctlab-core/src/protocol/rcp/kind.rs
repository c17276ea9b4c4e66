//! RCP's two queue kinds: `rcp`, a port's drop-tail FIFO run by [`RcpLaw`]; and `rcp-tcp`,
//! RCP beside TCP on one port by the thesis's coexistence scheme ([`RcpTcpQueue`], sec.
//! 6.2.1). Their keys are `params.rs`' [`RcpQueueKeys`] and [`RcpTcpKeys`].

use super::params::{RcpQueueKeys, RcpTcpKeys};
use super::{RcpLaw, RcpTcpQueue};
use crate::error::SpecResult;
use crate::protocol::laws::{Law, ProtocolQueue};
use crate::qdisc::discipline::Limit;
use crate::qdisc::explicit::ExplicitQueue;
use crate::qdisc::kind_keys::KindKeys;
use crate::qdisc::law::PortCtx;
use crate::qdisc::Qdisc;
use crate::rng::Rng;

impl KindKeys for RcpQueueKeys {
    fn build(&self, ctx: PortCtx, limit: Limit, _seed: u64) -> SpecResult<Qdisc> {
        let p = self.params()?;
        p.validate(ctx.capacity)?;
        Ok(Qdisc::Explicit(ExplicitQueue::new(ctx, limit, Law::Rcp(RcpLaw::new(ctx.capacity, p)))))
    }
}

impl KindKeys for RcpTcpKeys {
    /// `limit` is each class's queue in two-queue mode; the zombie lists draw from the stream
    /// `queues.rcp-tcp.link{N}` of `seed`, one per link.
    fn build(&self, ctx: PortCtx, limit: Limit, seed: u64) -> SpecResult<Qdisc> {
        let p = self.params();
        p.validate(ctx.capacity)?;
        let rng = Rng::stream(seed, &format!("queues.rcp-tcp.link{}", ctx.link));
        Ok(Qdisc::Protocol(ProtocolQueue::RcpTcp(Box::new(RcpTcpQueue::new(ctx, limit, p, rng)))))
    }
}
