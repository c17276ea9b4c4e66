//! How the segments of the kernel's TCP flows (`stack = "linux"`) are told apart by port: every
//! host's receiver listens on [`LISTEN_PORT`], and kernel flow `f` sends from
//! [`PORT_BASE`] + `f`. The hosts' sockets (`kernel.rs`) bind these ports and the router's
//! packet socket (`raw.rs`) reads a segment's flow from them ([`flow_of_ports`]).

/// The port every host's kernel receiver listens on.
pub const LISTEN_PORT: u16 = 5001;
/// Kernel flow `f` sends from port `PORT_BASE + f`; flow ids are below `MAX_FLOWS` (the
/// scenario's check, `fctlab_core::scenario::check_kernel_flows`, refuses more).
pub use fctlab_core::scenario::{KERNEL_MAX_FLOWS as MAX_FLOWS, KERNEL_PORT_BASE as PORT_BASE};

/// The flow of a TCP segment between `sport` and `dport`, and whether it goes forward
/// (sender to receiver); None for a segment that is not a kernel flow's.
pub fn flow_of_ports(sport: u16, dport: u16) -> Option<(u32, bool)> {
    match (sport, dport) {
        (s, LISTEN_PORT) if s >= PORT_BASE => Some(((s - PORT_BASE) as u32, true)),
        (LISTEN_PORT, d) if d >= PORT_BASE => Some(((d - PORT_BASE) as u32, false)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_name_the_flow_and_its_direction() {
        assert_eq!(flow_of_ports(PORT_BASE + 7, LISTEN_PORT), Some((7, true)));
        assert_eq!(flow_of_ports(LISTEN_PORT, PORT_BASE + 7), Some((7, false)));
        assert_eq!(flow_of_ports(5000, LISTEN_PORT), None, "below the base: not a kernel flow's port");
        assert_eq!(flow_of_ports(PORT_BASE + 1, PORT_BASE + 2), None);
    }
}
