//! Packet captures: the packets that cross chosen links, written as a pcapng file that
//! Wireshark and tshark read (`[output.pcap]`, `docs/pcap.md`).
//!
//! A capture is a tap at the far end of each captured link: it records every packet as the
//! link delivers it (after the queue and the wire, at its arrival time; a packet dropped by the
//! queue or lost on the wire is not seen), one pcapng interface per captured link direction.
//! Packets are written as they arrive, in the run's time order, through a buffered file: the
//! capture is never held in memory, and the same run writes the same bytes.
//!
//! | module | what it holds |
//! |---|---|
//! | [`pcapng`] | the container: section header, interfaces (nanosecond timestamps), packet blocks |
//! | [`frame`] | a packet as Ethernet II / IPv4 / TCP headers (addresses, ports, ISNs, options, checksums) |
//! | [`shim`] | the explicit protocols' congestion headers as bytes for the Wireshark dissector, and where they ride |
//!
//! The world asks one question per packet that crosses a link ([`Capture::record`]): is this
//! link captured? A run without `[output.pcap]` has no capture and pays one branch on an
//! empty `Option` per hop.

pub mod frame;
pub mod pcapng;
pub mod shim;

pub use frame::FlowFacts;

use crate::net::link::Link;
use crate::net::packet::Packet;
use crate::units::Time;
use pcapng::{Interface, PcapngWriter};
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;

/// Interface index of a link not captured.
const NOT_CAPTURED: u32 = u32::MAX;

/// What a scenario asks to capture, checked by the build; [`Capture::open`] starts it on a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapturePlan {
    /// The captured links: (link id, name as the scenario gave it), one interface each, in order.
    pub links: Vec<(u32, String)>,
    /// The captured flows (by id, sorted); None: every flow.
    pub flows: Option<Vec<u32>>,
    /// Payload bytes kept per packet (beyond the headers and the shim).
    pub payload: u32,
}

/// A capture being written.
#[derive(Debug)]
pub struct Capture {
    /// The interface of each link id ([`NOT_CAPTURED`] if none).
    interface: Vec<u32>,
    /// (from, to) nodes of each interface's link: the frames' MACs.
    hops: Vec<(u32, u32)>,
    /// Captured flows, by id (empty: every flow).
    flows: Vec<bool>,
    payload: u32,
    seed: u64,
    out: Option<PcapngWriter<BufWriter<File>>>,
    buf: Vec<u8>,
    /// The first write error: the capture stops there, and [`Capture::finish`] reports it.
    error: Option<io::Error>,
    /// Packets written.
    pub packets: u64,
}

impl Capture {
    /// Starts `plan` on a new file at `path` (its pcapng header and interfaces written), for a
    /// run of `links` with `flows` flows and seed `seed`.
    pub fn open(plan: &CapturePlan, path: &Path, links: &[Link], flows: usize, seed: u64) -> io::Result<Capture> {
        let mut interface = vec![NOT_CAPTURED; links.len()];
        let mut hops = Vec::with_capacity(plan.links.len());
        let mut ifs = Vec::with_capacity(plan.links.len());
        for (k, (id, name)) in plan.links.iter().enumerate() {
            let l = &links[*id as usize];
            interface[*id as usize] = k as u32;
            hops.push((l.from, l.to));
            ifs.push(Interface {
                name: name.clone(),
                description: format!("fctlab link {id}: node {} -> node {}", l.from, l.to),
                speed_bps: l.rate.0,
            });
        }
        let mut wanted = Vec::new();
        if let Some(fs) = &plan.flows {
            wanted = vec![false; flows];
            for &f in fs {
                wanted[f as usize] = true;
            }
        }
        let file = BufWriter::with_capacity(1 << 16, File::create(path)?);
        let app = format!("fctlab {}", env!("CARGO_PKG_VERSION"));
        let out = PcapngWriter::new(file, &app, &format!("seed {seed}"), &ifs)?;
        Ok(Capture {
            interface,
            hops,
            flows: wanted,
            payload: plan.payload,
            seed,
            out: Some(out),
            buf: Vec::with_capacity(256),
            error: None,
            packets: 0,
        })
    }

    /// Records `pkt` arriving at `now` over link `link`, if that link and its flow are
    /// captured; `flow` tells what the headers need of its flow, asked only then.
    #[inline]
    pub fn record(&mut self, now: Time, link: u32, pkt: &Packet, flow: impl FnOnce() -> FlowFacts) {
        let k = self.interface[link as usize];
        if k == NOT_CAPTURED || (!self.flows.is_empty() && !self.flows[pkt.flow as usize]) {
            return;
        }
        self.write(now, k, pkt, flow());
    }

    #[inline(never)]
    fn write(&mut self, now: Time, k: u32, pkt: &Packet, flow: FlowFacts) {
        let Some(out) = self.out.as_mut() else { return };
        let (from, to) = self.hops[k as usize];
        let f = frame::write(pkt, from, to, self.seed, flow, self.payload, &mut self.buf);
        match out.packet(k, now.ps() / 1000, &self.buf, f.original) {
            Ok(()) => self.packets += 1,
            Err(e) => {
                self.error = Some(e);
                self.out = None;
            }
        }
    }

    /// Flushes the file; the packets written, or the first error met while writing.
    pub fn finish(&mut self) -> io::Result<u64> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if let Some(out) = self.out.take() {
            out.finish()?.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        }
        Ok(self.packets)
    }
}
