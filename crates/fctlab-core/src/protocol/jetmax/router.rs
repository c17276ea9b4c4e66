//! The JetMax router (Zhang, Leonard, Loguinov, INFOCOM 2006 / Computer Networks 2008; seed 003
//! sec. II eq. 4 and sec. III-E/F): every control interval T (100 ms) the port computes the fair
//! rate of the flows bottlenecked at it,
//!
//! ```text
//!   g_l = (gamma C_l - u_l) / N_l                                   (eq. 4)
//! ```
//! with u_l the rate of the traffic bottlenecked elsewhere (or not controlled by JetMax) and N_l
//! the number of flows bottlenecked here, estimated from the inter-packet intervals the
//! packets carry: a flow sending at x with packets every Delta = s / x puts T / Delta packets
//! into an interval, so the intervals of its packets add up to T and `sum(Delta) / T` counts
//! each flow once, whatever its rate. Each packet's interval is the span until the flow's next
//! packet; the part of it past the interval's end counts in the next interval, so a flow that
//! sends a non-integer number of packets per interval still counts as exactly one (counting
//! whole intervals gives 8 or 9 packets of a flow sending 8.3 per interval, N = 0.96 or 1.08,
//! and g_l, convex in N, biased by about 1%).
//!
//! Bottleneck selection. Each packet carries RT (its flow's current bottleneck, a router id)
//! and, filled in on the way, RS and Rate: every router writes the rate it would give the flow
//! and its own id when that rate is below the packet's, so the receiver sees the smallest rate
//! on the path and the router that gives it. The flow switches its bottleneck to RS (seed 003's
//! "bottleneck switching ... when a router has a packet loss rate that is higher than inside the
//! current bottleneck"). Assumptions, since seed 003 gives the fields but not the arithmetic:
//! - The virtual loss of router l for a flow proposing rate x' is `1 - r_l / x'`, with r_l the
//!   rate l would give it; the router with the highest virtual loss is the one with the smallest
//!   r_l, so the header carries (r_l, id) of the smallest so far instead of a loss value.
//! - For a flow bottlenecked here r_l = g_l; for a flow bottlenecked elsewhere (its rate x is in
//!   u_l, it is not in N_l) r_l = (gamma C - u_l + x) / (N_l + 1), the share it would get if it
//!   moved here. Comparing g_l alone would let a router whose spare capacity is small but which
//!   the flow does not load pull it over, and back (the flow's own rate is in u_l).
//! - A new flow's SYN counts where it leaves as the smallest offer so far (RS): there N_l + 1
//!   and a new g_l at once, so the new flow's first rate and the old flows' next one leave room
//!   for each other (no overshoot on a join); from the next interval on the inter-packet
//!   intervals count it. A router the SYN passes without offering less does not count it (a
//!   router further on that offers less still takes RS; the one counted then gives a little too
//!   little for one interval). Packets with RT unset count at every router.
//! - N_l is at least 1 in eq. 4 (no flow can use more than the whole spare capacity): an
//!   estimate below 1 (a flow that just moved here, counted for part of the interval) would
//!   otherwise offer more than the link has. Each packet's interval is counted up to the
//!   interval's end and the rest carried (above), so a steady flow counts 1 to within a packet
//!   per interval and the floor does not bias g_l.
//! - Switching has a 1% hysteresis: the flow's bottleneck keeps RS when its offer is within 1%
//!   of the smallest on the path, and another router takes it only by offering at least 1%
//!   less. Equal routers in series (a 100 Mb/s bottleneck feeding a 100 Mb/s access link)
//!   otherwise take turns on rounding: the one the flow just left still counts it in N_l, the
//!   new one counts its rate in u_l, both offer too little (`two_equal_routers_in_series_*` in
//!   tests/jetmax.rs: 64 of 98 Mb/s without the margin, 65 with the margin but the SYN counted
//!   at every router, 98 with both rules).
//! - Router ids travel in 16 bits (the packet stays within two cache lines): JetMax queues need
//!   routers with node ids below 65535.

use crate::error::{SpecError, SpecResult};
use crate::metrics::metric::Metric;
use crate::net::packet::{CongestionHeader, Packet, PacketKind};
use crate::protocol::jetmax::header::{JetMaxHeader, JETMAX_NO_ROUTER};
use crate::qdisc::law::{PortCtx, RouterLaw};
use crate::units::{Rate, Time};

/// The port's router id as JetMax's 16-bit RT/RS fields carry it (the scenario build refuses
/// JetMax queues on routers whose id does not fit).
#[inline]
fn id(ctx: &PortCtx) -> u16 {
    ctx.router as u16
}

/// Series metric: the port's fair rate g_l, bit/s (seed 003 eq. 4).
pub const RATE_BPS: &str = "jetmax_rate_bps";
/// Series metric: the port's estimate N_l of the flows bottlenecked there.
pub const FLOWS: &str = "jetmax_flows";
/// The series metrics of a `jetmax` port, in the order it emits them.
pub const METRICS: &[&str] = &[RATE_BPS, FLOWS];

/// JetMax router parameters; a `jetmax` queue's keys over these defaults. The queue (seed 003
/// eq. 4) is a drop-tail FIFO that offers each flow its fair rate and names the path's
/// bottleneck (`kind.rs`).
#[derive(Copy, Clone, Debug, PartialEq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JetMaxParams {
    /// Desired utilization gamma_l. Seed 003 gives no value; eq. 4 has no queue term, so at
    /// gamma = 1 the queue a join leaves (the old flows slow down one RTT after the new one
    /// starts) never drains. 0.98 drains it at 2% of the capacity.
    pub gamma: f64,
    /// Control interval T (seed 003: 100 ms).
    #[serde(deserialize_with = "crate::quantity::time")]
    pub interval: Time,
}

impl Default for JetMaxParams {
    fn default() -> Self {
        JetMaxParams { gamma: 0.98, interval: Time::from_ms(100) }
    }
}

impl JetMaxParams {
    /// Checks the ranges: 0 < gamma <= 1, interval > 0.
    pub fn validate(&self) -> SpecResult<()> {
        if !(self.gamma > 0.0 && self.gamma <= 1.0) {
            return Err(SpecError::new("gamma", format!("expected 0 < gamma <= 1, got {}", self.gamma)));
        }
        if self.interval == Time::ZERO {
            return Err(SpecError::new("interval", "expected an interval > 0, got 0"));
        }
        Ok(())
    }
}

/// The JetMax law of one port.
#[derive(Debug)]
pub struct JetMaxLaw {
    p: JetMaxParams,
    /// g_l of the last interval, bit/s (None before the first: gamma C, as for a port with no
    /// traffic).
    fair: Option<f64>,
    /// N_l of the last interval.
    flows: f64,
    /// u_l of the last interval, bit/s.
    other: f64,
    /// Sum of the inter-packet intervals (s) of this interval's packets bottlenecked here.
    ipi_sum: f64,
    /// The parts of inter-packet intervals that reach past this interval's end, s: they count
    /// in the next intervals.
    carry: f64,
    /// When this interval ends.
    next_tick: Time,
    /// Bytes of this interval's packets bottlenecked elsewhere or not JetMax's.
    other_bytes: u64,
    /// True if a SYN arrived in this interval.
    admitted: bool,
    last_tick: Time,
}

impl JetMaxLaw {
    /// A law with `p`, offering the whole link until its first interval ends.
    pub fn new(p: JetMaxParams) -> JetMaxLaw {
        JetMaxLaw {
            p,
            fair: None,
            flows: 0.0,
            other: 0.0,
            ipi_sum: 0.0,
            carry: 0.0,
            next_tick: p.interval,
            other_bytes: 0,
            admitted: false,
            last_tick: Time::ZERO,
        }
    }

    /// g_l, bit/s, on a port of `capacity`.
    pub fn fair_rate(&self, capacity: Rate) -> f64 {
        self.fair.unwrap_or(self.p.gamma * capacity.bps_f64())
    }

    /// N_l, the estimated number of flows bottlenecked here.
    pub fn flow_estimate(&self) -> f64 {
        self.flows
    }
}

/// How much less than the flow's bottleneck another router must offer to become its
/// bottleneck (a fraction of the offer).
const SWITCH_MARGIN: f64 = 0.01;

/// The N_l that divides the spare capacity in eq. 4: the estimate, at least 1 (no flow can
/// use more than the whole spare capacity).
#[inline]
fn share_count(flows: f64) -> f64 {
    flows.max(1.0)
}

impl JetMaxLaw {
    /// A new flow's SYN, leaving with this router as the smallest offer so far: N_l counts it and
    /// g_l is recomputed at once, so the SYN (and every packet until the next interval) carries
    /// the share that leaves room for it.
    fn admit(&mut self, ctx: &PortCtx) {
        self.flows = self.flows.max(0.0) + 1.0;
        self.admitted = true;
        self.fair = Some(self.eq_4(ctx));
    }

    /// Eq. 4 with the current N_l and u_l: g_l = (gamma C - u_l) / N_l.
    fn eq_4(&self, ctx: &PortCtx) -> f64 {
        self.eq_4_with(ctx, self.flows)
    }

    /// Eq. 4 with `flows` as N_l.
    fn eq_4_with(&self, ctx: &PortCtx, flows: f64) -> f64 {
        let spare = (self.p.gamma * ctx.capacity.bps_f64() - self.other).max(0.0);
        spare / share_count(flows)
    }
}

impl RouterLaw for JetMaxLaw {
    #[inline]
    fn on_arrival(&mut self, ctx: &PortCtx, now: Time, pkt: &Packet, _queued_bytes_before: u64) {
        match pkt.cc {
            CongestionHeader::JetMax(JetMaxHeader { rt, ipi, .. }) if rt == id(ctx) || rt == JETMAX_NO_ROUTER => {
                // The flow is present from this packet to its next one: the part of that span
                // inside this interval counts here, the rest in the next intervals.
                let inside = (ipi as f64).min((self.next_tick.saturating_sub(now)).as_secs_f64());
                self.ipi_sum += inside;
                self.carry += ipi as f64 - inside;
            }
            _ => self.other_bytes += pkt.wire as u64,
        }
    }

    #[inline]
    fn on_departure(&mut self, ctx: &PortCtx, _now: Time, pkt: &mut Packet, _queued_bytes_after: u64) {
        let syn = pkt.kind == PacketKind::Syn;
        if let CongestionHeader::JetMax(JetMaxHeader { rt, rs, rate, ipi }) = &mut pkt.cc {
            let offer = if syn {
                // A new flow: the share it gets if it is counted here (what `admit` sets).
                self.eq_4_with(ctx, self.flows.max(0.0) + 1.0)
            } else if *rt == id(ctx) || *rt == JETMAX_NO_ROUTER || self.fair.is_none() {
                self.fair_rate(ctx.capacity)
            } else {
                // The share this flow (at x = s / Delta) would get if it moved here. In an
                // interval that admitted a SYN, N_l already counts the new flows, possibly this
                // one (its SYN counted at every router of its path).
                let x = if *ipi > 0.0 { pkt.wire as f64 * 8.0 / *ipi as f64 } else { 0.0 };
                let spare = self.p.gamma * ctx.capacity.bps_f64() - self.other + x;
                let with_it = if self.admitted { self.flows } else { self.flows + 1.0 };
                spare.max(0.0) / share_count(with_it)
            };
            // Hysteresis: the flow's bottleneck keeps RS unless another router offers at least
            // SWITCH_MARGIN less (equal routers in series would otherwise take turns).
            let smallest = *rate as f64;
            let take = if *rt == id(ctx) {
                offer <= smallest * (1.0 + SWITCH_MARGIN)
            } else if *rs == *rt && *rt != JETMAX_NO_ROUTER {
                offer < smallest * (1.0 - SWITCH_MARGIN)
            } else {
                offer < smallest
            };
            if take {
                if syn {
                    self.admit(ctx);
                }
                *rate = rate.min(offer as f32);
                *rs = id(ctx);
            }
        }
    }

    fn first_tick(&self) -> Option<Time> {
        Some(self.p.interval)
    }

    /// Eq. 4 over the interval that ends at `now`.
    fn tick(&mut self, ctx: &PortCtx, now: Time, _queued_bytes: u64) -> Option<Time> {
        let t = (now - self.last_tick).as_secs_f64();
        self.last_tick = now;
        if t > 0.0 {
            let counted = self.ipi_sum / t;
            // A flow admitted in this interval sent data for part of it at most (none before
            // its SYN-ACK): the admission count stands until its intervals count it fully.
            self.flows = if self.admitted { counted.max(self.flows) } else { counted };
            self.other = self.other_bytes as f64 * 8.0 / t;
            self.fair = Some(self.eq_4(ctx));
        }
        self.next_tick = now + self.p.interval;
        self.ipi_sum = self.carry.min(self.p.interval.as_secs_f64());
        self.carry -= self.ipi_sum;
        self.other_bytes = 0;
        self.admitted = false;
        Some(now + self.p.interval)
    }

    fn metric_count(&self) -> usize {
        2
    }

    /// g_l as the port gives it out now (gamma C before its first computation) and the N_l
    /// that computation used (0 before it; eq. 4 divides by 1 while N_l is below one half).
    fn metrics(&self, ctx: &PortCtx, out: &mut impl FnMut(Metric, f64)) {
        out(Metric::Law(RATE_BPS), self.fair_rate(ctx.capacity));
        out(Metric::Law(FLOWS), self.flows);
    }
}

/// The router-cost benchmark's port (`crate::qdisc::cost`): the law on `ctx` with default
/// parameters, and the header its hosts stamp.
pub fn cost_port(_ctx: PortCtx) -> (JetMaxLaw, CongestionHeader) {
    let cc = CongestionHeader::JetMax(JetMaxHeader { rt: 1, rs: u16::MAX, rate: f32::INFINITY, ipi: 0.000_768 });
    (JetMaxLaw::new(JetMaxParams::default()), cc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::droptail::tests::pkt;

    const CTX: PortCtx = PortCtx { router: 7, link: 0, capacity: Rate::from_mbps(100) };

    fn jm(rt: u16, rate_bps: f64) -> Packet {
        let mut p = pkt(1000, 0);
        p.cc = CongestionHeader::JetMax(JetMaxHeader {
            rt,
            rs: JETMAX_NO_ROUTER,
            rate: f32::INFINITY,
            ipi: (1000.0 * 8.0 / rate_bps) as f32,
        });
        p
    }

    fn offered(p: &Packet) -> (u16, f32) {
        match p.cc {
            CongestionHeader::JetMax(JetMaxHeader { rs, rate, .. }) => (rs, rate),
            _ => panic!("not JetMax"),
        }
    }

    /// Two flows bottlenecked here at 10 and 30 Mb/s and one elsewhere at 20 Mb/s, for 100 ms.
    fn one_interval() -> JetMaxLaw {
        let mut law = JetMaxLaw::new(JetMaxParams { gamma: 1.0, ..JetMaxParams::default() });
        for (rt, rate) in [(7, 10e6), (7, 30e6), (3, 20e6)] {
            // rate x 100 ms / 8000 bits per packet.
            for _ in 0..(rate * 0.1 / 8000.0) as usize {
                law.on_arrival(&CTX, Time::ZERO, &jm(rt, rate), 0);
            }
        }
        law.tick(&CTX, Time::from_ms(100), 0);
        law
    }

    #[test]
    fn inter_packet_intervals_count_each_flow_once_and_eq_4_shares_the_rest() {
        let law = one_interval();
        assert!((law.flow_estimate() - 2.0).abs() < 1e-6, "N = {}", law.flow_estimate());
        // g = (C - u) / N = (100 - 20) / 2 Mb/s.
        assert!((law.fair_rate(CTX.capacity) - 40e6).abs() < 1.0, "g = {}", law.fair_rate(CTX.capacity));
    }

    #[test]
    fn the_series_rows_are_the_last_g_and_n() {
        let mut rows = Vec::new();
        let fresh = JetMaxLaw::new(JetMaxParams::default());
        fresh.metrics(&CTX, &mut |m, v| rows.push((m, v)));
        assert_eq!(rows, vec![(Metric::Law(RATE_BPS), 98e6), (Metric::Law(FLOWS), 0.0)], "gamma C before any interval");
        rows.clear();
        let law = one_interval();
        law.metrics(&CTX, &mut |m, v| rows.push((m, v)));
        assert_eq!(rows.len(), law.metric_count());
        assert_eq!(rows[0], (Metric::Law(RATE_BPS), law.fair_rate(CTX.capacity)));
        assert_eq!(rows[1], (Metric::Law(FLOWS), law.flow_estimate()));
        assert!((rows[0].1 - 40e6).abs() < 1.0 && (rows[1].1 - 2.0).abs() < 1e-6, "{rows:?}");
    }

    #[test]
    fn a_flow_bottlenecked_elsewhere_is_offered_the_share_it_would_get_here() {
        let mut law = one_interval();
        // Ours: g. The other flow (20 Mb/s elsewhere) would get (100 - 20 + 20) / 3.
        let mut mine = jm(7, 10e6);
        law.on_departure(&CTX, Time::ZERO, &mut mine, 0);
        assert_eq!(offered(&mine), (7, 40e6));
        let mut theirs = jm(3, 20e6);
        law.on_departure(&CTX, Time::ZERO, &mut theirs, 0);
        assert_eq!(offered(&theirs).0, 7);
        assert!((offered(&theirs).1 as f64 - 100e6 / 3.0).abs() < 10.0);
        // A smaller offer from upstream stands.
        let mut low = jm(7, 10e6);
        if let CongestionHeader::JetMax(JetMaxHeader { rs, rate, .. }) = &mut low.cc {
            (*rs, *rate) = (2, 5e6);
        }
        law.on_departure(&CTX, Time::ZERO, &mut low, 0);
        assert_eq!(offered(&low), (2, 5e6));
    }
}
