//! The `[fabric]` table: a lossless fabric of shared-buffer switches with PFC (its mechanics:
//! [`crate::net::mmu`], [`crate::net::lossless`], [`crate::world::lossless`]).
//!
//! Without the table every port keeps its own buffer and drops when it is full, as before.
//! With it, every switch has one buffer (`buffer`) that its ingress ports share, every port
//! serves control packets first and obeys PFC, and host NICs never drop.

use crate::error::{SpecError, SpecResult};
use crate::net::link::{Link, Port};
use crate::net::lossless::{EcnRamp, Lossless};
use crate::net::mmu::{default_headroom, default_shift, BufferConfig, Ingress, SharedBuffer};
use crate::qdisc::{Classes, Limit, Qdisc, RoundRobin};
use crate::quantity::{BytesQ, RateQ, TimeQ};
use crate::rng::Rng;
use crate::topology::{NodeKind, Topology};
use crate::units::Time;
use crate::world::lossless::{Fabric, OnDeadlock, WatchConfig};
use serde::Deserialize;

fn yes() -> bool {
    true
}

/// `control_first`: true (every port), false (none), or "hosts" (the hosts' NICs only, as
/// HPCC's simulator: its NICs send ACKs before any queue pair, its switches queue them with
/// the data).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum ControlFirstKey {
    /// Every port, or none.
    Everywhere(bool),
    /// "hosts".
    Only(String),
    /// Anything else: refused by [`ControlFirstKey::resolve`], naming the value.
    Other(serde_json::Value),
}

impl Default for ControlFirstKey {
    fn default() -> Self {
        ControlFirstKey::Everywhere(true)
    }
}

impl ControlFirstKey {
    /// (at the hosts' NICs, at the switches).
    fn resolve(&self, field: &str) -> SpecResult<(bool, bool)> {
        match self {
            ControlFirstKey::Everywhere(b) => Ok((*b, *b)),
            ControlFirstKey::Only(s) if s == "hosts" => Ok((true, false)),
            ControlFirstKey::Only(s) => {
                Err(SpecError::new(field, format!("expected true, false or \"hosts\", got {s:?}")))
            }
            ControlFirstKey::Other(v) => {
                Err(SpecError::new(field, format!("expected true, false or \"hosts\", got {v}")))
            }
        }
    }
}

/// The `[fabric]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FabricSpec {
    /// Each switch's shared buffer (HPCC's `BUFFER_SIZE`).
    pub buffer: BytesQ,
    /// Priority flow control on (default); off, a port whose headroom is full drops.
    #[serde(default = "yes")]
    pub pfc: bool,
    /// Bytes of each ingress port's own (default 4 KiB, as HPCC's switches).
    #[serde(default)]
    pub reserve: Option<BytesQ>,
    /// How far under the threshold a paused port must drain to resume (default 3 KiB).
    #[serde(default)]
    pub resume_offset: Option<BytesQ>,
    /// Each ingress port's headroom (default: 3 x its link's rate x delay, as HPCC's `third.cc`,
    /// and never less than what can arrive after a PAUSE: [`default_headroom`]).
    #[serde(default)]
    pub headroom: Option<BytesQ>,
    /// The dynamic threshold's shift, alpha = 1/2^shift (default: 3, one less per doubling of
    /// the port's rate above the hosts' rate).
    #[serde(default)]
    pub alpha_shift: Option<u32>,
    /// ECN marking at the switches' ports, by port rate (none: no marking).
    #[serde(default)]
    pub ecn: Vec<EcnSpec>,
    /// Control packets (ACKs, SYNs) in their own class, first and never paused: at every port
    /// (true, the default), none (false), or the hosts' NICs only ("hosts").
    #[serde(default)]
    pub control_first: ControlFirstKey,
    /// The control class stops while its port is paused (default false: never paused).
    #[serde(default)]
    pub control_pauses: bool,
    /// How often the watch looks at paused ports (default 100 us).
    #[serde(default)]
    pub watch: Option<TimeQ>,
    /// A port paused longer than this is reported as a pause storm (default: not watched).
    #[serde(default)]
    pub storm: Option<TimeQ>,
    /// What a PFC deadlock does: "stop" the run (default) or "report" it and go on.
    #[serde(default)]
    pub on_deadlock: Option<String>,
}

/// ECN marking of the switch ports of one rate (HPCC's `KMIN_MAP`, `KMAX_MAP`, `PMAX_MAP`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EcnSpec {
    /// The port rate these thresholds are for.
    pub rate: RateQ,
    /// No mark below this many bytes queued.
    pub kmin: BytesQ,
    /// Every packet marked above this many.
    pub kmax: BytesQ,
    /// The marking probability at `kmax`, in [0, 1].
    pub pmax: f64,
}

/// The default watch interval.
const WATCH: Time = Time::from_us(100);

/// Build step: makes every link's port lossless and returns the fabric, or None without a
/// `[fabric]` table. Refuses ports that are not FIFOs (the ingress record needs the order).
/// With `pulled` (some transport has `nic_pull`) the hosts' NICs note what they send.
pub(super) fn build(
    spec: Option<&FabricSpec>,
    topo: &Topology,
    links: &mut [Link],
    largest_packet: u32,
    pulled: bool,
    seed: u64,
) -> SpecResult<Option<Fabric>> {
    let Some(f) = spec else { return Ok(None) };
    let field = |k: &str| format!("fabric.{k}");
    let watch = f.watch.map_or(WATCH, |t| t.0);
    if watch == Time::ZERO {
        return Err(SpecError::new(field("watch"), "expected a duration > 0, got 0"));
    }
    let on_deadlock = match f.on_deadlock.as_deref() {
        None | Some("stop") => OnDeadlock::Stop,
        Some("report") => OnDeadlock::Report,
        Some(other) => {
            return Err(SpecError::new(field("on_deadlock"), format!("expected \"stop\" or \"report\", got {other:?}")))
        }
    };
    if f.alpha_shift.is_some_and(|s| s > 30) {
        return Err(SpecError::new(field("alpha_shift"), format!("expected 0 to 30, got {}", f.alpha_shift.unwrap())));
    }
    for (i, e) in f.ecn.iter().enumerate() {
        let at = |k: &str| field(&format!("ecn[{i}].{k}"));
        if !(0.0..=1.0).contains(&e.pmax) {
            return Err(SpecError::new(at("pmax"), format!("expected 0 <= pmax <= 1, got {}", e.pmax)));
        }
        if e.kmax.0 < e.kmin.0 {
            return Err(SpecError::new(
                at("kmax"),
                format!("expected kmax >= kmin ({} B), got {} B", e.kmin.0, e.kmax.0),
            ));
        }
        if f.ecn[..i].iter().any(|o| o.rate.0 == e.rate.0) {
            return Err(SpecError::new(at("rate"), format!("{} has thresholds already", e.rate.0)));
        }
    }
    let (hosts_first, switches_first) = f.control_first.resolve(&field("control_first"))?;
    let cfg = BufferConfig {
        buffer: f.buffer.0,
        reserve: f.reserve.map_or(4 * 1024, |b| b.0),
        resume_offset: f.resume_offset.map_or(3 * 1024, |b| b.0),
    };
    let is_switch = |n: usize| topo.nodes[n].kind != NodeKind::Host;
    let host_rate = topo.links.iter().filter(|l| !is_switch(l.from)).map(|l| l.rate.0).max().unwrap_or(0);
    let mut ingress = Vec::with_capacity(links.len());
    for (i, l) in links.iter_mut().enumerate() {
        let desc = &topo.links[i];
        let into_switch = is_switch(desc.to);
        let headroom = f.headroom.map_or_else(|| default_headroom(desc.rate.0, desc.delay.0, largest_packet), |b| b.0);
        let shift = f.alpha_shift.unwrap_or_else(|| default_shift(desc.rate.0, host_rate));
        ingress.push(Ingress { headroom: if into_switch { headroom } else { 0 }, shift, ..Ingress::default() });
        let ramp = if is_switch(desc.from) && !f.ecn.is_empty() {
            let Some(e) = f.ecn.iter().find(|e| e.rate.0 == desc.rate) else {
                return Err(SpecError::new(
                    field("ecn"),
                    format!(
                        "no thresholds for the rate of link {} ({}): give every switch port's rate",
                        desc.name, desc.rate
                    ),
                ));
            };
            Some(EcnRamp::new(e.kmin.0, e.kmax.0, e.pmax, Rng::stream(seed, &format!("fabric-ecn-{i}"))))
        } else {
            None
        };
        lossless_port(l, &desc.name, !is_switch(desc.from))?;
        let first = if is_switch(desc.from) { switches_first } else { hosts_first };
        let port = Lossless::new(first, ramp).with_control_paused(f.control_pauses);
        l.set_lossless(port.at_host_nic(pulled && !is_switch(desc.from)));
    }
    // Each switch's ingress headrooms, in one pass over the links.
    let mut headrooms: Vec<Vec<u64>> = vec![Vec::new(); topo.nodes.len()];
    for (i, d) in topo.links.iter().enumerate() {
        headrooms[d.to].push(ingress[i].headroom);
    }
    let mut buffers: Vec<Option<SharedBuffer>> = Vec::with_capacity(topo.nodes.len());
    for (n, h) in headrooms.into_iter().enumerate() {
        if !is_switch(n) {
            buffers.push(None);
            continue;
        }
        let buf = SharedBuffer::new(cfg, h);
        if buf.set_aside() >= cfg.buffer {
            return Err(SpecError::new(
                field("buffer"),
                format!(
                    "expected more than switch {}'s headroom and reserves ({} B), got {} B",
                    topo.nodes[n].name,
                    buf.set_aside(),
                    cfg.buffer
                ),
            ));
        }
        buffers.push(Some(buf));
    }
    // Duplex pairs are links 2i and 2i + 1.
    let back = (0..links.len() as u32).map(|i| i ^ 1).collect();
    let watch = WatchConfig { interval: watch, storm: f.storm.map(|t| t.0), on_deadlock };
    Ok(Some(Fabric::new(buffers, ingress, back, f.pfc, watch)))
}

/// Makes `l`'s port one a lossless fabric can run: a FIFO becomes one unlimited FIFO per traffic
/// class (the switch's buffer decides, and hosts never drop), each paused on its own; a marking
/// or router-law FIFO stays (one queue, waiting while any class is paused); a discipline that
/// reorders or pushes out is refused at a switch (the buffer releases each packet against the
/// port it came in on, in order), and a host NIC (`from_host`) may also serve its flows round
/// robin.
fn lossless_port(l: &mut Link, name: &str, from_host: bool) -> SpecResult<()> {
    match &l.port {
        Port::Fifo(_) => l.port = Port::qdisc(Qdisc::Classes(Classes::new())),
        Port::Qdisc(q) => match **q {
            Qdisc::DropTail(_) => l.port = Port::qdisc(Qdisc::Classes(Classes::new())),
            Qdisc::RoundRobin(_) if from_host => {
                l.port = Port::qdisc(Qdisc::RoundRobin(RoundRobin::new(Limit::UNLIMITED)))
            }
            Qdisc::Aqm(_) | Qdisc::Explicit(_) => {}
            _ => {
                return Err(SpecError::new(
                    "fabric",
                    format!(
                        "link {name}'s queue reorders packets; a lossless fabric's switch ports are FIFOs (drop-tail, \
                         step, red or a router law's), its host NICs FIFOs or round_robin"
                    ),
                ))
            }
        },
    }
    Ok(())
}
