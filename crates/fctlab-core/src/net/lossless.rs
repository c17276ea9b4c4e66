//! A port of a lossless fabric: what a link's output gains when the scenario has a `[fabric]`.
//!
//! - **Control first.** Control packets (ACKs, SYNs: everything but data) wait in their own
//!   queue, served first and never paused, as RDMA fabrics put ACKs, NACKs and CNPs in the
//!   highest priority (HPCC's simulator: queue 0). Data waits in the port's discipline. With
//!   `control_first = false` control packets join the data.
//! - **Eight traffic classes** (IEEE 802.1Qbb). A data packet's class is its priority band
//!   ([`Packet::class`]); the port's discipline keeps one FIFO per class at a switch (one per
//!   queue pair at a round-robin NIC) and skips those whose class is paused
//!   ([`crate::qdisc::Qdisc::dequeue_unpaused`]).
//! - **PAUSE**, per class. While the far end has paused a class ([`Lossless::set_paused`]),
//!   its data stays; the other classes and the control packets go on. The time paused adds up
//!   per port (any class paused: the `paused_s` series row) and per class.
//! - **Ingress.** Each data packet remembers the link it came in on (a queue of link ids per
//!   class, in the order of the class's FIFO), and the port hands back (ingress link, class,
//!   bytes) of each one that leaves, for the switch's buffer to release.
//! - **Transmit completions.** A host's NIC port notes each data packet of the host's that
//!   starts onto the wire (flow, payload, wire bytes), for the world to tell its sender
//!   ([`Lossless::take_transmitted`]): how an RDMA NIC that asks its queue pairs for packets
//!   one at a time learns it may ask again.
//! - **ECN.** A data packet leaving marks CE with probability 0 below `kmin` bytes of its class
//!   queued, 1 above `kmax`, `pmax (q - kmin) / (kmax - kmin)` between (the queue it leaves, as
//!   HPCC's switches mark at dequeue on the bytes of the packet's queue; `kmin = kmax` is
//!   DCTCP's step); packets that are not ECN-capable are not marked.

use crate::net::packet::{Packet, PacketKind, CLASSES};
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
    /// Time with any class paused, up to the last change.
    pub paused_time: Time,
    /// Time each class was paused, up to its last change.
    pub class_paused_time: [Time; CLASSES],
    /// PFC frames this link carried (sent by the near end to pause or resume the link back).
    pub frames_sent: u64,
    /// ECN marks.
    pub ecn_marks: u64,
}

/// One data packet that left: the link it came in on, its class and its wire bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Released {
    /// The ingress link.
    pub link: u32,
    /// Its traffic class.
    pub class: u8,
    /// Wire bytes.
    pub wire: u32,
}

/// The lossless state of one output port.
#[derive(Clone, Debug)]
pub struct Lossless {
    ctrl: VecDeque<Packet>,
    ctrl_bytes: u64,
    control_first: bool,
    control_pauses: bool,
    /// By class: the ingress links of its data packets waiting, in order.
    ingress: [VecDeque<u32>; CLASSES],
    /// By class: its data bytes waiting.
    class_bytes: [u64; CLASSES],
    /// Bit `c`: class `c` is paused.
    paused: u8,
    /// When the port last went from no class paused to some (meaningful while one is).
    any_since: Time,
    /// By class: since when it is paused (meaningful while it is).
    since: [Time; CLASSES],
    ecn: Option<EcnRamp>,
    released: Vec<Released>,
    /// A host's NIC: note the data packets that leave.
    host_nic: bool,
    transmitted: Vec<Transmitted>,
    /// Counters.
    pub stats: PauseStats,
}

/// One data packet that left a host's NIC.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Transmitted {
    /// Its flow.
    pub flow: u32,
    /// Payload bytes.
    pub len: u32,
    /// Wire bytes.
    pub wire: u32,
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
            ingress: Default::default(),
            class_bytes: [0; CLASSES],
            paused: 0,
            any_since: Time::ZERO,
            since: [Time::ZERO; CLASSES],
            ecn,
            released: Vec::new(),
            host_nic: false,
            transmitted: Vec::new(),
            stats: PauseStats::default(),
        }
    }

    /// The port is a host's NIC: it notes the host's data packets that leave.
    pub fn at_host_nic(mut self, host_nic: bool) -> Lossless {
        self.host_nic = host_nic;
        self
    }

    /// Takes the data packets a host's NIC sent since the last call.
    pub fn take_transmitted(&mut self, into: &mut std::collections::VecDeque<Transmitted>) {
        into.extend(self.transmitted.drain(..));
    }

    /// The control class stops too while any class of the port is paused (HPCC's NICs with
    /// `ACK_HIGH_PRIO 0`).
    pub fn with_control_paused(mut self, pauses: bool) -> Lossless {
        self.control_pauses = pauses;
        self
    }

    /// Whether the control class waits: a class is paused and the control class obeys.
    #[inline]
    pub fn control_waits(&self) -> bool {
        self.control_pauses && self.paused != 0
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

    /// Notes that `pkt`, which came in on `in_link`, joined the discipline (the data classes).
    pub fn note_ingress(&mut self, in_link: u32, pkt: &Packet) {
        let c = pkt.class();
        self.ingress[c].push_back(in_link);
        self.class_bytes[c] += pkt.wire as u64;
    }

    /// A packet left the discipline (the data classes): releases its ingress and marks it on the
    /// bytes of its class left behind.
    pub fn on_departure(&mut self, pkt: &mut Packet) {
        let c = pkt.class();
        let from = self.ingress[c].pop_front().unwrap_or(FROM_HOST);
        self.class_bytes[c] -= pkt.wire as u64;
        if from != FROM_HOST {
            self.released.push(Released { link: from, class: c as u8, wire: pkt.wire });
        } else if self.host_nic && pkt.kind == PacketKind::Data && pkt.is_forward() {
            self.transmitted.push(Transmitted { flow: pkt.flow, len: pkt.len, wire: pkt.wire });
        }
        if let Some(ramp) = &mut self.ecn {
            if pkt.ecn.is_ect() && ramp.marks(self.class_bytes[c]) {
                pkt.ecn.mark_ce();
                self.stats.ecn_marks += 1;
            }
        }
    }

    /// Control packets waiting, and their bytes.
    pub fn control_backlog(&self) -> (usize, u64) {
        (self.ctrl.len(), self.ctrl_bytes)
    }

    /// The classes paused: bit `c` for class `c`.
    #[inline]
    pub fn paused_classes(&self) -> u8 {
        self.paused
    }

    /// Whether any class is paused.
    #[inline]
    pub fn paused(&self) -> bool {
        self.paused != 0
    }

    /// Since when some class is paused (meaningful while one is).
    pub fn paused_since(&self) -> Time {
        self.any_since
    }

    /// The far end paused (`on`) or resumed `class` of the port at `now`; returns whether that
    /// changed anything (a PAUSE while paused does not).
    pub fn set_paused(&mut self, now: Time, class: usize, on: bool) -> bool {
        if on {
            self.stats.pauses += 1;
        } else {
            self.stats.resumes += 1;
        }
        let bit = 1u8 << class;
        if on == (self.paused & bit != 0) {
            return false;
        }
        if on {
            self.since[class] = now;
            if self.paused == 0 {
                self.any_since = now;
            }
            self.paused |= bit;
        } else {
            self.stats.class_paused_time[class] += now - self.since[class];
            self.paused &= !bit;
            if self.paused == 0 {
                self.stats.paused_time += now - self.any_since;
            }
        }
        true
    }

    /// Time with any class paused, up to `now`.
    pub fn paused_time(&self, now: Time) -> Time {
        self.stats.paused_time + if self.paused != 0 { now - self.any_since } else { Time::ZERO }
    }

    /// Time `class` was paused, up to `now`.
    pub fn class_paused_time(&self, now: Time, class: usize) -> Time {
        let open = if self.paused & (1 << class) != 0 { now - self.since[class] } else { Time::ZERO };
        self.stats.class_paused_time[class] + open
    }

    /// Takes the data packets that left since the last call.
    pub fn take_released(&mut self, into: &mut Vec<Released>) {
        into.append(&mut self.released);
    }

    /// The ingress links of the data packets waiting, class by class.
    pub fn ingress_links(&self) -> impl Iterator<Item = u32> + '_ {
        self.ingress.iter().flatten().copied()
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
        assert!(l.set_paused(Time::from_us(10), 3, true));
        assert!(!l.set_paused(Time::from_us(12), 3, true));
        assert_eq!(l.paused_time(Time::from_us(15)), Time::from_us(5));
        assert!(l.set_paused(Time::from_us(20), 3, false));
        assert!(l.set_paused(Time::from_us(30), 3, true));
        assert!(l.set_paused(Time::from_us(31), 3, false));
        assert_eq!(l.paused_time(Time::from_us(100)), Time::from_us(11));
        assert_eq!((l.stats.pauses, l.stats.resumes), (3, 2));
    }

    #[test]
    fn classes_pause_on_their_own_and_the_port_counts_time_with_any_paused() {
        let us = Time::from_us;
        let mut l = Lossless::new(true, None);
        assert!(l.set_paused(us(10), 3, true));
        assert!(l.set_paused(us(12), 1, true));
        assert_eq!(l.paused_classes(), 0b1010);
        assert!(l.set_paused(us(15), 3, false));
        assert_eq!(l.paused_classes(), 0b0010, "class 1 stays paused");
        assert!(l.paused());
        assert!(l.set_paused(us(20), 1, false));
        assert!(!l.paused());
        // Any class paused from 10 to 20 us; class 3 for 5 us, class 1 for 8 us.
        assert_eq!(l.paused_time(us(50)), us(10));
        assert_eq!((l.class_paused_time(us(50), 3), l.class_paused_time(us(50), 1)), (us(5), us(8)));
        assert_eq!(l.class_paused_time(us(50), 0), Time::ZERO);
    }

    #[test]
    fn the_control_class_waits_out_a_pause_only_when_told_to() {
        let mut free = Lossless::new(true, None);
        let mut obeys = Lossless::new(true, None).with_control_paused(true);
        for l in [&mut free, &mut obeys] {
            assert!(!l.control_waits());
            l.set_paused(Time::from_us(1), 3, true);
        }
        assert!(!free.control_waits(), "never paused by default");
        assert!(obeys.control_waits());
        obeys.set_paused(Time::from_us(2), 3, false);
        assert!(!obeys.control_waits());
    }
}
