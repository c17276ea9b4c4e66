//! The registry of transports' scenario keys: each `protocol = "..."` value and the struct its
//! keys parse into (in its folder's `params.rs`), beside the TCP part every fctlab transport
//! shares ([`crate::scenario::TcpPart`]; what it passes a protocol is a [`Common`]).
//!
//! A transport table is a tagged enum: `protocol` picks the variant, the TCP part's keys go to
//! [`crate::scenario::TcpPart`], the rest to the variant's struct, which deserializes itself
//! with its protocol's defaults and refuses keys it does not have. Nothing downstream checks
//! "only meaningful with protocol = ...": a key belongs to the structs that declare it.

pub use crate::plan::ProtocolKeys;

use super::hpcc::params::HpccKeys;
use super::jetmax::params::JetMaxKeys;
use super::piqi::params::PiqiKeys;
use super::rc3::params::Rc3Keys;
use super::rcp::params::RcpKeys;
use super::rtcp::params::RtcpKeys;
use super::tcp::TcpKeys;
use super::xcp::params::XcpKeys;
use crate::error::SpecResult;
use crate::plan::{Common, Profile};
use crate::spec_de::{field_names, from_table};
use serde::Deserialize;
use serde_json::{Map, Value};

/// Defines [`Protocol`] (the `protocol = "..."` tag), [`TransportKeys`] (one variant per
/// protocol holding its parsed keys) and the table joining them.
macro_rules! transports {
    ($($(#[$doc:meta])* $variant:ident = $name:literal => $keys:ty,)*) => {
        /// The value of a transport's `protocol` key.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
        pub enum Protocol {
            $($(#[$doc])* #[serde(rename = $name)] $variant,)*
        }

        /// A transport's own keys, parsed, by protocol.
        #[derive(Clone, Debug)]
        pub enum TransportKeys {
            $($(#[$doc])* $variant($keys),)*
        }

        impl Protocol {
            /// Every protocol, in the order of the docs.
            pub const ALL: &'static [Protocol] = &[$(Protocol::$variant),*];

            /// Its name as `protocol = "..."` spells it.
            pub fn name(self) -> &'static str {
                match self {
                    $(Protocol::$variant => $name,)*
                }
            }

            /// The keys of its own struct (beside the TCP part's).
            pub fn own_keys(self) -> &'static [&'static str] {
                match self {
                    $(Protocol::$variant => field_names::<$keys>(),)*
                }
            }

            /// Its keys parsed from `table` (its own keys only).
            pub fn parse(self, table: Map<String, Value>) -> SpecResult<TransportKeys> {
                match self {
                    $(Protocol::$variant => from_table(table).map(TransportKeys::$variant),)*
                }
            }
        }

        impl TransportKeys {
            /// The profile these keys and the TCP part `c` describe.
            pub fn profile(&self, c: Common) -> SpecResult<Profile> {
                match self {
                    $(TransportKeys::$variant(k) => k.profile(c),)*
                }
            }
        }
    };
}

transports! {
    /// TCP with SACK and a loss-based window (`tcp.rs`; the default).
    Tcp = "tcp" => TcpKeys,
    /// RC3: TCP plus the recursive low-priority loop (`rc3/`).
    Rc3 = "rc3" => Rc3Keys,
    /// RCP: paced at the rate routers stamp (`rcp/`; needs `rcp` queues on the path).
    Rcp = "rcp" => RcpKeys,
    /// XCP: window moved by the routers' feedback, no slow start (`xcp/`; needs `xcp` queues).
    Xcp = "xcp" => XcpKeys,
    /// R-TCP: TCP whose window is RCP's rate x RTT, paced at that rate (`rtcp/`; needs `rcp`
    /// queues).
    Rtcp = "rtcp" => RtcpKeys,
    /// JetMax: paced at a rate that closes 60% of the gap to the bottleneck's offer every RTT
    /// (`jetmax/`; needs `jetmax` queues).
    Jetmax = "jetmax" => JetMaxKeys,
    /// PIQI-RCP: paced at a rate that follows the bottleneck's PI-controlled rate once per
    /// router interval (`piqi/`; needs `piqi` queues).
    Piqi = "piqi" => PiqiKeys,
    /// HPCC: window and pacing from the switches' in-band telemetry (`hpcc/`; needs `hpcc`
    /// queues).
    Hpcc = "hpcc" => HpccKeys,
}

impl Protocol {
    /// The protocols that have `key` of their own (not a TCP part key), as
    /// `"rcp" or "rtcp"`; None if none has it.
    pub fn owners_of(key: &str) -> Option<String> {
        let owners: Vec<String> =
            Protocol::ALL.iter().filter(|p| p.own_keys().contains(&key)).map(|p| format!("\"{}\"", p.name())).collect();
        (!owners.is_empty()).then(|| owners.join(" or "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_protocol_lists_its_own_keys_and_none_repeats_the_tcp_part() {
        let tcp = field_names::<crate::scenario::TcpPart>();
        assert!(tcp.contains(&"iw") && tcp.contains(&"app"), "{tcp:?}");
        for p in Protocol::ALL {
            for k in p.own_keys() {
                assert!(!tcp.contains(k), "{} repeats the TCP part's {k}", p.name());
            }
        }
        assert_eq!(Protocol::Rc3.own_keys(), &["cc", "hystart", "rc3_buckets", "rc3_window"]);
        assert_eq!(Protocol::Jetmax.own_keys(), &[] as &[&str]);
        assert_eq!(Protocol::owners_of("fallback").as_deref(), Some("\"rcp\" or \"rtcp\""));
        assert_eq!(Protocol::owners_of("hystart").as_deref(), Some("\"tcp\" or \"rc3\" or \"rcp\""));
        assert_eq!(Protocol::owners_of("colour"), None);
    }

    #[test]
    fn registry_names_are_the_tags() {
        for p in Protocol::ALL {
            let parsed: Protocol = serde_json::from_value(Value::String(p.name().into())).unwrap();
            assert_eq!(parsed, *p);
        }
    }
}
