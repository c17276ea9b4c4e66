//! `stack = "linux"`: flows run by the kernel's own TCP instead of fctlab's endpoints.
//!
//! Such a transport is a profile of its own, [`crate::plan::Profile::Kernel`], holding the
//! [`KernelStack`] built here; [`crate::world::World::kernel_stack`] tells which flows it runs.
//!
//! Only `fctlab emulate` in network namespaces can run them: each host's namespace runs real
//! kernel TCP sockets (the `fctlab-emu` crate's `kernel`) whose packets the router process
//! captures and sends through the same emulated links and queues as fctlab's datagrams (its
//! `raw`). A simulation (`fctlab run`) refuses them: there is no kernel to
//! simulate. Of the transport's fields, a kernel flow takes `cc` (any controller the kernel
//! offers, default "cubic"), `iw` (the route's `initcwnd`; default the kernel's 10) and
//! `priority` (the DSCP of its packets); the others configure fctlab's TCP and are refused.

use super::AppSpec;
use crate::error::{SpecError, SpecResult};
use crate::plan::{KernelStack, KERNEL_MSS};
use crate::quantity::BytesQ;
use serde::Deserialize;

/// Which TCP stack runs a transport's flows.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stack {
    /// fctlab's own endpoints (simulation and emulation).
    #[default]
    Fctlab,
    /// The kernel's TCP (`fctlab emulate --mode netns` only).
    Linux,
}

/// Longest congestion control name the kernel takes (TCP_CA_NAME_MAX - 1).
const CC_NAME_MAX: usize = 15;
/// Largest route `initcwnd` accepted.
const MAX_IW: u32 = 1000;
/// Kernel flow `f` sends from port `KERNEL_PORT_BASE + f`.
pub const KERNEL_PORT_BASE: u16 = 10000;
/// Kernel flows a run may have (flow ids below this), one source port each.
pub const KERNEL_MAX_FLOWS: usize = (u16::MAX - KERNEL_PORT_BASE) as usize;

/// A `stack = "linux"` transport's keys: the kernel's controller, its initial window, the
/// segment size (the kernel's only) and the priority; the application is bulk.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelKeys {
    /// The kernel's congestion control module (default "cubic"; "newreno" is its "reno").
    #[serde(default)]
    cc: Option<String>,
    /// The route's `initcwnd` (default the kernel's 10).
    #[serde(default)]
    iw: Option<u32>,
    /// Must be the kernel flows' [`KERNEL_MSS`] if given.
    #[serde(default)]
    mss: Option<BytesQ>,
    /// Priority band, sent as the DSCP (0 to 63).
    #[serde(default)]
    priority: Option<u8>,
    /// Must be bulk if given.
    #[serde(default, deserialize_with = "crate::spec_de::tagged_opt")]
    app: Option<AppSpec>,
}

/// The kernel stack `k` asks for, checked (errors name the key inside the transport's
/// table); `within` is that table's field path, which the flows' errors name later.
pub(super) fn kernel_stack(k: &KernelKeys, within: &str) -> SpecResult<KernelStack> {
    let err = |f: &str, m: String| Err(SpecError::new(f, m));
    let cc = k.cc.clone().unwrap_or_else(|| "cubic".to_string());
    let cc = if cc == "newreno" { "reno".to_string() } else { cc };
    let name_ok = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_';
    if cc.is_empty() || cc.len() > CC_NAME_MAX || !cc.chars().all(name_ok) {
        return err(
            "cc",
            format!("expected a kernel congestion control name (e.g. \"cubic\", \"reno\", \"bbr\"), got {cc:?}"),
        );
    }
    if let Some(iw) = k.iw.filter(|iw| !(1..=MAX_IW).contains(iw)) {
        return err("iw", format!("expected 1 <= iw <= {MAX_IW} segments, got {iw}"));
    }
    if let Some(m) = k.mss.filter(|m| m.0 != KERNEL_MSS) {
        return err("mss", format!("expected {KERNEL_MSS} (or unset) with stack = \"linux\", got {}", m.0));
    }
    let prio = k.priority.unwrap_or(0);
    if prio > 63 {
        return err("priority", format!("expected a band <= 63 (a DSCP) with stack = \"linux\", got {prio}"));
    }
    if !matches!(k.app, None | Some(AppSpec::Bulk {})) {
        return err(
            "app",
            "set, but stack = \"linux\" takes only cc, iw and priority (this field configures fctlab's TCP)"
                .to_string(),
        );
    }
    Ok(KernelStack { cc, iw: k.iw, prio, field: format!("{within}.stack") })
}

/// Refuses a world some of whose flows the kernel runs: a simulation (`fctlab run`) has no
/// kernel. The error names the field that asked for it.
pub fn refuse_in_simulation(world: &crate::world::World) -> SpecResult<()> {
    match (0..world.plans().len()).find_map(|f| world.kernel_stack(f)) {
        Some(k) => Err(SpecError::new(
            k.field.clone(),
            "stack = \"linux\" runs only in `fctlab emulate` (namespace mode, root): the kernel's TCP \
             cannot be simulated; use stack = \"fctlab\" (the default) for `fctlab run`",
        )),
        None => Ok(()),
    }
}

/// The kernel stacks the flows of `world` use, each once, in profile order.
pub fn kernel_stacks(world: &crate::world::World) -> Vec<KernelStack> {
    let mut used: Vec<usize> = world.plans().iter().map(|p| p.profile).collect();
    used.sort_unstable();
    used.dedup();
    used.into_iter().filter_map(|p| world.profiles().get(p).and_then(|p| p.kernel_stack()).cloned()).collect()
}

/// Refuses kernel flows the emulator cannot run: long-lived ones (a kernel flow writes its
/// size, then shuts down) and flow ids beyond the source ports
/// ([`KERNEL_MAX_FLOWS`]).
pub fn check_kernel_flows(world: &crate::world::World) -> SpecResult<()> {
    for (f, plan) in world.plans().iter().enumerate() {
        let Some(k) = world.kernel_stack(f) else { continue };
        if plan.size.is_none() {
            return Err(SpecError::new(
                k.field.clone(),
                format!("stack = \"linux\" needs flows of a given size, got a long-lived flow (flow {f})"),
            ));
        }
        if f >= KERNEL_MAX_FLOWS {
            return Err(SpecError::new(
                k.field.clone(),
                format!(
                    "stack = \"linux\" allows flow ids below {} (one source port each), got flow {f}",
                    KERNEL_MAX_FLOWS
                ),
            ));
        }
    }
    Ok(())
}
