//! `protocol = "tcp"`: fctlab's TCP with a loss-based window, NewReno (`newreno/`), CUBIC
//! (`cubic/`) or DCTCP (`dctcp/`), and the keys that choose it (`cc`, `hystart`), which RC3,
//! RCP's fallback TCP and XCP's reaction to loss share; ECN (`ecn`, RFC 3168) and DCTCP's
//! constants (`dctcp_g`, `dctcp_alpha`) are `protocol = "tcp"`'s alone.

use super::cubic::HyStartMode;
use super::CcKind;
use crate::error::{SpecError, SpecResult};
use crate::plan::{Common, Profile, ProtocolKeys};
use crate::plugin::Loader;
use crate::protocol::dctcp::{DctcpConfig, DctcpEcho};
use crate::protocol::pfabric::PFabricConfig;
use crate::protocol::CcConfig;
use crate::protocol::EcnEcho;
use crate::transport::ecn::EcnMode;
use crate::transport::tcp::TcpConfig;
use serde::de::{self, Deserializer};
use serde::Deserialize;

/// The keys that only one controller has, by controller: a named transport inherits them from
/// `[transport]` only if it runs that controller.
const CC_KEYS: &[(&str, &str)] = &[("dctcp_g", "dctcp"), ("dctcp_alpha", "dctcp")];

/// Whether key `k` means something for a transport whose `cc` is `cc`.
pub fn key_applies(k: &str, cc: Option<&str>) -> bool {
    CC_KEYS.iter().all(|&(key, owner)| key != k || cc == Some(owner))
}

/// The built-in controller spelled `name`, if any.
fn builtin(name: &str) -> Option<CcKind> {
    CcKind::ALL.iter().copied().find(|k| k.name() == name)
}

impl Default for CcConfig {
    /// NewReno, TCP's standard window.
    fn default() -> CcConfig {
        CcConfig::Loss(CcKind::NewReno)
    }
}

impl<'de> Deserialize<'de> for CcKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CcKind, D::Error> {
        let s = String::deserialize(d)?;
        match builtin(&s) {
            Some(kind) => Ok(kind),
            None => Err(de::Error::custom(format!(
                "expected \"newreno\" or \"cubic\" (fctlab's stack; the kernel's controllers need \
                 stack = \"linux\"), got {s:?}"
            ))),
        }
    }
}

/// `cc` of `protocol = "tcp"`: a built-in controller, or a host law plug-in
/// (`"rust:PATH"`, `"python:FILE:CLASS"`; `crate::plugin`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CcChoice {
    /// NewReno or CUBIC.
    Builtin(CcKind),
    /// DCTCP.
    Dctcp,
    /// pFabric's minimal window.
    PFabric,
    /// A plug-in, as spelled.
    Plugin(String),
}

impl<'de> Deserialize<'de> for CcChoice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CcChoice, D::Error> {
        let s = String::deserialize(d)?;
        if crate::plugin::is_plugin(&s) {
            return Ok(CcChoice::Plugin(s));
        }
        match s.as_str() {
            "dctcp" => return Ok(CcChoice::Dctcp),
            "pfabric" => return Ok(CcChoice::PFabric),
            _ => {}
        }
        match builtin(&s) {
            Some(kind) => Ok(CcChoice::Builtin(kind)),
            None => Err(de::Error::custom(format!(
                "expected \"newreno\", \"cubic\", \"dctcp\", \"pfabric\" or a plug-in (\"rust:PATH\", \"python:FILE:CLASS\"), got {s:?} \
                 (the kernel's controllers need stack = \"linux\")"
            ))),
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

/// `protocol = "tcp"`'s keys: the loss-based window's, ECN, and DCTCP's constants.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpKeys {
    /// As [`LossKeys::cc`]; also "dctcp".
    #[serde(default)]
    pub cc: Option<CcChoice>,
    /// As [`LossKeys::hystart`].
    #[serde(default)]
    pub hystart: Option<HyStartMode>,
    /// RFC 3168 ECN (default false; always on with `cc = "dctcp"`): data packets
    /// ECN-capable, marks echoed, the window reduced once per window of data on ECE.
    #[serde(default)]
    pub ecn: Option<bool>,
    /// DCTCP's weight g of the newest window in alpha (default 1/16).
    #[serde(default)]
    pub dctcp_g: Option<f64>,
    /// DCTCP's alpha before its first window ends (default 1).
    #[serde(default)]
    pub dctcp_alpha: Option<f64>,
}

impl TcpKeys {
    /// `cfg` with this window and ECN.
    pub fn apply(&self, cfg: TcpConfig, plugins: &Loader) -> SpecResult<TcpConfig> {
        let dctcp = self.cc == Some(CcChoice::Dctcp);
        for (key, set) in [("dctcp_g", self.dctcp_g.is_some()), ("dctcp_alpha", self.dctcp_alpha.is_some())] {
            if set && !dctcp {
                return Err(SpecError::new(key, "set, but only `cc = \"dctcp\"` has it"));
            }
        }
        if self.cc == Some(CcChoice::PFabric) {
            if self.hystart.is_some() {
                return Err(SpecError::new("hystart", "set, but pFabric's window has no slow-start exit to choose"));
            }
            if self.ecn == Some(true) {
                return Err(SpecError::new("ecn", "true, but pFabric's window does not react to marks"));
            }
            // The first window is one BDP, and the ceiling (`host.rs`).
            let max_cwnd = cfg.iw as u64 * cfg.mss as u64;
            return Ok(TcpConfig { cc: CcConfig::PFabric(PFabricConfig { max_cwnd }), ..cfg });
        }
        if !dctcp {
            let loss = LossKeys { cc: self.cc.clone(), hystart: self.hystart };
            let ecn = if self.ecn == Some(true) { EcnMode::Classic } else { EcnMode::Off };
            return Ok(TcpConfig { ecn, ..loss.apply(cfg, plugins)? });
        }
        if self.ecn == Some(false) {
            return Err(SpecError::new("ecn", "false, but DCTCP needs ECN: leave `ecn` out or set it to true"));
        }
        let d = DctcpConfig::default();
        let g = self.dctcp_g.unwrap_or(d.g);
        if !(g > 0.0 && g <= 1.0) {
            return Err(SpecError::new("dctcp_g", format!("expected a weight in (0, 1], got {g}")));
        }
        let alpha0 = self.dctcp_alpha.unwrap_or(d.alpha0);
        if !(0.0..=1.0).contains(&alpha0) {
            return Err(SpecError::new("dctcp_alpha", format!("expected a fraction in [0, 1], got {alpha0}")));
        }
        Ok(TcpConfig {
            cc: CcConfig::Dctcp(DctcpConfig { g, alpha0 }),
            hystart: self.hystart.unwrap_or(HyStartMode::Off),
            ecn: EcnMode::Exact(EcnEcho::Dctcp(DctcpEcho::INITIAL)),
            ..cfg
        })
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
            Some(c @ (CcChoice::Dctcp | CcChoice::PFabric)) => {
                let name = if *c == CcChoice::Dctcp { "dctcp" } else { "pfabric" };
                return Err(SpecError::new(
                    "cc",
                    format!("\"{name}\" is `protocol = \"tcp\"`'s alone, not this transport's"),
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
