//! A transport table (`[transport]`, `[transports.NAME]`) parsed into a [`Transport`]: the
//! kernel's stack, or fctlab's with its TCP part and its protocol's keys.
//!
//! A named transport takes from `[transport]` the keys it does not set itself, as far as its
//! own stack and protocol have them: a named RC3 transport over a CUBIC default takes
//! `cc = "cubic"`; a named XCP transport over an RC3 default does not take `rc3_buckets`. A
//! key a table sets itself must belong to its protocol (or to the TCP part), or it is refused
//! with the protocols that have it.

use super::super::stack::{kernel_stack, KernelKeys, Stack};
use super::tcp_part::TcpPart;
use crate::error::{SpecError, SpecResult};
use crate::plugin::Loader;
use crate::protocol::keys::{Protocol, TransportKeys};
use crate::spec_de::{field_names, from_table};
use crate::transport::conn::LossRecovery;
use crate::world::Profile;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::sync::Arc;

/// A transport table as written; [`Transport::resolve`] parses it.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(transparent)]
pub struct TransportTable(pub Map<String, Value>);

/// A parsed transport.
#[derive(Clone, Debug)]
pub enum Transport {
    /// `stack = "linux"`: the kernel's TCP (emulation only).
    Kernel(KernelKeys),
    /// fctlab's own endpoints.
    Fctlab {
        /// The keys every fctlab transport has.
        tcp: TcpPart,
        /// Its protocol's own keys.
        protocol: TransportKeys,
    },
}

/// The tag keys, read before the rest.
const TAGS: [&str; 2] = ["stack", "protocol"];

/// Tag `key` of `table`, else of `base`, parsed (`None`: neither sets it).
fn tag<T: DeserializeOwned>(
    key: &str,
    table: &Map<String, Value>,
    base: Option<&Map<String, Value>>,
) -> SpecResult<Option<T>> {
    match table.get(key).or_else(|| base.and_then(|b| b.get(key))) {
        None => Ok(None),
        Some(v) => serde_json::from_value(v.clone())
            .map(Some)
            .map_err(|e| SpecError::new(key, crate::spec_de::strip_location(&e))),
    }
}

impl Transport {
    /// `table` (over `base`, for a named transport) parsed.
    pub fn resolve(table: &TransportTable, base: Option<&TransportTable>) -> SpecResult<Transport> {
        let (own, base) = (&table.0, base.map(|b| &b.0));
        let stack: Stack = tag("stack", own, base)?.unwrap_or_default();
        let protocol: Option<Protocol> = tag("protocol", own, base)?;
        let (shared, mine): (&[&str], &[&str]) = match stack {
            Stack::Linux => (&[], field_names::<KernelKeys>()),
            Stack::Fctlab => (field_names::<TcpPart>(), protocol.unwrap_or(Protocol::Tcp).own_keys()),
        };
        let takes = |k: &str| shared.contains(&k) || mine.contains(&k);
        let (mut tcp, mut rest) = (Map::new(), Map::new());
        // A controller's own constants (`dctcp_g`) follow `[transport]` only into variants that
        // keep that controller.
        let cc = own.get("cc").or_else(|| base.and_then(|b| b.get("cc"))).and_then(|v| v.as_str());
        let inherited = base
            .into_iter()
            .flatten()
            .filter(|(k, _)| !own.contains_key(*k) && takes(k) && crate::protocol::tcp::key_applies(k, cc));
        for (k, v) in own.iter().chain(inherited) {
            if TAGS.contains(&k.as_str()) {
                continue;
            }
            if !takes(k) {
                return Err(unknown_key(k, stack, protocol.unwrap_or(Protocol::Tcp)));
            }
            let to = if shared.contains(&k.as_str()) { &mut tcp } else { &mut rest };
            to.insert(k.clone(), v.clone());
        }
        match stack {
            Stack::Linux => {
                if let Some(p) = protocol.filter(|&p| p != Protocol::Tcp) {
                    return Err(SpecError::new(
                        "protocol",
                        format!("expected \"tcp\" with stack = \"linux\" (the kernel runs TCP), got {:?}", p.name()),
                    ));
                }
                Ok(Transport::Kernel(from_table(rest)?))
            }
            Stack::Fctlab => Ok(Transport::Fctlab {
                tcp: from_table(tcp)?,
                protocol: protocol.unwrap_or(Protocol::Tcp).parse(rest)?,
            }),
        }
    }

    /// The profile of this transport; `within` is its table's path (`transports.NAME`).
    pub fn profile(&self, within: &str, plugins: &Arc<Loader>) -> SpecResult<Profile> {
        match self {
            Transport::Kernel(k) => kernel_stack(k, within).map(Profile::Kernel),
            Transport::Fctlab { tcp, protocol } => {
                let profile = protocol.profile(tcp.common(plugins)?)?;
                let paced_pair = matches!(&profile, Profile::Paced { cfg, .. } if cfg.queue_pair);
                if tcp.nic_pull == Some(true) && !paced_pair {
                    return Err(SpecError::new(
                        "nic_pull",
                        format!(
                            "expected a rate-based transport on queue pairs (queue_pair = true; protocol dcqcn, timely, \
                             rcp, ...), got {}{}",
                            profile.label(),
                            if tcp.queue_pair == Some(true) { "" } else { " without queue_pair" }
                        ),
                    ));
                }
                if let Profile::Tcp { cfg, .. } = &profile {
                    if cfg.hook.is_some() && cfg.recovery == LossRecovery::GoBackN {
                        return Err(SpecError::new(
                            "recovery",
                            "expected \"selective\" for a transport with a second sending loop beside the window \
                             (its copies are tracked on the SACK scoreboard), got \"go_back_n\" (a queue pair's \
                             default)",
                        ));
                    }
                }
                Ok(profile)
            }
        }
    }
}

/// The error for key `k`, which the transport's stack and protocol do not have.
fn unknown_key(k: &str, stack: Stack, protocol: Protocol) -> SpecError {
    let msg = match (stack, Protocol::owners_of(k)) {
        (Stack::Linux, _) if field_names::<TcpPart>().contains(&k) || Protocol::owners_of(k).is_some() => {
            "set, but stack = \"linux\" takes only cc, iw and priority (this field configures fctlab's TCP)".to_string()
        }
        (Stack::Fctlab, Some(owners)) => format!("only meaningful with protocol = {owners}"),
        _ => {
            let mut keys: Vec<&str> = TAGS.to_vec();
            if stack == Stack::Fctlab {
                keys.extend(field_names::<TcpPart>());
                keys.extend(protocol.own_keys());
            } else {
                keys.extend(field_names::<KernelKeys>());
            }
            let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
            format!("unknown field `{k}` with protocol = {:?}, expected one of {}", protocol.name(), keys.join(", "))
        }
    };
    SpecError::new(k, msg)
}
