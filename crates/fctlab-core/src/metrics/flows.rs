//! The per-flow record that becomes one row of the flows table.

use crate::units::Time;

/// One flow's facts, filled in as the run goes.
#[derive(Clone, Debug)]
pub struct FlowRecord {
    /// Sending host (node id).
    pub src: usize,
    /// Receiving host (node id).
    pub dst: usize,
    /// Payload bytes (None: long-lived).
    pub size: Option<u64>,
    /// Application start.
    pub start: Time,
    /// When the receiver held every byte.
    pub finish: Option<Time>,
    /// A long-lived flow's application stopped.
    pub stopped: bool,
    /// Round-trip propagation delay of the flow's path (forward + reverse).
    pub rtt_prop: Time,
    /// FCT on an empty network without slow start: 1.5 x rtt_prop + wire bytes / bottleneck.
    pub ideal: Time,
    /// When the application's first write was held in full (scheduled writers only).
    pub first_write: Option<Time>,
    /// Bytes delivered in order to the receiving application.
    pub delivered: u64,
    /// Payload bytes retransmitted.
    pub retx_bytes: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Index of the transport profile.
    pub profile: usize,
    /// Index of the workload entry.
    pub workload: usize,
    /// Link ids of the forward path, source to destination, as routed at plan time.
    pub path: Vec<u32>,
}

impl FlowRecord {
    /// Flow completion time: finish minus application start (handshake included).
    pub fn fct(&self) -> Option<Time> {
        self.finish.map(|f| f - self.start)
    }
}
