//! The metrics a series row can hold ([`Metric`]): a leaf that imports nothing, so that the
//! links, queue disciplines and router laws that name their rows' metrics need nothing else of
//! [`super::series`].

/// The metrics a series row can hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Bytes queued at the link's output.
    QueueBytes,
    /// Bits per second serialized onto the wire since the last sample (a packet being serialized
    /// counts for the part of it already sent): never more than the link's rate.
    ThroughputBps,
    /// Bits per second offered to the link's queue (admitted plus dropped) since the last
    /// sample: seed 003's "input traffic".
    InputBps,
    /// Flows whose forward path crosses the link, started and not yet complete (the N(t) of
    /// the RCP thesis's eq. 3.1).
    ActiveFlows,
    /// Bytes the link's queue has dropped since the start of the run (full buffer, push-out,
    /// a marking queue's drops of packets it cannot mark).
    DropsBytes,
    /// A router law's own metric, named in its protocol's folder (e.g. `rcp_rate_bps`,
    /// `protocol/rcp/router.rs`) and listed in the registry (`ProtocolInfo::metrics`); rows only
    /// for the ports that run that law. Also a marking queue's counters (`ecn_marks`,
    /// `early_drops`, `red_avg`; `qdisc/aqm.rs`) and a host law's own variable on a flow's rows
    /// (`dctcp_alpha`).
    Law(&'static str),
    /// A flow's congestion window in bytes.
    CwndBytes,
    /// A flow's sending rate, bit/s (the sender's own definition: `Sender::send_rate_bps`).
    SendRateBps,
    /// A flow's payload bytes cumulatively acknowledged (its progress, for sequence plots).
    AckedBytes,
}

impl Metric {
    /// Column value for the series table.
    pub fn name(self) -> &'static str {
        match self {
            Metric::QueueBytes => "queue_bytes",
            Metric::ThroughputBps => "throughput_bps",
            Metric::InputBps => "input_bps",
            Metric::ActiveFlows => "active_flows",
            Metric::DropsBytes => "drops_bytes",
            Metric::Law(name) => name,
            Metric::CwndBytes => "cwnd_bytes",
            Metric::SendRateBps => "send_rate_bps",
            Metric::AckedBytes => "acked_bytes",
        }
    }
}
