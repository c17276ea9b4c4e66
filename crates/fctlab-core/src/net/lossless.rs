//! A port of a lossless fabric: what a link's output gains when the scenario has a `[fabric]`.
//!
//! - **Two classes.** Control packets (ACKs, SYNs: everything but data) wait in their own queue,
//!   served first and never paused, as RDMA fabrics put ACKs, NACKs and CNPs in the highest
//!   priority (HPCC's simulator: queue 0). Data waits in the port's discipline, the only class
//!   PFC pauses. With `control_first = false` control packets join the data.
//! - **PAUSE.** While the far end has paused the port ([`Lossless::set_paused`]), only control
//!   packets leave; the time paused adds up per port (the `paused_s` series row).
//! - **Ingress.** Each data packet remembers the link it came in on (the port's disciplines are
//!   FIFOs in a fabric, so a queue of link ids in the same order does), and the port hands back
//!   (ingress link, bytes) of each one that leaves, for the switch's buffer to release.
//! - **ECN.** A data packet leaving marks CE with probability 0 below `kmin` bytes queued, 1 above
//!   `kmax`, `pmax (q - kmin) / (kmax - kmin)` between (the queue it leaves, as HPCC's switches
//!   mark at dequeue; `kmin = kmax` is DCTCP's step); packets that are not ECN-capable are not
//!   marked.

use crate::net::packet::{Packet, PacketKind};
use crate::rng::Rng;
use crate::units::Time;
use std::collections::VecDeque;

/// ECN marking at dequeue, from the bytes left queued.
#[derive(Clone, Debug)]
pub struct EcnRamp {
    /// Below this many bytes, no mark.
    pub kmin: u64,
    /// Above this many bytes, every packet marked.
    pub kmax: u64,
    /// Marking probability at `kmax`.
    pub pmax: f64,
    rng: Rng,
}

impl EcnRamp {
    /// A ramp drawing from `rng`.
    pub fn new(kmin: u64, kmax: u64, pmax: f64, rng: Rng) -> EcnRamp {
        EcnRamp { kmin, kmax, pmax, rng }
    }

    /// Whether a packet leaving `queued` bytes behind is marked.
    pub fn marks(&mut self, queued: u64) -> bool {
        if queued > self.kmax {
            return true;
        }
        if queued > self.kmin {
            let p = self.pmax * (queued - self.kmin) as f64 / (self.kmax - self.kmin) as f64;
            return self.rng.uniform() < p;
        }
        false
    }
}

/// A link id meaning "no ingress": the packet came from the host itself.
pub const FROM_HOST: u32 = u32::MAX;

/// Pause counters of one port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PauseStats {
    /// PAUSE frames this port received (the far end stopped it).
    pub pauses: u64,
    /// RESUME frames this port received.
    pub resumes: u64,
    /// Time paused, up to the last change.
    pub paused_time: Time,
    /// PFC frames this link carried (sent by the near end to pause or resume the link back).
    pub frames_sent: u64,
    /// ECN marks.
    pub ecn_marks: u64,
}

/// The lossless state of one output port.
#[derive(Clone, Debug)]
pub struct Lossless {
    ctrl: VecDeque<Packet>,
    ctrl_bytes: u64,
    control_first: bool,
    control_pauses: bool,
    ingress: VecDeque<u32>,
    paused: bool,
    paused_since: Time,
    ecn: Option<EcnRamp>,
    released: Vec<(u32, u32)>,
    /// Counters.
    pub stats: PauseStats,
}

impl Lossless {
    /// A port that serves control packets first (or not), marking with `ecn` if given. Its
    /// control class is never paused unless [`Lossless::with_control_paused`] says so.
    pub fn new(control_first: bool, ecn: Option<EcnRamp>) -> Lossless {
        Lossless {
            ctrl: VecDeque::new(),
            ctrl_bytes: 0,
            control_first,
            control_pauses: false,
            ingress: VecDeque::new(),
            paused: false,
            paused_since: Time::ZERO,
            ecn,
            released: Vec::new(),
            stats: PauseStats::default(),
        }
    }

    /// The control class stops too while the port is paused (HPCC's NICs with `ACK_HIGH_PRIO 0`).
    pub fn with_control_paused(mut self, pauses: bool) -> Lossless {
        self.control_pauses = pauses;
        self
    }

    /// Whether the control class waits: the port is paused and its control class obeys.
    #[inline]
    pub fn control_waits(&self) -> bool {
        self.control_pauses && self.paused
    }

    /// Whether this port serves control packets first.
    pub fn serves_control_first(&self) -> bool {
        self.control_first
    }

    /// Whether `pkt` goes to the control class.
    #[inline]
    pub fn is_control(&self, pkt: &Packet) -> bool {
        self.control_first && pkt.kind != PacketKind::Data
    }

    /// Queues a control packet.
    pub fn push_control(&mut self, pkt: Packet) {
        self.ctrl_bytes += pkt.wire as u64;
        self.ctrl.push_back(pkt);
    }

    /// Takes the next control packet.
    pub fn pop_control(&mut self) -> Option<Packet> {
        let p = self.ctrl.pop_front()?;
        self.ctrl_bytes -= p.wire as u64;
        Some(p)
    }

    /// Notes that a packet that came in on `in_link` joined the discipline (the data class).
    pub fn note_ingress(&mut self, in_link: u32) {
        self.ingress.push_back(in_link);
    }

    /// A packet left the discipline (the data class) with `queued` bytes behind it: releases its
    /// ingress and marks it.
    pub fn on_departure(&mut self, pkt: &mut Packet, queued: u64) {
        let from = self.ingress.pop_front().unwrap_or(FROM_HOST);
        if from != FROM_HOST {
            self.released.push((from, pkt.wire));
        }
        if let Some(ramp) = &mut self.ecn {
            if pkt.ecn.is_ect() && ramp.marks(queued) {
                pkt.ecn.mark_ce();
                self.stats.ecn_marks += 1;
            }
        }
    }

    /// Control packets waiting, and their bytes.
    pub fn control_backlog(&self) -> (usize, u64) {
        (self.ctrl.len(), self.ctrl_bytes)
    }

    /// Whether data may leave.
    #[inline]
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// Since when the port is paused (meaningful while it is).
    pub fn paused_since(&self) -> Time {
        self.paused_since
    }

    /// The far end paused (`on`) or resumed the port at `now`; returns whether that changed
    /// anything (a PAUSE while paused does not).
    pub fn set_paused(&mut self, now: Time, on: bool) -> bool {
        if on {
            self.stats.pauses += 1;
        } else {
            self.stats.resumes += 1;
        }
        if on == self.paused {
            return false;
        }
        if on {
            self.paused_since = now;
        } else {
            self.stats.paused_time += now - self.paused_since;
        }
        self.paused = on;
        true
    }

    /// Time paused up to `now`.
    pub fn paused_time(&self, now: Time) -> Time {
        self.stats.paused_time + if self.paused { now - self.paused_since } else { Time::ZERO }
    }

    /// Takes the (ingress link, bytes) of the data packets that left since the last call.
    pub fn take_released(&mut self, into: &mut Vec<(u32, u32)>) {
        into.append(&mut self.released);
    }

    /// The ingress links of the data packets waiting, in order.
    pub fn ingress_links(&self) -> impl Iterator<Item = u32> + '_ {
        self.ingress.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ramp_marks_nothing_below_kmin_everything_above_kmax_and_pmax_in_between() {
        let mut r = EcnRamp::new(100, 400, 0.2, Rng::new(7));
        assert!((0..1000).all(|_| !r.marks(100)));
        assert!((0..1000).all(|_| r.marks(401)));
        // Halfway: p = 0.1.
        let n = (0..100_000).filter(|_| r.marks(250)).count() as f64 / 100_000.0;
        assert!((n - 0.1).abs() < 0.005, "{n}");
    }

    #[test]
    fn paused_time_adds_up_over_pauses_and_a_repeated_pause_changes_nothing() {
        let mut l = Lossless::new(true, None);
        assert!(l.set_paused(Time::from_us(10), true));
        assert!(!l.set_paused(Time::from_us(12), true));
        assert_eq!(l.paused_time(Time::from_us(15)), Time::from_us(5));
        assert!(l.set_paused(Time::from_us(20), false));
        assert!(l.set_paused(Time::from_us(30), true));
        assert!(l.set_paused(Time::from_us(31), false));
        assert_eq!(l.paused_time(Time::from_us(100)), Time::from_us(11));
        assert_eq!((l.stats.pauses, l.stats.resumes), (3, 2));
    }

    #[test]
    fn the_control_class_waits_out_a_pause_only_when_told_to() {
        let mut free = Lossless::new(true, None);
        let mut obeys = Lossless::new(true, None).with_control_paused(true);
        for l in [&mut free, &mut obeys] {
            assert!(!l.control_waits());
            l.set_paused(Time::from_us(1), true);
        }
        assert!(!free.control_waits(), "never paused by default");
        assert!(obeys.control_waits());
        obeys.set_paused(Time::from_us(2), false);
        assert!(!obeys.control_waits());
    }
}
