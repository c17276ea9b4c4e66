//! RC3, recursively cautious congestion control (RC3 paper): TCP plus a second sending loop
//! that fills spare capacity from the tail of the flow at lower priorities.
//!
//! | part | file |
//! |---|---|
//! | host law | `host.rs`: the recursive low-priority loop ([`RlpLoop`]); `hook.rs`: RC3's plug-in into the TCP sender's window loop ([`Rc3Hook`], through `transport/tcp/hook.rs`; the registry's `HookConfig::Rc3` / `Hook::Rc3`) |
//! | router law | none of its own: strict-priority queues (`qdisc/prio.rs`, WQoS) |
//! | header | none: the packet's priority band |
//! | scenario keys | `transport.protocol = "rc3"`, `rc3_buckets`, `rc3_window` (`params.rs`) |

pub mod hook;
pub mod host;
pub mod params;

use super::label::{window_label, LabelCtx};
pub use hook::Rc3Hook;
pub use host::{Rc3Config, Rc3Window, RlpLoop, MAX_LEVELS};
pub use params::Rc3Keys;

/// The flow table's label of RC3's flows, over the loss-based window `kind` (`cc = kind`).
pub fn label(kind: &str, at: LabelCtx) -> String {
    window_label("rc3", kind, at)
}
