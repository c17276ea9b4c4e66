//! `protocol = "tcp"`: fctlab's TCP with a loss-based window, NewReno (`newreno/`) or CUBIC
//! (`cubic/`), and the keys that choose it (`cc`, `hystart`), which RC3, RCP's fallback TCP
//! and XCP's reaction to loss share; RFC 3168 ECN (`ecn`) and the windows of the table's
//! `tcp_cc` column (`cc = "dctcp"`, `cc = "pfabric"`: `tcp_cc.rs`), with their own keys, are
//! `protocol = "tcp"`'s alone.

use super::cubic::HyStartMode;
pub use super::tcp_cc::{key_applies, CcChoice};
use super::tcp_cc::{TcpChoice, WindowKeys};
use super::CcKind;
use crate::error::{SpecError, SpecResult};
use crate::plan::{Common, Profile, ProtocolKeys};
use crate::plugin::Loader;
use crate::protocol::CcConfig;
use crate::transport::ecn::EcnMode;
use crate::transport::tcp::TcpConfig;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::fmt;
use std::sync::OnceLock;

impl Default for CcConfig {
    /// NewReno, TCP's standard window.
    fn default() -> CcConfig {
        CcConfig::Loss(CcKind::NewReno)
    }
}

impl<'de> Deserialize<'de> for CcKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CcKind, D::Error> {
        let s = String::deserialize(d)?;
        match CcKind::from_name(&s) {
            Some(kind) => Ok(kind),
            None => {
                let names: Vec<String> = CcKind::ALL.iter().map(|k| format!("{:?}", k.name())).collect();
                Err(de::Error::custom(format!(
                    "expected {} (fctlab's stack; the kernel's controllers need stack = \"linux\"), got {s:?}",
                    names.join(" or ")
                )))
            }
        }
    }
}

/// The loss-based window's keys.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossKeys {
    /// Congestion controller (default "newreno"), or a host law plug-in.
    #[serde(default)]
    pub cc: Option<CcChoice>,
    /// How slow start ends before a loss: "linux" (HyStart's ACK-train and delay detectors,
    /// the default with `cc = "cubic"`, as in Linux), "hystart++" (RFC 9406) or "off" (the
    /// default with `cc = "newreno"`).
    #[serde(default)]
    pub hystart: Option<HyStartMode>,
}

/// `protocol = "tcp"`'s keys: the loss-based window's, ECN, and the own keys of the table's
/// `tcp_cc` windows (DCTCP's `dctcp_g`, `dctcp_alpha`), refusing any other key by name.
#[derive(Clone, Debug, Default)]
pub struct TcpKeys {
    /// As [`LossKeys::cc`]; also a window of the table's `tcp_cc` column ("dctcp", "pfabric").
    pub cc: Option<CcChoice>,
    /// As [`LossKeys::hystart`].
    pub hystart: Option<HyStartMode>,
    /// RFC 3168 ECN (default false; a `tcp_cc` window decides for itself: always on with
    /// `cc = "dctcp"`): data packets ECN-capable, marks echoed, the window reduced once per
    /// window of data on ECE.
    pub ecn: Option<bool>,
    /// The `tcp_cc` windows' own keys.
    pub windows: WindowKeys,
}

/// TCP's own keys, before the windows'.
const OWN: [&str; 3] = ["cc", "hystart", "ecn"];

impl TcpKeys {
    /// Every key: TCP's own, then the windows' ([`WindowKeys::names`]).
    fn names() -> &'static [&'static str] {
        static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
        NAMES.get_or_init(|| OWN.iter().chain(WindowKeys::names()).copied().collect())
    }

    /// `cfg` with this window and ECN.
    pub fn apply(&self, cfg: TcpConfig, plugins: &Loader) -> SpecResult<TcpConfig> {
        self.windows.refuse_others(self.cc.as_ref())?;
        let tcp = TcpChoice { hystart: self.hystart, ecn: self.ecn };
        if let Some(cfg) = self.windows.apply(self.cc.as_ref(), tcp, cfg) {
            return cfg;
        }
        let loss = LossKeys { cc: self.cc.clone(), hystart: self.hystart };
        let ecn = if self.ecn == Some(true) { EcnMode::Classic } else { EcnMode::Off };
        Ok(TcpConfig { ecn, ..loss.apply(cfg, plugins)? })
    }
}

impl<'de> Deserialize<'de> for TcpKeys {
    /// As a derived struct with `deny_unknown_fields` whose fields are [`TcpKeys::names`]: an
    /// error names its key, as soon as that key is read.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TcpKeys, D::Error> {
        d.deserialize_struct("TcpKeys", TcpKeys::names(), TcpKeysVisitor)
    }
}

/// Reads [`TcpKeys`] from a table.
struct TcpKeysVisitor;

impl<'de> Visitor<'de> for TcpKeysVisitor {
    type Value = TcpKeys;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("struct TcpKeys")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TcpKeys, A::Error> {
        let mut keys = TcpKeys::default();
        let mut raw = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "cc" => keys.cc = map.next_value()?,
                "hystart" => keys.hystart = map.next_value()?,
                "ecn" => keys.ecn = map.next_value()?,
                k if WindowKeys::names().contains(&k) => {
                    raw.insert(key, map.next_value::<Value>()?);
                    keys.windows = WindowKeys::parse(&raw).map_err(de::Error::custom)?;
                }
                k => return Err(de::Error::unknown_field(k, TcpKeys::names())),
            }
        }
        Ok(keys)
    }
}

impl LossKeys {
    /// `cfg` with this window: its controller and its slow-start exit; a plug-in is loaded by
    /// `plugins`.
    pub fn apply(&self, cfg: TcpConfig, plugins: &Loader) -> SpecResult<TcpConfig> {
        let kind = match &self.cc {
            Some(CcChoice::Plugin(spec)) => {
                if self.hystart.is_some() {
                    return Err(SpecError::new(
                        "hystart",
                        "set, but a plug-in's window leaves slow start as it decides",
                    ));
                }
                return Ok(TcpConfig { cc: CcConfig::Plugin(plugins.host(spec, "cc")?), ..cfg });
            }
            Some(CcChoice::Builtin(k)) => *k,
            Some(window) => {
                return Err(SpecError::new(
                    "cc",
                    format!("\"{}\" is `protocol = \"tcp\"`'s alone, not this transport's", window.name()),
                ));
            }
            None => CcKind::NewReno,
        };
        let hystart = self.hystart.unwrap_or(match kind {
            // Linux turns HyStart on with CUBIC (`tcp_cubic.hystart = 1`).
            CcKind::Cubic => HyStartMode::Linux,
            CcKind::NewReno => HyStartMode::Off,
        });
        Ok(TcpConfig { cc: CcConfig::Loss(kind), hystart, ..cfg })
    }
}

/// `protocol = "tcp"`: the loss-based window (and ECN) over the TCP part.
impl ProtocolKeys for TcpKeys {
    fn profile(&self, c: Common) -> SpecResult<Profile> {
        let cfg = self.apply(c.cfg, &c.plugins)?;
        Ok(c.tcp(cfg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec_de::{field_names, from_table};
    use serde_json::Value;

    /// A loss-based `cc` (R-TCP's and RCP's fallback, RC3's window) that is none of the table's
    /// is refused with the spellings the table has.
    #[test]
    fn an_unknown_loss_based_window_is_refused_with_the_tables_spellings() {
        let e = serde_json::from_value::<CcKind>(Value::String("vegas".into())).unwrap_err().to_string();
        assert_eq!(
            e,
            "expected \"newreno\" or \"cubic\" (fctlab's stack; the kernel's controllers need stack = \"linux\"), \
             got \"vegas\""
        );
        assert_eq!(CcKind::from_name("cubic"), Some(CcKind::Cubic));
        assert_eq!(CcKind::from_name("dctcp"), None, "DCTCP is a window of protocol = \"tcp\" alone");
    }
    use std::fmt;

    fn keys(json: Value) -> SpecResult<TcpKeys> {
        let Value::Object(table) = json else { unreachable!() };
        from_table(table)
    }

    fn config(json: Value) -> SpecResult<TcpConfig> {
        keys(json)?.apply(TcpConfig::default(), &Loader::new(std::path::Path::new(".")))
    }

    /// `field: message`.
    fn error(result: SpecResult<impl fmt::Debug>) -> String {
        let e = result.unwrap_err();
        format!("{}: {}", e.field, e.message)
    }

    #[test]
    fn tcp_keys_are_its_own_then_the_windows_and_refuse_others_by_name() {
        let swift = [
            "swift_base_target",
            "swift_hops",
            "swift_h",
            "swift_fs_range",
            "swift_fs_min_cwnd",
            "swift_fs_max_cwnd",
            "swift_ai",
            "swift_beta",
            "swift_max_mdf",
            "swift_retx_reset",
            "swift_min_cwnd",
            "swift_max_cwnd",
        ];
        let names: Vec<&str> = ["cc", "hystart", "ecn", "dctcp_g", "dctcp_alpha"].into_iter().chain(swift).collect();
        assert_eq!(field_names::<TcpKeys>(), names);
        let e = error(keys(serde_json::json!({"colour": 1})));
        let expected = names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
        assert!(e.contains(&format!("unknown field `colour`, expected one of {expected}")), "{e}");
        // A bad value is named by its key, the first in the table's order.
        let e = error(keys(serde_json::json!({"dctcp_g": "x", "ecn": "y"})));
        assert!(e.starts_with("dctcp_g: invalid type: string \"x\""), "{e}");
        let e = error(keys(serde_json::json!({"dctcp_alpha": 0.5, "ecn": "y"})));
        assert!(e.starts_with("ecn: invalid type"), "{e}");
    }

    #[test]
    fn the_windows_of_the_table_set_their_config_and_refuse_what_does_not_fit() {
        let dctcp = config(serde_json::json!({"cc": "dctcp", "dctcp_g": 0.25})).unwrap();
        assert_eq!(dctcp.cc, CcConfig::Dctcp(crate::protocol::dctcp::DctcpConfig { g: 0.25, alpha0: 1.0 }));
        assert_eq!(dctcp.hystart, HyStartMode::Off);
        assert!(matches!(dctcp.ecn, EcnMode::Exact(_)));
        let cfg = TcpConfig::default();
        let pfabric = config(serde_json::json!({"cc": "pfabric"})).unwrap();
        let max_cwnd = cfg.iw as u64 * cfg.mss as u64;
        assert_eq!(pfabric.cc, CcConfig::PFabric(crate::protocol::pfabric::PFabricConfig { max_cwnd }));
        for (json, message) in [
            (
                serde_json::json!({"cc": "pfabric", "dctcp_alpha": 0.5, "hystart": "off"}),
                "dctcp_alpha: set, but only `cc = \"dctcp\"` has it",
            ),
            (
                serde_json::json!({"cc": "pfabric", "hystart": "off"}),
                "hystart: set, but pFabric's window has no slow-start exit to choose",
            ),
            (
                serde_json::json!({"cc": "pfabric", "ecn": true}),
                "ecn: true, but pFabric's window does not react to marks",
            ),
            (serde_json::json!({"cc": "dctcp", "ecn": false, "dctcp_g": 0}), "ecn: false, but DCTCP needs ECN"),
            (
                serde_json::json!({"cc": "swift", "ecn": true}),
                "ecn: true, but Swift's window reacts to delay, not to marks",
            ),
            (
                serde_json::json!({"cc": "dctcp", "swift_beta": 0.5}),
                "swift_beta: set, but only `cc = \"swift\"` has it",
            ),
            (serde_json::json!({"cc": "swift", "swift_beta": 2}), "swift_beta: expected a constant in (0, 1], got 2"),
            (
                serde_json::json!({"cc": "dctcp", "dctcp_g": 2, "dctcp_alpha": 2}),
                "dctcp_g: expected a weight in (0, 1], got 2",
            ),
        ] {
            let e = error(config(json.clone()));
            assert!(e.contains(message), "{json}: {e}");
        }
    }

    #[test]
    fn a_window_of_the_table_is_protocol_tcps_alone() {
        for (choice, name) in [(CcChoice::Dctcp, "dctcp"), (CcChoice::PFabric, "pfabric"), (CcChoice::Swift, "swift")] {
            let loss = LossKeys { cc: Some(choice), hystart: None };
            let e = error(loss.apply(TcpConfig::default(), &Loader::new(std::path::Path::new("."))));
            assert!(e.contains(&format!("\"{name}\" is `protocol = \"tcp\"`'s alone, not this transport's")), "{e}");
        }
    }
}
