//! The parking lot: `n` bottlenecks in a chain, one long path over all of them and cross
//! traffic over each one alone (the classic max-min fairness test of RCP and XCP).
//!
//! ```text
//!  long_src*  cross0_src*  cross1_src*             cross{n-1}_src*
//!      \         |            |                        |
//!       c0 ==hop0==> c1 ==hop1==> c2 ... c{n-1} ==hop{n-1}==> cn
//!                    |            |                           |  \
//!               cross0_dst*  cross1_dst*             cross{n-1}_dst*  long_dst*
//! ```
//! Node ids: routers c0..cn first; bottleneck i is link 2i ("hop{i}", c{i}->c{i+1}) and
//! 2i+1 ("hop{i}_rev"). Hosts follow: long_src{j}, long_dst{j}, then per hop
//! cross{i}_src{j} and cross{i}_dst{j}.

use super::{check_size, default_access_delay, default_access_rate, Builder, NodeKind, Topology};
use crate::error::{SpecError, SpecResult};
use crate::quantity::{RateQ, TimeQ};
use serde::Deserialize;

fn one() -> u32 {
    1
}

/// `kind = "parking_lot"`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParkingLotSpec {
    /// Number of bottleneck links in the chain (>= 1).
    pub bottlenecks: u32,
    /// Rate of every bottleneck.
    pub rate: RateQ,
    /// One-way delay of every bottleneck.
    pub delay: TimeQ,
    /// Rate of every host link (default 10 Gb/s).
    #[serde(default = "default_access_rate")]
    pub access_rate: RateQ,
    /// One-way delay of every host link (default 0).
    #[serde(default = "default_access_delay")]
    pub access_delay: TimeQ,
    /// Hosts at each end of the long path (default 1, >= 1).
    #[serde(default = "one")]
    pub long_hosts: u32,
    /// Source and destination hosts of each hop's cross traffic (default 1; 0 = no cross traffic).
    #[serde(default = "one")]
    pub cross_hosts: u32,
}

impl ParkingLotSpec {
    /// Builds the chain; groups long_src, long_dst, cross{i}_src, cross{i}_dst, all.
    pub fn build(&self) -> SpecResult<Topology> {
        let n = self.bottlenecks;
        if n == 0 {
            return Err(SpecError::new("bottlenecks", "expected at least 1 bottleneck, got 0"));
        }
        if self.long_hosts == 0 {
            return Err(SpecError::new("long_hosts", "expected at least 1 host at each end of the long path, got 0"));
        }
        let nodes = (n as u64 + 1) + 2 * self.long_hosts as u64 + 2 * n as u64 * self.cross_hosts as u64;
        // A tree (the chain's hops, one access link per host): nodes - 1 duplex links.
        check_size("bottlenecks", n as u64, nodes, 2 * (nodes - 1))?;
        let mut b = Builder::new();
        let chain: Vec<usize> = (0..=n).map(|i| b.node(format!("c{i}"), NodeKind::Router)).collect();
        for i in 0..n as usize {
            b.duplex(chain[i], chain[i + 1], self.rate.0, self.delay.0, Some(&format!("hop{i}")));
        }
        let (rate, delay) = (self.access_rate.0, self.access_delay.0);
        let long_src = b.hosts_on(chain[0], "long_src", self.long_hosts, rate, delay);
        let long_dst = b.hosts_on(chain[n as usize], "long_dst", self.long_hosts, rate, delay);
        b.group("long_src", long_src);
        b.group("long_dst", long_dst);
        if self.cross_hosts > 0 {
            for i in 0..n as usize {
                let src = b.hosts_on(chain[i], &format!("cross{i}_src"), self.cross_hosts, rate, delay);
                let dst = b.hosts_on(chain[i + 1], &format!("cross{i}_dst"), self.cross_hosts, rate, delay);
                b.group(format!("cross{i}_src"), src);
                b.group(format!("cross{i}_dst"), dst);
            }
        }
        b.topo.default_pairs = Some(("long_src".into(), "long_dst".into()));
        b.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::Routes;

    fn lot(n: u32, extra: &str) -> SpecResult<Topology> {
        let spec: ParkingLotSpec =
            serde_json::from_str(&format!(r#"{{"bottlenecks": {n}, "rate": "1Gbps", "delay": "5ms"{extra}}}"#))
                .unwrap();
        spec.build()
    }

    fn hops_on_path(t: &Topology, src: usize, dst: usize) -> Vec<String> {
        let routes = Routes::compute(t, false);
        let path = routes.path(src, dst, 7);
        assert!(!path.is_empty(), "no path {src} -> {dst}");
        path.iter().map(|&l| t.links[l as usize].name.clone()).filter(|name| name.starts_with("hop")).collect()
    }

    #[test]
    fn long_path_crosses_every_hop() {
        let t = lot(3, "").unwrap();
        assert_eq!(t.nodes.len(), 4 + 2 + 6);
        let (s, d) = (t.groups["long_src"][0], t.groups["long_dst"][0]);
        assert_eq!(hops_on_path(&t, s, d), ["hop0", "hop1", "hop2"]);
        assert_eq!(t.default_pairs, Some(("long_src".into(), "long_dst".into())));
    }

    #[test]
    fn cross_traffic_crosses_only_its_hop() {
        let t = lot(3, r#", "cross_hosts": 2"#).unwrap();
        for i in 0..3 {
            for &s in &t.groups[&format!("cross{i}_src")] {
                for &d in &t.groups[&format!("cross{i}_dst")] {
                    assert_eq!(hops_on_path(&t, s, d), [format!("hop{i}")]);
                }
            }
        }
        assert_eq!(t.groups["cross1_src"].len(), 2);
    }

    #[test]
    fn no_cross_hosts_means_no_cross_groups() {
        let t = lot(2, r#", "cross_hosts": 0"#).unwrap();
        assert!(!t.groups.contains_key("cross0_src"));
        assert_eq!(t.groups["all"].len(), 2);
    }

    #[test]
    fn zero_bottlenecks_is_an_error_naming_the_field() {
        let e = lot(0, "").unwrap_err();
        assert_eq!(e.field, "bottlenecks");
        assert!(e.message.contains("got 0"), "{e}");
    }
}
