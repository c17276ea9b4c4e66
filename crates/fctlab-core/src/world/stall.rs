//! A stalled run: nothing can happen any more, yet flows are still open.
//!
//! A run ends by time (`duration` without draining, `max_time`) or when every flow is done.
//! When, before either, the event queue holds nothing that could move a flow on (it is empty,
//! or holds only the periodic events: the series' samples and the queue disciplines' control
//! ticks, which send nothing) while every flow has started and some are still open, those
//! flows can never finish: the run stops there and reports a [`Stall`], which names each open
//! flow with its sender's state. Such a run is not an ordinary end with incomplete flows, and
//! its callers say so (the bindings put it in the results' meta, the Python front raises).
//!
//! A whole world finds a stall after its last event when its queue runs dry, or at the first
//! periodic event after it; a partitioned run ([`super::parallel`]) at the end of the window
//! after which no partition holds anything but periodic events or has handed a packet over.
//! Without periodic events both find it at the same event, the last one of the run.

use super::{Active, World};
use crate::transport::conn::State;
use crate::units::Time;

/// What a flow's endpoints last handled: the flow's last event.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FlowEvent {
    /// The sender started (its first write, its SYN).
    Started,
    /// A packet reached the sender (a SYN-ACK or an ACK).
    SenderPacket,
    /// A packet reached the receiver (a SYN or data).
    ReceiverPacket,
    /// The sender's timer fired (a retransmission timeout, a pacing or application wake-up).
    SenderTimer,
    /// The receiver's timer fired (a delayed ACK).
    ReceiverTimer,
}

impl FlowEvent {
    /// The event in words.
    pub fn describe(self) -> &'static str {
        match self {
            FlowEvent::Started => "the sender's start",
            FlowEvent::SenderPacket => "a packet at the sender",
            FlowEvent::ReceiverPacket => "a packet at the receiver",
            FlowEvent::SenderTimer => "the sender's timer",
            FlowEvent::ReceiverTimer => "the receiver's timer",
        }
    }
}

/// An open flow of a stalled run, as its sender left it.
#[derive(Clone, Debug, PartialEq)]
pub struct StalledFlow {
    /// Flow id.
    pub flow: u32,
    /// Sending host (node id).
    pub src: u32,
    /// Receiving host (node id).
    pub dst: u32,
    /// Payload bytes (None: long-lived).
    pub size: Option<u64>,
    /// The congestion window, bytes (a window-based sender).
    pub window: Option<u64>,
    /// The sending rate, bit/s (a paced sender).
    pub rate_bps: Option<f64>,
    /// Payload bytes sent and not cumulatively acknowledged.
    pub outstanding: u64,
    /// Payload bytes cumulatively acknowledged.
    pub acked: u64,
    /// The connection's state: "closed", "syn-sent", "established" or "done".
    pub state: &'static str,
    /// When the flow's endpoints last handled an event, and which.
    pub last_event: (Time, FlowEvent),
}

impl StalledFlow {
    /// One line on the flow, hosts named by `names` (node names by node id; ids where absent).
    pub fn line(&self, names: &[String]) -> String {
        let name = |n: u32| names.get(n as usize).cloned().unwrap_or_else(|| format!("node {n}"));
        let size = self.size.map_or("long-lived".to_string(), |s| format!("{s} B"));
        let pace = match (self.window, self.rate_bps) {
            (Some(w), _) => format!("window {w} B"),
            (None, Some(r)) => format!("rate {r:.0} b/s"),
            (None, None) => "no window".to_string(),
        };
        let (at, what) = self.last_event;
        format!(
            "flow {} ({} -> {}, {size}): {pace}, {} B outstanding, {} B acknowledged, {}, last event at t = {:.9} s ({})",
            self.flow,
            name(self.src),
            name(self.dst),
            self.outstanding,
            self.acked,
            self.state,
            at.as_secs_f64(),
            what.describe()
        )
    }
}

impl std::fmt::Display for StalledFlow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.line(&[]))
    }
}

/// What stopped a run before its end: nothing could happen any more while flows were open.
#[derive(Clone, Debug, PartialEq)]
pub struct Stall {
    /// When the run found it: its last event (or the first periodic event after it).
    pub time: Time,
    /// The flows still open, by flow id.
    pub flows: Vec<StalledFlow>,
    /// Why nothing could happen any more, when the run knows (a PFC deadlock); None when the
    /// event queue simply ran dry.
    pub cause: Option<String>,
}

impl std::fmt::Display for Stall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.flows.len();
        if let Some(cause) = &self.cause {
            return write!(
                f,
                "the run stopped at t = {:.9} s on {cause}; {n} flow{} {} still open and can never finish",
                self.time.as_secs_f64(),
                if n == 1 { "" } else { "s" },
                if n == 1 { "was" } else { "were" },
            );
        }
        write!(
            f,
            "the run stalled: by t = {:.9} s nothing could happen any more, but {n} flow{} {} still open and \
             can never finish",
            self.time.as_secs_f64(),
            if n == 1 { "" } else { "s" },
            if n == 1 { "was" } else { "were" },
        )
    }
}

impl std::error::Error for Stall {}

/// The sender's state of flow `f`, whose live state is `a`, for a stall report; `last` is the
/// flow's last event over both its endpoints.
fn stalled_flow(w: &World, f: usize, a: &Active, last: (Time, FlowEvent)) -> StalledFlow {
    let conn = a.sender.connection();
    let rec = &w.records[f];
    StalledFlow {
        flow: f as u32,
        src: rec.src,
        dst: rec.dst,
        size: rec.size,
        window: a.sender.cwnd(),
        rate_bps: a.sender.paced_rate_bps(),
        outstanding: conn.outstanding_bytes(),
        acked: conn.acked_bytes(),
        state: match conn.state() {
            State::Closed => "closed",
            State::SynSent => "syn-sent",
            State::Established => "established",
            State::Done => "done",
        },
        last_event: last,
    }
}

impl World {
    /// True if nothing this world holds can move a flow on: every flow starting here has
    /// started, nothing waits to be handed to another partition, and the queue holds only
    /// periodic events (samples and control ticks), if any.
    pub(crate) fn is_stuck(&self) -> bool {
        self.sched.len() == self.periodic && self.sched.exports.is_empty() && self.plan_id(self.next_plan).is_none()
    }

    /// The run's end, by time: events at or after it end the run whatever is open.
    pub(crate) fn end_by_time(&self) -> Time {
        if self.limits.drain {
            self.limits.max_time
        } else {
            self.limits.duration.min(self.limits.max_time)
        }
    }

    /// After an event of a whole world: if flows are open, nothing can happen any more, and
    /// the run has not reached its end by time, the run stalled: note it and finish.
    pub(crate) fn stop_if_stalled(&mut self) {
        if self.part.is_none()
            && !self.external
            && self.open_flows > 0
            && self.now < self.end_by_time()
            && self.is_stuck()
        {
            let flows = self.open_flow_states(|_| None);
            self.stall = Some(Box::new(Stall { time: self.now, flows, cause: None }));
            self.finished = true;
        }
    }

    /// The flows still open whose sender this world holds, in flow id order, with their
    /// sender's state; `other_last` gives a flow's last event at its far end, if another
    /// world holds that end.
    pub(super) fn open_flow_states(&self, other_last: impl Fn(usize) -> Option<(Time, FlowEvent)>) -> Vec<StalledFlow> {
        let mut out = Vec::new();
        for (f, a) in self.active.iter().enumerate() {
            let Some(a) = a.as_deref() else { continue };
            let (rec, plan) = (&self.records[f], &self.plans[f]);
            if rec.finish.is_some() || rec.stopped || !self.is_local(plan.src) {
                continue;
            }
            let last = match other_last(f) {
                Some(o) if o.0 > a.last.0 => o,
                _ => a.last,
            };
            out.push(stalled_flow(self, f, a, last));
        }
        out
    }

    /// The stall that stopped this run, if one did ([`Stall`]).
    pub fn stall(&self) -> Option<&Stall> {
        self.stall.as_deref()
    }
}

/// The stall of a partitioned run found at `time`: the open flows over all partitions `parts`
/// (`of`: each node's partition), each with its sender's state and its last event over both
/// ends. A flow is open unless its destination's partition saw it complete.
pub(crate) fn of_partitions(parts: &[World], of: &[u16], time: Time) -> Stall {
    let mut flows = Vec::new();
    for w in parts {
        let open = w.open_flow_states(|f| {
            let dst = &parts[of[w.plans[f].dst] as usize];
            dst.active[f].as_deref().map(|a| a.last)
        });
        flows.extend(open.into_iter().filter(|s| {
            let dst = &parts[of[s.dst as usize] as usize];
            dst.records[s.flow as usize].finish.is_none()
        }));
    }
    flows.sort_by_key(|s| s.flow);
    Stall { time, flows, cause: None }
}
