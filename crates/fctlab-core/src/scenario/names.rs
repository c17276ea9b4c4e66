//! Link names as scenarios write them, and the error for one that does not exist.

use crate::error::SpecError;
use crate::topology::Topology;

/// Finds a directed link by name: a topology's named link or `"<from>-><to>"`.
pub fn resolve_link(topo: &Topology, name: &str) -> Option<usize> {
    topo.named.get(name).copied().or_else(|| topo.links.iter().position(|l| l.name == name))
}

/// The error for `field` naming link `name`, which `topo` does not have; lists some it has.
pub(super) fn unknown_link(field: &str, name: &str, topo: &Topology) -> SpecError {
    let mut known: Vec<&str> = topo.named.keys().map(|s| s.as_str()).collect();
    known.extend(topo.links.iter().take(6).map(|l| l.name.as_str()));
    SpecError::new(field, format!("unknown link \"{name}\"; known links include: {}", known.join(", ")))
}
