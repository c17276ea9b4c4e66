//! The flows a run starts ([`FlowPlan`], one per flow, in start order) and when it ends
//! ([`RunLimits`]).

use crate::units::Time;

/// One flow to start: when, between which hosts, how big, carried how.
#[derive(Clone, Debug)]
pub struct FlowPlan {
    /// Application start time.
    pub start: Time,
    /// Sending host (node id).
    pub src: usize,
    /// Receiving host (node id).
    pub dst: usize,
    /// Bytes (None: long-lived until `stop`).
    pub size: Option<u64>,
    /// When a long-lived flow's application stops writing.
    pub stop: Option<Time>,
    /// Index into the world's profiles.
    pub profile: usize,
    /// Index into the world's workload labels.
    pub workload: usize,
}

/// When a run ends.
#[derive(Copy, Clone, Debug)]
pub struct RunLimits {
    /// Arrivals stop here; without draining, the run stops here too.
    pub duration: Time,
    /// Keep going after `duration` until every finite flow completes.
    pub drain: bool,
    /// Hard stop, whatever is still open.
    pub max_time: Time,
}
