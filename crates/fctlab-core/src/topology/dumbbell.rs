//! The dumbbell: two routers joined by one bottleneck, `hosts_per_side` hosts on each side.
//!
//! ```text
//!   l0 ─┐                         ┌─ r0
//!   l1 ─┤ rl ══ bottleneck ══> rr ├─ r1
//!   ..  ─┘                         └─ ..
//! ```
//! Node ids: rl = 0, rr = 1, then l0..l{n-1}, then r0..r{n-1}. The bottleneck is links 0
//! (rl->rr, "bottleneck") and 1 (rr->rl, "bottleneck_rev"), so flows left to right share link 0.

use super::{check_size, default_access_delay, default_access_rate, Builder, NodeKind, Topology};
use crate::error::{SpecError, SpecResult};
use crate::quantity::{RateQ, TimeQ};
use serde::Deserialize;

/// `kind = "dumbbell"`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    /// Hosts on each side (>= 1).
    pub hosts_per_side: u32,
    /// Rate of the rl<->rr link.
    pub bottleneck_rate: RateQ,
    /// One-way delay of the rl<->rr link.
    pub bottleneck_delay: TimeQ,
    /// Rate of every host link (default 10 Gb/s).
    #[serde(default = "default_access_rate")]
    pub access_rate: RateQ,
    /// One-way delay of every host link (default 0).
    #[serde(default = "default_access_delay")]
    pub access_delay: TimeQ,
}

impl DumbbellSpec {
    /// Builds the dumbbell; groups "left", "right", "all"; default pairs left -> right.
    pub fn build(&self) -> SpecResult<Topology> {
        let n = self.hosts_per_side;
        if n == 0 {
            return Err(SpecError::new("hosts_per_side", "expected at least 1 host per side, got 0"));
        }
        check_size("hosts_per_side", n as u64, 2 * n as u64 + 2, 2 * (2 * n as u64 + 1))?;
        let mut b = Builder::new();
        let rl = b.node("rl".into(), NodeKind::Router);
        let rr = b.node("rr".into(), NodeKind::Router);
        b.duplex(rl, rr, self.bottleneck_rate.0, self.bottleneck_delay.0, Some("bottleneck"));
        let (rate, delay) = (self.access_rate.0, self.access_delay.0);
        let left = b.hosts_on(rl, "l", n, rate, delay);
        let right = b.hosts_on(rr, "r", n, rate, delay);
        b.group("left", left);
        b.group("right", right);
        b.topo.default_pairs = Some(("left".into(), "right".into()));
        b.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::Routes;
    use crate::units::{Rate, Time};

    fn dumbbell(n: u32) -> Topology {
        let spec: DumbbellSpec = serde_json::from_str(&format!(
            r#"{{"hosts_per_side": {n}, "bottleneck_rate": "1Gbps", "bottleneck_delay": "10ms"}}"#
        ))
        .unwrap();
        spec.build().unwrap()
    }

    #[test]
    fn counts_names_and_defaults() {
        let t = dumbbell(4);
        assert_eq!(t.nodes.len(), 10);
        assert_eq!(t.links.len(), 2 * 9);
        assert_eq!(t.nodes[0].name, "rl");
        assert_eq!(t.nodes[2].name, "l0");
        assert_eq!(t.nodes[9].name, "r3");
        assert_eq!(t.named["bottleneck"], 0);
        assert_eq!(t.named["bottleneck_rev"], 1);
        assert_eq!(t.links[0].name, "bottleneck");
        assert_eq!((t.links[0].rate, t.links[0].delay), (Rate::from_gbps(1), Time::from_ms(10)));
        assert_eq!(t.links[2].name, "l0->rl");
        assert_eq!((t.links[2].rate, t.links[2].delay), (Rate::from_gbps(10), Time::ZERO));
        assert_eq!(t.groups["left"], vec![2, 3, 4, 5]);
        assert_eq!(t.groups["right"], vec![6, 7, 8, 9]);
        assert_eq!(t.groups["all"], (2..10).collect::<Vec<_>>());
        assert_eq!(t.default_pairs, Some(("left".into(), "right".into())));
    }

    #[test]
    fn path_crosses_the_bottleneck_in_the_middle() {
        let t = dumbbell(4);
        let routes = Routes::compute(&t, false);
        let (l0, r3) = (t.node_by_name("l0").unwrap(), t.node_by_name("r3").unwrap());
        let path = routes.path(l0, r3, 0);
        let names: Vec<&str> = path.iter().map(|&l| t.links[l as usize].name.as_str()).collect();
        assert_eq!(names, ["l0->rl", "bottleneck", "rr->r3"]);
        let back: Vec<u32> = routes.path(r3, l0, 0);
        assert_eq!(back[1], t.named["bottleneck_rev"] as u32);
    }

    #[test]
    fn zero_hosts_is_an_error_naming_the_field() {
        let spec: DumbbellSpec =
            serde_json::from_str(r#"{"hosts_per_side": 0, "bottleneck_rate": "1Gbps", "bottleneck_delay": "10ms"}"#)
                .unwrap();
        let e = spec.build().unwrap_err();
        assert_eq!(e.field, "hosts_per_side");
        assert!(e.message.contains("got 0"), "{e}");
    }
}
