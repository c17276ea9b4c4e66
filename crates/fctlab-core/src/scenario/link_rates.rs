//! Links whose rate changes during a run: the `[[link_rate]]` schema and its schedule.
//!
//! A wireless hop, a renegotiated Ethernet port, a shared medium: the RCP thesis (end of
//! ch. 6) asks how a router computes the fair rate when its link's rate is unknown or varies,
//! and proposes eq. 6.2 (`rcp` queue `variant = "unknown-rate"`). Each entry changes one
//! link's serialization rate at one time. The change applies to the next packet that starts
//! serializing; the one on the wire finishes at the old rate. `notify_queue` says whether the
//! port's discipline is told the new rate (a router that reads its interface's rate) or not
//! (the rate changes under it).

use super::names::{resolve_link, unknown_link};
use crate::error::SpecResult;
use crate::net::link::Link;
use crate::quantity::{RateQ, TimeQ};
use crate::topology::Topology;
use crate::world::RateChange;
use serde::Deserialize;

/// One scheduled change of a link's rate.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkRateSpec {
    /// Link name ("bottleneck", "r0->r1").
    pub link: String,
    /// When the new rate applies.
    pub at: TimeQ,
    /// The new serialization rate.
    pub rate: RateQ,
    /// Tell the port's discipline (an RCP, XCP, JetMax or PIQI-RCP law computes with the new
    /// capacity); default true.
    #[serde(default)]
    pub notify_queue: Option<bool>,
}

/// Build step: checks every entry, gives each changing link a discipline port (its FIFO fast
/// path times packets at admission, which a rate change would falsify) and returns the changes
/// in time order (entries at the same time in file order).
pub(super) fn schedule(specs: &[LinkRateSpec], topo: &Topology, links: &mut [Link]) -> SpecResult<Vec<RateChange>> {
    let mut out = Vec::with_capacity(specs.len());
    for (i, s) in specs.iter().enumerate() {
        let field = format!("link_rate[{i}]");
        let id = resolve_link(topo, &s.link).ok_or_else(|| unknown_link(&format!("{field}.link"), &s.link, topo))?;
        links[id].use_qdisc_port();
        out.push(RateChange {
            at: s.at.0,
            link: id as u32,
            rate: s.rate.0,
            notify_queue: s.notify_queue.unwrap_or(true),
        });
    }
    out.sort_by_key(|c| c.at);
    Ok(out)
}
