//! The result tables as columns, ready for Arrow / polars.

use crate::scenario::RunInfo;
use crate::world::World;

/// One row per flow.
#[derive(Clone, Debug, Default)]
pub struct FlowTable {
    /// Flow id (index in start order).
    pub id: Vec<u64>,
    /// Sending host name.
    pub src: Vec<String>,
    /// Receiving host name.
    pub dst: Vec<String>,
    /// Payload bytes (-1: long-lived).
    pub size_bytes: Vec<i64>,
    /// Application start, s.
    pub start_s: Vec<f64>,
    /// Time the receiver held every byte, s.
    pub finish_s: Vec<Option<f64>>,
    /// finish - start, s.
    pub fct_s: Vec<Option<f64>>,
    /// Round-trip propagation delay of the path, s.
    pub rtt_prop_s: Vec<f64>,
    /// Ideal FCT (1.5 RTT + wire bytes / bottleneck rate), s.
    pub ideal_fct_s: Vec<f64>,
    /// Time from start until the application's first write was held (scheduled writers), s.
    pub first_write_s: Vec<Option<f64>>,
    /// Bytes delivered in order.
    pub delivered_bytes: Vec<u64>,
    /// Payload bytes retransmitted.
    pub retx_bytes: Vec<u64>,
    /// Retransmission timeouts.
    pub timeouts: Vec<u64>,
    /// Transport label.
    pub protocol: Vec<String>,
    /// Workload entry label.
    pub workload: Vec<String>,
    /// Started inside the measurement window [measure_from, duration).
    pub measured: Vec<bool>,
    /// Link ids of the forward path, in order.
    pub path: Vec<Vec<u32>>,
}

/// One row per directed link.
#[derive(Clone, Debug, Default)]
pub struct LinkTable {
    /// Link id.
    pub id: Vec<u64>,
    /// Link name.
    pub name: Vec<String>,
    /// Node the link leaves.
    pub src: Vec<String>,
    /// Node the link enters.
    pub dst: Vec<String>,
    /// Rate, bit/s.
    pub rate_bps: Vec<u64>,
    /// Propagation delay, s.
    pub delay_s: Vec<f64>,
    /// Packets serialized.
    pub pkts_sent: Vec<u64>,
    /// Bytes serialized.
    pub bytes_sent: Vec<u64>,
    /// Packets dropped by the queue or lost on the wire.
    pub drops_pkts: Vec<u64>,
    /// Bytes dropped or lost.
    pub drops_bytes: Vec<u64>,
    /// bytes_sent * 8 / (rate * run time).
    pub utilization: Vec<f64>,
    /// Time-averaged queue, bytes.
    pub queue_avg_bytes: Vec<f64>,
    /// Largest queue, bytes.
    pub queue_max_bytes: Vec<u64>,
}

/// The flows table of a run.
pub fn flow_table(w: &World, info: &RunInfo) -> FlowTable {
    let mut t = FlowTable::default();
    for (i, r) in w.records.iter().enumerate() {
        t.id.push(i as u64);
        t.src.push(info.node_names[r.src].clone());
        t.dst.push(info.node_names[r.dst].clone());
        t.size_bytes.push(r.size.map_or(-1, |s| s as i64));
        t.start_s.push(r.start.as_secs_f64());
        t.finish_s.push(r.finish.map(|f| f.as_secs_f64()));
        t.fct_s.push(r.fct().map(|f| f.as_secs_f64()));
        t.rtt_prop_s.push(r.rtt_prop.as_secs_f64());
        t.ideal_fct_s.push(r.ideal.as_secs_f64());
        t.first_write_s.push(r.first_write.map(|f| (f - r.start).as_secs_f64()));
        t.delivered_bytes.push(r.delivered);
        t.retx_bytes.push(r.retx_bytes);
        t.timeouts.push(r.timeouts);
        t.protocol.push(info.profile_labels[r.profile].clone());
        t.workload.push(info.workload_labels[r.workload].clone());
        t.measured.push(r.start >= info.measure_from && r.start < info.duration);
        t.path.push(r.path.clone());
    }
    t
}

/// The links table of a run.
pub fn link_table(w: &World, info: &RunInfo) -> LinkTable {
    let mut t = LinkTable::default();
    let run = w.now().as_secs_f64();
    for (i, l) in w.links.iter().enumerate() {
        let s = &l.stats;
        t.id.push(i as u64);
        t.name.push(info.link_names[i].clone());
        t.src.push(info.node_names[l.from as usize].clone());
        t.dst.push(info.node_names[l.to as usize].clone());
        t.rate_bps.push(l.rate.bps());
        t.delay_s.push(info.link_delays[i].as_secs_f64());
        t.pkts_sent.push(s.pkts_sent);
        t.bytes_sent.push(s.bytes_sent);
        t.drops_pkts.push(s.drops_pkts + s.lost_pkts);
        t.drops_bytes.push(s.drops_bytes + s.lost_bytes);
        t.utilization.push(if run > 0.0 { s.bytes_sent as f64 * 8.0 / (l.rate.bps_f64() * run) } else { 0.0 });
        t.queue_avg_bytes.push(if w.now().0 > 0 { s.queue_area as f64 / w.now().0 as f64 } else { 0.0 });
        t.queue_max_bytes.push(s.queue_max_bytes);
    }
    t
}
