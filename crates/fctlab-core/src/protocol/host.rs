//! The interface of a host law's config, what the registry's host-law lists (`hosts.rs`)
//! dispatch to: a window protocol's config ([`WindowConfig`], a `CcConfig` variant) builds its
//! controller, a rate protocol's ([`RateLawConfig`], a `RateConfig` variant) its rate law, and
//! each gives its flows' `protocol` label. A protocol implements one of them in its folder, on
//! the config its row names in the `window` or `rate` column (`registry.rs`).
//!
//! Two traits, not one, because the two loops build their laws from different things: a
//! window controller may need the connection's segment and header sizes, receive window,
//! slow-start exit and flow (R-TCP, the plug-ins), a rate law only its config.

use super::label::LabelCtx;
use crate::protocol::CcKind;
use crate::transport::cc::hystart::HyStartMode;
use crate::units::Rate;

/// The rate of a rate-based sender on a path where no router gives one.
pub const UNLIMITED_RATE: Rate = Rate::from_gbps(10);

/// What a window controller is built with besides its config: the connection it runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WindowCtx {
    /// How a loss-based window underneath leaves slow start.
    pub hystart: HyStartMode,
    /// Payload bytes per segment.
    pub mss: u32,
    /// Header bytes per packet, the congestion header included.
    pub header: u32,
    /// The receiver's window, bytes.
    pub rwnd: u64,
    /// The flow's number (a plug-in's controller is made for it).
    pub flow: u32,
}

/// A window protocol's config (config, not state): what the registry's `CcConfig` holds in
/// the protocol's variant.
pub trait WindowConfig: Copy {
    /// The controller it builds: the registry's `Controller` variant holds it.
    type Controller;

    /// A fresh controller for the connection `ctx`.
    fn build(self, ctx: WindowCtx) -> Self::Controller;

    /// The flow table's `protocol` label of its flows.
    fn label(&self, at: LabelCtx) -> String;

    /// True if its flows' segments carry the bytes their flow has left
    /// ([`crate::transport::cc::HeaderCtx::remaining`], which the connection then keeps).
    fn stamps_remaining(&self) -> bool {
        false
    }

    /// The loss-based window underneath, if it has one (for labels).
    fn loss_kind(&self) -> Option<CcKind> {
        None
    }
}

/// A rate protocol's config (config, not state): what the registry's `RateConfig` holds in
/// the protocol's variant.
pub trait RateLawConfig: Copy {
    /// The law it builds: the registry's `RateLaw` variant holds it.
    type Law;

    /// A fresh law.
    fn build(self) -> Self::Law;

    /// The flow table's `protocol` label of its flows.
    fn label(&self) -> String;
}
