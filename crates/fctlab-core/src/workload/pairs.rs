//! Who talks to whom: the (source, destination) host pair of each generated flow.
//!
//! A flow never goes from a host to itself. `different_routers` is RC3's setup: the source
//! uniform, the destination uniform among the hosts on another router. Sources that have
//! no valid destination (for example the only host of a group that is also the
//! destination group) are left out of the candidates, so they neither send nor count in
//! the "access" capacity that loads are relative to; if none is left, it is an error.

use super::WorkloadCtx;
use crate::error::{SpecError, SpecResult};
use crate::rng::Rng;
use serde::Deserialize;
use std::collections::BTreeMap;

/// How the scenario chooses the hosts of each flow.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum PairSpec {
    /// Source uniform in the `src` group, destination uniform in the `dst` group (all hosts
    /// when absent), destination != source.
    Uniform { src: Option<String>, dst: Option<String> },
    /// Like `uniform`, but the destination hangs from another router than the source.
    DifferentRouters { src: Option<String>, dst: Option<String> },
    /// Uniform among the listed (source, destination) host names.
    Given { pairs: Vec<[String; 2]> },
}

/// A built pair chooser.
#[derive(Clone, Debug)]
pub enum PairSampler {
    /// `dsts` sorted by node id, so a source's own position can be skipped.
    Uniform { srcs: Vec<usize>, dsts: Vec<usize> },
    /// `dsts` sorted by (router, node id); `block[r]` is router r's range in `dsts`.
    DifferentRouters { srcs: Vec<usize>, dsts: Vec<usize>, block: Vec<(usize, usize)> },
    /// Explicit pairs.
    Given(Vec<(usize, usize)>),
}

/// Host lookup by name, built once per entry (flow lists can be long).
pub(crate) struct HostIndex<'a> {
    ids: BTreeMap<&'a str, usize>,
    is_host: Vec<bool>,
}

impl<'a> HostIndex<'a> {
    /// Indexes the node names of `ctx`.
    pub(crate) fn new(ctx: &WorkloadCtx<'a>) -> HostIndex<'a> {
        let ids = ctx.node_names.iter().enumerate().map(|(id, n)| (n.as_str(), id)).collect();
        let mut is_host = vec![false; ctx.node_names.len()];
        for &h in ctx.hosts {
            is_host[h] = true;
        }
        HostIndex { ids, is_host }
    }

    /// The node id of host `name`, or an error about `field` naming it.
    pub(crate) fn host(&self, field: &str, name: &str) -> SpecResult<usize> {
        match self.ids.get(name) {
            Some(&id) if self.is_host[id] => Ok(id),
            Some(_) => Err(SpecError::new(field, format!("expected a host, got \"{name}\", which is a router"))),
            None => Err(SpecError::new(
                field,
                format!("expected a host name, got \"{name}\", which is no node of the topology"),
            )),
        }
    }
}

/// The hosts of group `name` (or the one host of that name); all hosts when `None`.
fn hosts_of(ctx: &WorkloadCtx, index: &HostIndex, field: &str, name: Option<&str>) -> SpecResult<Vec<usize>> {
    let Some(name) = name else { return Ok(ctx.hosts.to_vec()) };
    if let Some(group) = ctx.groups.get(name) {
        if group.is_empty() {
            return Err(SpecError::new(field, format!("group \"{name}\" has no hosts")));
        }
        return Ok(group.clone());
    }
    if let Ok(host) = index.host(field, name) {
        return Ok(vec![host]);
    }
    let known: Vec<&str> = ctx.groups.keys().map(String::as_str).collect();
    Err(SpecError::new(
        field,
        format!("expected a host group (one of: {}) or a host name, got \"{name}\"", known.join(", ")),
    ))
}

impl PairSpec {
    /// Resolves names against the topology.
    pub fn build(&self, ctx: &WorkloadCtx) -> SpecResult<PairSampler> {
        let index = HostIndex::new(ctx);
        match self {
            PairSpec::Uniform { src, dst } => {
                let srcs = hosts_of(ctx, &index, "src", src.as_deref())?;
                let mut dsts = hosts_of(ctx, &index, "dst", dst.as_deref())?;
                dsts.sort_unstable();
                dsts.dedup();
                let srcs: Vec<usize> = srcs.into_iter().filter(|&s| dsts.len() > 1 || dsts[0] != s).collect();
                if srcs.is_empty() {
                    return Err(SpecError::new(
                        "dst",
                        format!(
                            "no source has a destination other than itself in {}",
                            dst.as_deref().unwrap_or("all hosts")
                        ),
                    ));
                }
                Ok(PairSampler::Uniform { srcs, dsts })
            }
            PairSpec::DifferentRouters { src, dst } => {
                let srcs = hosts_of(ctx, &index, "src", src.as_deref())?;
                let mut dsts = hosts_of(ctx, &index, "dst", dst.as_deref())?;
                dsts.sort_unstable_by_key(|&d| (ctx.attach[d], d));
                dsts.dedup();
                let mut block = vec![(0, 0); ctx.node_names.len()];
                for (i, &d) in dsts.iter().enumerate() {
                    let r = ctx.attach[d];
                    if block[r] == (0, 0) {
                        block[r].0 = i;
                    }
                    block[r].1 = i + 1;
                }
                let srcs: Vec<usize> = srcs
                    .into_iter()
                    .filter(|&s| {
                        let (lo, hi) = block[ctx.attach[s]];
                        hi - lo < dsts.len()
                    })
                    .collect();
                if srcs.is_empty() {
                    return Err(SpecError::new(
                        "dst",
                        format!(
                            "no source has a destination on another router in {}",
                            dst.as_deref().unwrap_or("all hosts")
                        ),
                    ));
                }
                Ok(PairSampler::DifferentRouters { srcs, dsts, block })
            }
            PairSpec::Given { pairs } => {
                if pairs.is_empty() {
                    return Err(SpecError::new("pairs", "expected at least one [src, dst] pair, got none"));
                }
                let mut resolved = Vec::with_capacity(pairs.len());
                for (j, [s, d]) in pairs.iter().enumerate() {
                    let src = index.host(&format!("pairs[{j}][0]"), s)?;
                    let dst = index.host(&format!("pairs[{j}][1]"), d)?;
                    if src == dst {
                        return Err(SpecError::new(
                            format!("pairs[{j}]"),
                            format!("expected two different hosts, got \"{s}\" twice"),
                        ));
                    }
                    resolved.push((src, dst));
                }
                Ok(PairSampler::Given(resolved))
            }
        }
    }

    /// The pairs used when an entry gives none: the topology's default groups if it has
    /// them, else RC3's "destination on another router" when there are several routers.
    pub fn default_for(ctx: &WorkloadCtx) -> PairSpec {
        if let Some((a, b)) = ctx.default_pairs {
            return PairSpec::Uniform { src: Some(a.to_string()), dst: Some(b.to_string()) };
        }
        let first_router = ctx.hosts.first().map(|&h| ctx.attach[h]);
        if ctx.hosts.iter().any(|&h| Some(ctx.attach[h]) != first_router) {
            PairSpec::DifferentRouters { src: None, dst: None }
        } else {
            PairSpec::Uniform { src: None, dst: None }
        }
    }
}

impl PairSampler {
    /// One (source, destination) pair.
    pub fn sample(&self, rng: &mut Rng, attach: &[usize]) -> (usize, usize) {
        match self {
            PairSampler::Uniform { srcs, dsts } => {
                let src = srcs[rng.below(srcs.len() as u64) as usize];
                // Uniform over dsts without src: draw among one fewer and step over src.
                match dsts.binary_search(&src) {
                    Ok(own) => {
                        let j = rng.below(dsts.len() as u64 - 1) as usize;
                        (src, dsts[if j >= own { j + 1 } else { j }])
                    }
                    Err(_) => (src, dsts[rng.below(dsts.len() as u64) as usize]),
                }
            }
            PairSampler::DifferentRouters { srcs, dsts, block } => {
                let src = srcs[rng.below(srcs.len() as u64) as usize];
                // Uniform over dsts without the source router's block, stepping over it.
                let (lo, hi) = block[attach[src]];
                let j = rng.below((dsts.len() - (hi - lo)) as u64) as usize;
                (src, dsts[if j >= lo { j + (hi - lo) } else { j }])
            }
            PairSampler::Given(pairs) => pairs[rng.below(pairs.len() as u64) as usize],
        }
    }

    /// The distinct hosts that can be sources, in increasing node id.
    pub fn sources(&self) -> Vec<usize> {
        let mut srcs = match self {
            PairSampler::Uniform { srcs, .. } | PairSampler::DifferentRouters { srcs, .. } => srcs.clone(),
            PairSampler::Given(pairs) => pairs.iter().map(|p| p.0).collect(),
        };
        srcs.sort_unstable();
        srcs.dedup();
        srcs
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_topo::TestTopo;
    use super::*;

    fn spec(json: &str) -> PairSpec {
        crate::spec_de::tagged(&mut serde_json::Deserializer::from_str(json)).unwrap()
    }

    #[test]
    fn uniform_never_picks_the_source_as_destination() {
        let topo = TestTopo::internet2(100);
        let ctx = topo.ctx();
        let s = spec(r#"{"kind": "uniform"}"#).build(&ctx).unwrap();
        let mut rng = Rng::new(1);
        let mut dst_seen = vec![0u32; topo.node_names.len()];
        for _ in 0..200_000 {
            let (a, b) = s.sample(&mut rng, ctx.attach);
            assert_ne!(a, b);
            dst_seen[b] += 1;
        }
        // Every host is a destination about 2000 times: skipping the source biases none.
        assert!(ctx.hosts.iter().all(|&h| (1800..2200).contains(&dst_seen[h])), "{dst_seen:?}");
    }

    #[test]
    fn different_routers_never_picks_the_same_router() {
        let topo = TestTopo::internet2(100);
        let ctx = topo.ctx();
        let s = PairSpec::default_for(&ctx).build(&ctx).unwrap();
        assert!(matches!(s, PairSampler::DifferentRouters { .. }));
        let mut rng = Rng::new(2);
        let mut per_router = vec![0u32; 10];
        for _ in 0..100_000 {
            let (a, b) = s.sample(&mut rng, ctx.attach);
            assert_ne!(ctx.attach[a], ctx.attach[b]);
            per_router[ctx.attach[b]] += 1;
        }
        assert!(per_router.iter().all(|&c| (9_000..11_000).contains(&c)), "{per_router:?}");
    }

    #[test]
    fn groups_are_respected() {
        let topo = TestTopo::internet2(100);
        let ctx = topo.ctx();
        let left = &topo.groups["left"];
        let right = &topo.groups["right"];
        for kind in ["uniform", "different_routers"] {
            let s = spec(&format!(r#"{{"kind": "{kind}", "src": "left", "dst": "right"}}"#)).build(&ctx).unwrap();
            let mut rng = Rng::new(3);
            for _ in 0..10_000 {
                let (a, b) = s.sample(&mut rng, ctx.attach);
                assert!(left.contains(&a) && right.contains(&b), "{kind}: {a} -> {b}");
            }
        }
        // A single host name is a group of one.
        let s = spec(r#"{"kind": "uniform", "src": "h10", "dst": "right"}"#).build(&ctx).unwrap();
        assert_eq!(s.sources(), vec![10]);
    }

    #[test]
    fn given_pairs_are_drawn_uniformly() {
        let topo = TestTopo::internet2(100);
        let ctx = topo.ctx();
        let s = spec(r#"{"kind": "given", "pairs": [["h10", "h11"], ["h12", "h10"]]}"#).build(&ctx).unwrap();
        let mut rng = Rng::new(4);
        let first = (0..10_000).filter(|_| s.sample(&mut rng, ctx.attach) == (10, 11)).count();
        assert!((4_700..5_300).contains(&first), "{first}");
        assert_eq!(s.sources(), vec![10, 12]);
    }

    #[test]
    fn unknown_groups_and_hosts_are_named() {
        let topo = TestTopo::internet2(100);
        let ctx = topo.ctx();
        let e = spec(r#"{"kind": "uniform", "src": "lefty"}"#).build(&ctx).unwrap_err();
        assert_eq!(e.field, "src");
        assert!(e.message.contains("\"lefty\"") && e.message.contains("left, right"), "{e}");
        let e = spec(r#"{"kind": "given", "pairs": [["h10", "h999"]]}"#).build(&ctx).unwrap_err();
        assert!(e.field == "pairs[0][1]" && e.message.contains("\"h999\""), "{e}");
        let e = spec(r#"{"kind": "given", "pairs": [["h10", "r3"]]}"#).build(&ctx).unwrap_err();
        assert!(e.message.contains("router"), "{e}");
        let e = spec(r#"{"kind": "uniform", "src": "h10", "dst": "h10"}"#).build(&ctx).unwrap_err();
        assert!(e.field == "dst" && e.message.contains("h10"), "{e}");
    }
}
