//! `protocol = "rc3"`'s scenario keys: TCP's loss-based window plus the low-priority loop's
//! buckets and window accounting.

use super::{Rc3Config, Rc3Window};
use crate::error::{SpecError, SpecResult};
use crate::plan::{Common, Profile, ProtocolKeys};
use crate::protocol::cubic::HyStartMode;
use crate::protocol::tcp::{CcChoice, LossKeys};
use crate::protocol::{CcKind, HookConfig};
use serde::de::{self, Deserializer};
use serde::Deserialize;

impl<'de> Deserialize<'de> for Rc3Window {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Rc3Window, D::Error> {
        match String::deserialize(d)?.as_str() {
            "pipe" => Ok(Rc3Window::Pipe),
            "span" => Ok(Rc3Window::Span),
            other => Err(de::Error::custom(format!("expected \"pipe\" or \"span\", got {other:?}"))),
        }
    }
}

fn paper_buckets() -> Vec<u32> {
    vec![40, 400, 4000]
}

/// RC3's keys.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rc3Keys {
    /// The primary loop's controller, as `protocol = "tcp"`'s.
    #[serde(default)]
    pub cc: Option<CcKind>,
    /// The primary loop's slow-start exit, as `protocol = "tcp"`'s.
    #[serde(default)]
    pub hystart: Option<HyStartMode>,
    /// Low-priority buckets in segments from the tail (default [40, 400, 4000]: P1..P4).
    #[serde(default = "paper_buckets")]
    pub rc3_buckets: Vec<u32>,
    /// The primary loop's window accounting: "pipe" (RFC 6675, default) or "span" (the
    /// authors' ns-3.16).
    #[serde(default)]
    pub rc3_window: Rc3Window,
}

impl ProtocolKeys for Rc3Keys {
    fn profile(&self, c: Common) -> SpecResult<Profile> {
        let mut cfg =
            LossKeys { cc: self.cc.map(CcChoice::Builtin), hystart: self.hystart }.apply(c.cfg, &c.plugins)?;
        let buckets = &self.rc3_buckets;
        let mut rc3 = Rc3Config::new(buckets).ok_or_else(|| {
            SpecError::new("rc3_buckets", format!("expected at most 6 buckets, each >= 1 segment, got {buckets:?}"))
        })?;
        rc3.window = self.rc3_window;
        let levels = buckets.len() + 1;
        if cfg.prio as usize + levels > 31 {
            return Err(SpecError::new(
                "priority",
                format!("priority {} leaves no room for {levels} lower bands", cfg.prio),
            ));
        }
        cfg.hook = Some(HookConfig::Rc3(rc3));
        Ok(c.tcp(cfg))
    }
}
