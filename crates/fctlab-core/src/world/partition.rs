//! Which partition simulates each node of a partitioned run ([`super::parallel`]).
//!
//! The cut decides the run's speed, never its meaning beyond the tie rule of
//! [`crate::sched`]: a partitioned run gives the same bytes on any number of threads, and the
//! partition is a function of the scenario alone (topology, flow plan, partition count).
//!
//! What a good cut needs: equal work per partition (the threads wait for the slowest at every
//! window), few packets across partitions (each costs a copy and a hand-over), and long links
//! across (the window, the lookahead, is the shortest delay of a link across). The rule:
//! - A host goes with the router its uplink leads to: a host's traffic never crosses alone.
//! - Work is estimated per node from the flow plan: every flow adds its size (or, long-lived,
//!   the mean size of the finite ones, at least one segment) to each node its forward path
//!   enters, and to its source.
//! - The routers with hosts, in node id order with their hosts' work, are cut into runs of
//!   equal work: the built-in topologies number neighbouring access routers consecutively (a
//!   fat tree's edge switches pod by pod), so a run keeps a pod together.
//! - Every other router (a fat tree's aggregation and core) joins, breadth first from the
//!   routers placed, the lightest partition among those with at least half as many of its
//!   placed neighbours as the one with most: aggregation switches join their pod, core
//!   switches spread evenly, also when the runs of equal work give one partition a pod more
//!   than another (a k = 32 fat tree in 16 partitions: with the plain majority, the two
//!   partitions holding a third pod's aggregation took every core switch, 2.5 times the work
//!   of the others).

use crate::net::link::Link;
use crate::units::Time;

/// A partition of the nodes, and the lookahead it allows.
#[derive(Clone, Debug)]
pub struct Partition {
    /// By node id: its partition.
    pub of: Vec<u16>,
    /// Number of partitions, none of them empty.
    pub count: usize,
    /// Partitions asked for: more than `count` when the cut could not give each a router.
    pub asked: usize,
    /// The least time between a packet entering a link across partitions and its arrival at
    /// the far end: the link's delay plus the serialization of the smallest packet at the
    /// link's fastest rate. `Time::MAX` when no link crosses.
    pub lookahead: Time,
    /// Estimated work per partition (for the run's report).
    pub work: Vec<u64>,
}

/// Splits the nodes into `count` partitions (see the module doc), or fewer where some would be
/// left empty (a partition gets at least one router): those are dropped and the rest numbered
/// in order. `flows` gives, per planned
/// flow, (source node, its size in bytes if finite, the links of its forward path);
/// `min_wire` is the smallest packet any endpoint sends, in bytes; `fastest(l)` the highest
/// rate link `l` ever serializes at, bit/s.
pub fn choose<'a>(
    links: &[Link],
    is_host: &[bool],
    flows: impl Iterator<Item = (usize, Option<u64>, &'a [u32])> + Clone,
    count: usize,
    min_wire: u32,
    fastest: impl Fn(usize) -> u64,
) -> Partition {
    let n = is_host.len();
    let mut uplink_to = vec![usize::MAX; n];
    let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); n];
    for l in links {
        let (a, b) = (l.from as usize, l.to as usize);
        if is_host[a] && uplink_to[a] == usize::MAX {
            uplink_to[a] = b;
        }
        neighbours[a].push(b);
    }
    // Where each host's work lands: the router it hangs off (or itself, if it has no uplink).
    let home = |v: usize| if is_host[v] && uplink_to[v] != usize::MAX { uplink_to[v] } else { v };

    let (sum, finite) = flows.clone().fold((0u64, 0u64), |(s, k), (_, size, _)| match size {
        Some(b) => (s + b, k + 1),
        None => (s, k),
    });
    let long_lived = sum.checked_div(finite).map_or(1460, |m| m.max(1460));
    let mut work = vec![0u64; n];
    for (src, size, path) in flows {
        let w = size.unwrap_or(long_lived).max(1);
        work[home(src)] += w;
        for &l in path {
            work[home(links[l as usize].to as usize)] += w;
        }
    }

    let mut of = vec![u16::MAX; n];
    let mut load = vec![0u64; count];
    // Routers placed in each partition: between equally loaded partitions, the one with fewer
    // (so routers without work of their own, such as unused cores, still spread evenly).
    let mut routers = vec![0u32; count];
    // Access routers (routers with a host behind them), in id order, cut into equal runs.
    let mut access: Vec<usize> = (0..n).filter(|&v| is_host[v] && home(v) != v).map(home).collect();
    access.sort_unstable();
    access.dedup();
    let total: u64 = access.iter().map(|&r| work[r]).sum::<u64>().max(1);
    let mut acc = 0u64;
    for &r in &access {
        // The partition whose share of the total this router's middle falls in.
        let mid = acc as u128 * 2 + work[r] as u128;
        let p = ((mid * count as u128) / (2 * total as u128)).min(count as u128 - 1) as usize;
        of[r] = p as u16;
        load[p] += work[r];
        routers[p] += 1;
        acc += work[r];
    }
    // Other routers, breadth first from those placed.
    let mut frontier: Vec<usize> = access.clone();
    if frontier.is_empty() {
        if let Some(first) = (0..n).find(|&v| !is_host[v]) {
            of[first] = 0;
            load[0] += work[first];
            routers[0] += 1;
            frontier.push(first);
        }
    }
    let mut votes = vec![0u32; count];
    while !frontier.is_empty() {
        let mut next: Vec<usize> = frontier
            .iter()
            .flat_map(|&v| neighbours[v].iter().copied())
            .filter(|&u| !is_host[u] && of[u] == u16::MAX)
            .collect();
        next.sort_unstable();
        next.dedup();
        for &u in &next {
            votes.iter_mut().for_each(|v| *v = 0);
            for &w in &neighbours[u] {
                if of[w] != u16::MAX && !is_host[w] {
                    votes[of[w] as usize] += 1;
                }
            }
            // Among the partitions with at least half the most votes, the lightest: a core
            // switch (as many neighbours in every pod) goes where the load is least, even when
            // a partition holds one pod more than another; a router whose neighbours are nearly
            // all in one partition goes there.
            let most = votes.iter().copied().max().unwrap_or(0);
            let p = (0..count).filter(|&p| 2 * votes[p] >= most).min_by_key(|&p| (load[p], routers[p], p)).unwrap_or(0);
            of[u] = p as u16;
            load[p] += work[u];
            routers[p] += 1;
        }
        frontier = next;
    }
    // Routers not reached (another component) go to the lightest partition; hosts follow home.
    for v in 0..n {
        if !is_host[v] && of[v] == u16::MAX {
            let p = (0..count).min_by_key(|&p| (load[p], routers[p], p)).unwrap_or(0);
            of[v] = p as u16;
            load[p] += work[v];
            routers[p] += 1;
        }
    }
    for v in 0..n {
        if is_host[v] {
            let h = home(v);
            of[v] = if of[h] == u16::MAX { 0 } else { of[h] };
        }
    }

    // Drop empty partitions: more partitions than routers with hosts leaves some without a
    // router, and a thread would cross every barrier for nothing there.
    let mut new_id = vec![u16::MAX; count];
    let mut used = 0usize;
    for &q in &of {
        if new_id[q as usize] == u16::MAX {
            new_id[q as usize] = 0;
        }
    }
    for id in new_id.iter_mut() {
        if *id == 0 {
            *id = used as u16;
            used += 1;
        }
    }
    let asked = count;
    let count = used.max(1);
    for q in of.iter_mut() {
        *q = new_id[*q as usize];
    }
    let mut work = vec![0u64; count];
    for (q, l) in load.iter().enumerate() {
        if new_id[q] != u16::MAX {
            work[new_id[q] as usize] += l;
        }
    }

    let lookahead = links
        .iter()
        .enumerate()
        .filter(|(_, l)| of[l.from as usize] != of[l.to as usize])
        .map(|(i, l)| {
            let ser_ps = (min_wire as u128 * 8 * 1_000_000_000_000) / fastest(i).max(1) as u128;
            l.delay + Time(ser_ps as u64)
        })
        .min()
        .unwrap_or(Time::MAX);
    Partition { of, count, asked, lookahead, work }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::link::{FifoSchedule, Port};
    use crate::qdisc::Limit;
    use crate::topology::FatTreeSpec;

    fn fat_tree_links(k: u32) -> (Vec<Link>, Vec<bool>) {
        let spec: FatTreeSpec =
            serde_json::from_str(&format!(r#"{{"k": {k}, "rate": "1Gbps", "delay": "1us"}}"#)).unwrap();
        let topo = spec.build().unwrap();
        let links = topo
            .links
            .iter()
            .map(|l| {
                let port = Port::Fifo(FifoSchedule::new(Limit::Packets(10)));
                Link::new(l.from as u32, l.to as u32, l.rate, l.delay, port)
            })
            .collect();
        let hosts = topo.nodes.iter().map(|n| n.kind == crate::topology::NodeKind::Host).collect();
        (links, hosts)
    }

    /// A fat tree with the same work on every host splits into whole pods, aggregation
    /// switches with their pod, core switches evenly: the cut a hand would draw.
    #[test]
    fn fat_tree_splits_by_pod() {
        let (links, hosts) = fat_tree_links(4);
        let host_ids: Vec<usize> = (0..hosts.len()).filter(|&v| hosts[v]).collect();
        // One flow per host with an empty path: only the source's work counts.
        let flows: Vec<(usize, Option<u64>, &[u32])> = host_ids.iter().map(|&h| (h, Some(1000), &[][..])).collect();
        let p = choose(&links, &hosts, flows.iter().copied(), 2, 40, |_| 1_000_000_000);
        // Node ids: 4 cores, then per pod 2 aggregation and 2 edge switches, then 16 hosts.
        let pods: Vec<Vec<u16>> = (0..4).map(|pod| (0..4).map(|j| p.of[4 + pod * 4 + j]).collect()).collect();
        for pod in &pods {
            assert!(pod.iter().all(|&x| x == pod[0]), "a pod is split: {pods:?}");
        }
        assert_eq!(pods.iter().filter(|pod| pod[0] == 0).count(), 2, "two pods each: {pods:?}");
        let cores: Vec<u16> = p.of[..4].to_vec();
        assert_eq!(cores.iter().filter(|&&c| c == 0).count(), 2, "cores spread evenly: {cores:?}");
        for (h, &is) in hosts.iter().enumerate() {
            if is {
                let up = links.iter().find(|l| l.from as usize == h).unwrap().to as usize;
                assert_eq!(p.of[h], p.of[up], "host {h} is not with its edge switch");
            }
        }
        // 1 us of delay plus 40 bytes at 1 Gb/s (320 ns).
        assert_eq!(p.lookahead, Time(1_320_000));
    }

    /// Core switches spread over every partition, to even out the work, also when the runs of
    /// equal work split pods unevenly: a k = 8 fat tree in 3 partitions gives two of them three
    /// pods' aggregation switches and one only two, and a plain majority of neighbours sent
    /// every core switch to the first two (the third ran none of the core's work).
    #[test]
    fn core_switches_spread_when_pods_split_unevenly() {
        let (links, hosts) = fat_tree_links(8);
        let host_ids: Vec<usize> = (0..hosts.len()).filter(|&v| hosts[v]).collect();
        // Every host sends to the host at the same place in the next pod, up through a core
        // switch chosen round robin, so that core switches carry work as in a real run.
        let link = |a: usize, b: usize| {
            links.iter().position(|l| l.from as usize == a && l.to as usize == b).expect("a link") as u32
        };
        let up = |v: usize| links.iter().filter(|l| l.from as usize == v).map(|l| l.to as usize).min().unwrap();
        let paths: Vec<Vec<u32>> = host_ids
            .iter()
            .enumerate()
            .map(|(i, &h)| {
                let dst = host_ids[(i + 16) % host_ids.len()];
                let (edge, dst_edge) = (up(h), up(dst));
                let agg = 16 + (edge - 16) / 8 * 8 + i % 4;
                let core =
                    links.iter().filter(|l| l.from as usize == agg && l.to < 16).nth(i / 4 % 4).unwrap().to as usize;
                // A core switch's links lead to one aggregation switch per pod.
                let pod_of = |v: usize| (v - 16) / 8;
                let dst_agg = links
                    .iter()
                    .find(|l| l.from as usize == core && pod_of(l.to as usize) == pod_of(dst_edge))
                    .unwrap()
                    .to as usize;
                vec![
                    link(h, edge),
                    link(edge, agg),
                    link(agg, core),
                    link(core, dst_agg),
                    link(dst_agg, dst_edge),
                    link(dst_edge, dst),
                ]
            })
            .collect();
        let flows: Vec<(usize, Option<u64>, &[u32])> =
            host_ids.iter().zip(&paths).map(|(&h, path)| (h, Some(1000), &path[..])).collect();
        let p = choose(&links, &hosts, flows.iter().copied(), 3, 40, |_| 1_000_000_000);
        assert_eq!(p.count, 3);
        let mut cores = [0usize; 3];
        for &q in &p.of[..16] {
            cores[q as usize] += 1;
        }
        let (most, least) = (p.work.iter().max().unwrap(), p.work.iter().min().unwrap());
        assert!(*most as f64 <= 1.1 * *least as f64, "work {:?}, core switches by partition {cores:?}", p.work);
        assert!(cores.iter().all(|&c| c >= 2), "core switches by partition {cores:?}");
        // Aggregation switches still follow the majority of their pod's edge switches.
        for pod in 0..8 {
            let first = 16 + pod * 8;
            let (aggs, edges) = (&p.of[first..first + 4], &p.of[first + 4..first + 8]);
            for &a in aggs {
                let with = edges.iter().filter(|&&e| e == a).count();
                assert!(2 * with >= edges.iter().map(|&e| edges.iter().filter(|&&x| x == e).count()).max().unwrap());
            }
        }
    }

    /// More partitions than access routers: the cut keeps only those it can fill, one edge
    /// switch (with its hosts) at least in each, and numbers them from 0.
    #[test]
    fn partitions_beyond_the_routers_are_dropped() {
        let (links, hosts) = fat_tree_links(4);
        let host_ids: Vec<usize> = (0..hosts.len()).filter(|&v| hosts[v]).collect();
        let flows: Vec<(usize, Option<u64>, &[u32])> = host_ids.iter().map(|&h| (h, Some(1000), &[][..])).collect();
        let p = choose(&links, &hosts, flows.iter().copied(), 1024, 40, |_| 1_000_000_000);
        assert_eq!((p.count, p.asked), (8, 1024), "one partition per edge switch of a k = 4 fat tree");
        let mut seen = vec![0usize; p.count];
        for &q in &p.of {
            seen[q as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n > 0), "no partition is empty: {seen:?}");
        assert_eq!(p.work.len(), p.count);
    }

    /// One partition: nothing crosses, no lookahead limit.
    #[test]
    fn one_partition_has_no_cut() {
        let (links, hosts) = fat_tree_links(4);
        let p = choose(&links, &hosts, std::iter::empty(), 1, 40, |_| 1);
        assert!(p.of.iter().all(|&x| x == 0));
        assert_eq!(p.lookahead, Time::MAX);
    }
}
