//! Transports: the `[transport]` / `[transports]` / `[[host_transport]]` schema and the
//! build steps that pick a profile for every flow (named transports, per-entry transports and
//! mixes, per-host assignment).
//!
//! | file | concern |
//! |---|---|
//! | `spec.rs` | [`TransportTable`] parsed into a [`Transport`]: the kernel's stack, or the TCP part and a protocol's keys (`protocol/keys.rs`); what a named transport takes from `[transport]` |
//! | `tcp_part.rs` | [`TcpPart`], the keys every fctlab transport has, and [`Common`], what a protocol builds its profile from |
//! | `mod.rs` | [`Profiles`] and [`ProfileChoice`]: which flow gets which profile |

mod spec;
mod tcp_part;

pub use spec::{Transport, TransportTable};
pub use tcp_part::{AppSpec, DelayedAckSpec, TcpPart};

use super::{Nodes, ScenarioSpec};
use crate::error::{SpecError, SpecResult};
use crate::plugin::Loader;
use crate::rng::Rng;
use crate::topology::{NodeKind, Topology};
use crate::world::Profile;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Hosts whose flows use a named transport (e.g. half of the hosts of every router run RC3).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostTransportSpec {
    /// Named transport from `[transports]`.
    pub transport: String,
    /// Host names or group names; default: every host.
    #[serde(default)]
    pub hosts: Option<Vec<String>>,
    /// Fraction of those hosts, taken router by router (rounded), chosen by the seed.
    #[serde(default)]
    pub fraction: Option<f64>,
}

/// Picks `round(fraction * n)` of `items` with a seeded partial shuffle, in their order.
pub(super) fn pick_fraction(items: &[usize], fraction: f64, rng: &mut Rng) -> Vec<usize> {
    let k = (fraction * items.len() as f64).round() as usize;
    let mut v = items.to_vec();
    for i in 0..k.min(v.len()) {
        let j = i + rng.below((v.len() - i) as u64) as usize;
        v.swap(i, j);
    }
    let mut chosen = v[..k.min(v.len())].to_vec();
    chosen.sort_unstable();
    chosen
}

/// The transport profiles of a run: the default transport first, then the named ones in
/// name order.
pub(super) struct Profiles<'a> {
    /// The profiles, by profile id.
    pub list: Vec<Profile>,
    /// Their labels: derived for the default, the name for named transports.
    pub labels: Vec<String>,
    /// Their tables' field paths (`transport`, `transports.NAME`).
    pub paths: Vec<String>,
    /// Named transport -> profile id.
    index: BTreeMap<&'a str, usize>,
}

impl<'a> Profiles<'a> {
    /// Build step: the default transport's profile, then each named one over it.
    pub fn build(spec: &'a ScenarioSpec, plugins: &Arc<Loader>) -> SpecResult<Profiles<'a>> {
        let mut p = Profiles { labels: Vec::new(), paths: Vec::new(), list: Vec::new(), index: BTreeMap::new() };
        p.push(&spec.transport, None, "transport", None, plugins)?;
        for (name, t) in &spec.transports {
            p.index.insert(name, p.list.len());
            p.push(t, Some(&spec.transport), &format!("transports.{name}"), Some(name.clone()), plugins)?;
        }
        Ok(p)
    }

    /// Adds the profile of transport table `t` over `base` (at field path `within`), labelled
    /// `name` or by its settings.
    fn push(
        &mut self,
        t: &TransportTable,
        base: Option<&TransportTable>,
        within: &str,
        name: Option<String>,
        plugins: &Arc<Loader>,
    ) -> SpecResult<()> {
        let profile =
            Transport::resolve(t, base).and_then(|t| t.profile(within, plugins)).map_err(|e| e.within(within))?;
        self.labels.push(name.unwrap_or_else(|| profile.label()));
        self.paths.push(within.to_string());
        self.list.push(profile);
        Ok(())
    }

    /// The profile id of named transport `name`, which `field` gives.
    fn id(&self, name: &str, field: String) -> SpecResult<usize> {
        self.index.get(name).copied().ok_or_else(|| {
            let known: Vec<&str> = self.index.keys().copied().collect();
            SpecError::new(
                field,
                format!("unknown transport \"{name}\"; defined in [transports]: [{}]", known.join(", ")),
            )
        })
    }
}

/// How each flow's profile is chosen: its entry's own transport, else its source host's,
/// else the default; then a draw from its entry's mix, if any.
pub(super) struct ProfileChoice {
    /// By workload entry: the profile of its own `transport`, if it names one.
    entry: Vec<Option<usize>>,
    /// By workload entry: (profile, cumulative fraction) of its mix.
    mixes: Vec<Vec<(usize, f64)>>,
    /// By node id: the profile `[[host_transport]]` gave the host.
    host: Vec<Option<usize>>,
    /// By workload entry: the stream its mix draws from.
    mix_rngs: Vec<Rng>,
}

impl ProfileChoice {
    /// Build step: checks and resolves entries' transports, mixes, then host transports.
    pub fn build(
        spec: &ScenarioSpec,
        profiles: &Profiles,
        topo: &Topology,
        nodes: &Nodes,
    ) -> SpecResult<ProfileChoice> {
        let mut entry = Vec::with_capacity(spec.workload.len());
        for (i, w) in spec.workload.iter().enumerate() {
            entry.push(match w.transport() {
                None => None,
                Some(name) => Some(profiles.id(name, format!("workload[{i}].transport"))?),
            });
        }
        let mut mixes = Vec::with_capacity(spec.workload.len());
        for i in 0..spec.workload.len() {
            mixes.push(mix(spec, i, profiles)?);
        }
        let mut host = vec![None; topo.nodes.len()];
        for (i, h) in spec.host_transport.iter().enumerate() {
            let (profile, chosen) = host_assignment(h, i, profiles, topo, nodes, spec.seed)?;
            for m in chosen {
                host[m] = Some(profile);
            }
        }
        let mix_rngs = (0..spec.workload.len()).map(|i| Rng::stream(spec.seed, &format!("workload{i}.mix"))).collect();
        Ok(ProfileChoice { entry, mixes, host, mix_rngs })
    }

    /// The profile of the next flow of workload entry `entry` from host `src`.
    pub fn pick(&mut self, entry: usize, src: usize) -> usize {
        let mut profile = match (self.entry[entry], self.host[src]) {
            (None, Some(p)) => p,
            (own, _) => own.unwrap_or(0),
        };
        if !self.mixes[entry].is_empty() {
            let u = self.mix_rngs[entry].uniform();
            if let Some(&(p, _)) = self.mixes[entry].iter().find(|&&(_, edge)| u < edge) {
                profile = p;
            }
        }
        profile
    }
}

/// Workload entry `i`'s mix as (profile, cumulative fraction), checked.
fn mix(spec: &ScenarioSpec, i: usize, profiles: &Profiles) -> SpecResult<Vec<(usize, f64)>> {
    let mut mix = Vec::new();
    let mut total = 0.0;
    for (k, m) in spec.workload[i].mix().iter().enumerate() {
        let field = format!("workload[{i}].mix[{k}]");
        if !(m.fraction > 0.0 && m.fraction <= 1.0) {
            return Err(SpecError::new(
                format!("{field}.fraction"),
                format!("expected 0 < fraction <= 1, got {}", m.fraction),
            ));
        }
        total += m.fraction;
        mix.push((profiles.id(&m.transport, format!("{field}.transport"))?, total));
    }
    if total > 1.0 + 1e-9 {
        return Err(SpecError::new(format!("workload[{i}].mix"), format!("fractions add up to {total}, more than 1")));
    }
    Ok(mix)
}

/// `[[host_transport]]` entry `i`: its profile, and the hosts that get it (its fraction of
/// its hosts, router by router, in router order).
fn host_assignment(
    h: &HostTransportSpec,
    i: usize,
    profiles: &Profiles,
    topo: &Topology,
    nodes: &Nodes,
    seed: u64,
) -> SpecResult<(usize, Vec<usize>)> {
    let field = format!("host_transport[{i}]");
    let profile = profiles.id(&h.transport, format!("{field}.transport"))?;
    let members = host_members(h, &field, topo, &nodes.hosts)?;
    let fraction = h.fraction.unwrap_or(1.0);
    if !(0.0..=1.0).contains(&fraction) {
        return Err(SpecError::new(
            format!("{field}.fraction"),
            format!("expected a fraction in [0, 1], got {fraction}"),
        ));
    }
    let attach = &nodes.attach;
    let mut rng = Rng::stream(seed, &format!("host_transport{i}"));
    let mut routers: Vec<usize> = members.iter().map(|&m| attach[m]).collect();
    routers.sort_unstable();
    routers.dedup();
    let mut chosen = Vec::new();
    for r in routers {
        let on_r: Vec<usize> = members.iter().copied().filter(|&m| attach[m] == r).collect();
        chosen.extend(pick_fraction(&on_r, fraction, &mut rng));
    }
    Ok((profile, chosen))
}

/// The hosts a `[[host_transport]]` entry names (hosts and host groups), sorted, each once.
fn host_members(h: &HostTransportSpec, field: &str, topo: &Topology, hosts: &[usize]) -> SpecResult<Vec<usize>> {
    let mut members: Vec<usize> = match &h.hosts {
        None => hosts.to_vec(),
        Some(names) => {
            let mut v = Vec::new();
            for (k, name) in names.iter().enumerate() {
                match (topo.groups.get(name), topo.node_by_name(name)) {
                    (Some(g), _) => v.extend(g.iter().copied()),
                    (None, Some(n)) if topo.nodes[n].kind == NodeKind::Host => v.push(n),
                    _ => {
                        return Err(SpecError::new(
                            format!("{field}.hosts[{k}]"),
                            format!("\"{name}\" is neither a host nor a host group"),
                        ))
                    }
                }
            }
            v
        }
    };
    members.sort_unstable();
    members.dedup();
    Ok(members)
}

#[cfg(test)]
mod tests {
    use super::super::KernelStack;
    use super::*;
    use crate::transport::tcp::TcpConfig;
    use crate::units::Time;
    use crate::world::Profile;

    fn table(json: serde_json::Value) -> TransportTable {
        serde_json::from_value(json).unwrap()
    }

    fn profile(t: serde_json::Value, base: Option<serde_json::Value>) -> SpecResult<Profile> {
        let base = base.map(table);
        Transport::resolve(&table(t), base.as_ref())?.profile("transport", &Loader::new(std::path::Path::new(".")))
    }

    #[test]
    fn a_kernel_profile_is_planned_as_the_default_transport_with_its_iw() {
        for iw in [None, Some(1), Some(4), Some(1000)] {
            let k = KernelStack { cc: "bbr".into(), iw, prio: 7, field: "transport.stack".into() };
            let default = serde_json::json!({"iw": iw.unwrap_or(10)});
            let Ok(Profile::Tcp { cfg, app: None }) = profile(default, None) else {
                panic!("the default transport is TCP")
            };
            assert_eq!(k.planned_tcp(), cfg, "iw {iw:?}");
        }
    }

    #[test]
    fn a_named_transport_takes_from_the_default_only_the_keys_its_protocol_has() {
        let base = serde_json::json!({"protocol": "rc3", "cc": "cubic", "rc3_buckets": [10], "iw": 10});
        let Profile::Tcp { cfg, .. } = profile(serde_json::json!({"protocol": "xcp"}), Some(base.clone())).unwrap()
        else {
            panic!("XCP is window-based")
        };
        // cc and iw come from the default (XCP has both); rc3_buckets does not.
        assert_eq!((cfg.iw, cfg.hook, cfg.cc.loss_kind()), (10, None, Some(crate::protocol::CcKind::Cubic)));
        let Profile::Paced { cfg, .. } = profile(serde_json::json!({"protocol": "jetmax"}), Some(base)).unwrap() else {
            panic!("JetMax is paced")
        };
        assert_eq!(cfg.fallback, None);
    }

    #[test]
    fn a_key_of_another_protocol_is_refused_with_the_protocols_that_have_it() {
        let e = profile(serde_json::json!({"protocol": "xcp", "hystart": "linux"}), None).unwrap_err();
        assert_eq!(e.field, "hystart");
        assert_eq!(e.message, "only meaningful with protocol = \"tcp\" or \"rc3\" or \"rcp\"");
        let e = profile(serde_json::json!({"colour": 1}), None).unwrap_err();
        assert!(e.message.starts_with("unknown field `colour` with protocol = \"tcp\", expected one of"), "{e}");
        assert!(e.message.contains("`iw`") && e.message.contains("`hystart`"), "{e}");
    }

    #[test]
    fn each_protocol_parses_its_defaults() {
        let d = TcpConfig::default();
        let Profile::Tcp { cfg, .. } = profile(serde_json::json!({"protocol": "xcp"}), None).unwrap() else { panic!() };
        assert_eq!((cfg.iw, cfg.header), (1, d.header + crate::protocol::info("xcp").unwrap().header_bytes));
        let Profile::Paced { cfg, rx, .. } = profile(serde_json::json!({"protocol": "rcp"}), None).unwrap() else {
            panic!()
        };
        assert_eq!(
            (cfg.header, rx.header),
            (d.header + crate::protocol::info("rcp").unwrap().header_bytes, cfg.header)
        );
        assert_eq!(cfg.fallback.map(|f| f.header), Some(d.header));
        let Profile::Tcp { cfg, .. } = profile(serde_json::json!({"protocol": "rc3"}), None).unwrap() else { panic!() };
        assert_eq!(cfg.hook, Some(crate::protocol::HookConfig::Rc3(crate::protocol::rc3::Rc3Config::default())));
    }

    /// docs/scenario.md, HPCC: the INT header is "added to `header`", so HPCC's own 48-byte
    /// headers (`fctlab hpcc run`) become 90 on the wire, not 48.
    #[test]
    fn hpccs_int_header_is_added_to_the_header_given() {
        let header = |t: serde_json::Value| match profile(t, None).unwrap() {
            Profile::Tcp { cfg, .. } => cfg.header,
            _ => panic!("HPCC is window-based"),
        };
        let hpcc = crate::protocol::info("hpcc").unwrap().header_bytes;
        assert_eq!(header(serde_json::json!({"protocol": "hpcc", "line_rate": "10Gbps"})), 40 + hpcc);
        assert_eq!(header(serde_json::json!({"protocol": "hpcc", "line_rate": "10Gbps", "header": 48})), 48 + hpcc);
        // A default transport's header reaches a named HPCC transport the same way.
        let base = serde_json::json!({"header": 48});
        let Profile::Tcp { cfg, .. } =
            profile(serde_json::json!({"protocol": "hpcc", "line_rate": "10Gbps"}), Some(base)).unwrap()
        else {
            panic!()
        };
        assert_eq!(cfg.header, 48 + hpcc);
    }

    /// `min_rto` without `initial_rto` lowers the first timeout with it, in both senders.
    #[test]
    fn a_min_rto_alone_sets_the_initial_rto_of_both_senders() {
        let ms = Time::from_ms;
        let Profile::Tcp { cfg, .. } = profile(serde_json::json!({"min_rto": "1ms"}), None).unwrap() else { panic!() };
        assert_eq!((cfg.initial_rto, cfg.min_rto), (ms(5), ms(1)));
        let Profile::Tcp { cfg, .. } = profile(serde_json::json!({}), None).unwrap() else { panic!() };
        assert_eq!(cfg.initial_rto, Time::from_secs(1));
        let rcp = serde_json::json!({"protocol": "rcp", "min_rto": "2ms"});
        let Profile::Paced { cfg, .. } = profile(rcp, None).unwrap() else { panic!() };
        assert_eq!((cfg.initial_rto, cfg.min_rto), (ms(10), ms(2)));
        let Profile::Paced { cfg, .. } = profile(serde_json::json!({"protocol": "rcp"}), None).unwrap() else {
            panic!()
        };
        assert_eq!(cfg.initial_rto, ms(500));
    }
}
