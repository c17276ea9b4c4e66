//! What a build passes down: the plan of a run, below the layers that read it.
//!
//! The scenario layer ([`crate::scenario`]) parses a spec and fills these in; a protocol's
//! keys ([`crate::protocol::keys`]) turn a [`Common`] into a [`Profile`], the world
//! ([`crate::world`]) starts each [`FlowPlan`] with its profile and stops at its
//! [`RunLimits`], and the result tables ([`crate::metrics::tables`]) label their rows from a
//! [`RunInfo`]. None of them imports the scenario layer: it sits on top of them all.
//!
//! | file | what it holds |
//! |---|---|
//! | `profile.rs` | [`Profile`] (fctlab's TCP, a paced sender or the kernel's TCP) and [`AppTemplate`] |
//! | `common.rs` | [`Common`], the TCP part a protocol builds its profile from, and [`ProtocolKeys`], the protocols' keys that do; [`initial_rto`] |
//! | `flows.rs` | [`FlowPlan`], one flow to start; [`RunLimits`], when the run ends |
//! | `kernel.rs` | [`KernelStack`], a transport the kernel's TCP runs (`stack = "linux"`) |
//! | `run_info.rs` | [`RunInfo`], the names and labels of the result tables |

mod common;
mod flows;
mod kernel;
mod profile;
mod run_info;

pub use common::{initial_rto, Common, ProtocolKeys, INITIAL_RTO_PER_MIN_RTO};
pub use flows::{FlowPlan, RunLimits};
pub use kernel::{KernelStack, KERNEL_IW, KERNEL_MSS};
pub use profile::{AppTemplate, Profile};
pub use run_info::RunInfo;
