//! RCP sharing a router port with TCP: the thesis's coexistence scheme (Dukkipati, sec. 6.2.1,
//! Figs. 6.12-6.16, 004:3099-3290).
//!
//! **The problem** (Fig. 6.11): on a plain RCP port TCP fills the buffer, eq. 3.3 sees the
//! standing queue and the extra input and lowers R, and RCP stifles itself.
//!
//! **The scheme** (Fig. 6.12): RCP and non-RCP ("TCP") packets wait in two FIFO drop-tail
//! queues, served by WFQ/DRR with weights w_R and w_T = 1 - w_R (here [`Drr`], two classes,
//! each queue with its own limit). The RCP queue runs the RCP law ([`RcpLaw`], eq. 3.3) on a
//! time-varying capacity C_R(t):
//!
//! ```text
//!   STEP C, every T_c:
//!     (C.1) N_R, N_T <- zombie-list estimates (one list per class, see `zombie.rs`)
//!     (C.2) r_R = y_R / N_R,  r_T = y_T / N_T
//!           w_R <- w_R - theta (r_R - r_T) / (r_R + r_T),   theta in (0, 1)
//!     (C.3) C_R = max(C - y_T, C w_R)
//!   STEP R, every RCP interval T:  R <- R (1 + (T/d)(alpha (eta C_R - y_R) - beta q_R / d) / (eta C_R))
//!   STEP S: serve the queues by WFQ with weights w_R, w_T.
//! ```
//! y_R, y_T are the classes' arrival rates (bytes offered, dropped ones included) over the last
//! T_c; q_R the RCP queue. STEP R is `RcpLaw::tick` given a port of capacity C_R and only the
//! RCP packets, so its y is y_R.
//!
//! **Single queue** ("soft isolation", Fig. 6.14, 004:3257-3266): all packets share one FIFO;
//! the weights only set C_R (STEP S is skipped), and TCP takes what RCP leaves. The thesis does
//! not say which queue q_R is then. Not the shared FIFO (TCP keeps it full: the Fig. 6.11
//! problem), and not even the RCP packets in it: they wait behind TCP's standing queue, so
//! their bytes are RCP's share of TCP's backlog, and eq. 3.3's beta q / d term then holds RCP
//! far below C_R (with 5 + 5 flows on a full 500 KB buffer RCP got 19% of the link in our
//! trials). Our reading: q_R is a *virtual* queue, the backlog RCP's arrivals would leave in a
//! queue of its own drained at C_R (on each RCP arrival q_R <- max(0, q_R - C_R dt) + size):
//! it grows only when RCP itself sends more than its share.
//!
//! **Readings where the thesis is silent.**
//! - A class counts as present in an interval only if packets of it arrived; with one class
//!   absent, r is undefined and w_R is held (otherwise w_R would run to a bound while TCP is
//!   away, and TCP would find a lopsided split on arrival). C_R = max(C - y_T, C w_R) still
//!   gives RCP the whole link while no TCP arrives.
//! - w_R stays within [`W_MIN`, `W_MAX`]: a class never gets a zero weight.
//! - Packets with any explicit-feedback header are the RCP class (DRR's `Classify::Header`);
//!   the rest is "TCP".
//!
//! **Choosing T_c** (004:3196-3249). TCP needs time to fill a larger share: with n_T flows
//! growing their windows by b(RTT) bytes per RTT, ydot_T = n_T b(RTT) / RTT^2, and the time to
//! grow from y_T to its allocated share C_T is
//!
//! ```text
//!   T_c* = K RTT = (C_T - y_T) / ydot_T
//! ```
//! Stability needs T_c > T_c*. T_c is a parameter (`tc`); the queue computes T_c* at every
//! STEP C from the measured y_T and ydot_T = (y_T(t) - y_T(t - T_c)) / T_c, with C_T = C w_T
//! (the share allotted to TCP; C - C_R would make C_T - y_T <= 0 always), and emits it as a
//! series row (`rcp_tcp_tc_star_s`, 0 when TCP is at or above its share or not growing).
//! With [`TcRule::AtLeastTcStar`] (the default) it also enforces the condition: STEP C.2 is
//! skipped while less than T_c* has passed since w_R last moved, so the weights change no
//! faster than TCP can fill its share (C.1 and C.3 still run every T_c); [`TcRule::Fixed`]
//! moves them every T_c. In our Fig. 6.13 runs (experiments/rcp/fig6-13) T_c* rarely exceeded
//! 0.5 s and the two rules gave similar shares. What did break the scheme there was a 1 MB
//! (one bandwidth-delay product) TCP queue: TCP's slow-start overshoot and RCP's slower
//! response to a growing C_R sent w_R to its bound, TCP's queue, drained at 1% of C, held
//! packets for seconds, most TCP flows fell into repeated timeouts, and the zombie list then
//! counted only the few still sending, which kept w_R high.

use super::router::{RcpLaw, RcpParams};
use crate::error::{SpecError, SpecResult};
use crate::metrics::metric::Metric;
use crate::net::packet::{CongestionHeader, Packet};
use crate::qdisc::discipline::{Limit, QueueDiscipline};
use crate::qdisc::droptail::DropTail;
use crate::qdisc::drr::{Classify, Drr};
use crate::qdisc::law::{PortCtx, RouterLaw};
use crate::qdisc::zombie::ZombieList;
use crate::rng::Rng;
use crate::units::{Rate, Time};

/// Smallest RCP weight.
pub const W_MIN: f64 = 0.01;
/// Largest RCP weight.
pub const W_MAX: f64 = 0.99;

/// How the two classes are queued.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CoexistMode {
    /// Two FIFOs served by WFQ (DRR) with weights w_R, w_T (Fig. 6.12).
    TwoQueue,
    /// One shared FIFO; the weights only set C_R (Fig. 6.14's "soft isolation").
    SingleQueue,
}

/// When STEP C.2 may move the weights.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TcRule {
    /// Every T_c.
    Fixed,
    /// Every T_c, but not before T_c* has passed since the weights last moved (004:3196-3249).
    AtLeastTcStar,
}

/// Series metric: the port's RCP weight w_R (thesis sec. 6.2.1, STEP C.2).
pub const WEIGHT: &str = "rcp_tcp_weight";
/// Series metric: the port's RCP capacity C_R(t), bit/s (STEP C.3).
pub const CAPACITY_BPS: &str = "rcp_tcp_capacity_bps";
/// Series metric: the zombie-list estimate N_R of the RCP flows (STEP C.1).
pub const FLOWS_RCP: &str = "rcp_tcp_flows_rcp";
/// Series metric: the zombie-list estimate N_T of the TCP flows (STEP C.1).
pub const FLOWS_TCP: &str = "rcp_tcp_flows_tcp";
/// Series metric: the stability bound T_c* = (C_T - y_T) / ydot_T, s (0: none).
pub const TC_STAR_S: &str = "rcp_tcp_tc_star_s";
/// Series metric: bytes of RCP packets queued.
pub const QUEUE_RCP_BYTES: &str = "rcp_tcp_queue_rcp_bytes";
/// Series metric: bytes of TCP (non-RCP) packets queued.
pub const QUEUE_TCP_BYTES: &str = "rcp_tcp_queue_tcp_bytes";
/// The series metrics of an `rcp-tcp` port after its RCP law's, in the order it emits them.
pub const METRICS: &[&str] = &[WEIGHT, CAPACITY_BPS, FLOWS_RCP, FLOWS_TCP, TC_STAR_S, QUEUE_RCP_BYTES, QUEUE_TCP_BYTES];

/// Parameters of the coexistence scheme.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RcpTcpParams {
    /// The RCP law of STEP R.
    pub rcp: RcpParams,
    /// Smoothing of the weight update, in (0, 1).
    pub theta: f64,
    /// The control update period T_c of STEP C.
    pub tc: Time,
    /// Entries of each class's zombie list.
    pub zombie_size: usize,
    /// Probability that a miss overwrites an entry of a full zombie list.
    pub zombie_overwrite: f64,
    /// w_R before the first STEP C.
    pub initial_weight: f64,
    /// Two queues or one.
    pub mode: CoexistMode,
    /// Whether the weight update waits for T_c*.
    pub tc_rule: TcRule,
}

impl Default for RcpTcpParams {
    fn default() -> Self {
        RcpTcpParams {
            rcp: RcpParams::default(),
            theta: 0.1,
            tc: Time::from_ms(500),
            zombie_size: 1000,
            zombie_overwrite: 0.25,
            initial_weight: 0.5,
            mode: CoexistMode::TwoQueue,
            tc_rule: TcRule::AtLeastTcStar,
        }
    }
}

impl RcpTcpParams {
    /// Refuses parameters the scheme cannot run with (the RCP ones first, then theta, tc,
    /// the zombie list and the initial weight); field names are the `rcp-tcp` queue's.
    pub fn validate(&self, capacity: Rate) -> SpecResult<()> {
        self.rcp.validate(capacity)?;
        if !(self.theta > 0.0 && self.theta < 1.0) {
            return Err(SpecError::new("theta", format!("expected 0 < theta < 1, got {}", self.theta)));
        }
        if self.tc == Time::ZERO {
            return Err(SpecError::new("tc", "expected a control update period T_c > 0, got 0"));
        }
        if !(1..=1_000_000).contains(&self.zombie_size) {
            return Err(SpecError::new(
                "zombie_size",
                format!("expected 1 to 1000000 entries, got {}", self.zombie_size),
            ));
        }
        if !(self.zombie_overwrite > 0.0 && self.zombie_overwrite <= 1.0) {
            return Err(SpecError::new(
                "zombie_overwrite",
                format!("expected 0 < zombie_overwrite <= 1, got {}", self.zombie_overwrite),
            ));
        }
        if !(W_MIN..=W_MAX).contains(&self.initial_weight) {
            return Err(SpecError::new(
                "initial_weight",
                format!("expected {W_MIN} <= initial_weight <= {W_MAX}, got {}", self.initial_weight),
            ));
        }
        Ok(())
    }
}

/// Index of the RCP class (DRR class 0: packets with an explicit-feedback header).
const RCP: usize = 0;
/// Index of the TCP class (everything else).
const TCP: usize = 1;

fn class_of(pkt: &Packet) -> usize {
    if pkt.cc == CongestionHeader::None {
        TCP
    } else {
        RCP
    }
}

/// The buffers of the two modes.
#[derive(Debug)]
enum Buffers {
    /// Two FIFOs (a two-class DRR whose shared limit never binds) and each one's limit.
    Wfq { drr: Drr, limit: Limit },
    /// One FIFO.
    Fifo(DropTail),
}

/// A port running the RCP/TCP coexistence scheme.
#[derive(Debug)]
pub struct RcpTcpQueue {
    ctx: PortCtx,
    p: RcpTcpParams,
    buffers: Buffers,
    law: RcpLaw,
    /// Per class: bytes and packets queued.
    queued: [(u64, usize); 2],
    /// Single-queue mode's virtual RCP queue: bytes, and when it was last drained.
    virtual_q: (f64, Time),
    /// Per class: bytes offered since the last STEP C.
    arrived: [u64; 2],
    zombies: [ZombieList; 2],
    w_r: f64,
    /// C_R, bit/s.
    c_r: f64,
    /// N_R, N_T at the last STEP C (0: the class sent nothing in the interval).
    flows: [f64; 2],
    /// y_T at the last STEP C, bit/s.
    y_t: f64,
    tc_star: f64,
    /// When STEP C.2 last moved w_R.
    last_w: Time,
    last_c: Time,
    next_c: Time,
    next_r: Time,
}

impl RcpTcpQueue {
    /// An empty port `ctx` with buffers of `limit` (each queue's in two-queue mode), drawing
    /// its zombie lists' random numbers from `rng`.
    pub fn new(ctx: PortCtx, limit: Limit, p: RcpTcpParams, rng: Rng) -> RcpTcpQueue {
        let w = p.initial_weight;
        let buffers = match p.mode {
            CoexistMode::TwoQueue => {
                Buffers::Wfq { drr: Drr::new(&[w, 1.0 - w], Classify::Header, Limit::Bytes(u64::MAX / 4)), limit }
            }
            CoexistMode::SingleQueue => Buffers::Fifo(DropTail::new(limit)),
        };
        let mut rng = rng;
        let zombies = [
            ZombieList::new(p.zombie_size, p.zombie_overwrite, Rng::new(rng.next_u64())),
            ZombieList::new(p.zombie_size, p.zombie_overwrite, Rng::new(rng.next_u64())),
        ];
        let c = ctx.capacity.bps_f64();
        let law = RcpLaw::new(ctx.capacity, p.rcp);
        let next_r = law.first_tick().unwrap_or(Time::MAX);
        RcpTcpQueue {
            ctx,
            p,
            buffers,
            law,
            queued: [(0, 0); 2],
            virtual_q: (0.0, Time::ZERO),
            arrived: [0; 2],
            zombies,
            w_r: w,
            c_r: c,
            flows: [0.0; 2],
            y_t: 0.0,
            tc_star: 0.0,
            last_w: Time::ZERO,
            last_c: Time::ZERO,
            next_c: p.tc,
            next_r,
        }
    }

    /// The RCP law of STEP R (R, d).
    pub fn law(&self) -> &RcpLaw {
        &self.law
    }

    /// The link now serializes at `capacity` (a scheduled rate change the router is told of):
    /// STEP C computes C_R from it from its next step on.
    pub fn set_capacity(&mut self, capacity: Rate) {
        self.ctx.capacity = capacity;
    }

    /// The RCP weight w_R.
    pub fn weight(&self) -> f64 {
        self.w_r
    }

    /// RCP's capacity C_R, bit/s.
    pub fn rcp_capacity(&self) -> f64 {
        self.c_r
    }

    /// The port as STEP R sees it: capacity C_R.
    fn rcp_ctx(&self) -> PortCtx {
        PortCtx { capacity: Rate::from_bps(self.c_r.max(1.0) as u64), ..self.ctx }
    }

    /// q_R for STEP R: the RCP queue (two queues) or the virtual one (single queue).
    fn rcp_queue(&self) -> u64 {
        match self.buffers {
            Buffers::Wfq { .. } => self.queued[RCP].0,
            Buffers::Fifo(_) => self.virtual_q.0 as u64,
        }
    }

    /// STEP C at `now`.
    fn control(&mut self, now: Time) {
        let t = (now - self.last_c).as_secs_f64();
        self.last_c = now;
        if t <= 0.0 {
            return;
        }
        let c = self.ctx.capacity.bps_f64();
        let y = [self.arrived[RCP] as f64 * 8.0 / t, self.arrived[TCP] as f64 * 8.0 / t];
        self.arrived = [0; 2];
        // (C.1)
        for k in [RCP, TCP] {
            self.flows[k] = if y[k] > 0.0 { self.zombies[k].flows() } else { 0.0 };
        }
        // T_c* = (C_T - y_T) / ydot_T, C_T = C w_T.
        let ydot = (y[TCP] - self.y_t) / t;
        let gap = c * (1.0 - self.w_r) - y[TCP];
        self.tc_star = if ydot > 0.0 && gap > 0.0 { gap / ydot } else { 0.0 };
        self.y_t = y[TCP];
        let waited = (now - self.last_w).as_secs_f64();
        let may_move = self.p.tc_rule == TcRule::Fixed || waited >= self.tc_star;
        // (C.2)
        if may_move && self.flows[RCP] > 0.0 && self.flows[TCP] > 0.0 {
            let (r_r, r_t) = (y[RCP] / self.flows[RCP], y[TCP] / self.flows[TCP]);
            self.w_r = (self.w_r - self.p.theta * (r_r - r_t) / (r_r + r_t)).clamp(W_MIN, W_MAX);
            self.last_w = now;
        }
        // (C.3)
        self.c_r = (c - y[TCP]).max(c * self.w_r);
        // STEP S's weights.
        if let Buffers::Wfq { drr, .. } = &mut self.buffers {
            drr.set_weights(&[self.w_r, 1.0 - self.w_r]);
        }
    }
}

impl QueueDiscipline for RcpTcpQueue {
    fn set_capacity(&mut self, capacity: Rate) {
        RcpTcpQueue::set_capacity(self, capacity)
    }
    fn metric_count(&self) -> usize {
        RcpTcpQueue::metric_count(self)
    }
    fn metrics(&self, out: &mut impl FnMut(Metric, f64)) {
        RcpTcpQueue::metrics(self, out)
    }
    fn enqueue(&mut self, now: Time, pkt: Packet, drops: &mut Vec<Packet>) {
        let k = class_of(&pkt);
        self.zombies[k].observe(pkt.flow);
        self.arrived[k] += pkt.wire as u64;
        if k == RCP {
            let ctx = self.rcp_ctx();
            self.law.on_arrival(&ctx, now, &pkt, self.rcp_queue());
            let (q, last) = self.virtual_q;
            let drained = self.c_r / 8.0 * (now - last).as_secs_f64();
            self.virtual_q = ((q - drained).max(0.0) + pkt.wire as f64, now);
        }
        let wire = pkt.wire as u64;
        let admitted = match &mut self.buffers {
            Buffers::Wfq { drr, limit } => {
                let (b, n) = self.queued[k];
                if limit.fits(b, n, pkt.wire) {
                    drr.enqueue(now, pkt, drops);
                    true
                } else {
                    drops.push(pkt);
                    false
                }
            }
            Buffers::Fifo(f) => {
                let before = f.packets();
                f.enqueue(now, pkt, drops);
                f.packets() > before
            }
        };
        if admitted {
            self.queued[k].0 += wire;
            self.queued[k].1 += 1;
        }
    }

    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        let mut p = match &mut self.buffers {
            Buffers::Wfq { drr, .. } => drr.dequeue(now)?,
            Buffers::Fifo(f) => f.dequeue(now)?,
        };
        let k = class_of(&p);
        self.queued[k].0 -= p.wire as u64;
        self.queued[k].1 -= 1;
        if k == RCP {
            let q = self.rcp_queue();
            self.law.on_departure(&self.ctx, now, &mut p, q);
        }
        Some(p)
    }

    fn bytes(&self) -> u64 {
        self.queued[RCP].0 + self.queued[TCP].0
    }

    fn packets(&self) -> usize {
        self.queued[RCP].1 + self.queued[TCP].1
    }

    fn first_tick(&self) -> Option<Time> {
        Some(self.next_r.min(self.next_c))
    }

    fn tick(&mut self, now: Time) -> Option<Time> {
        if now >= self.next_c {
            self.control(now);
            self.next_c = now + self.p.tc;
        }
        if now >= self.next_r {
            let ctx = self.rcp_ctx();
            let (q, last) = self.virtual_q;
            let drained = self.c_r / 8.0 * (now - last).as_secs_f64();
            self.virtual_q = ((q - drained).max(0.0), now);
            self.next_r = self.law.tick(&ctx, now, self.rcp_queue()).unwrap_or(Time::MAX);
        }
        Some(self.next_r.min(self.next_c))
    }
}

impl RcpTcpQueue {
    /// Series rows per sample: RCP's R and d, then w_R, C_R, N_R, N_T, T_c* and the two
    /// classes' queued bytes (real ones, also in single-queue mode).
    pub fn metric_count(&self) -> usize {
        self.law.metric_count() + METRICS.len()
    }

    /// Emits the rows of [`RcpTcpQueue::metric_count`].
    pub fn metrics(&self, out: &mut impl FnMut(Metric, f64)) {
        self.law.metrics(&self.rcp_ctx(), out);
        out(Metric::Law(WEIGHT), self.w_r);
        out(Metric::Law(CAPACITY_BPS), self.c_r);
        out(Metric::Law(FLOWS_RCP), self.flows[RCP]);
        out(Metric::Law(FLOWS_TCP), self.flows[TCP]);
        out(Metric::Law(TC_STAR_S), self.tc_star);
        out(Metric::Law(QUEUE_RCP_BYTES), self.queued[RCP].0 as f64);
        out(Metric::Law(QUEUE_TCP_BYTES), self.queued[TCP].0 as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::rcp::header::RcpHeader;
    use crate::qdisc::droptail::tests::pkt;

    fn rcp_pkt(flow: u32) -> Packet {
        let mut p = pkt(1000, 0);
        p.flow = flow;
        p.cc = CongestionHeader::Rcp(RcpHeader { rate_kbps: u32::MAX, rtt_us: 100_000, age_kib: 0 });
        p
    }

    fn tcp_pkt(flow: u32) -> Packet {
        let mut p = pkt(1000, 0);
        p.flow = flow;
        p
    }

    fn queue(mode: CoexistMode, limit: Limit) -> RcpTcpQueue {
        let ctx = PortCtx { router: 0, link: 0, capacity: Rate::from_mbps(100) };
        let p = RcpTcpParams { mode, tc: Time::from_ms(100), tc_rule: TcRule::Fixed, ..RcpTcpParams::default() };
        RcpTcpQueue::new(ctx, limit, p, Rng::new(1))
    }

    #[test]
    fn each_queue_has_its_own_limit_in_two_queue_mode_and_they_share_one_in_single_queue_mode() {
        let mut drops = Vec::new();
        let mut q = queue(CoexistMode::TwoQueue, Limit::Packets(3));
        for f in 0..5 {
            q.enqueue(Time::ZERO, tcp_pkt(f), &mut drops);
        }
        q.enqueue(Time::ZERO, rcp_pkt(9), &mut drops);
        assert_eq!((drops.len(), q.packets(), q.queued[RCP].1), (2, 4, 1), "TCP cannot take RCP's buffer");
        let mut q = queue(CoexistMode::SingleQueue, Limit::Packets(3));
        drops.clear();
        for f in 0..5 {
            q.enqueue(Time::ZERO, tcp_pkt(f), &mut drops);
        }
        q.enqueue(Time::ZERO, rcp_pkt(9), &mut drops);
        assert_eq!((drops.len(), q.packets(), q.queued[RCP].1), (3, 3, 0), "one shared buffer");
    }

    #[test]
    fn step_c_moves_the_weight_towards_the_class_with_the_smaller_per_flow_rate() {
        // In 100 ms: 4 RCP flows send 4000 packets, 1 TCP flow 4000 packets: r_R = r_T / 4.
        let mut q = queue(CoexistMode::TwoQueue, Limit::Packets(100_000));
        let mut drops = Vec::new();
        for i in 0..4000 {
            q.enqueue(Time::ZERO, rcp_pkt(i % 4), &mut drops);
            q.enqueue(Time::ZERO, tcp_pkt(100), &mut drops);
        }
        q.tick(Time::from_ms(100));
        let (r_r, r_t) = (320e6 / q.flows[RCP], 320e6 / q.flows[TCP]);
        let want = 0.5 - 0.1 * (r_r - r_t) / (r_r + r_t);
        assert!((q.flows[RCP] - 4.0).abs() < 0.5 && (q.flows[TCP] - 1.0).abs() < 1e-9, "{:?}", q.flows);
        assert!((q.weight() - want).abs() < 1e-12 && q.weight() > 0.55, "w_R = {}", q.weight());
        // C_R = max(C - y_T, C w_R) = max(100 - 320, 100 w_R) Mb/s.
        assert!((q.rcp_capacity() - 100e6 * q.weight()).abs() < 1.0, "C_R = {}", q.rcp_capacity());
    }

    #[test]
    fn with_the_tc_star_rule_the_weights_wait_until_tcp_could_fill_its_share() {
        let mut q = queue(CoexistMode::TwoQueue, Limit::Packets(100_000));
        let mut drops = Vec::new();
        // Each 100 ms: 4 RCP flows send 4000 packets, one TCP flow 100, then 200 packets (8, then
        // 16 Mb/s: ydot_T = 80 Mb/s^2 and C_T = C w_T > 50 Mb/s, so T_c* = (C_T - y_T) / ydot_T
        // is above 0.4 s after the second interval).
        let mut step = |q: &mut RcpTcpQueue, tcp: u32, at: u64| {
            for i in 0..4000 {
                q.enqueue(Time::ZERO, rcp_pkt(i % 4), &mut drops);
            }
            for _ in 0..tcp {
                q.enqueue(Time::ZERO, tcp_pkt(100), &mut drops);
            }
            q.tick(Time::from_ms(at));
        };
        step(&mut q, 100, 100);
        let w1 = q.weight();
        assert!(w1 < 0.5, "RCP's flows have more per flow: w_R falls (fixed rule)");
        q.p.tc_rule = TcRule::AtLeastTcStar;
        step(&mut q, 200, 200);
        let star = q.tc_star;
        assert!(star > 0.1, "T_c* = {star}");
        assert_eq!(q.weight(), w1, "0.1 s after the last move, T_c* = {star} s not yet passed");
        q.p.tc_rule = TcRule::Fixed;
        step(&mut q, 300, 300);
        assert!(q.weight() < w1, "the fixed rule moves every T_c");
    }

    #[test]
    fn without_tcp_the_weight_is_held_and_rcp_gets_the_link() {
        let mut q = queue(CoexistMode::TwoQueue, Limit::Packets(100_000));
        let mut drops = Vec::new();
        for i in 0..400 {
            q.enqueue(Time::ZERO, rcp_pkt(i % 4), &mut drops);
        }
        q.tick(Time::from_ms(100));
        assert_eq!((q.weight(), q.rcp_capacity(), q.flows[TCP]), (0.5, 100e6, 0.0));
    }

    #[test]
    fn wfq_serves_the_backlogged_queues_by_their_weights() {
        let mut q = queue(CoexistMode::TwoQueue, Limit::Packets(100_000));
        let mut drops = Vec::new();
        for i in 0..1000 {
            q.enqueue(Time::ZERO, rcp_pkt(i % 4), &mut drops);
            q.enqueue(Time::ZERO, tcp_pkt(100), &mut drops);
        }
        q.w_r = 0.8;
        if let Buffers::Wfq { drr, .. } = &mut q.buffers {
            drr.set_weights(&[0.8, 0.2]);
        }
        let sent: Vec<usize> = (0..500).map(|_| class_of(&q.dequeue(Time::ZERO).unwrap())).collect();
        let rcp = sent.iter().filter(|&&k| k == RCP).count();
        assert!((rcp as f64 / 500.0 - 0.8).abs() < 0.02, "{rcp} of 500");
    }

    #[test]
    fn departing_rcp_packets_carry_r_and_tcp_packets_pass_untouched() {
        let mut q = queue(CoexistMode::SingleQueue, Limit::Packets(10));
        let mut drops = Vec::new();
        q.enqueue(Time::ZERO, tcp_pkt(1), &mut drops);
        q.enqueue(Time::ZERO, rcp_pkt(2), &mut drops);
        assert_eq!(q.dequeue(Time::ZERO).unwrap().cc, CongestionHeader::None);
        let r = (q.law().fair_rate() / 1e3) as u32;
        assert_eq!(
            q.dequeue(Time::ZERO).unwrap().cc,
            CongestionHeader::Rcp(RcpHeader { rate_kbps: r, rtt_us: 100_000, age_kib: 0 })
        );
        assert_eq!((q.bytes(), q.packets()), (0, 0));
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let c = Rate::from_mbps(100);
        let bad = |p: RcpTcpParams| p.validate(c).unwrap_err().field;
        let d = RcpTcpParams::default();
        assert_eq!(bad(RcpTcpParams { theta: 1.0, ..d }), "theta");
        assert_eq!(bad(RcpTcpParams { tc: Time::ZERO, ..d }), "tc");
        assert_eq!(bad(RcpTcpParams { zombie_size: 0, ..d }), "zombie_size");
        assert_eq!(bad(RcpTcpParams { zombie_overwrite: 0.0, ..d }), "zombie_overwrite");
        assert_eq!(bad(RcpTcpParams { initial_weight: 1.0, ..d }), "initial_weight");
        assert_eq!(bad(RcpTcpParams { rcp: RcpParams { alpha: -1.0, ..d.rcp }, ..d }), "alpha");
        assert!(d.validate(c).is_ok());
    }
}
