//! What the flow table's `protocol` label of a window flow is made of: the registry's
//! [`crate::protocol::CcConfig::label`] asks each protocol's folder for its own.

/// What a window flow's label may say besides its protocol.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LabelCtx {
    /// The initial window, segments.
    pub iw: u32,
    /// The priority band of the window's packets.
    pub prio: u8,
    /// Classic ECN (RFC 3168) is on.
    pub ecn: bool,
}

/// The label of a loss-based window (`cc = kind`) under `name` (`"tcp"`, or what runs over
/// that window: `"xcp"`, `"rc3"`): `tcp-cubic-ecn-iw10-p1`.
pub fn window_label(name: &str, kind: &str, at: LabelCtx) -> String {
    let prio = if at.prio > 0 { format!("-p{}", at.prio) } else { String::new() };
    let ecn = if at.ecn { "-ecn" } else { "" };
    format!("{name}-{kind}{ecn}-iw{}{prio}", at.iw).to_lowercase()
}
