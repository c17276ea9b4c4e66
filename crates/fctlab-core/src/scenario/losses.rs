//! Losses on links: the `[[loss]]` schema, and applying its random and scripted drops.

use super::names::{resolve_link, unknown_link};
use crate::error::{SpecError, SpecResult};
use crate::limits::MAX_FLOW_SEGMENTS;
use crate::net::link::Link;
use crate::rng::Rng;
use crate::topology::{NodeKind, Topology};
use crate::world::{FlowPlan, Profile};
use serde::Deserialize;

/// Losses on one link: random, scripted, or both.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossSpec {
    /// Link name ("bottleneck", "r0->r1"), "*" for every link, or "hosts" for every host
    /// uplink (each packet crosses exactly one).
    pub link: String,
    /// Probability that a packet is lost, in [0, 1) (default 0).
    #[serde(default)]
    pub p: f64,
    /// Scripted drops of given data segments.
    #[serde(default)]
    pub drop: Vec<DropSpec>,
}

/// One scripted drop: the `transmission`-th time data segment `segment` of `flow` crosses
/// the link.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropSpec {
    /// Flow id (index in start order).
    pub flow: u32,
    /// Data segment, 1-based.
    pub segment: u64,
    /// Which crossing of that segment to drop (1 = the original transmission).
    #[serde(default = "one")]
    pub transmission: u32,
}

fn one() -> u32 {
    1
}

/// Build step: puts every `[[loss]]` entry on its links, in order (scripted drops need the
/// flow plans and their profiles' mss).
pub(super) fn apply_losses(
    losses: &[LossSpec],
    topo: &Topology,
    plans: &[FlowPlan],
    profiles: &[Profile],
    links: &mut [Link],
    seed: u64,
) -> SpecResult<()> {
    for (i, ls) in losses.iter().enumerate() {
        let field = format!("loss[{i}]");
        if !(0.0..1.0).contains(&ls.p) {
            return Err(SpecError::new(format!("{field}.p"), format!("expected 0 <= p < 1, got {}", ls.p)));
        }
        let ids = loss_links(ls, &field, topo)?;
        for (k, d) in ls.drop.iter().enumerate() {
            let seq = drop_seq(d, &format!("{field}.drop[{k}]"), plans, profiles)?;
            for &id in &ids {
                links[id].add_scripted_drop(d.flow, seq, d.transmission);
            }
        }
        if ls.p > 0.0 {
            for &id in &ids {
                links[id].set_random_loss(ls.p, Rng::stream(seed, &format!("loss.link{id}")));
            }
        }
    }
    Ok(())
}

/// The links a loss entry names: one link, "*" (all) or "hosts" (every host uplink).
fn loss_links(ls: &LossSpec, field: &str, topo: &Topology) -> SpecResult<Vec<usize>> {
    let n = topo.links.len();
    Ok(if ls.link == "*" {
        (0..n).collect()
    } else if ls.link == "hosts" {
        // Every host uplink: each packet crosses exactly one of them.
        (0..n).filter(|&i| topo.nodes[topo.links[i].from].kind == NodeKind::Host).collect()
    } else {
        vec![resolve_link(topo, &ls.link).ok_or_else(|| unknown_link(&format!("{field}.link"), &ls.link, topo))?]
    })
}

/// The byte offset of a scripted drop's segment in its flow, after checking the drop
/// (`dfield` is its field path).
fn drop_seq(d: &DropSpec, dfield: &str, plans: &[FlowPlan], profiles: &[Profile]) -> SpecResult<u64> {
    let Some(plan) = plans.get(d.flow as usize) else {
        return Err(SpecError::new(
            format!("{dfield}.flow"),
            format!("no flow {}: the workload has {} flows", d.flow, plans.len()),
        ));
    };
    if d.segment == 0 || d.transmission == 0 {
        return Err(SpecError::new(dfield, "expected segment >= 1 and transmission >= 1 (both count from 1)"));
    }
    // Its byte offset, (segment - 1) x mss, must not wrap.
    if d.segment > MAX_FLOW_SEGMENTS {
        return Err(SpecError::new(
            format!("{dfield}.segment"),
            format!("expected a segment <= {MAX_FLOW_SEGMENTS} (2^32 - 1), got {}", d.segment),
        ));
    }
    let mss = match &profiles[plan.profile] {
        Profile::Tcp { cfg, .. } => cfg.mss,
        Profile::Paced { cfg, .. } => cfg.mss,
        Profile::Kernel(k) => k.planned_tcp().mss,
    };
    Ok((d.segment - 1) * mss as u64)
}
