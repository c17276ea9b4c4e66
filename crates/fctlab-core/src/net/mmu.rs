//! A shared-buffer switch's memory manager: one buffer per switch, accounted per ingress port
//! and traffic class, with a reserve, a dynamic threshold on the shared part, and PFC headroom.
//!
//! The accounting is that of the switches of HPCC's simulator (`switch-mmu.cc`), the ground
//! truth of the RDMA studies fctlab is compared with. An [`Ingress`] is one (port, class): each
//! class of a port has its counters, its reserve and the port's headroom to fill, and pauses on
//! its own; what the buffer sets aside counts one reserve and one headroom per port, as HPCC's
//! `ConfigNPort` does. Below, "port" is such an (ingress port, class):
//!
//! - a data packet arriving on ingress port `i` counts against `i` from admission until it
//!   leaves its egress queue (`ingress(i)`);
//! - the first `reserve` bytes of each port are its own; above them a port takes from the
//!   shared part of the buffer, up to the *dynamic threshold*
//!   `T = (B - H - R - S) >> shift(i)`, where `B` is the buffer, `H` the headroom of all ports,
//!   `R` their reserves and `S` the shared bytes in use: a port may take `1/2^shift` of what is
//!   still free (Choudhury and Hahne's dynamic threshold, alpha = `1/2^shift`);
//! - above the threshold a packet goes to the port's *headroom* (what PFC needs to absorb the
//!   packets in flight after a PAUSE); one that fits neither is dropped;
//! - PAUSE when the port has anything in headroom or its shared bytes reach `T`; RESUME when its
//!   headroom is empty and its shared bytes are 0 or at least `resume_offset` below `T`.
//!
//! Pure arithmetic on counters; the world calls it where packets enter and leave a switch
//! (`world/lossless.rs`), and the unit tests check it against the formulas above.

/// A switch's buffer settings.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BufferConfig {
    /// Bytes of the shared buffer, `B`.
    pub buffer: u64,
    /// Bytes each ingress port may hold before it takes from the shared part.
    pub reserve: u64,
    /// How far below the threshold a paused port's shared bytes must fall before RESUME.
    pub resume_offset: u64,
}

/// One ingress port's counters (the port a link arrives at).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Ingress {
    /// Bytes counted in the reserve and the shared part.
    pub bytes: u64,
    /// Bytes counted in the headroom.
    pub hdrm: u64,
    /// This port's headroom.
    pub headroom: u64,
    /// This port's threshold shift (alpha = 1/2^shift).
    pub shift: u32,
    /// A PAUSE is in force (sent and not yet followed by a RESUME).
    pub paused: bool,
}

/// One switch's shared buffer.
#[derive(Clone, Debug)]
pub struct SharedBuffer {
    cfg: BufferConfig,
    /// `S`: shared bytes in use, over all ports.
    shared_used: u64,
    /// `H + R`: the headroom and reserve of all ports, set aside.
    set_aside: u64,
}

impl SharedBuffer {
    /// A switch whose ingress ports have the given headrooms (one reserve each).
    pub fn new(cfg: BufferConfig, headrooms: impl IntoIterator<Item = u64>) -> SharedBuffer {
        let set_aside = headrooms.into_iter().map(|h| h + cfg.reserve).sum();
        SharedBuffer { cfg, shared_used: 0, set_aside }
    }

    /// The settings.
    pub fn config(&self) -> BufferConfig {
        self.cfg
    }

    /// `H + R`: the headroom and reserve of all its ports, set aside from the shared part.
    pub fn set_aside(&self) -> u64 {
        self.set_aside
    }

    /// Shared bytes in use over all ports, `S`.
    pub fn shared_used(&self) -> u64 {
        self.shared_used
    }

    /// The dynamic threshold of a port with this shift: `(B - H - R - S) >> shift`.
    #[inline]
    pub fn threshold(&self, shift: u32) -> u64 {
        self.cfg.buffer.saturating_sub(self.set_aside).saturating_sub(self.shared_used) >> shift
    }

    /// Bytes a port holds in the shared part: what it holds above its reserve.
    #[inline]
    pub fn shared_of(&self, p: &Ingress) -> u64 {
        p.bytes.saturating_sub(self.cfg.reserve)
    }

    /// Whether a packet of `size` bytes arriving on `p` is admitted: it fits the headroom or the
    /// shared part under the threshold.
    #[inline]
    pub fn admits(&self, p: &Ingress, size: u64) -> bool {
        size + p.hdrm <= p.headroom || size + self.shared_of(p) <= self.threshold(p.shift)
    }

    /// Counts an admitted packet against `p`: in the reserve, the shared part, or (above the
    /// threshold) the headroom.
    #[inline]
    pub fn add(&mut self, p: &mut Ingress, size: u64) {
        let new = p.bytes + size;
        if new <= self.cfg.reserve {
            p.bytes = new;
        } else if new - self.cfg.reserve > self.threshold(p.shift) {
            p.hdrm += size;
        } else {
            p.bytes = new;
            self.shared_used += size.min(new - self.cfg.reserve);
        }
    }

    /// Releases a packet of `size` bytes that came in on `p` and left the switch: from the
    /// headroom first, then from the shared part, then the reserve.
    #[inline]
    pub fn remove(&mut self, p: &mut Ingress, size: u64) {
        let from_hdrm = p.hdrm.min(size);
        let from_shared = (size - from_hdrm).min(self.shared_of(p));
        p.hdrm -= from_hdrm;
        p.bytes -= size - from_hdrm;
        self.shared_used -= from_shared;
    }

    /// Whether `p` should be paused now (it is not already).
    #[inline]
    pub fn should_pause(&self, p: &Ingress) -> bool {
        !p.paused && (p.hdrm > 0 || self.shared_of(p) >= self.threshold(p.shift))
    }

    /// Whether a paused `p` should resume now.
    #[inline]
    pub fn should_resume(&self, p: &Ingress) -> bool {
        if !p.paused || p.hdrm > 0 {
            return false;
        }
        let shared = self.shared_of(p);
        shared == 0 || shared + self.cfg.resume_offset <= self.threshold(p.shift)
    }
}

/// The default headroom of a port: three times what its link carries in one propagation delay,
/// `3 x rate x delay` (HPCC's `third.cc`), but never less than what can still arrive once the
/// port decided to pause: the PAUSE waits behind a packet of up to `largest_packet` bytes and
/// crosses the link, the far end finishes the packet it is serializing, and the link holds a
/// propagation delay of packets, `2 x rate x delay + 2 x largest_packet + 64` (the PAUSE frame).
/// On HPCC's fabrics (100 Gb/s and more, 1 us, 1 KB packets) the first is the larger; at 10 Gb/s
/// a packet's serialization is comparable to the delay, and HPCC's alone lets packets drop.
pub fn default_headroom(rate_bps: u64, delay_ps: u64, largest_packet: u32) -> u64 {
    let in_flight = rate_bps as u128 * delay_ps as u128 / 8 / 1_000_000_000_000;
    let hpcc = (in_flight * 3) as u64;
    let worst = (2 * in_flight) as u64 + 2 * largest_packet as u64 + 64;
    hpcc.max(worst)
}

/// The default threshold shift of a port (HPCC's `third.cc`): 3 (alpha = 1/8), one less for
/// each doubling of the port's rate above the hosts' rate, down to 0.
pub fn default_shift(rate_bps: u64, host_rate_bps: u64) -> u32 {
    let (mut shift, mut rate) = (3u32, rate_bps);
    while rate > host_rate_bps && shift > 0 {
        shift -= 1;
        rate /= 2;
    }
    shift
}

#[cfg(test)]
mod tests {
    use super::*;

    const KB: u64 = 1024;

    fn switch(ports: usize, headroom: u64) -> (SharedBuffer, Vec<Ingress>) {
        let cfg = BufferConfig { buffer: 1024 * KB, reserve: 4 * KB, resume_offset: 3 * KB };
        let ports = vec![Ingress { headroom, shift: 3, ..Ingress::default() }; ports];
        (SharedBuffer::new(cfg, ports.iter().map(|p| p.headroom)), ports)
    }

    #[test]
    fn the_threshold_is_what_is_free_of_the_shared_part_shifted() {
        let (mut sw, mut p) = switch(4, 40 * KB);
        // B - H - R = 1024 - 4 x 40 - 4 x 4 = 848 KB; alpha = 1/8.
        assert_eq!(sw.threshold(3), 848 * KB / 8);
        // The first 4 KB of a port are its reserve: the shared part is untouched.
        sw.add(&mut p[0], 4 * KB);
        assert_eq!((sw.shared_used(), p[0].bytes, p[0].hdrm), (0, 4 * KB, 0));
        // 10 KB more are shared, and lower every port's threshold.
        sw.add(&mut p[0], 10 * KB);
        assert_eq!(sw.shared_used(), 10 * KB);
        assert_eq!(sw.threshold(3), (848 - 10) * KB / 8);
        assert_eq!(sw.threshold(1), (848 - 10) * KB / 2);
    }

    #[test]
    fn a_port_fills_its_share_then_its_headroom_then_drops() {
        let (mut sw, mut p) = switch(2, 8 * KB);
        // One port alone: it stops taking from the shared part where x = (B - H - R - x) / 8,
        // i.e. x = (B - H - R) / 9.
        let free = 1024 * KB - 2 * 8 * KB - 2 * 4 * KB;
        let mut pkts = 0u64;
        while p[0].hdrm == 0 {
            assert!(sw.admits(&p[0], 1000));
            sw.add(&mut p[0], 1000);
            pkts += 1;
        }
        let shared = sw.shared_used();
        assert!(shared <= free / 9 && shared + 1000 > free / 9, "shared {shared}, (B-H-R)/9 = {}", free / 9);
        assert!(sw.should_pause(&p[0]));
        // The headroom takes 8 packets of 1000 B, then the port refuses.
        for _ in 0..7 {
            assert!(sw.admits(&p[0], 1000));
            sw.add(&mut p[0], 1000);
        }
        assert_eq!(p[0].hdrm, 8000);
        assert!(!sw.admits(&p[0], 1000), "headroom full and above the threshold: a drop");
        // The other port still has its reserve and a share.
        assert!(sw.admits(&p[1], 1000));
        assert!(pkts > 100);
    }

    #[test]
    fn removal_empties_the_headroom_first_and_resume_waits_for_the_offset() {
        let (mut sw, mut p) = switch(2, 8 * KB);
        while p[0].hdrm < 3000 {
            sw.add(&mut p[0], 1000);
        }
        p[0].paused = true;
        assert!(!sw.should_pause(&p[0]), "already paused");
        let shared = sw.shared_used();
        sw.remove(&mut p[0], 1000);
        assert_eq!((p[0].hdrm, sw.shared_used()), (2000, shared), "the headroom goes first");
        assert!(!sw.should_resume(&p[0]), "headroom not empty");
        sw.remove(&mut p[0], 2000);
        assert_eq!(p[0].hdrm, 0);
        // Now at the threshold: resume only once 3 KB below it.
        while !sw.should_resume(&p[0]) {
            sw.remove(&mut p[0], 500);
        }
        let t = sw.threshold(p[0].shift);
        let s = sw.shared_of(&p[0]);
        assert!(s + 3 * KB <= t && s + 3 * KB + 500 > t, "shared {s}, threshold {t}");
        // Everything out: nothing left anywhere.
        let rest = p[0].bytes;
        sw.remove(&mut p[0], rest);
        assert_eq!((p[0].bytes, p[0].hdrm, sw.shared_used()), (0, 0, 0));
    }

    #[test]
    fn defaults_follow_the_link() {
        // 100 Gb/s x 1 us = 12,500 B; three of them (more than 2 x 12,500 + 2 x 1,048 + 64).
        assert_eq!(default_headroom(100_000_000_000, 1_000_000, 1048), 37_500);
        // 10 Gb/s x 1 us = 1,250 B: 3,750 is less than what arrives after a PAUSE.
        assert_eq!(default_headroom(10_000_000_000, 1_000_000, 1048), 2 * 1250 + 2 * 1048 + 64);
        assert_eq!(default_shift(100_000_000_000, 100_000_000_000), 3);
        assert_eq!(default_shift(400_000_000_000, 100_000_000_000), 1);
        assert_eq!(default_shift(25_000_000_000, 100_000_000_000), 3);
    }
}
