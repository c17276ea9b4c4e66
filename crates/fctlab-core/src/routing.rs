//! Static routes: shortest paths to every host by total propagation delay, ties broken by hop
//! count, with optional ECMP over every next hop on an equally short path.
//!
//! Tables are computed once per run (Dijkstra on the reversed graph from each destination
//! group's anchor, see "Memory" below) and stored densely, so that a forwarding decision on the event loop's hot path is an
//! index computation and a slice read, with no hashing. A host is never a transit node: the
//! search does not extend paths through a host other than the destination.
//!
//! Without ECMP each (node, destination) keeps exactly one next hop: among those on a shortest
//! path, the one leading to the lowest node id (then the lowest link id); where it had others,
//! the entry is marked ([`Routes::passes_over_equal_cost`] finds them on a flow's path, so that
//! a run can say when single-path routing left equal-cost paths unused). From any source this
//! gives the lexicographically smallest shortest path, which is what ns-3's global routing
//! chose for the RC3 authors: their Internet-2 core capacities are exactly 1111 Mb/s per router
//! pair routed over each link under this rule (a test checks it), and a different tie-break
//! overloads their 1112 Mb/s links. With ECMP a flow picks
//! among the candidates with its [`flow_hash`] mixed with a per-node salt: if every stage used
//! the same bits of the hash, a flow that went left at the edge would go left at the
//! aggregation layer too (hash polarization) and some paths would never be used.
//!
//! Memory: destinations are grouped by where they attach. A host whose only links go to and
//! come from one router R (every host of the built-in topologies, and most of a graph's) is
//! reached through R: the route to it from any node other than R is the route to R, and at R it
//! is the host's own access link, so every host behind R shares R's table (one Dijkstra from R).
//! A host attached otherwise (multi-homed, or behind another host) is a destination group of its
//! own. Such a single-homed host also needs no entry as a *source*: its next hop is its one
//! uplink, whatever the destination (when its router has a route there). So a table row holds
//! one entry per *transit column*: the routers, and the hosts that are not single-homed. And
//! only the rows of destination groups that some flow sends to (or acknowledges to) are
//! computed: [`Routes::compute_for`]. The tables hold one u32 per (used destination group,
//! column): an Internet-2 of 10^6 hosts and one flow needs 2 rows of 10 entries, not 10 rows
//! of 10^6 (40 MB), and a graph of 50,000 multi-homed hosts with one flow 2 rows of 50,002,
//! not 50,000 of them.
//!
//! An entry is the next hop itself when there is one (most entries: every entry without ECMP),
//! or names a list of candidates, each distinct list stored once ([`Entry`]): on a k = 32 fat
//! tree with ECMP the 16 uplinks of an edge switch are one list that every destination outside
//! the pod shares, where storing each entry's candidates took 34 MB for 512 destination groups.
//! So a forwarding decision reads one u32 of the table (and, with a choice, a list that stays
//! in cache), and the table is the only part that grows with the topology.
//! [`Routes::table_entries`] gives the size before anything is computed, for the run's memory
//! estimate.
//!
//! Sparse rows: a dense row holds an entry for every transit column, which is quadratic when
//! flows go to most of the routers of a large graph (10,000 routers with flows to 9,000 of them:
//! 90 million entries, 360 MB). [`Routes::compute_sparse`] keeps instead only the entries that
//! the given flows' packets read, on their paths in both directions: routing memory linear in
//! the nodes and the flows. Each row is still computed whole (one Dijkstra per used group, the
//! same candidates), then walked by every flow towards that group with the flow's own hash, so
//! every lookup of those flows answers exactly what the dense table would. A sparse row's
//! entries live in one open-addressing table keyed by (row, column) (`SparseRows`); a `Dest`
//! whose base carries the `SPARSE` tag points there. The scenario build picks sparse rows only when
//! the dense table would exceed [`DENSE_LIMIT`] entries, so every smaller topology forwards as
//! before.

use crate::topology::{NodeKind, Topology};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Marks a node that is not a destination in [`Dest::base`]: not a host, or a host whose row
/// was not computed.
const NOT_A_HOST: u32 = u32::MAX;
/// Marks a host reached through no single router in [`Dest::attach`].
const NO_ROUTER: u32 = u32::MAX;
/// Marks a node without a transit column (a single-homed host) in [`Routes::col`].
const NO_COL: u32 = u32::MAX;
/// Tags a [`Dest::base`] that is a sparse row's id in [`Routes::sparse`], not an offset.
const SPARSE: u32 = 1 << 31;
/// Dense tables up to this many entries (64 MB); beyond, the scenario build computes sparse
/// rows ([`Routes::compute_sparse`]).
pub const DENSE_LIMIT: u64 = 1 << 24;

/// Path length to a destination: total propagation delay (ps), then hop count; compared in that order.
type Dist = (u64, u32);

/// No path found (yet).
const UNREACHED: Dist = (u64::MAX, u32::MAX);

/// How a node is reached as a destination: read once per forwarding decision.
#[derive(Copy, Clone, Debug)]
struct Dest {
    /// Where its destination group's row starts in [`Routes::entries`], or [`NOT_A_HOST`].
    base: u32,
    /// The router it hangs off when it shares that router's row, else [`NO_ROUTER`].
    attach: u32,
}

/// The destination groups of a topology: which group each host is in, each group's anchor (the
/// node its Dijkstra starts from: the shared router, or the host itself), and the hosts that
/// hang off one router.
struct Groups {
    /// Per node: its group, or [`NOT_A_HOST`].
    group: Vec<u32>,
    /// Per node: the router a single-homed host hangs off, else [`NO_ROUTER`].
    attach: Vec<u32>,
    /// Per node: the link from its attachment router to it (single-homed hosts only).
    last_hop: Vec<u32>,
    /// Per node: a single-homed host's one link out (its uplink).
    uplink: Vec<u32>,
    anchors: Vec<usize>,
}

impl Groups {
    /// The groups of `topo`, whose links out and in of each node are `out_links`, `in_links`
    /// ([`links_by_node`]).
    fn of(topo: &Topology, out_links: &[Vec<u32>], in_links: &[Vec<u32>]) -> Groups {
        let n = topo.nodes.len();
        let mut g = Groups {
            group: vec![NOT_A_HOST; n],
            attach: vec![NO_ROUTER; n],
            last_hop: vec![u32::MAX; n],
            uplink: vec![u32::MAX; n],
            anchors: Vec::new(),
        };
        let mut group_of_router = vec![NOT_A_HOST; n];
        for h in topo.hosts() {
            // Behind one router: a single link in, from a router, and a single link out, to it.
            let single = match (in_links[h].as_slice(), out_links[h].as_slice()) {
                (&[i], &[o]) => {
                    let r = topo.links[i as usize].from;
                    (topo.nodes[r].kind == NodeKind::Router && topo.links[o as usize].to == r).then_some((r, i, o))
                }
                _ => None,
            };
            match single {
                Some((r, link, up)) => {
                    if group_of_router[r] == NOT_A_HOST {
                        group_of_router[r] = g.anchors.len() as u32;
                        g.anchors.push(r);
                    }
                    g.group[h] = group_of_router[r];
                    g.attach[h] = r as u32;
                    g.last_hop[h] = link;
                    g.uplink[h] = up;
                }
                None => {
                    g.group[h] = g.anchors.len() as u32;
                    g.anchors.push(h);
                }
            }
        }
        g
    }

    /// Per node: its transit column (routers and hosts that are not single-homed, in node
    /// order), or [`NO_COL`]; and the number of columns.
    fn columns(&self, topo: &Topology) -> (Vec<u32>, usize) {
        let mut cols = 0;
        let col = (0..topo.nodes.len())
            .map(|v| {
                if self.attach[v] != NO_ROUTER {
                    return NO_COL;
                }
                cols += 1;
                cols as u32 - 1
            })
            .collect();
        (col, cols)
    }

    /// The group of host `h`, if it is one.
    fn group_of(&self, h: usize) -> Option<u32> {
        self.group.get(h).copied().filter(|&g| g != NOT_A_HOST)
    }

    /// Per group: whether a host of `used` is in it.
    fn used(&self, used: impl IntoIterator<Item = usize>) -> Vec<bool> {
        let mut out = vec![false; self.anchors.len()];
        for h in used {
            if let Some(&g) = self.group.get(h) {
                if g != NOT_A_HOST {
                    out[g as usize] = true;
                }
            }
        }
        out
    }
}

/// Forwarding tables for every (node, destination host) that a flow uses.
#[derive(Clone, Debug)]
pub struct Routes {
    /// Number of nodes.
    n_nodes: usize,
    /// Per node: how it is reached as a destination.
    dest: Vec<Dest>,
    /// Per node: the access link into it from its attachment router (single-homed hosts).
    last_hop: Vec<u32>,
    /// Per node: a single-homed host's uplink, its next hop to anywhere its router reaches.
    uplink: Vec<u32>,
    /// Per node: its transit column, or [`NO_COL`] for a single-homed host.
    col: Vec<u32>,
    /// The next hops of (row starting at base b, column c): `entries[b + c]`, an [`Entry`].
    entries: Vec<u32>,
    /// Lists of two or more candidates, by list id: `hops[lists[id].0..lists[id].1]`.
    lists: Vec<(u32, u32)>,
    /// Candidate next hops (directed link ids) of every list, each list in candidate order.
    hops: Vec<u32>,
    /// Per link: the node it enters, to walk paths.
    link_to: Vec<u32>,
    /// Per node: salt mixed into the flow hash before picking among candidates.
    salt: Vec<u64>,
    /// The entries of sparse rows (empty with dense rows).
    sparse: SparseRows,
    /// Without ECMP, the entries whose node had other next hops on a shortest path (set up
    /// once, never read by forwarding).
    passed_over: PassedOver,
}

impl Routes {
    /// Entries of the offset table [`Routes::compute_for`] would build for flows between the
    /// hosts of `used` (used destination groups x transit columns): what routing memory grows
    /// with, known before computing anything.
    pub fn table_entries(topo: &Topology, used: impl IntoIterator<Item = usize>) -> u64 {
        let (outgoing, incoming) = links_by_node(topo);
        let groups = Groups::of(topo, &outgoing, &incoming);
        let rows = groups.used(used).iter().filter(|&&u| u).count() as u64;
        rows * groups.columns(topo).1 as u64
    }

    /// The tables towards every host; see [`Routes::compute_for`].
    pub fn compute(topo: &Topology, ecmp: bool) -> Routes {
        Routes::compute_for(topo, ecmp, topo.hosts())
    }

    /// Computes the tables towards the hosts of `used` (every other host is unreachable); with
    /// `ecmp` false, keeps one next hop per entry (towards the lowest node id, then the lowest
    /// link id).
    ///
    /// Panics only if the tables would exceed 2^32 entries; the scenario build refuses such a
    /// topology first, through the run's memory estimate ([`Routes::table_entries`]).
    pub fn compute_for(topo: &Topology, ecmp: bool, used: impl IntoIterator<Item = usize>) -> Routes {
        let mut b = Builder::new(topo, ecmp);
        let used = b.groups.used(used);
        let rows = used.iter().filter(|&&u| u).count();
        let mut base = vec![NOT_A_HOST; b.groups.anchors.len()];
        let mut entries: Vec<u32> = Vec::with_capacity(rows * b.cols);
        let mut passed_over = PassedOver::default();
        for g in (0..used.len()).filter(|&g| used[g]) {
            base[g] = u32::try_from(entries.len()).expect("routing table exceeds 2^32 entries");
            b.row(g, &mut entries);
            for c in (0..b.cols).filter(|&c| b.tied[c]) {
                passed_over.mark_dense(base[g] as usize + c);
            }
        }
        b.finish(base, entries, SparseRows::default(), passed_over)
    }

    /// Sparse rows (module doc): the routes that the packets of `flows` read, each flow a
    /// (source, destination, [`flow_hash`]) of one direction; every other (node, destination)
    /// is unreachable. For each flow, [`Routes::path`] and every lookup along it give what
    /// [`Routes::compute_for`] would.
    pub fn compute_sparse(topo: &Topology, ecmp: bool, flows: &[(usize, usize, u64)]) -> Routes {
        let mut b = Builder::new(topo, ecmp);
        let groups = b.groups.anchors.len();
        // Flows by destination group, each group's in flow order.
        let group_of: Vec<Option<u32>> = flows.iter().map(|f| b.groups.group_of(f.1)).collect();
        let mut by_group: Vec<u32> = (0..flows.len() as u32).filter(|&i| group_of[i as usize].is_some()).collect();
        by_group.sort_by_key(|&i| group_of[i as usize]);
        let mut base = vec![NOT_A_HOST; groups];
        let mut row = Vec::with_capacity(b.cols);
        let mut found: Vec<(u64, Entry)> = Vec::new();
        let mut tied_keys: Vec<u64> = Vec::new();
        let same_group = |i: &u32, j: &u32| group_of[*i as usize] == group_of[*j as usize];
        for (r, same) in by_group.chunk_by(same_group).enumerate() {
            let g = group_of[same[0] as usize].expect("a flow to a host") as usize;
            row.clear();
            b.row(g, &mut row);
            let r = u32::try_from(r).ok().filter(|&r| r < SPARSE - 1).expect("routing: 2^31 sparse rows");
            base[g] = SPARSE | r;
            for &i in same {
                let (src, dst, hash) = flows[i as usize];
                let tied = &b.tied;
                b.walk(src, dst, hash, &row, |c, e| {
                    let key = (r as u64) << 32 | c as u64;
                    found.push((key, e));
                    if tied[c as usize] {
                        tied_keys.push(key);
                    }
                });
            }
        }
        b.finish(base, Vec::new(), SparseRows::build(found), PassedOver::sparse(tied_keys))
    }

    /// Entries of the sparse rows (0 with dense rows).
    pub fn sparse_entries(&self) -> usize {
        self.sparse.len()
    }

    /// Bytes the tables take (for tests and the memory estimate's per-entry figure).
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.dest.len() * size_of::<Dest>()
            + self.last_hop.len() * 4
            + self.uplink.len() * 4
            + self.col.len() * 4
            + self.entries.len() * 4
            + self.lists.len() * 8
            + self.hops.len() * 4
            + self.link_to.len() * 4
            + self.salt.len() * 8
            + self.sparse.memory_bytes()
            + self.passed_over.memory_bytes()
    }

    /// Every next hop (directed link id) from `node` on a shortest path to host `dst_host`;
    /// empty at the destination, when it is unreachable (or its row was not computed), or when
    /// `dst_host` is not a host.
    #[inline]
    pub fn next_hops(&self, node: usize, dst_host: usize) -> &[u32] {
        let Dest { base, attach } = self.dest[dst_host];
        if node as u32 == attach {
            return std::slice::from_ref(&self.last_hop[dst_host]);
        }
        if base == NOT_A_HOST || node == dst_host {
            return &[];
        }
        let c = self.col[node];
        if c == NO_COL {
            // A single-homed host: its uplink, if its router gets there.
            let router = self.dest[node].attach as usize;
            let onward = router as u32 == attach || !self.entry(base, self.col[router]).is_empty();
            return if onward { std::slice::from_ref(&self.uplink[node]) } else { &[] };
        }
        self.entry(base, c)
    }

    /// [`Routes::next_hops`] on the forwarding path: the same candidates for a packet not at
    /// `dst_host`, with fewer checks (see [`Routes::next_hop_with`]).
    #[inline]
    fn forwarding_hops(&self, node: usize, dst_host: usize) -> &[u32] {
        let Dest { base, attach } = self.dest[dst_host];
        if node as u32 == attach {
            return std::slice::from_ref(&self.last_hop[dst_host]);
        }
        if base == NOT_A_HOST {
            return &[];
        }
        match self.col[node] {
            NO_COL => std::slice::from_ref(&self.uplink[node]),
            c => self.entry(base, c),
        }
    }

    /// The candidates of column `c` in the row starting at `base` (or sparse row `base`).
    #[inline]
    fn entry(&self, base: u32, c: u32) -> &[u32] {
        let e = if base & SPARSE == 0 { &self.entries[base as usize + c as usize] } else { self.sparse.get(base, c) };
        candidates_of(e, &self.lists, &self.hops)
    }

    /// The next hop of a flow with hash `flow_hash` at `node` towards `dst_host`, if any.
    #[inline]
    pub fn next_hop(&self, node: usize, dst_host: usize, flow_hash: u64) -> Option<u32> {
        self.pick(node, self.next_hops(node, dst_host), || flow_hash)
    }

    /// [`Routes::next_hop`] for forwarding a packet that is not at its destination, with the
    /// flow hash computed only where there is a choice of next hops (most hops have one). A
    /// single-homed host answers its uplink without asking whether its router gets there (a
    /// flow is planned only if it does; a packet of no flow is dropped at that router).
    #[inline]
    pub fn next_hop_with(&self, node: usize, dst_host: usize, flow_hash: impl FnOnce() -> u64) -> Option<u32> {
        self.pick(node, self.forwarding_hops(node, dst_host), flow_hash)
    }

    /// One of the candidates `c` at `node`, by the flow's hash where there is a choice.
    #[inline]
    fn pick(&self, node: usize, c: &[u32], flow_hash: impl FnOnce() -> u64) -> Option<u32> {
        pick(c, self.salt[node], flow_hash)
    }

    /// The directed links a flow with hash `flow_hash` crosses from `src` to `dst`, in order;
    /// empty if `src == dst` or `dst` is unreachable (tell them apart with [`Routes::reachable`]).
    pub fn path(&self, src: usize, dst: usize, flow_hash: u64) -> Vec<u32> {
        let mut path = Vec::new();
        let mut node = src;
        while node != dst {
            match self.next_hop(node, dst, flow_hash) {
                // Every hop strictly shortens (delay, hops), so a walk never exceeds n_nodes links.
                Some(l) if path.len() < self.n_nodes => {
                    path.push(l);
                    node = self.link_to[l as usize] as usize;
                }
                _ => return Vec::new(),
            }
        }
        path
    }

    /// Whether host `dst` can be reached from `src` (a host reaches itself).
    pub fn reachable(&self, src: usize, dst: usize) -> bool {
        self.dest[dst].base != NOT_A_HOST && (src == dst || !self.next_hops(src, dst).is_empty())
    }

    /// Whether the path from `src` to `dst` of tables computed without ECMP passes a node that
    /// had more than one next hop on a shortest path towards `dst` and kept only the first: a
    /// node where ECMP would have spread flows. Always false for tables computed with ECMP, and
    /// for a pair whose row was not computed (or, with sparse rows, whose flow was not given).
    /// For the run's setup, not for forwarding.
    pub fn passes_over_equal_cost(&self, src: usize, dst: usize) -> bool {
        if self.passed_over.is_empty() {
            return false;
        }
        let Dest { base, attach } = self.dest[dst];
        if base == NOT_A_HOST {
            return false;
        }
        let mut node = src;
        // Every hop strictly shortens the path (see `path`), so a walk ends within n_nodes hops.
        for _ in 0..self.n_nodes {
            // At the destination's router the one next hop is the host's access link.
            if node == dst || node as u32 == attach {
                return false;
            }
            let c = self.col[node];
            if c != NO_COL && self.passed_over.get(base, c) {
                return true;
            }
            match self.next_hop(node, dst, 0) {
                Some(l) => node = self.link_to[l as usize] as usize,
                None => return false,
            }
        }
        false
    }
}

/// The entries of single-path tables whose node had more than one next hop on a shortest path:
/// a bit per dense entry, or the sorted (row, column) keys of sparse rows. Empty with ECMP.
#[derive(Clone, Debug, Default)]
struct PassedOver {
    /// Bit `i` marks dense entry `i` (`base + column`).
    dense: Vec<u64>,
    /// Marked sparse entries, keyed as in [`SparseRows`], sorted and unique.
    sparse: Vec<u64>,
}

impl PassedOver {
    fn sparse(mut keys: Vec<u64>) -> PassedOver {
        keys.sort_unstable();
        keys.dedup();
        keys.shrink_to_fit();
        PassedOver { dense: Vec::new(), sparse: keys }
    }

    fn mark_dense(&mut self, i: usize) {
        if self.dense.len() <= i / 64 {
            self.dense.resize(i / 64 + 1, 0);
        }
        self.dense[i / 64] |= 1 << (i % 64);
    }

    fn is_empty(&self) -> bool {
        self.dense.is_empty() && self.sparse.is_empty()
    }

    /// Whether the entry of column `c` in the row at `base` (or sparse row `base`) is marked.
    fn get(&self, base: u32, c: u32) -> bool {
        if base & SPARSE == 0 {
            let i = base as usize + c as usize;
            self.dense.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
        } else {
            self.sparse.binary_search(&(((base & !SPARSE) as u64) << 32 | c as u64)).is_ok()
        }
    }

    fn memory_bytes(&self) -> usize {
        (self.dense.len() + self.sparse.len()) * 8
    }
}

/// An entry of [`Routes::entries`]: a link id (below [`LIST`]), [`NO_HOP`], or [`LIST`] | the
/// id of a list of two or more candidates.
type Entry = u32;
/// Tags an [`Entry`] naming a list.
const LIST: Entry = 1 << 31;
/// An [`Entry`] without next hop (the destination itself, or unreachable).
const NO_HOP: Entry = u32::MAX;

/// The candidate lists of a table, each distinct list stored once.
#[derive(Default)]
struct Lists {
    ids: std::collections::HashMap<Vec<u32>, Entry>,
    lists: Vec<(u32, u32)>,
    hops: Vec<u32>,
    /// Per node: the list its last entry named (a node offers the same list to most
    /// destinations, so it is checked before the list is hashed).
    recent: Vec<Entry>,
}

impl Lists {
    /// The entry for the candidates at `node`.
    fn entry(&mut self, node: usize, candidates: &[u32]) -> Entry {
        match candidates {
            [] => NO_HOP,
            &[l] => {
                assert!(l < LIST, "routing: link ids must stay below 2^31");
                l
            }
            many => {
                let recent = self.recent[node];
                if recent != NO_HOP && self.list(recent) == many {
                    return recent;
                }
                if let Some(&id) = self.ids.get(many) {
                    self.recent[node] = id;
                    return id;
                }
                let a = self.hops.len() as u32;
                self.hops.extend_from_slice(many);
                let b = u32::try_from(self.hops.len()).expect("routing table exceeds 2^32 next hops");
                let id =
                    LIST | u32::try_from(self.lists.len()).ok().filter(|&i| i < LIST).expect("routing: 2^31 lists");
                self.lists.push((a, b));
                self.ids.insert(many.to_vec(), id);
                self.recent[node] = id;
                id
            }
        }
    }

    /// The candidates of list `id`.
    fn list(&self, id: Entry) -> &[u32] {
        let (a, b) = self.lists[(id & !LIST) as usize];
        &self.hops[a as usize..b as usize]
    }
}

/// The candidates an entry stands for: none, the one link it is, or a list.
#[inline]
fn candidates_of<'a>(e: &'a Entry, lists: &'a [(u32, u32)], hops: &'a [u32]) -> &'a [u32] {
    match *e {
        NO_HOP => &[],
        id if id & LIST != 0 => {
            let (a, b) = lists[(id & !LIST) as usize];
            &hops[a as usize..b as usize]
        }
        // The entry is the one next hop.
        _ => std::slice::from_ref(e),
    }
}

/// One of the candidates `c` at a node of salt `salt`, by the flow's hash where there is a choice.
#[inline]
fn pick(c: &[u32], salt: u64, flow_hash: impl FnOnce() -> u64) -> Option<u32> {
    match c.len() {
        0 => None,
        1 => Some(c[0]),
        k => {
            // Multiply-high maps the mixed hash onto 0..k without a division.
            let h = mix64(flow_hash() ^ salt);
            Some(c[((h as u128 * k as u128) >> 64) as usize])
        }
    }
}

/// An entry without next hop, for lookups that find no sparse entry.
static NO_HOP_ENTRY: Entry = NO_HOP;

/// The entries of sparse rows: an open-addressing table (linear probing, at most half full)
/// keyed by (row, column).
#[derive(Clone, Debug, Default)]
struct SparseRows {
    keys: Vec<u64>,
    vals: Vec<Entry>,
}

impl SparseRows {
    const EMPTY: u64 = u64::MAX;

    fn build(mut found: Vec<(u64, Entry)>) -> SparseRows {
        found.sort_unstable_by_key(|f| f.0);
        found.dedup_by_key(|f| f.0); // flows sharing a hop read the same entry
        if found.is_empty() {
            return SparseRows::default();
        }
        let size = (found.len() * 2).next_power_of_two();
        let mut t = SparseRows { keys: vec![Self::EMPTY; size], vals: vec![NO_HOP; size] };
        for (key, e) in found {
            let mut i = t.slot(key);
            while t.keys[i] != Self::EMPTY {
                i = (i + 1) & (size - 1);
            }
            t.keys[i] = key;
            t.vals[i] = e;
        }
        t
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        mix64(key) as usize & (self.keys.len() - 1)
    }

    /// The entry of (sparse row `base & !SPARSE`, column `c`), [`NO_HOP`] if none was kept.
    /// Kept out of line, so that the dense lookup the forwarding path inlines stays small.
    #[inline(never)]
    fn get(&self, base: u32, c: u32) -> &Entry {
        if self.keys.is_empty() {
            return &NO_HOP_ENTRY;
        }
        let key = ((base & !SPARSE) as u64) << 32 | c as u64;
        let mut i = self.slot(key);
        loop {
            match self.keys[i] {
                k if k == key => return &self.vals[i],
                Self::EMPTY => return &NO_HOP_ENTRY,
                _ => i = (i + 1) & (self.keys.len() - 1),
            }
        }
    }

    fn len(&self) -> usize {
        self.keys.iter().filter(|&&k| k != Self::EMPTY).count()
    }

    fn memory_bytes(&self) -> usize {
        self.keys.len() * 8 + self.vals.len() * 4
    }
}

/// What computing rows needs of a topology, whichever way the rows are stored.
struct Builder<'a> {
    topo: &'a Topology,
    ecmp: bool,
    is_router: Vec<bool>,
    /// Per node: its links out, in order of the node they lead to (the first on a shortest
    /// path wins without ECMP).
    outgoing: Vec<Vec<u32>>,
    incoming: Vec<Vec<u32>>,
    groups: Groups,
    col: Vec<u32>,
    cols: usize,
    lists: Lists,
    candidates: Vec<u32>,
    /// Per transit column of the row computed last: whether, without ECMP, its node had more
    /// than one next hop on a shortest path (always false with ECMP).
    tied: Vec<bool>,
    dist: Vec<Dist>,
    salt: Vec<u64>,
}

impl<'a> Builder<'a> {
    fn new(topo: &'a Topology, ecmp: bool) -> Builder<'a> {
        let n = topo.nodes.len();
        let is_router: Vec<bool> = topo.nodes.iter().map(|x| x.kind == NodeKind::Router).collect();
        let (outgoing, incoming) = links_by_node(topo);
        let groups = Groups::of(topo, &outgoing, &incoming);
        let (col, cols) = groups.columns(topo);
        Builder {
            topo,
            ecmp,
            is_router,
            outgoing,
            incoming,
            groups,
            col,
            cols,
            lists: Lists { recent: vec![NO_HOP; n], ..Lists::default() },
            candidates: Vec::new(),
            tied: vec![false; cols],
            dist: vec![UNREACHED; n],
            salt: (0..n as u64).map(|v| mix64(v ^ 0x6E6F_6465_5F73_616C)).collect(),
        }
    }

    /// Appends group `g`'s row to `row`: an entry per transit column. Towards a router anchor
    /// the distances are those towards each host behind it less the host's access link, a
    /// constant: the same links tie, so the same next hops are kept. Without ECMP, marks in
    /// `tied` the columns whose node had a second next hop, which the entry leaves out.
    fn row(&mut self, g: usize, row: &mut Vec<Entry>) {
        let (topo, dst) = (self.topo, self.groups.anchors[g]);
        distances_to(topo, &self.incoming, &self.is_router, dst, &mut self.dist);
        let dist = &self.dist;
        for v in (0..topo.nodes.len()).filter(|&v| self.col[v] != NO_COL) {
            self.candidates.clear();
            let mut tied = false;
            if v != dst && dist[v] != UNREACHED {
                for &l in &self.outgoing[v] {
                    let link = &topo.links[l as usize];
                    let u = link.to;
                    let transit_ok = u == dst || self.is_router[u];
                    if transit_ok && dist[u] != UNREACHED && extend(dist[u], link.delay.ps()) == dist[v] {
                        if !self.ecmp && !self.candidates.is_empty() {
                            tied = true;
                            break;
                        }
                        self.candidates.push(l);
                    }
                }
            }
            self.tied[self.col[v] as usize] = tied;
            row.push(self.lists.entry(v, &self.candidates));
        }
    }

    /// Walks a flow with hash `hash` from `src` to `dst` over `row` (the dense row of `dst`'s
    /// group) as [`Routes::path`] would, calling `read(column, entry)` for every entry it reads.
    fn walk(&self, src: usize, dst: usize, hash: u64, row: &[Entry], mut read: impl FnMut(u32, Entry)) {
        let g = &self.groups;
        let mut node = src;
        for _ in 0..self.topo.nodes.len() {
            if node == dst {
                return;
            }
            let hops: &[u32] = if node as u32 == g.attach[dst] {
                std::slice::from_ref(&g.last_hop[dst])
            } else if self.col[node] == NO_COL {
                std::slice::from_ref(&g.uplink[node])
            } else {
                let c = self.col[node];
                read(c, row[c as usize]);
                candidates_of(&row[c as usize], &self.lists.lists, &self.lists.hops)
            };
            let Some(next) = pick(hops, self.salt[node], || hash) else { return };
            node = self.topo.links[next as usize].to;
        }
    }

    fn finish(self, base: Vec<u32>, entries: Vec<Entry>, sparse: SparseRows, passed_over: PassedOver) -> Routes {
        let topo = self.topo;
        let n = topo.nodes.len();
        let g = self.groups;
        let dest = (0..n)
            .map(|v| {
                let grp = g.group[v];
                let base = if grp == NOT_A_HOST { NOT_A_HOST } else { base[grp as usize] };
                Dest { base, attach: g.attach[v] }
            })
            .collect();
        let Lists { lists, hops, .. } = self.lists;
        Routes {
            n_nodes: n,
            dest,
            last_hop: g.last_hop,
            uplink: g.uplink,
            col: self.col,
            entries,
            lists,
            hops,
            link_to: topo.links.iter().map(|l| l.to as u32).collect(),
            salt: self.salt,
            sparse,
            passed_over,
        }
    }
}

/// Per node: its links out, in order of the node they lead to, then link id (the order in which
/// a single-path table takes the first candidate); and its links in.
fn links_by_node(topo: &Topology) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let n = topo.nodes.len();
    let mut outgoing: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (id, l) in topo.links.iter().enumerate() {
        outgoing[l.from].push(id as u32);
        incoming[l.to].push(id as u32);
    }
    for out in &mut outgoing {
        out.sort_by_key(|&l| (topo.links[l as usize].to, l));
    }
    (outgoing, incoming)
}

/// `d` extended by one link of propagation delay `delay_ps`.
fn extend(d: Dist, delay_ps: u64) -> Dist {
    (d.0.saturating_add(delay_ps), d.1.saturating_add(1))
}

/// Fills `dist` with every node's shortest (delay, hops) to `dst`, never passing through
/// another host: Dijkstra on the reversed graph.
fn distances_to(topo: &Topology, incoming: &[Vec<u32>], is_router: &[bool], dst: usize, dist: &mut [Dist]) {
    dist.fill(UNREACHED);
    dist[dst] = (0, 0);
    let mut heap = BinaryHeap::new();
    heap.push(Reverse((dist[dst], dst)));
    while let Some(Reverse((d, u))) = heap.pop() {
        if d != dist[u] {
            continue; // stale entry
        }
        for &l in &incoming[u] {
            let link = &topo.links[l as usize];
            let nd = extend(d, link.delay.ps());
            if nd < dist[link.from] {
                dist[link.from] = nd;
                // Paths may start at a host but not pass through one: a host (other than
                // `dst`) is never extended, so its distance needs no heap entry.
                if is_router[link.from] {
                    heap.push(Reverse((nd, link.from)));
                }
            }
        }
    }
}

/// A 64-bit finalizer (SplitMix64's output function): every input bit flips about half of the output bits.
fn mix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The ECMP hash of a flow: a well-mixed function of its id and the scenario seed.
pub fn flow_hash(flow_id: u64, seed: u64) -> u64 {
    mix64(flow_id ^ mix64(seed ^ 0x666C_6F77_5F68_6173))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::TopologySpec;
    use std::path::Path;

    /// A graph topology from compact node and link lists: links are (a, b, delay in ms).
    fn graph(routers: &[&str], hosts: &[&str], links: &[(&str, &str, u64)]) -> Topology {
        let nodes: Vec<String> = routers
            .iter()
            .map(|r| format!(r#"{{"name": "{r}", "kind": "router"}}"#))
            .chain(hosts.iter().map(|h| format!(r#"{{"name": "{h}", "kind": "host"}}"#)))
            .collect();
        let links: Vec<String> = links
            .iter()
            .map(|(a, b, ms)| format!(r#"{{"a": "{a}", "b": "{b}", "rate": "1Gbps", "delay": "{ms}ms"}}"#))
            .collect();
        let json = format!(r#"{{"kind": "graph", "nodes": [{}], "links": [{}]}}"#, nodes.join(","), links.join(","));
        serde_json::from_str::<TopologySpec>(&json).unwrap().build(Path::new("."), 0).unwrap()
    }

    fn names(t: &Topology, path: &[u32]) -> Vec<String> {
        path.iter().map(|&l| t.links[l as usize].name.clone()).collect()
    }

    #[test]
    fn hosts_are_never_transit() {
        // m is multi-homed to r1 and r2 with zero delay: through m, a -> b would take 0 ms
        // instead of 10 ms, but a path must not pass through a host.
        let t = graph(
            &["r1", "r2"],
            &["a", "b", "m"],
            &[("a", "r1", 1), ("b", "r2", 1), ("m", "r1", 0), ("m", "r2", 0), ("r1", "r2", 10)],
        );
        let routes = Routes::compute(&t, true);
        let (a, b, m) = (t.node_by_name("a").unwrap(), t.node_by_name("b").unwrap(), t.node_by_name("m").unwrap());
        assert_eq!(names(&t, &routes.path(a, b, 1)), ["a->r1", "r1->r2", "r2->b"]);
        assert_eq!(names(&t, &routes.path(a, m, 1)), ["a->r1", "r1->m"]);
        // A multi-homed host sends on the uplink that starts its shortest path.
        assert_eq!(names(&t, &routes.path(m, b, 1)), ["m->r2", "r2->b"]);
    }

    #[test]
    fn delay_first_then_hop_count() {
        // r1 -> r2: direct is 2 ms in 1 hop, via r3 also 2 ms but in 2 hops: fewer hops win,
        // and ECMP does not count the 2-hop path as equal.
        let t = graph(
            &["r1", "r2", "r3"],
            &["a", "b"],
            &[("a", "r1", 0), ("b", "r2", 0), ("r1", "r3", 1), ("r3", "r2", 1), ("r1", "r2", 2)],
        );
        let (a, b) = (t.node_by_name("a").unwrap(), t.node_by_name("b").unwrap());
        for ecmp in [false, true] {
            let routes = Routes::compute(&t, ecmp);
            assert_eq!(names(&t, &routes.path(a, b, 3)), ["a->r1", "r1->r2", "r2->b"], "ecmp {ecmp}");
            assert_eq!(
                routes.next_hops(t.node_by_name("r1").unwrap(), b).len(),
                1,
                "equal delay, more hops: not equal cost"
            );
        }
        let t = graph(
            &["r1", "r2", "r3", "r4"],
            &["a", "b"],
            &[("a", "r1", 0), ("b", "r2", 0), ("r1", "r2", 5), ("r1", "r3", 1), ("r3", "r4", 1), ("r4", "r2", 1)],
        );
        let (a, b) = (t.node_by_name("a").unwrap(), t.node_by_name("b").unwrap());
        assert_eq!(Routes::compute(&t, false).path(a, b, 0).len(), 5, "3 ms over 5 links beats 5 ms over 3");
    }

    #[test]
    fn ecmp_keeps_equal_paths_and_single_path_goes_to_the_lowest_node() {
        // Diamond r1 -> {r2, r3} -> r4, equal delays.
        let t = graph(
            &["r1", "r2", "r3", "r4"],
            &["a", "b"],
            &[("r1", "r3", 1), ("r1", "r2", 1), ("r2", "r4", 1), ("r3", "r4", 1), ("a", "r1", 0), ("b", "r4", 0)],
        );
        let (r1, b) = (t.node_by_name("r1").unwrap(), t.node_by_name("b").unwrap());
        assert_eq!(Routes::compute(&t, true).next_hops(r1, b), &[2, 0]);
        assert_eq!(
            Routes::compute(&t, false).next_hops(r1, b),
            &[2],
            "towards the lowest node id: r1->r2 (link 2), not r1->r3 (link 0)"
        );
        let routes = Routes::compute(&t, true);
        let a = t.node_by_name("a").unwrap();
        let seen: std::collections::BTreeSet<_> = (0..64).map(|f| routes.path(a, b, flow_hash(f, 1))).collect();
        assert_eq!(seen.len(), 2);
    }

    #[test]
    fn unreachable_and_trivial_cases() {
        let t = graph(&["r1", "r2"], &["a", "b"], &[("a", "r1", 1), ("b", "r2", 1)]);
        let routes = Routes::compute(&t, true);
        let (r1, a, b) = (t.node_by_name("r1").unwrap(), t.node_by_name("a").unwrap(), t.node_by_name("b").unwrap());
        assert!(!routes.reachable(a, b));
        assert!(routes.path(a, b, 0).is_empty());
        assert_eq!(routes.next_hop(a, b, 0), None);
        assert!(routes.reachable(a, a));
        assert!(routes.next_hops(a, a).is_empty());
        assert!(!routes.reachable(a, r1), "a router is not a destination");
        assert!(routes.next_hops(a, r1).is_empty());
    }

    /// Today's tables against the straightforward ones: one Dijkstra per destination host, every
    /// (node, host) entry kept on its own (the layout before destinations were grouped).
    fn reference_next_hops(topo: &Topology, ecmp: bool) -> Vec<Vec<Vec<u32>>> {
        let n = topo.nodes.len();
        let is_router: Vec<bool> = topo.nodes.iter().map(|x| x.kind == NodeKind::Router).collect();
        let (outgoing, incoming) = links_by_node(topo);
        let mut dist = vec![UNREACHED; n];
        let mut table = vec![vec![Vec::new(); n]; n]; // [dst][node]
        for dst in topo.hosts() {
            distances_to(topo, &incoming, &is_router, dst, &mut dist);
            for v in (0..n).filter(|&v| v != dst && dist[v] != UNREACHED) {
                for &l in &outgoing[v] {
                    let link = &topo.links[l as usize];
                    let u = link.to;
                    if (u == dst || is_router[u]) && dist[u] != UNREACHED && extend(dist[u], link.delay.ps()) == dist[v]
                    {
                        table[dst][v].push(l);
                        if !ecmp {
                            break;
                        }
                    }
                }
            }
        }
        table
    }

    fn assert_same_as_reference(t: &Topology, what: &str) {
        for ecmp in [false, true] {
            let routes = Routes::compute(t, ecmp);
            let want = reference_next_hops(t, ecmp);
            for (dst, row) in want.iter().enumerate() {
                for (v, hops) in row.iter().enumerate() {
                    assert_eq!(routes.next_hops(v, dst), &hops[..], "{what}, ecmp {ecmp}: node {v} -> {dst}");
                }
            }
        }
    }

    fn built(json: &str) -> Topology {
        serde_json::from_str::<TopologySpec>(json).unwrap().build(Path::new("."), 0).unwrap()
    }

    #[test]
    fn grouped_tables_give_every_next_hop_the_per_host_tables_give() {
        assert_same_as_reference(
            &built(
                r#"{"kind": "dumbbell", "hosts_per_side": 3, "bottleneck_rate": "1Gbps", "bottleneck_delay": "5ms"}"#,
            ),
            "dumbbell",
        );
        assert_same_as_reference(
            &built(r#"{"kind": "parking_lot", "bottlenecks": 3, "rate": "1Gbps", "delay": "2ms", "cross_hosts": 2}"#),
            "parking lot",
        );
        assert_same_as_reference(
            &built(r#"{"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us"}"#),
            "fat tree",
        );
        assert_same_as_reference(&built(r#"{"kind": "internet2-rc3", "hosts_per_router": 2}"#), "internet2");
        // Multi-homed hosts, a host behind a host, equal-cost paths, an unreachable island.
        let t = graph(
            &["r1", "r2", "r3", "r4", "r5"],
            &["a", "b", "c", "m", "x", "y", "z"],
            &[
                ("a", "r1", 1),
                ("b", "r4", 1),
                ("c", "r4", 2),
                ("m", "r1", 0),
                ("m", "r3", 0),
                ("x", "m", 1),
                ("r1", "r2", 1),
                ("r1", "r3", 1),
                ("r2", "r4", 1),
                ("r3", "r4", 1),
                ("y", "r5", 1),
                ("z", "y", 1),
            ],
        );
        assert_same_as_reference(&t, "graph");
        // Rows r1, r4 and the hosts m, x, y, z (y has z behind it); columns the five routers and
        // m, x, y, z (a, b and c hang off one router each and use their uplink).
        assert_eq!(Routes::table_entries(&t, t.hosts()), 6 * 9);
        // Only the rows flows use: to and from a and b, the rows of r1 and r4.
        let (a, b) = (t.node_by_name("a").unwrap(), t.node_by_name("b").unwrap());
        assert_eq!(Routes::table_entries(&t, [a, b]), 2 * 9);
        let full = Routes::compute(&t, true);
        let some = Routes::compute_for(&t, true, [a, b]);
        for v in 0..t.nodes.len() {
            for dst in [a, b] {
                assert_eq!(some.next_hops(v, dst), full.next_hops(v, dst), "node {v} -> {dst}");
            }
        }
        assert_eq!(some.path(a, b, 3), full.path(a, b, 3));
        let c = t.node_by_name("c").unwrap();
        assert!(full.reachable(a, c), "c shares b's row, which was computed");
        assert!(some.reachable(a, c));
        let m = t.node_by_name("m").unwrap();
        assert!(full.reachable(a, m) && !some.reachable(a, m), "m's row was not computed");
    }

    /// Whether the single-path route from `src` to `dst` passes a node with more than one next
    /// hop on a shortest path, from the per-host reference tables with every candidate.
    fn reference_passes_over(t: &Topology, all: &[Vec<Vec<u32>>], src: usize, dst: usize) -> bool {
        let single = reference_next_hops(t, false);
        let mut node = src;
        while node != dst {
            if all[dst][node].len() > 1 {
                return true;
            }
            let Some(&l) = single[dst][node].first() else { return false };
            node = t.links[l as usize].to;
        }
        false
    }

    fn assert_passed_over_as_reference(t: &Topology, what: &str) -> usize {
        let all = reference_next_hops(t, true);
        let single = Routes::compute(t, false);
        let ecmp = Routes::compute(t, true);
        let hosts = t.hosts();
        let mut marked = 0;
        for &s in &hosts {
            for &d in &hosts {
                let want = reference_passes_over(t, &all, s, d);
                assert_eq!(single.passes_over_equal_cost(s, d), want, "{what}: {s} -> {d}");
                assert!(!ecmp.passes_over_equal_cost(s, d), "{what}: ECMP tables leave nothing out");
                marked += want as usize;
            }
        }
        marked
    }

    #[test]
    fn single_path_tables_know_where_they_left_equal_cost_hops_out() {
        let ft = built(r#"{"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us"}"#);
        // 16 hosts: 12 destinations outside the pod and 2 in the pod under the other edge
        // switch have equal-cost paths; the one under the same edge switch does not.
        assert_eq!(assert_passed_over_as_reference(&ft, "fat tree"), 16 * 14);
        let db = built(
            r#"{"kind": "dumbbell", "hosts_per_side": 3, "bottleneck_rate": "1Gbps", "bottleneck_delay": "5ms"}"#,
        );
        assert_eq!(assert_passed_over_as_reference(&db, "dumbbell"), 0);
        let i2 = built(r#"{"kind": "internet2-rc3", "hosts_per_router": 1}"#);
        assert_passed_over_as_reference(&i2, "internet2");
        // The diamond r1 -> {r2, r3} -> r4: a -> b passes over r1 -> r3; b -> a over r4 -> r3.
        let t = graph(
            &["r1", "r2", "r3", "r4"],
            &["a", "b", "c"],
            &[
                ("r1", "r3", 1),
                ("r1", "r2", 1),
                ("r2", "r4", 1),
                ("r3", "r4", 1),
                ("a", "r1", 0),
                ("b", "r4", 0),
                ("c", "r1", 0),
            ],
        );
        let id = |n: &str| t.node_by_name(n).unwrap();
        let routes = Routes::compute(&t, false);
        assert!(routes.passes_over_equal_cost(id("a"), id("b")));
        assert!(routes.passes_over_equal_cost(id("b"), id("a")));
        assert!(!routes.passes_over_equal_cost(id("a"), id("c")), "a and c share r1");
        assert_eq!(assert_passed_over_as_reference(&t, "diamond"), 4);
        // Sparse rows mark the same entries on the paths of their flows.
        let hosts = ft.hosts();
        let ways: Vec<(usize, usize, u64)> =
            hosts.iter().flat_map(|&s| hosts.iter().map(move |&d| (s, d, 0))).filter(|w| w.0 != w.1).collect();
        let dense = Routes::compute(&ft, false);
        let sparse = Routes::compute_sparse(&ft, false, &ways);
        for &(s, d, _) in &ways {
            assert_eq!(sparse.passes_over_equal_cost(s, d), dense.passes_over_equal_cost(s, d), "{s} -> {d}");
        }
    }

    #[test]
    fn equal_cost_lists_are_stored_once() {
        // k = 16: 128 edge and 128 aggregation switches, 64 cores, 1,024 hosts.
        let t = built(r#"{"kind": "fat_tree", "k": 16, "rate": "1Gbps", "delay": "1us"}"#);
        let routes = Routes::compute(&t, true);
        // Going up, an edge switch offers its 8 aggregation switches and an aggregation switch
        // its 8 cores, whatever the destination: one list per switch below the core.
        assert_eq!(routes.lists.len(), 256);
        assert_eq!(routes.hops.len(), 256 * 8);
        assert_same_as_reference(&t, "fat tree k = 16");
    }

    #[test]
    fn a_dumbbell_of_20000_hosts_per_side_needs_two_rows() {
        let t = built(
            r#"{"kind": "dumbbell", "hosts_per_side": 20000, "bottleneck_rate": "1Gbps", "bottleneck_delay": "5ms"}"#,
        );
        assert_eq!(Routes::table_entries(&t, t.hosts()), 2 * 2, "two rows of the two routers");
        let routes = Routes::compute(&t, false);
        // What is left is linear: a few words per node and per link (it was 6.4 GB per host, then
        // 640 kB of tables).
        let linear = 40 * (t.nodes.len() + t.links.len());
        assert!(routes.memory_bytes() < linear, "{} bytes", routes.memory_bytes());
        let (l0, r19999) = (t.node_by_name("l0").unwrap(), t.node_by_name("r19999").unwrap());
        assert_eq!(routes.path(l0, r19999, 0).len(), 3);
    }

    /// Every lookup a flow's packets make, in both directions, on sparse rows and on the dense
    /// table: the same paths and the same candidates at every hop.
    fn assert_sparse_answers_as_dense(t: &Topology, pairs: &[(usize, usize)], what: &str) {
        for ecmp in [false, true] {
            let dense = Routes::compute(t, ecmp);
            let ways: Vec<(usize, usize, u64)> = pairs
                .iter()
                .enumerate()
                .flat_map(|(f, &(a, b))| [(a, b, flow_hash(f as u64, 7)), (b, a, flow_hash(f as u64, 7))])
                .collect();
            let sparse = Routes::compute_sparse(t, ecmp, &ways);
            assert!(sparse.entries.is_empty() && sparse.sparse_entries() > 0, "{what}: sparse rows only");
            for &(src, dst, hash) in &ways {
                let path = dense.path(src, dst, hash);
                assert!(!path.is_empty(), "{what}: {src} -> {dst} has a route");
                assert_eq!(sparse.path(src, dst, hash), path, "{what}, ecmp {ecmp}: {src} -> {dst}");
                assert!(sparse.reachable(src, dst));
                let mut node = src;
                for &l in &path {
                    assert_eq!(sparse.next_hops(node, dst), dense.next_hops(node, dst), "{what}: at {node} -> {dst}");
                    assert_eq!(sparse.next_hop_with(node, dst, || hash), Some(l));
                    node = t.links[l as usize].to;
                }
            }
        }
    }

    #[test]
    fn sparse_rows_answer_every_lookup_of_their_flows_as_the_dense_table() {
        let ft = built(r#"{"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us"}"#);
        let hosts = ft.hosts();
        let pairs: Vec<(usize, usize)> = (0..40)
            .map(|i| (hosts[i % hosts.len()], hosts[(i * 7 + 3) % hosts.len()]))
            .filter(|p| p.0 != p.1)
            .collect();
        assert_sparse_answers_as_dense(&ft, &pairs, "fat tree");
        // Multi-homed hosts and equal-cost paths.
        let t = graph(
            &["r1", "r2", "r3", "r4"],
            &["a", "b", "m"],
            &[
                ("a", "r1", 1),
                ("b", "r4", 1),
                ("m", "r1", 0),
                ("m", "r3", 0),
                ("r1", "r2", 1),
                ("r1", "r3", 1),
                ("r2", "r4", 1),
                ("r3", "r4", 1),
            ],
        );
        let id = |n: &str| t.node_by_name(n).unwrap();
        assert_sparse_answers_as_dense(&t, &[(id("a"), id("b")), (id("m"), id("b")), (id("a"), id("m"))], "graph");
    }

    /// The point of sparse rows: a chain of 2,000 routers with a host on each, and flows between
    /// ten pairs, keeps the entries on those paths (linear), where a dense table towards those
    /// hosts holds 20 rows of 2,000 entries.
    #[test]
    fn sparse_rows_keep_only_the_entries_on_their_flows_paths() {
        let n = 2000;
        let routers: Vec<String> = (0..n).map(|i| format!("r{i}")).collect();
        let hosts: Vec<String> = (0..n).map(|i| format!("h{i}")).collect();
        let mut links: Vec<(&str, &str, u64)> =
            (1..n).map(|i| (routers[i - 1].as_str(), routers[i].as_str(), 1)).collect();
        links.extend((0..n).map(|i| (hosts[i].as_str(), routers[i].as_str(), 1)));
        let r: Vec<&str> = routers.iter().map(|x| x.as_str()).collect();
        let h: Vec<&str> = hosts.iter().map(|x| x.as_str()).collect();
        let t = graph(&r, &h, &links);
        let id = |i: usize| t.node_by_name(&hosts[i]).unwrap();
        let pairs: Vec<(usize, usize)> = (0..10).map(|k| (id(k * 100), id(k * 100 + 10))).collect();
        let ways: Vec<(usize, usize, u64)> = pairs.iter().flat_map(|&(a, b)| [(a, b, 0), (b, a, 0)]).collect();
        let sparse = Routes::compute_sparse(&t, false, &ways);
        // 10 routers read per direction of each flow (the last router hands over to the host).
        assert_eq!(sparse.sparse_entries(), 10 * 2 * 10);
        assert_eq!(Routes::table_entries(&t, pairs.iter().flat_map(|&(a, b)| [a, b])), 20 * n as u64);
        assert!(sparse.memory_bytes() < 40 * (t.nodes.len() + t.links.len()), "{} bytes", sparse.memory_bytes());
        assert_sparse_answers_as_dense(&t, &pairs[..3], "chain");
    }

    #[test]
    fn flow_hash_is_deterministic_and_well_mixed() {
        assert_eq!(flow_hash(42, 7), flow_hash(42, 7));
        assert_ne!(flow_hash(42, 7), flow_hash(42, 8));
        assert_ne!(flow_hash(0, 0), 0);
        // Consecutive ids: every output bit is set about half the time.
        let n = 4096;
        for bit in 0..64 {
            let ones = (0..n).filter(|&f| flow_hash(f, 3) >> bit & 1 == 1).count();
            assert!((ones as f64 / n as f64 - 0.5).abs() < 0.05, "bit {bit}: {ones}/{n}");
        }
    }
}
