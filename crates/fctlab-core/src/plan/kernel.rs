//! A transport run by the kernel's TCP (`stack = "linux"`, emulation only): what its flows
//! are planned with. The scenario's `stack.rs` parses and checks its keys.

use crate::transport::tcp::TcpConfig;

/// A transport run by the kernel's TCP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelStack {
    /// The kernel's congestion control module (`TCP_CONGESTION`), e.g. "cubic".
    pub cc: String,
    /// Initial window in segments (the route's `initcwnd`), None: the kernel's own (10).
    pub iw: Option<u32>,
    /// Priority band, sent as the DSCP of the flow's packets.
    pub prio: u8,
    /// The scenario field that asked for it (`transport.stack`, `transports.NAME.stack`).
    pub field: String,
}

impl KernelStack {
    /// The TCP the build plans these flows with (ideal completion time, largest burst,
    /// scripted drops' offsets): fctlab's default TCP with the kernel's segment size and this
    /// initial window (default the kernel's [`KERNEL_IW`]).
    pub fn planned_tcp(&self) -> TcpConfig {
        TcpConfig { mss: KERNEL_MSS as u32, iw: self.iw.unwrap_or(KERNEL_IW), ..TcpConfig::default() }
    }
}

/// The only segment size the kernel flows use (route `advmss`; an Ethernet MTU).
pub const KERNEL_MSS: u64 = 1460;
/// The kernel's initial window, segments (`TCP_INIT_CWND`), where `iw` is unset.
pub const KERNEL_IW: u32 = 10;
