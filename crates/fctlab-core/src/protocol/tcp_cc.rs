//! The windows that `cc = "..."` of `protocol = "tcp"` chooses beside the loss-based ones
//! (DCTCP, pFabric, ...): [`CcChoice`], their own keys ([`WindowKeys`]) and which keys follow
//! `[transport]` into which choice ([`key_applies`]), generated from the table's `tcp_cc`
//! column (`registry.rs`). A row's keys struct lives in its folder and implements [`CcKeys`]:
//! it turns the TCP part's choice ([`TcpChoice`]) into its [`TcpConfig`], with its own checks.

use super::CcKind;
use crate::error::{SpecError, SpecResult};
use crate::protocol::registry::protocols;
use crate::spec_de::{field_names, strip_location};
use crate::transport::cc::hystart::HyStartMode;
use crate::transport::tcp::TcpConfig;
use serde::de::{self, DeserializeOwned, Deserializer};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// What `protocol = "tcp"`'s keys say beside `cc` and the window's own keys.
#[derive(Copy, Clone, Debug, Default)]
pub struct TcpChoice {
    /// `hystart`, if set.
    pub hystart: Option<HyStartMode>,
    /// `ecn`, if set.
    pub ecn: Option<bool>,
}

/// The keys of a window that `cc = "..."` of `protocol = "tcp"` chooses (a `tcp_cc` row):
/// each an `Option`, refusing keys it does not have.
pub trait CcKeys: DeserializeOwned + Default {
    /// `cfg` with this window, given the rest of the TCP keys (`tcp`); an error names the key
    /// that does not fit this window.
    fn apply(&self, tcp: TcpChoice, cfg: TcpConfig) -> SpecResult<TcpConfig>;
}

/// `K` from the entries of `raw` that are its keys, and the first of them in `K`'s order
/// (None if `raw` has none); an error is `key: message`.
fn own<K: DeserializeOwned>(raw: &Map<String, Value>) -> Result<Option<(K, &'static str)>, String> {
    let names = field_names::<K>();
    let Some(first) = names.iter().copied().find(|n| raw.contains_key(*n)) else {
        return Ok(None);
    };
    let table: Map<String, Value> =
        raw.iter().filter(|(k, _)| names.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
    serde_path_to_error::deserialize(Value::Object(table))
        .map(|keys| Some((keys, first)))
        .map_err(|e| format!("{}: {}", e.path(), strip_location(e.inner())))
}

/// Defines [`CcChoice`], [`WindowKeys`] and [`key_applies`] from the table's `tcp_cc` column.
macro_rules! tcp_windows {
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
            keys: $keys:tt,
            kinds: $kinds:tt,
            tcp_cc: [$( $V:ident = $cc:literal => $K:ident )?],
            $($more:tt)*
        }
    )*) => {
        /// `cc` of `protocol = "tcp"`: a loss-based window, a window of the table's `tcp_cc`
        /// column, or a host law plug-in (`"rust:PATH"`, `"python:FILE:CLASS"`; `crate::plugin`).
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum CcChoice {
            /// NewReno or CUBIC.
            Builtin(CcKind),
            $($(
                #[doc = concat!($title, " (`", stringify!($folder), "/`).")]
                $V,
            )?)*
            /// A plug-in, as spelled.
            Plugin(String),
        }

        impl CcChoice {
            /// The table's window spelled `s`, if any.
            fn window(s: &str) -> Option<CcChoice> {
                match s {
                    $($($cc => Some(CcChoice::$V),)?)*
                    _ => None,
                }
            }

            /// The choice as `cc = "..."` spells it.
            pub fn name(&self) -> &str {
                match self {
                    CcChoice::Builtin(kind) => kind.name(),
                    $($(CcChoice::$V => $cc,)?)*
                    CcChoice::Plugin(spec) => spec,
                }
            }

            /// Every built-in spelling, quoted: the loss-based windows', then the table's.
            fn spellings() -> String {
                let windows: &[&str] = &[$($($cc,)?)*];
                let names: Vec<String> = CcKind::ALL
                    .iter()
                    .map(|k| k.name())
                    .chain(windows.iter().copied())
                    .map(|n| format!("{n:?}"))
                    .collect();
                names.join(", ")
            }
        }

        /// The own keys of the table's `tcp_cc` windows, by folder: each window's keys as set
        /// and the first of them (in its struct's order), or None if none is set; boxed, so that
        /// a window with many keys does not grow every transport's keys.
        #[derive(Clone, Debug, Default)]
        pub struct WindowKeys {
            $($(
                #[doc = concat!("`cc = \"", $cc, "\"`'s.")]
                pub $folder: Option<Box<($crate::protocol::$folder::$K, &'static str)>>,
            )?)*
        }

        impl WindowKeys {
            /// Every window's keys, in the table's order.
            pub fn names() -> &'static [&'static str] {
                static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
                NAMES.get_or_init(|| {
                    let mut names = Vec::new();
                    $($(names.extend_from_slice(field_names::<$crate::protocol::$folder::$K>());)?)*
                    names
                })
            }

            /// The windows' keys of `raw` (which holds only [`WindowKeys::names`]), parsed; an
            /// error is `key: message`.
            pub fn parse(raw: &Map<String, Value>) -> Result<WindowKeys, String> {
                Ok(WindowKeys { $($($folder: own::<$crate::protocol::$folder::$K>(raw)?.map(Box::new),)?)* })
            }

            /// An error naming the first key set of a window other than `cc`.
            pub fn refuse_others(&self, cc: Option<&CcChoice>) -> SpecResult<()> {
                $($(
                    if let Some(set) = &self.$folder {
                        if cc != Some(&CcChoice::$V) {
                            return Err(SpecError::new(set.1, concat!("set, but only `cc = \"", $cc, "\"` has it")));
                        }
                    }
                )?)*
                Ok(())
            }

            /// `cfg` with the window `cc` chooses and its keys, if it is one of the table's.
            pub fn apply(&self, cc: Option<&CcChoice>, tcp: TcpChoice, cfg: TcpConfig) -> Option<SpecResult<TcpConfig>> {
                match cc {
                    $($(
                        Some(CcChoice::$V) => Some(match &self.$folder {
                            Some(set) => CcKeys::apply(&set.0, tcp, cfg),
                            None => CcKeys::apply(&<$crate::protocol::$folder::$K>::default(), tcp, cfg),
                        }),
                    )?)*
                    _ => None,
                }
            }
        }

        /// Whether key `k` means something for a transport whose `cc` is `cc`: a window's own
        /// key only for that window (a named transport inherits it from `[transport]` only then).
        pub fn key_applies(k: &str, cc: Option<&str>) -> bool {
            true $($( && (!field_names::<$crate::protocol::$folder::$K>().contains(&k) || cc == Some($cc)) )?)*
        }
    };
}

protocols!(tcp_windows);

impl<'de> Deserialize<'de> for CcChoice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CcChoice, D::Error> {
        let s = String::deserialize(d)?;
        if crate::plugin::is_plugin(&s) {
            return Ok(CcChoice::Plugin(s));
        }
        if let Some(window) = CcChoice::window(&s) {
            return Ok(window);
        }
        match CcKind::from_name(&s) {
            Some(kind) => Ok(CcChoice::Builtin(kind)),
            None => Err(de::Error::custom(format!(
                "expected {} or a plug-in (\"rust:PATH\", \"python:FILE:CLASS\"), got {s:?} \
                 (the kernel's controllers need stack = \"linux\")",
                CcChoice::spellings()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spellings_are_the_loss_based_windows_then_the_tables() {
        assert_eq!(CcChoice::spellings(), r#""newreno", "cubic", "dctcp", "pfabric", "swift""#);
        assert_eq!(&WindowKeys::names()[..3], &["dctcp_g", "dctcp_alpha", "swift_base_target"]);
        assert!(key_applies("swift_beta", Some("swift")) && !key_applies("swift_beta", Some("dctcp")));
        assert!(key_applies("dctcp_g", Some("dctcp")) && !key_applies("dctcp_g", Some("cubic")));
        assert!(!key_applies("dctcp_alpha", None) && key_applies("ecn", None));
    }
}
