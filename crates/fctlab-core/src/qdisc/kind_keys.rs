//! The interface of the queue kinds protocols bring (the `kinds` column of the registry's
//! table, `protocol/registry.rs`): each kind's keys, a struct in its protocol's folder, check
//! themselves and build the discipline of their port, as `drr_keys.rs` and `prio_keys.rs` do
//! for the disciplines of this folder. The scenario layer (`scenario/queues.rs`) generates a
//! `QueueKind` variant per entry of the column and calls [`KindKeys::build`]; nothing here
//! names a protocol.

use super::discipline::Limit;
use super::law::PortCtx;
use super::Qdisc;
use crate::error::SpecResult;

/// A protocol's queue kind, parsed from its `queues.*` table: builds each port's discipline.
pub trait KindKeys {
    /// The discipline of port `ctx` with the buffer `limit` ([`Limit::UNLIMITED`] if the
    /// table gives none), its random draws (if any) from a stream of the run's `seed`; an
    /// error names the key within the queue's table.
    fn build(&self, ctx: PortCtx, limit: Limit, seed: u64) -> SpecResult<Qdisc>;
}
