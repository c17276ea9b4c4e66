//! Any graph, given inline or in a JSON file: the door for real backbones (topohub graphs are
//! turned into this form by the Python front end) and for hand-made test networks.
//!
//! Nodes keep the order the user lists them in (so node ids match the list); hosts added by
//! `hosts_per_router` ("<router>_h{i}") come after them, router by router. Links are duplex;
//! link `i` of the list is directed links 2i (a->b) and 2i+1 (b->a).
//!
//! The file holds `{"nodes": [...], "links": [...]}` with the same fields as the inline form.
//! Errors in a file name the file's path and the entry (`links[3].b`) inside it.

use super::{check_size, Builder, NodeKind, Topology};
use crate::error::{SpecError, SpecResult};
use crate::quantity::{RateQ, TimeQ};
use crate::units::Time;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// `kind = "graph"`: either `file` or inline `nodes` (and `links`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphSpec {
    /// JSON file with `nodes` and `links`, relative to the scenario's directory.
    #[serde(default)]
    pub file: Option<String>,
    /// Inline nodes.
    #[serde(default)]
    pub nodes: Option<Vec<GraphNodeSpec>>,
    /// Inline links.
    #[serde(default)]
    pub links: Option<Vec<GraphLinkSpec>>,
    /// Attach this many new hosts to every router.
    #[serde(default)]
    pub hosts_per_router: Option<u32>,
    /// Rate of the attached hosts' links (required with `hosts_per_router`).
    #[serde(default)]
    pub access_rate: Option<RateQ>,
    /// One-way delay of the attached hosts' links (default 0).
    #[serde(default)]
    pub access_delay: Option<TimeQ>,
}

/// One node of a graph.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphNodeSpec {
    /// Unique name.
    pub name: String,
    /// `"host"` or `"router"`.
    pub kind: NodeKind,
}

/// One duplex link of a graph.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphLinkSpec {
    /// Name of one end.
    pub a: String,
    /// Name of the other end.
    pub b: String,
    /// Rate, both directions.
    pub rate: RateQ,
    /// One-way delay, both directions.
    pub delay: TimeQ,
    /// Name of the a->b direction; b->a is `<name>_rev`.
    #[serde(default)]
    pub name: Option<String>,
}

/// What a graph file holds.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GraphFile {
    nodes: Vec<GraphNodeSpec>,
    #[serde(default)]
    links: Vec<GraphLinkSpec>,
}

impl GraphSpec {
    /// Builds the graph; groups "all" and, per router, "<router>" for its attached hosts.
    pub fn build(&self, base_dir: &Path) -> SpecResult<Topology> {
        let attach = self.attach_params()?;
        match (&self.file, &self.nodes, &self.links) {
            (Some(file), None, None) => {
                let path = base_dir.join(file);
                let graph = read_file(&path)?;
                let in_file = |e: SpecError| {
                    SpecError::new("file", format!("in \"{}\", {}: {}", path.display(), e.field, e.message))
                };
                let b = add_nodes_and_links(&graph.nodes, &graph.links).map_err(in_file)?;
                attach_hosts(b, attach)
            }
            (Some(_), _, _) => {
                Err(SpecError::new("file", "expected either `file` or inline `nodes`/`links`, got both"))
            }
            (None, Some(nodes), links) => {
                let b = add_nodes_and_links(nodes, links.as_deref().unwrap_or(&[]))?;
                attach_hosts(b, attach)
            }
            (None, None, _) => {
                Err(SpecError::new("nodes", "expected a list of nodes (or `file` naming a JSON graph), got nothing"))
            }
        }
    }

    /// `hosts_per_router` with its access rate and delay, checked.
    fn attach_params(&self) -> SpecResult<Option<(u32, RateQ, Time)>> {
        let delay = self.access_delay.map_or(Time::ZERO, |d| d.0);
        match (self.hosts_per_router, self.access_rate) {
            (Some(0), _) => Err(SpecError::new("hosts_per_router", "expected at least 1, got 0")),
            (Some(_), None) => Err(SpecError::new(
                "access_rate",
                "expected a rate (e.g. \"1Gbps\") for the hosts of `hosts_per_router`, got nothing",
            )),
            (Some(n), Some(rate)) => Ok(Some((n, rate, delay))),
            (None, Some(rate)) => Err(SpecError::new(
                "access_rate",
                format!("got {} but no `hosts_per_router`; expected both or neither", rate.0),
            )),
            (None, None) if self.access_delay.is_some() => {
                Err(SpecError::new("access_delay", "given without `hosts_per_router`; expected both or neither"))
            }
            (None, None) => Ok(None),
        }
    }
}

/// Reads and parses a graph file; errors name the path and the entry inside it.
fn read_file(path: &Path) -> SpecResult<GraphFile> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| SpecError::new("file", format!("cannot read \"{}\": {e}", path.display())))?;
    let de = &mut serde_json::Deserializer::from_str(&text);
    serde_path_to_error::deserialize(de)
        .map_err(|e| SpecError::new("file", format!("in \"{}\", {}: {}", path.display(), e.path(), e.inner())))
}

/// Adds the listed nodes and links; errors name `nodes[i]` / `links[i]`.
fn add_nodes_and_links(nodes: &[GraphNodeSpec], links: &[GraphLinkSpec]) -> SpecResult<Builder> {
    let mut b = Builder::new();
    let mut ids: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, n) in nodes.iter().enumerate() {
        if let Some(&j) = ids.get(n.name.as_str()) {
            return Err(SpecError::new(
                format!("nodes[{i}].name"),
                format!("duplicate node name \"{}\" (also nodes[{j}]); expected unique names", n.name),
            ));
        }
        ids.insert(&n.name, b.node(n.name.clone(), n.kind));
    }
    // Which list entry took each link name, so that a clash can point at both.
    let mut taken: BTreeMap<String, usize> = BTreeMap::new();
    for (i, l) in links.iter().enumerate() {
        let end = |field: &str, name: &str| {
            ids.get(name).copied().ok_or_else(|| {
                SpecError::new(
                    format!("links[{i}].{field}"),
                    format!("unknown node \"{name}\"; expected a name listed in nodes"),
                )
            })
        };
        let (a, z) = (end("a", &l.a)?, end("b", &l.b)?);
        if a == z {
            return Err(SpecError::new(
                format!("links[{i}].b"),
                format!("\"{}\" is also end a; expected a link between two different nodes", l.b),
            ));
        }
        if let Some(name) = &l.name {
            for directed in [name.clone(), format!("{name}_rev")] {
                if let Some(j) = taken.insert(directed.clone(), i) {
                    return Err(SpecError::new(
                        format!("links[{i}].name"),
                        format!("link name \"{directed}\" is already taken by links[{j}]; expected unique names (a link named x also takes x_rev)"),
                    ));
                }
            }
        }
        b.duplex(a, z, l.rate.0, l.delay.0, l.name.as_deref());
    }
    Ok(b)
}

/// Attaches `hosts_per_router` hosts to every router, groups them by router, and finishes.
fn attach_hosts(mut b: Builder, attach: Option<(u32, RateQ, Time)>) -> SpecResult<Topology> {
    if let Some((count, rate, delay)) = attach {
        let routers: Vec<usize> =
            (0..b.topo.nodes.len()).filter(|&n| b.topo.nodes[n].kind == NodeKind::Router).collect();
        let total = b.topo.nodes.len() as u64 + routers.len() as u64 * count as u64;
        let links = b.topo.links.len() as u64 + 2 * routers.len() as u64 * count as u64;
        check_size("hosts_per_router", count as u64, total, links)?;
        let mut names: std::collections::BTreeSet<String> = b.topo.nodes.iter().map(|n| n.name.clone()).collect();
        for r in routers {
            let router = b.topo.nodes[r].name.clone();
            if router == "all" {
                return Err(SpecError::new(
                    "hosts_per_router",
                    "a router named \"all\" would name a group that hides group \"all\"; expected another router name",
                ));
            }
            let prefix = format!("{router}_h");
            if let Some(clash) = (0..count).map(|i| format!("{prefix}{i}")).find(|n| names.contains(n)) {
                return Err(SpecError::new(
                    "hosts_per_router",
                    format!(
                        "new host name \"{clash}\" is already a node; expected no node names of the form <router>_h<i>"
                    ),
                ));
            }
            let hosts = b.hosts_on(r, &prefix, count, rate.0, delay);
            names.extend(hosts.iter().map(|&h| b.topo.nodes[h].name.clone()));
            b.group(router, hosts);
        }
    }
    if !b.topo.nodes.iter().any(|n| n.kind == NodeKind::Host) {
        return Err(SpecError::new(
            "nodes",
            "expected at least one host (a node with kind = \"host\", or `hosts_per_router`), got none",
        ));
    }
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::super::TopologySpec;
    use super::*;
    use crate::routing::Routes;
    use crate::units::Rate;

    const TRIANGLE: &str = r#"
        "nodes": [{"name": "a", "kind": "router"}, {"name": "b", "kind": "router"},
                  {"name": "c", "kind": "router"}, {"name": "ha", "kind": "host"}],
        "links": [{"a": "a", "b": "b", "rate": "10Gbps", "delay": "5ms", "name": "ab"},
                  {"a": "b", "b": "c", "rate": "10Gbps", "delay": "5ms"},
                  {"a": "a", "b": "c", "rate": "1Gbps", "delay": "20ms"},
                  {"a": "ha", "b": "a", "rate": "1Gbps", "delay": "0"}]"#;

    fn build_json(json: &str, dir: &Path) -> SpecResult<Topology> {
        let de = &mut serde_json::Deserializer::from_str(json);
        let spec: TopologySpec = serde_path_to_error::deserialize(de)
            .map_err(|e| SpecError::new(e.path().to_string(), e.inner().to_string()))?;
        spec.build(dir, 0)
    }

    fn inline(extra: &str) -> SpecResult<Topology> {
        build_json(&format!(r#"{{"kind": "graph", {TRIANGLE}{extra}}}"#), Path::new("."))
    }

    /// A fresh directory under the system temp dir, unique to this test.
    fn temp_dir(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("fctlab-graph-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn inline_graph_with_named_links_and_delay_routing() {
        let t = inline("").unwrap();
        assert_eq!(t.nodes.len(), 4);
        assert_eq!(t.links.len(), 8);
        assert_eq!(t.named["ab"], 0);
        assert_eq!(t.named["ab_rev"], 1);
        assert_eq!(t.links[1].name, "ab_rev");
        assert_eq!(t.links[2].name, "b->c");
        assert_eq!(t.groups["all"], vec![3]);
        // Only one host: add routers' hosts to check that a -> c goes via b (10 ms < 20 ms).
        let t = inline(r#", "hosts_per_router": 1, "access_rate": "1Gbps""#).unwrap();
        let (ha, hc) = (t.node_by_name("ha").unwrap(), t.node_by_name("c_h0").unwrap());
        let path = Routes::compute(&t, false).path(ha, hc, 0);
        let names: Vec<&str> = path.iter().map(|&l| t.links[l as usize].name.as_str()).collect();
        assert_eq!(names, ["ha->a", "ab", "b->c", "c->c_h0"]);
    }

    #[test]
    fn hosts_per_router_attaches_and_groups() {
        let t = inline(r#", "hosts_per_router": 2, "access_rate": "1Gbps", "access_delay": "1ms""#).unwrap();
        assert_eq!(t.nodes.len(), 4 + 6);
        assert_eq!(t.hosts().len(), 7);
        let b0 = t.node_by_name("b_h0").unwrap();
        assert_eq!(t.attach()[b0], t.node_by_name("b").unwrap());
        assert_eq!(t.access_rate()[b0], Rate::from_gbps(1));
        assert_eq!(t.groups["b"], vec![b0, b0 + 1]);
        assert!(!t.groups.contains_key("ha"), "user hosts get no per-router group");
        assert_eq!(t.groups["all"].len(), 7);
    }

    #[test]
    fn graph_from_a_file() {
        let dir = temp_dir("file");
        std::fs::write(dir.join("g.json"), format!("{{{TRIANGLE}}}")).unwrap();
        let t = build_json(r#"{"kind": "graph", "file": "g.json"}"#, &dir).unwrap();
        assert_eq!(t, inline("").unwrap());
        // An error inside the file names the file and the entry.
        std::fs::write(
            dir.join("bad.json"),
            format!("{{{}}}", TRIANGLE.replace(r#""b": "c", "rate""#, r#""b": "zz", "rate""#)),
        )
        .unwrap();
        let e = build_json(r#"{"kind": "graph", "file": "bad.json"}"#, &dir).unwrap_err();
        assert_eq!(e.field, "file");
        assert!(
            e.message.contains("bad.json") && e.message.contains("links[1].b") && e.message.contains("\"zz\""),
            "{e}"
        );
        std::fs::write(dir.join("typo.json"), r#"{"nodes": [{"name": "x", "kind": "hots"}]}"#).unwrap();
        let e = build_json(r#"{"kind": "graph", "file": "typo.json"}"#, &dir).unwrap_err();
        assert!(e.message.contains("nodes[0].kind") && e.message.contains("hots"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_file_names_the_path() {
        let dir = temp_dir("missing");
        let e = build_json(r#"{"kind": "graph", "file": "nope.json"}"#, &dir).unwrap_err();
        assert_eq!(e.field, "file");
        assert!(e.message.contains(&dir.join("nope.json").display().to_string()), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unknown_node_names_link_index_and_value() {
        let e = build_json(
            r#"{"kind": "graph", "nodes": [{"name": "a", "kind": "router"}, {"name": "h", "kind": "host"}],
                "links": [{"a": "h", "b": "a", "rate": 1e9, "delay": 0},
                          {"a": "a", "b": "nowhere", "rate": 1e9, "delay": 0}]}"#,
            Path::new("."),
        )
        .unwrap_err();
        assert_eq!(e.field, "links[1].b");
        assert!(e.message.contains("\"nowhere\""), "{e}");
    }

    #[test]
    fn duplicate_node_name_is_named() {
        let e = build_json(
            r#"{"kind": "graph", "nodes": [{"name": "a", "kind": "router"}, {"name": "a", "kind": "host"}]}"#,
            Path::new("."),
        )
        .unwrap_err();
        assert_eq!(e.field, "nodes[1].name");
        assert!(e.message.contains("\"a\"") && e.message.contains("nodes[0]"), "{e}");
    }

    #[test]
    fn no_hosts_is_an_error() {
        let e = build_json(
            r#"{"kind": "graph", "nodes": [{"name": "a", "kind": "router"}, {"name": "b", "kind": "router"}],
                "links": [{"a": "a", "b": "b", "rate": 1e9, "delay": 0}]}"#,
            Path::new("."),
        )
        .unwrap_err();
        assert_eq!(e.field, "nodes");
        assert!(e.message.contains("at least one host") && e.message.contains("got none"), "{e}");
    }

    #[test]
    fn hosts_per_router_needs_access_rate() {
        let e = inline(r#", "hosts_per_router": 3"#).unwrap_err();
        assert_eq!(e.field, "access_rate");
        assert!(e.message.contains("got nothing"), "{e}");
    }

    #[test]
    fn duplicate_link_names_and_self_loops_are_refused() {
        let t = TRIANGLE.replace(r#""delay": "5ms"}"#, r#""delay": "5ms", "name": "ab"}"#);
        let e = build_json(&format!(r#"{{"kind": "graph", {t}}}"#), Path::new(".")).unwrap_err();
        assert_eq!(e.field, "links[1].name");
        assert!(e.message.contains("\"ab\"") && e.message.contains("links[0]"), "{e}");
        let t = TRIANGLE.replace(r#""a": "a", "b": "c""#, r#""a": "c", "b": "c""#);
        let e = build_json(&format!(r#"{{"kind": "graph", {t}}}"#), Path::new(".")).unwrap_err();
        assert_eq!(e.field, "links[2].b");
    }

    #[test]
    fn unknown_field_and_kind_of_node_are_refused() {
        let e = inline(r#", "capacity": 3"#).unwrap_err();
        assert!(e.message.contains("unknown field `capacity`"), "{e}");
        let e =
            build_json(r#"{"kind": "graph", "nodes": [{"name": "a", "kind": "switch"}]}"#, Path::new(".")).unwrap_err();
        assert!(e.message.contains("unknown variant `switch`") && e.message.contains("`router`"), "{e}");
    }
}
