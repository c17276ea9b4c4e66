//! Time series sampled at a fixed interval: queue length and throughput of chosen links,
//! cwnd of chosen flows. Stored long-form (time, metric, target, value).

use crate::net::link::Link;
use crate::units::Time;

/// The metrics a series row can hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Bytes queued at the link's output.
    QueueBytes,
    /// Bits per second serialized since the last sample.
    ThroughputBps,
    /// A flow's congestion window in bytes.
    CwndBytes,
}

impl Metric {
    /// Column value for the series table.
    pub fn name(self) -> &'static str {
        match self {
            Metric::QueueBytes => "queue_bytes",
            Metric::ThroughputBps => "throughput_bps",
            Metric::CwndBytes => "cwnd_bytes",
        }
    }
}

/// Collects series rows.
#[derive(Clone, Debug, Default)]
pub struct SeriesRecorder {
    interval: Option<Time>,
    links: Vec<u32>,
    link_names: Vec<String>,
    flows: Vec<u32>,
    last_bytes: Vec<u64>,
    last_time: Time,
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
        SeriesRecorder {
            interval: Some(interval),
            last_bytes: vec![0; ids.len()],
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

    /// Flows whose cwnd is sampled.
    pub fn flows(&self) -> &[u32] {
        &self.flows
    }

    fn push(&mut self, t: Time, m: Metric, target: String, v: f64) {
        self.time.push(t);
        self.metric.push(m);
        self.target.push(target);
        self.value.push(v);
    }

    /// Takes one sample; returns the time of the next.
    pub fn sample(&mut self, now: Time, links: &mut [Link], cwnds: &[(u32, Option<u64>)]) -> Time {
        let dt = (now - self.last_time).as_secs_f64();
        for k in 0..self.links.len() {
            let l = &mut links[self.links[k] as usize];
            let name = self.link_names[k].clone();
            let queued = l.queued_bytes(now);
            self.push(now, Metric::QueueBytes, name.clone(), queued as f64);
            let sent = l.stats.bytes_sent;
            let thr = if dt > 0.0 { (sent - self.last_bytes[k]) as f64 * 8.0 / dt } else { 0.0 };
            self.last_bytes[k] = sent;
            self.push(now, Metric::ThroughputBps, name, thr);
        }
        for &(f, cwnd) in cwnds {
            if let Some(c) = cwnd {
                self.push(now, Metric::CwndBytes, format!("flow{f}"), c as f64);
            }
        }
        self.last_time = now;
        now + self.interval.unwrap_or(Time::MAX)
    }
}
