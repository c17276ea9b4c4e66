//! The XCP router law (Katabi et al. 2002; seed 003 eq. 1-2), run on the port's FIFO
//! ([`crate::qdisc::ExplicitQueue`]): the efficiency controller sizes the aggregate window change of
//! the next control interval and the fairness controller spreads it over packets, writing each
//! packet's share into its feedback field (only ever lowering it).
//!
//! Every control interval d (the traffic-weighted average RTT of the packets it saw):
//!
//! ```text
//!   phi  = alpha d S - beta Q                  (eq. 1; S = C - y spare bandwidth, Q the
//!                                              persistent queue: the minimum over the interval)
//!   h    = max(0, gamma y d - |phi|)            (shuffling)
//!   xi_p = (h + max(phi, 0)) / (d sum(rtt_i s_i / cwnd_i))
//!   xi_n = (h + max(-phi, 0)) / (d sum(s_i))
//! ```
//! and each packet i of the next interval gets `p_i - n_i` with `p_i = xi_p rtt_i^2 s_i / cwnd_i`,
//! `n_i = xi_n rtt_i s_i` (eq. 2), sizes in bytes, rates in bytes/s.

use crate::error::{SpecError, SpecResult};
use crate::net::packet::{CongestionHeader, Packet};
use crate::protocol::xcp::header::XcpHeader;
use crate::qdisc::law::{PortCtx, RouterLaw};
use crate::units::Time;

/// The series metrics the law emits: none.
pub const METRICS: &[&str] = &[];

/// XCP router gains; an `xcp` queue's keys (`alpha`, `beta`, `gamma`) over these defaults. The
/// queue is a drop-tail FIFO whose controllers write per-packet window feedback (`kind.rs`).
#[derive(Copy, Clone, Debug, PartialEq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct XcpParams {
    /// Efficiency gain on spare bandwidth (0.4).
    pub alpha: f64,
    /// Efficiency gain on the persistent queue (0.226).
    pub beta: f64,
    /// Shuffling fraction (0.1).
    pub gamma: f64,
    /// Control interval before any RTT is seen (not a key).
    #[serde(skip)]
    pub initial_interval: Time,
}

impl Default for XcpParams {
    fn default() -> Self {
        XcpParams { alpha: 0.4, beta: 0.226, gamma: 0.1, initial_interval: Time::from_ms(100) }
    }
}

impl XcpParams {
    /// Refuses gains outside (0, 1], checking `alpha`, `beta`, then `gamma` (the field names
    /// of the scenario's `xcp` queue).
    pub fn validate(&self) -> SpecResult<()> {
        for (f, v) in [("alpha", self.alpha), ("beta", self.beta), ("gamma", self.gamma)] {
            if !(v > 0.0 && v <= 1.0) {
                return Err(SpecError::new(f, format!("expected 0 < {f} <= 1, got {v}")));
            }
        }
        Ok(())
    }
}

/// The XCP law of one output port.
#[derive(Debug)]
pub struct XcpLaw {
    p: XcpParams,
    /// Control interval d, s.
    interval: f64,
    xi_p: f64,
    xi_n: f64,
    // Sums over the current interval's arrivals.
    input: f64,
    sum_rtt_s_over_cwnd: f64,
    sum_s: f64,
    sum_rtt_s: f64,
    /// The smallest queue (bytes) seen in the interval, at arrivals and departures.
    min_queue: u64,
    last_tick: Time,
}

impl XcpLaw {
    /// The law for a port with the given gains (the capacity comes from the port).
    pub fn new(p: XcpParams) -> XcpLaw {
        XcpLaw {
            p,
            interval: p.initial_interval.as_secs_f64(),
            xi_p: 0.0,
            xi_n: 0.0,
            input: 0.0,
            sum_rtt_s_over_cwnd: 0.0,
            sum_s: 0.0,
            sum_rtt_s: 0.0,
            min_queue: u64::MAX,
            last_tick: Time::ZERO,
        }
    }

    /// The current control interval, s.
    pub fn control_interval(&self) -> f64 {
        self.interval
    }
}

impl RouterLaw for XcpLaw {
    /// Adds the arrival to the interval's sums and the queue it found to the minimum.
    #[inline]
    fn on_arrival(&mut self, _ctx: &PortCtx, _now: Time, pkt: &Packet, queued_bytes_before: u64) {
        let s = pkt.wire as f64;
        self.input += s;
        if let CongestionHeader::Xcp(XcpHeader { cwnd, rtt_us, .. }) = pkt.cc {
            let (cwnd, rtt) = (cwnd as f64, rtt_us as f64 * 1e-6);
            if rtt > 0.0 && cwnd > 0.0 {
                self.sum_rtt_s_over_cwnd += rtt * s / cwnd;
                self.sum_s += s;
                self.sum_rtt_s += rtt * s;
            }
        }
        self.min_queue = self.min_queue.min(queued_bytes_before);
    }

    /// Adds the queue left behind to the minimum, then lowers the feedback field to this
    /// packet's share.
    #[inline]
    fn on_departure(&mut self, _ctx: &PortCtx, _now: Time, pkt: &mut Packet, queued_bytes_after: u64) {
        self.min_queue = self.min_queue.min(queued_bytes_after);
        let s = pkt.wire as f64;
        if let CongestionHeader::Xcp(XcpHeader { cwnd, rtt_us, feedback }) = &mut pkt.cc {
            let (w, rtt) = (*cwnd as f64, *rtt_us as f64 * 1e-6);
            if rtt > 0.0 && w > 0.0 {
                // Eq. 2: this packet's share of the aggregate change.
                let fb = self.xi_p * rtt * rtt * s / w - self.xi_n * rtt * s;
                if fb < *feedback as f64 {
                    *feedback = fb as f32;
                }
            }
        }
    }

    fn first_tick(&self) -> Option<Time> {
        Some(Time::from_secs_f64(self.interval))
    }

    fn tick(&mut self, ctx: &PortCtx, now: Time, queued_bytes: u64) -> Option<Time> {
        // Capacity in bytes/s.
        let capacity = ctx.capacity.bps_f64() / 8.0;
        let d = (now - self.last_tick).as_secs_f64().max(1e-9);
        self.last_tick = now;
        let y = self.input / d;
        let q = if self.min_queue == u64::MAX { queued_bytes } else { self.min_queue } as f64;
        // Eq. 1: the aggregate feedback of the next interval.
        let phi = self.p.alpha * d * (capacity - y) - self.p.beta * q;
        let h = (self.p.gamma * y * d - phi.abs()).max(0.0);
        self.xi_p =
            if self.sum_rtt_s_over_cwnd > 0.0 { (h + phi.max(0.0)) / (d * self.sum_rtt_s_over_cwnd) } else { 0.0 };
        self.xi_n = if self.sum_s > 0.0 { (h + (-phi).max(0.0)) / (d * self.sum_s) } else { 0.0 };
        if self.sum_s > 0.0 {
            self.interval = (self.sum_rtt_s / self.sum_s).max(1e-4);
        }
        self.input = 0.0;
        self.sum_rtt_s_over_cwnd = 0.0;
        self.sum_s = 0.0;
        self.sum_rtt_s = 0.0;
        self.min_queue = u64::MAX;
        Some(now + Time::from_secs_f64(self.interval))
    }
}

/// The router-cost benchmark's port (`crate::qdisc::cost`): the law on `ctx` with default
/// parameters, and the header its hosts stamp.
pub fn cost_port(_ctx: PortCtx) -> (XcpLaw, CongestionHeader) {
    let cc = CongestionHeader::Xcp(XcpHeader { cwnd: 400_000.0, rtt_us: 50_000, feedback: 1e9 });
    (XcpLaw::new(XcpParams::default()), cc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::droptail::tests::pkt;
    use crate::qdisc::{ExplicitQueue, Limit, QueueDiscipline};
    use crate::units::Rate;

    /// An XCP port on a link of `mbps`.
    fn queue(mbps: u64, limit: Limit) -> ExplicitQueue<XcpLaw> {
        let ctx = PortCtx { router: 0, link: 0, capacity: Rate::from_mbps(mbps) };
        ExplicitQueue::new(ctx, limit, XcpLaw::new(XcpParams::default()))
    }

    fn xcp_pkt(cwnd: f32, rtt_ms: u32) -> Packet {
        let mut p = pkt(1000, 0);
        p.cc = CongestionHeader::Xcp(XcpHeader { cwnd, rtt_us: rtt_ms * 1000, feedback: f32::INFINITY });
        p
    }

    fn feedback(p: &Packet) -> f64 {
        match p.cc {
            CongestionHeader::Xcp(XcpHeader { feedback, .. }) => feedback as f64,
            _ => f64::NAN,
        }
    }

    #[test]
    fn spare_bandwidth_gives_positive_feedback_that_sums_to_phi() {
        // 100 Mb/s = 12.5 MB/s; 10 packets of 1000 B with cwnd 10 kB and RTT 100 ms arrive in
        // 100 ms: y = 100 kB/s, S = 12.4 MB/s, phi = 0.4 * 0.1 * 12.4e6 = 496 kB, h = 0.
        let mut q = queue(100, Limit::Packets(100));
        let mut d = Vec::new();
        for _ in 0..10 {
            q.enqueue(Time::ZERO, xcp_pkt(10_000.0, 100), &mut d);
            q.dequeue(Time::ZERO);
        }
        q.tick(Time::from_ms(100));
        // The same traffic in the next interval collects phi in total.
        let mut total = 0.0;
        for _ in 0..10 {
            q.enqueue(Time::from_ms(150), xcp_pkt(10_000.0, 100), &mut d);
            total += feedback(&q.dequeue(Time::from_ms(150)).unwrap());
        }
        let phi = 0.4 * 0.1 * (12.5e6 - 100e3);
        assert!((total - phi).abs() / phi < 1e-6, "{total} vs {phi}");
    }

    #[test]
    fn overload_and_a_persistent_queue_give_negative_feedback_and_it_only_lowers() {
        let mut q = queue(8, Limit::Packets(10_000));
        let mut d = Vec::new();
        for _ in 0..200 {
            q.enqueue(Time::ZERO, xcp_pkt(100_000.0, 100), &mut d);
        }
        q.tick(Time::from_ms(100));
        let mut p = xcp_pkt(100_000.0, 100);
        if let CongestionHeader::Xcp(XcpHeader { feedback, .. }) = &mut p.cc {
            *feedback = -1.0e9f32;
        }
        q.enqueue(Time::from_ms(100), xcp_pkt(100_000.0, 100), &mut d);
        // The queue is FIFO: the head is one of the 200 earlier packets.
        let head = q.dequeue(Time::from_ms(100)).unwrap();
        assert!(feedback(&head) < 0.0, "{}", feedback(&head));
        q.enqueue(Time::from_ms(100), p, &mut d);
        while let Some(x) = q.dequeue(Time::from_ms(100)) {
            if feedback(&x) < -1.0e8 {
                assert_eq!(feedback(&x), -1.0e9, "a lower upstream feedback is never raised");
            }
        }
    }
}
