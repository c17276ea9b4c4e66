//! What the fluid references share: their input ([`PsFlow`], one flow of the fluid model), the
//! checks of that input (errors name the field, the value and what was expected), flows grouped
//! by link set, and an ordered `f64` for heap keys.

use crate::error::{SpecError, SpecResult};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// One flow of the fluid model (both references take these).
#[derive(Clone, Debug, PartialEq)]
pub struct PsFlow {
    /// Arrival time, s.
    pub start: f64,
    /// Bits to transfer.
    pub bits: f64,
    /// Links crossed: indices into the capacities (order does not matter).
    pub path: Vec<u32>,
}

/// The capacities and every flow are usable; a flow's errors are named `flows[i].FIELD`.
pub(super) fn check_input(links: &[f64], flows: &[PsFlow]) -> SpecResult<()> {
    check_links(links)?;
    for (i, f) in flows.iter().enumerate() {
        check_flow(links.len(), f).map_err(|e| e.within(&format!("flows[{i}]")))?;
    }
    Ok(())
}

/// Every capacity is finite and positive.
pub(super) fn check_links(links: &[f64]) -> SpecResult<()> {
    match links.iter().position(|c| !(c.is_finite() && *c > 0.0)) {
        Some(l) => {
            Err(SpecError::new(format!("links[{l}]"), format!("expected a capacity > 0 bit/s, got {}", links[l])))
        }
        None => Ok(()),
    }
}

/// A flow's start, bits and path are usable; errors name the field within the flow.
fn check_flow(n_links: usize, f: &PsFlow) -> SpecResult<()> {
    if !f.start.is_finite() {
        return Err(SpecError::new("start", format!("expected a finite time in s, got {}", f.start)));
    }
    if !(f.bits.is_finite() && f.bits >= 0.0) {
        return Err(SpecError::new("bits", format!("expected a finite number of bits >= 0, got {}", f.bits)));
    }
    check_path(n_links, &f.path, "path")
}

/// Every link index of `path` exists and appears once; errors name `field[k]`.
pub(super) fn check_path(n_links: usize, path: &[u32], field: &str) -> SpecResult<()> {
    for (k, &l) in path.iter().enumerate() {
        if l as usize >= n_links {
            return Err(SpecError::new(
                format!("{field}[{k}]"),
                format!("expected a link index below {n_links}, got {l}"),
            ));
        }
        // A link crossed twice would carry the flow twice; no loop-free route does that.
        if path[..k].contains(&l) {
            return Err(SpecError::new(
                format!("{field}[{k}]"),
                format!("expected each link once, got link {l} again"),
            ));
        }
    }
    Ok(())
}

/// Distinct link sets, numbered in order of first appearance.
#[derive(Default)]
pub(super) struct PathGroups {
    index: BTreeMap<Vec<u32>, usize>,
    /// The sorted link set of each group.
    pub(super) links: Vec<Vec<u32>>,
}

impl PathGroups {
    /// The group of `path`, created if new.
    pub(super) fn group(&mut self, path: &[u32]) -> usize {
        let mut key = path.to_vec();
        key.sort_unstable();
        if let Some(&g) = self.index.get(&key) {
            return g;
        }
        let g = self.links.len();
        self.index.insert(key.clone(), g);
        self.links.push(key);
        g
    }
}

/// The flows that take part in a fluid run (a non-empty path and bits > 0; the others complete
/// on arrival), each with its group, in arrival order: by start, then by index.
pub(super) fn arrivals(flows: &[PsFlow]) -> (PathGroups, Vec<usize>, Vec<usize>) {
    let mut paths = PathGroups::default();
    let mut group_of = vec![usize::MAX; flows.len()];
    let mut order = Vec::with_capacity(flows.len());
    for (i, f) in flows.iter().enumerate() {
        if !f.path.is_empty() && f.bits > 0.0 {
            group_of[i] = paths.group(&f.path);
            order.push(i);
        }
    }
    order.sort_by(|&a, &b| flows[a].start.total_cmp(&flows[b].start).then(a.cmp(&b)));
    (paths, group_of, order)
}

/// An f64 ordered by `total_cmp`, for heap keys (every key here is finite).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Key(pub(super) f64);

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Key) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}
