//! `protocol = "tcp"`: fctlab's TCP with a loss-based window, NewReno (`newreno/`) or CUBIC
//! (`cubic/`), and the keys that choose it (`cc`, `hystart`), which RC3, RCP's fallback TCP
//! and XCP's reaction to loss share.

use super::cubic::HyStartMode;
use super::CcKind;
use crate::error::{SpecError, SpecResult};
use crate::plugin::Loader;
use crate::scenario::{Common, ProtocolKeys};
use crate::transport::cc::CcConfig;
use crate::transport::tcp::TcpConfig;
use crate::world::Profile;
use serde::de::{self, Deserializer};
use serde::Deserialize;

/// The built-in controller spelled `name`, if any.
fn builtin(name: &str) -> Option<CcKind> {
    match name {
        "newreno" => Some(CcKind::NewReno),
        "cubic" => Some(CcKind::Cubic),
        _ => None,
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
    /// A plug-in, as spelled.
    Plugin(String),
}

impl<'de> Deserialize<'de> for CcChoice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CcChoice, D::Error> {
        let s = String::deserialize(d)?;
        if crate::plugin::is_plugin(&s) {
            return Ok(CcChoice::Plugin(s));
        }
        match builtin(&s) {
            Some(kind) => Ok(CcChoice::Builtin(kind)),
            None => Err(de::Error::custom(format!(
                "expected \"newreno\", \"cubic\" or a plug-in (\"rust:PATH\", \"python:FILE:CLASS\"), got {s:?} \
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

/// `protocol = "tcp"`: the loss-based window over the TCP part.
impl ProtocolKeys for LossKeys {
    fn profile(&self, c: Common) -> SpecResult<Profile> {
        let cfg = self.apply(c.cfg, &c.plugins)?;
        Ok(c.tcp(cfg))
    }
}
