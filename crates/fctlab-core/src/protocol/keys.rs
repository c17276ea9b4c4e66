//! The registry of transports' scenario keys: each `protocol = "..."` value and the struct its
//! keys parse into (in its folder's `params.rs`, exported by its `mod.rs`), generated from the
//! table's `keys` column (`registry.rs`) after `protocol = "tcp"`'s (`tcp.rs`), beside the TCP
//! part every fctlab transport shares ([`crate::scenario::TcpPart`]; what it passes a protocol
//! is a [`Common`]).
//!
//! A transport table is a tagged enum: `protocol` picks the variant, the TCP part's keys go to
//! [`crate::scenario::TcpPart`], the rest to the variant's struct, which deserializes itself
//! with its protocol's defaults and refuses keys it does not have. Nothing downstream checks
//! "only meaningful with protocol = ...": a key belongs to the structs that declare it.

pub use crate::plan::ProtocolKeys;

use super::tcp::TcpKeys;
use crate::error::SpecResult;
use crate::plan::{Common, Profile};
use crate::protocol::registry::protocols;
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

        /// A transport's own keys, parsed, by protocol (boxed: a protocol with many keys
        /// would make every transport as large as its struct).
        #[derive(Clone, Debug)]
        pub enum TransportKeys {
            $($(#[$doc])* $variant(Box<$keys>),)*
        }

        impl Protocol {
            /// Every protocol: `tcp`, then the table's rows that have keys, in its order.
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
                    $(Protocol::$variant => from_table(table).map(|k| TransportKeys::$variant(Box::new(k))),)*
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

/// Calls [`transports!`] with `protocol = "tcp"` (`tcp.rs`, the loss-based TCP every row's
/// window may fall back on, not a row) and then each entry of the table's `keys` column
/// (`registry.rs`), in the table's order, documented by its row's title.
macro_rules! transports_of_the_table {
    ($(
        $folder:ident {
            name: $name:literal,
            title: $title:literal,
            host_key: $host_key:literal,
            header: $header:tt,
            carries: $carries:tt,
            law: $law:tt,
            queue: $queue:tt,
            qdisc: $qdisc:tt,
            cost: $cost:tt,
            hook: $hook:tt,
            echo: $echo:tt,
            loss: $loss:tt,
            window: $window:tt,
            rate: $rate:tt,
            keys: [$( $KV:ident = $key_name:literal => $KT:ident )?],
            $($more:tt)*
        }
    )*) => {
        transports! {
            /// TCP with SACK and a loss-based window (`tcp.rs`; the default).
            Tcp = "tcp" => TcpKeys,
            $($(
                #[doc = concat!($title, " (`", stringify!($folder), "/`).")]
                $KV = $key_name => $crate::protocol::$folder::$KT,
            )?)*
        }
    };
}

protocols!(transports_of_the_table);

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

    /// The transports are `tcp` and the protocols a scenario selects by `transport.protocol`.
    #[test]
    fn the_transports_are_tcp_and_the_rows_selected_by_protocol() {
        let names: Vec<&str> = Protocol::ALL.iter().map(|p| p.name()).collect();
        let rows = crate::protocol::PROTOCOLS.iter().filter(|p| p.host_key == "transport.protocol");
        let expected: Vec<&str> = std::iter::once("tcp").chain(rows.map(|p| p.name)).collect();
        assert_eq!(names, expected);
    }

    #[test]
    fn registry_names_are_the_tags() {
        for p in Protocol::ALL {
            let parsed: Protocol = serde_json::from_value(Value::String(p.name().into())).unwrap();
            assert_eq!(parsed, *p);
        }
    }
}
