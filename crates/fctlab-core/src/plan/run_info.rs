//! What the result tables need besides the world itself ([`RunInfo`]): names, labels and the
//! scenario's numbers, filled in by the scenario build.

use crate::units::Time;

/// Names and labels the result tables need besides the world itself.
#[derive(Clone, Debug)]
pub struct RunInfo {
    /// Node names by node id.
    pub node_names: Vec<String>,
    /// Link names by link id.
    pub link_names: Vec<String>,
    /// Link delays by link id.
    pub link_delays: Vec<Time>,
    /// Protocol label of each profile: derived for the default transport ("tcp-newreno-iw4"),
    /// the name for named transports.
    pub profile_labels: Vec<String>,
    /// (payload, header) bytes of each profile's data packets ([`super::Profile::packet_sizes`]): the
    /// flows table's `mss_bytes` and `header_bytes`.
    pub profile_packet_sizes: Vec<(u32, u32)>,
    /// Label of each workload entry.
    pub workload_labels: Vec<String>,
    /// Start of the measurement window.
    pub measure_from: Time,
    /// Arrival window end.
    pub duration: Time,
    /// Scenario seed.
    pub seed: u64,
    /// Partitions the run is cut into (`parallel.partitions`, 1 without it).
    pub partitions: usize,
    /// Threads asked for (`parallel.threads`).
    pub threads: Option<usize>,
    /// What the build found worth telling about the run that is not an error, one sentence
    /// each: e.g. equal-cost paths that single-path routing left unused.
    pub notices: Vec<String>,
}
