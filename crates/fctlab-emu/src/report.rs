//! What the processes of an emulation report, and how the router folds the hosts' reports
//! into the run's flow records (so that the result tables are those of `fctlab run`).

use fctlab_core::units::Time;
use fctlab_core::world::World;
use serde::{Deserialize, Serialize};

/// One side of one flow, as its host saw it. Times are run-time picoseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlowSide {
    /// Flow id.
    pub flow: u32,
    /// True for the sending side.
    pub sender: bool,
    /// Sender: when the application started (the plan's start, or a little later if the host
    /// woke late).
    pub start_ps: Option<u64>,
    /// Receiver: when it held every byte up to the FIN.
    pub finish_ps: Option<u64>,
    /// Receiver: bytes delivered in order.
    pub delivered: u64,
    /// Receiver: when the first application write was held in full (scheduled writers).
    pub first_write_ps: Option<u64>,
    /// Sender: payload bytes retransmitted.
    pub retx_bytes: u64,
    /// Sender: retransmission timeouts.
    pub timeouts: u64,
}

/// A host process's report.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HostReport {
    /// Topology node id of the host.
    pub node: u32,
    /// Every flow side the host ran.
    pub flows: Vec<FlowSide>,
    /// Datagrams received and sent.
    pub datagrams_in: u64,
    /// Datagrams sent.
    pub datagrams_out: u64,
    /// Datagrams refused: not from the router, undecodable, or for a flow not on this host.
    pub bad_datagrams: u64,
    /// Sends the kernel refused (full buffer): lost datagrams.
    pub lost_sends: u64,
    /// Largest delay between a timer's due time and its handling, run-time ps.
    pub max_timer_lag_ps: u64,
    /// Largest delay between a flow's planned start and its start, run-time ps.
    pub max_start_lag_ps: u64,
}

/// The router process's report.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RouterReport {
    /// Datagrams received from hosts.
    pub datagrams_in: u64,
    /// Datagrams sent to hosts.
    pub datagrams_out: u64,
    /// Datagrams refused: undecodable, or not from the host they name.
    pub bad_datagrams: u64,
    /// Sends the kernel refused: lost datagrams.
    pub lost_sends: u64,
    /// Loop iterations that found an event already due.
    pub iterations_behind: u64,
    /// Of those, how many found it more than 1 ms (wall) late.
    pub late_1ms: u64,
    /// The latest an event was handled, wall ns.
    pub max_lag_wall_ns: u64,
    /// Loop iterations.
    pub iterations: u64,
    /// Datagrams that arrived more than 1 ms (wall) after their endpoint emitted them.
    pub late_arrivals: u64,
    /// The latest a datagram arrived after its emission, wall ns.
    pub max_arrival_lag_wall_ns: u64,
    /// Run time at the end, ps.
    pub end_ps: u64,
    /// The packet socket of kernel TCP flows, if the run had any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<super::raw::RawReport>,
}

/// Copies the hosts' halves of each flow into the world's flow records.
pub fn absorb(world: &mut World, report: &HostReport) -> Result<(), String> {
    let n = world.records.len();
    for side in &report.flows {
        let rec = world.records.get_mut(side.flow as usize).ok_or_else(|| {
            format!("host {} reports flow {}, but the scenario has {n} flows", report.node, side.flow)
        })?;
        if side.sender {
            if let Some(s) = side.start_ps {
                rec.start = Time::from_ps(s);
            }
            rec.retx_bytes = side.retx_bytes;
            rec.timeouts = side.timeouts;
            // A long-lived flow ends when its application stops, as in simulation.
            rec.stopped = rec.size.is_none() && side.start_ps.is_some();
        } else {
            rec.finish = side.finish_ps.map(Time::from_ps);
            rec.delivered = side.delivered;
            rec.first_write = side.first_write_ps.map(Time::from_ps);
        }
    }
    Ok(())
}
