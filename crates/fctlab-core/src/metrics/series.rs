//! Time series sampled at a fixed interval: queue length, throughput, offered input,
//! active-flow count and bytes dropped so far of chosen links (plus the rows of an explicit-feedback port's router law,
//! e.g. an RCP port's fair rate R and average RTT d, a JetMax port's g_l and N_l), cwnd and
//! sending rate of chosen flows.
//! Stored long-form (time, metric, target, value).

pub use super::metric::Metric;

use crate::units::Time;

/// What a sample reads of one sampled link (the world reads it from the link's counters).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LinkSample {
    /// Bytes queued at the link's output.
    pub queued_bytes: u64,
    /// Bit-picoseconds serialized onto the wire so far (a packet being serialized counts for
    /// the part of it already sent).
    pub serialized_bit_ps: u128,
    /// Wire bytes offered to the link's port so far (admitted plus dropped).
    pub offered_bytes: u64,
    /// Bytes the link's queue has dropped so far.
    pub drops_bytes: u64,
}

/// What a sample reads of one active flow's sender.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FlowSample {
    /// Congestion window in bytes, where the protocol has one.
    pub cwnd: Option<u64>,
    /// Sending rate, bit/s.
    pub send_rate_bps: f64,
    /// Payload bytes cumulatively acknowledged.
    pub acked_bytes: u64,
    /// The controller's own state variable, named (DCTCP's `dctcp_alpha`), if it has one.
    pub cc: Option<(&'static str, f64)>,
}

/// Series rows per sample of a sampled flow, at most (cwnd, sending rate, bytes acknowledged,
/// the controller's variable).
pub const ROWS_PER_FLOW: u64 = 4;
/// Series rows per sample of a sampled link, besides its router law's.
pub const ROWS_PER_LINK: u64 = 5;

/// No sampled link has this slot.
const UNSAMPLED: u32 = u32::MAX;

/// Collects series rows.
#[derive(Clone, Debug, Default)]
pub struct SeriesRecorder {
    interval: Option<Time>,
    links: Vec<u32>,
    link_names: Vec<String>,
    /// Link id -> index into `links` (UNSAMPLED if the link is not sampled).
    slot: Vec<u32>,
    /// Per sampled link: flows crossing it, started and not complete.
    active: Vec<u32>,
    flows: Vec<u32>,
    /// Per sampled link: [`LinkSample::serialized_bit_ps`] at the last sample.
    last_serialized: Vec<u128>,
    /// Per sampled link: bytes offered to its port up to the last sample.
    last_offered: Vec<u64>,
    last_time: Time,
    /// The rows of the port's own state one link's reading gave (kept between samples, so that
    /// sampling allocates nothing once it has grown).
    law_rows: Vec<(Metric, f64)>,
    /// Sample times.
    pub time: Vec<Time>,
    /// Metric of each row.
    pub metric: Vec<Metric>,
    /// Target of each row: a link name or "flow<id>".
    pub target: Vec<String>,
    /// Value of each row.
    pub value: Vec<f64>,
}

impl SeriesRecorder {
    /// No series.
    pub fn none() -> SeriesRecorder {
        SeriesRecorder::default()
    }

    /// Samples `links` (id, name) and `flows` every `interval`.
    pub fn new(interval: Time, links: Vec<(u32, String)>, flows: Vec<u32>) -> SeriesRecorder {
        let (ids, names): (Vec<u32>, Vec<String>) = links.into_iter().unzip();
        let mut slot = vec![UNSAMPLED; ids.iter().map(|&l| l as usize + 1).max().unwrap_or(0)];
        for (k, &l) in ids.iter().enumerate() {
            slot[l as usize] = k as u32;
        }
        SeriesRecorder {
            interval: Some(interval),
            last_serialized: vec![0; ids.len()],
            last_offered: vec![0; ids.len()],
            active: vec![0; ids.len()],
            slot,
            links: ids,
            link_names: names,
            flows,
            ..SeriesRecorder::default()
        }
    }

    /// When the first sample is due (None: no series).
    pub fn first_sample(&self) -> Option<Time> {
        self.interval
    }

    /// Flows whose cwnd and sending rate are sampled.
    pub fn flows(&self) -> &[u32] {
        &self.flows
    }

    /// A flow with forward path `path` (link ids) has started. (Once per flow: kept out of line,
    /// away from the per-packet code that calls it.)
    #[inline(never)]
    pub fn flow_started(&mut self, path: &[u32]) {
        for &l in path {
            if let Some(&k) = self.slot.get(l as usize) {
                if k != UNSAMPLED {
                    self.active[k as usize] += 1;
                }
            }
        }
    }

    /// A flow with forward path `path` has completed (or, long-lived, stopped). (Out of line, as
    /// `flow_started`.)
    #[inline(never)]
    pub fn flow_ended(&mut self, path: &[u32]) {
        for &l in path {
            if let Some(&k) = self.slot.get(l as usize) {
                if k != UNSAMPLED {
                    self.active[k as usize] -= 1;
                }
            }
        }
    }

    fn push(&mut self, t: Time, m: Metric, target: &str, v: f64) {
        self.time.push(t);
        self.metric.push(m);
        self.target.push(target.to_string());
        self.value.push(v);
    }

    /// Takes one sample; returns the time of the next. `read_link` reads sampled link `l`: it
    /// returns the link's [`LinkSample`] and hands the rows of its port's own state (a router
    /// law's, a marking queue's) to the sink it is given, in their order. `flows` holds, for
    /// each sampled flow, its sender's state (None: not active).
    pub fn sample(
        &mut self,
        now: Time,
        mut read_link: impl FnMut(u32, &mut dyn FnMut(Metric, f64)) -> LinkSample,
        flows: &[(u32, Option<FlowSample>)],
    ) -> Time {
        let dt = (now - self.last_time).as_secs_f64();
        let per_s = |bytes: u64| if dt > 0.0 { bytes as f64 * 8.0 / dt } else { 0.0 };
        let dt_ps = (now - self.last_time).0 as u128;
        let mut law_rows = std::mem::take(&mut self.law_rows);
        for k in 0..self.links.len() {
            law_rows.clear();
            let l = read_link(self.links[k], &mut |m, v| law_rows.push((m, v)));
            let name = std::mem::take(&mut self.link_names[k]);
            self.push(now, Metric::QueueBytes, &name, l.queued_bytes as f64);
            // An admission can lower the count by under one bit (its serialization time is
            // rounded up to the picosecond): never report that as a negative rate.
            let serialized = l.serialized_bit_ps.max(self.last_serialized[k]);
            self.push(now, Metric::ThroughputBps, &name, bit_ps_per_s(serialized - self.last_serialized[k], dt_ps));
            self.last_serialized[k] = serialized;
            self.push(now, Metric::InputBps, &name, per_s(l.offered_bytes - self.last_offered[k]));
            self.last_offered[k] = l.offered_bytes;
            self.push(now, Metric::ActiveFlows, &name, self.active[k] as f64);
            self.push(now, Metric::DropsBytes, &name, l.drops_bytes as f64);
            for &(m, v) in &law_rows {
                self.push(now, m, &name, v);
            }
            self.link_names[k] = name;
        }
        self.law_rows = law_rows;
        for &(f, sample) in flows {
            let Some(s) = sample else { continue };
            let target = format!("flow{f}");
            if let Some(c) = s.cwnd {
                self.push(now, Metric::CwndBytes, &target, c as f64);
            }
            self.push(now, Metric::SendRateBps, &target, s.send_rate_bps);
            self.push(now, Metric::AckedBytes, &target, s.acked_bytes as f64);
            if let Some((name, v)) = s.cc {
                self.push(now, Metric::Law(name), &target, v);
            }
        }
        self.last_time = now;
        now + self.interval.unwrap_or(Time::MAX)
    }
}

/// Bits per second from bit-picoseconds serialized over `dt_ps` picoseconds, as the integer
/// quotient plus the fraction: when the bits are at most rate x time, the result is at most the
/// rate also after rounding (the quotient is then at most the rate, and equals it only with no
/// remainder).
fn bit_ps_per_s(bit_ps: u128, dt_ps: u128) -> f64 {
    if dt_ps == 0 {
        return 0.0;
    }
    (bit_ps / dt_ps) as f64 + (bit_ps % dt_ps) as f64 / dt_ps as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_per_second_never_round_above_the_rate() {
        // 10^9 bit/s for 3 ps is 3e9 bit-ps: exactly the rate, and a bit-ps less stays below.
        assert_eq!(bit_ps_per_s(3_000_000_000, 3), 1e9);
        assert!(bit_ps_per_s(2_999_999_999, 3) <= 1e9);
        assert_eq!(bit_ps_per_s(5, 0), 0.0);
        // 1500 bytes over 12 us is 1 Gb/s.
        assert_eq!(bit_ps_per_s(1500 * 8 * 1_000_000_000_000, 12_000_000), 1e9);
    }

    #[test]
    fn active_flows_count_only_flows_crossing_a_sampled_link() {
        let mut s = SeriesRecorder::new(Time::from_ms(1), vec![(3, "b".into()), (7, "c".into())], vec![]);
        s.flow_started(&[0, 3, 5]);
        s.flow_started(&[3, 7]);
        s.flow_started(&[1, 2, 9]); // beyond every sampled id: ignored
        assert_eq!(s.active, vec![2, 1]);
        s.flow_ended(&[0, 3, 5]);
        assert_eq!(s.active, vec![1, 1]);
    }
}
