//! HPCC's in-band telemetry (Li et al., SIGCOMM 2019, sec. 3.2 and 4.1): every switch port a
//! data packet leaves pushes one record of its state onto the packet; the receiver copies the
//! stack into its ACK.
//!
//! A record is 8 bytes, as in the paper's switches and the authors' simulator (which holds at
//! most five, the longest path of a three-tier fat tree). HPCC's eq. (2) reads a port's queue
//! `qlen`, its transmitted bytes `txBytes`, the timestamp `ts` and its rate `B` only as
//! `qlen / B` and `txBytes / B`; fctlab's records carry those two quotients directly, as times,
//! so no rate table limits the links a scenario may use:
//!
//! | bits | field | unit | what |
//! |---|---|---|---|
//! | 0-23 | `ts` | 1 ns, wraps every 16.8 ms | when the packet left the port |
//! | 24-47 | `busy` | 1 ns, wraps alike | the port's transmission time so far: `txBytes / B` |
//! | 48-63 | `qdelay` | ns as a float: 11-bit mantissa, 5-bit exponent (0.05% precision, no practical ceiling) | the queue the packet left behind: `qlen / B` |
//!
//! Eq. (2)'s `qlen / (B T) + txRate / B` is then `qdelay / T + delta(busy) / delta(ts)`.
//! The header's size on the wire is the paper's: 2 bytes of hop count and five records,
//! [`HPCC_HEADER`](crate::protocol::HPCC_HEADER) = 42 bytes.

use crate::net::packet::CongestionHeader;
use crate::protocol::wire::{unused_zero, Words};
use crate::units::{Rate, Time};

/// The records a packet holds (the paper's `maxHop`).
pub const MAX_HOPS: usize = 5;
/// Wire tag of the forward header.
pub const TAG: u8 = 10;
/// Wire tag of the echo.
pub const TAG_ECHO: u8 = 11;

const WRAP_NS: u32 = 1 << 24;
/// Bits of `qdelay`'s mantissa.
const MANTISSA: u32 = 11;

/// `ns` as `qdelay`'s 16-bit float: mantissa in bits 0-10, exponent in bits 11-15 (rounded
/// down).
fn to_float16(ns: u64) -> u32 {
    let e = (64 - ns.leading_zeros()).saturating_sub(MANTISSA);
    if e > 31 {
        return u16::MAX as u32;
    }
    ((ns >> e) as u32) | e << MANTISSA
}

/// The nanoseconds of `qdelay`'s float `f`.
fn from_float16(f: u32) -> u64 {
    ((f & ((1 << MANTISSA) - 1)) as u64) << (f >> MANTISSA)
}

/// One switch port's record, 64 bits (module docs).
#[derive(Copy, Clone, Default, PartialEq, Eq)]
pub struct IntHop([u32; 2]);

impl IntHop {
    /// The record of a port at `ts` that has transmitted for `busy` in all and holds a queue
    /// of `qdelay` (its bytes at the port's rate).
    pub fn new(ts: Time, busy: Time, qdelay: Time) -> IntHop {
        let ts = (ts.ps() / 1000) as u32 & (WRAP_NS - 1);
        let busy = (busy.ps() / 1000) as u32 & (WRAP_NS - 1);
        let q = to_float16(qdelay.ps() / 1000);
        IntHop([ts | busy << 24, busy >> 8 | q << 16])
    }

    /// The record of a port of rate `rate` at `ts`, after `busy` of transmission, with
    /// `queued` bytes waiting.
    pub fn at_port(ts: Time, busy: Time, queued: u64, rate: Rate) -> IntHop {
        IntHop::new(ts, busy, rate.checked_tx_time(queued).unwrap_or(Time::MAX))
    }

    /// `ts`, ns modulo 2^24.
    pub fn ts_ns(self) -> u32 {
        self.0[0] & (WRAP_NS - 1)
    }

    /// `busy`, ns modulo 2^24.
    pub fn busy_ns(self) -> u32 {
        self.0[0] >> 24 | (self.0[1] & 0xFFFF) << 8
    }

    /// `qdelay`, seconds (to 0.05%).
    pub fn qdelay_s(self) -> f64 {
        from_float16(self.0[1] >> 16) as f64 * 1e-9
    }

    /// Nanoseconds from `prev`'s timestamp to this one's (modulo the 16.8 ms wrap).
    pub fn dt_ns(self, prev: IntHop) -> u32 {
        self.ts_ns().wrapping_sub(prev.ts_ns()) & (WRAP_NS - 1)
    }

    /// Nanoseconds the port transmitted between `prev` and this record.
    pub fn dbusy_ns(self, prev: IntHop) -> u32 {
        self.busy_ns().wrapping_sub(prev.busy_ns()) & (WRAP_NS - 1)
    }

    /// The record's two 32-bit words.
    pub fn words(self) -> [u32; 2] {
        self.0
    }

    /// The record of two words.
    pub fn from_words(w: [u32; 2]) -> IntHop {
        IntHop(w)
    }
}

impl std::fmt::Debug for IntHop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IntHop(ts {} ns, busy {} ns, q {:.0} ns)", self.ts_ns(), self.busy_ns(), self.qdelay_s() * 1e9)
    }
}

/// A packet's records: `nhop` ports pushed one (the first [`MAX_HOPS`] are kept; a longer
/// path's later ports are counted, not recorded).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct IntStack {
    /// Ports that pushed a record.
    pub nhop: u8,
    /// The records, in path order.
    pub hops: [IntHop; MAX_HOPS],
}

impl IntStack {
    /// The records kept.
    pub fn recorded(&self) -> &[IntHop] {
        &self.hops[..(self.nhop as usize).min(MAX_HOPS)]
    }

    /// Pushes one port's record.
    #[inline]
    pub fn push(&mut self, hop: IntHop) {
        push_record(&mut self.nhop, &mut self.hops, hop);
    }

    /// The forward header holding these records.
    pub fn forward(self) -> CongestionHeader {
        CongestionHeader::Hpcc { nhop: self.nhop, hops: self.hops }
    }

    /// The records of an HPCC header (either direction), None for any other header.
    #[inline]
    pub fn of(h: &CongestionHeader) -> Option<IntStack> {
        match *h {
            CongestionHeader::Hpcc { nhop, hops } | CongestionHeader::HpccFeedback { nhop, hops } => {
                Some(IntStack { nhop, hops })
            }
            _ => None,
        }
    }
}

/// Pushes `hop` onto the records `hops`, of which `nhop` are taken: kept among the first
/// [`MAX_HOPS`], counted after them (a header's inline fields, or an [`IntStack`]'s).
#[inline]
pub fn push_record(nhop: &mut u8, hops: &mut [IntHop; MAX_HOPS], hop: IntHop) {
    if (*nhop as usize) < MAX_HOPS {
        hops[*nhop as usize] = hop;
    }
    *nhop = nhop.saturating_add(1);
}

/// The header's tag and its first word (the hop count), None if it is not HPCC's. The
/// records travel apart ([`records_to_wire`]): three words do not hold them.
pub fn to_wire(h: CongestionHeader) -> Option<(u8, Words)> {
    match h {
        CongestionHeader::Hpcc { nhop, .. } => Some((TAG, [nhop as u32, 0, 0])),
        CongestionHeader::HpccFeedback { nhop, .. } => Some((TAG_ECHO, [nhop as u32, 0, 0])),
        _ => None,
    }
}

/// The header of tag `tag` (one of HPCC's) from its words, with empty records (a carrier of
/// the records puts them back, [`records_from_wire`]); Err names the field refused.
pub fn from_wire(tag: u8, w: Words) -> Result<CongestionHeader, &'static str> {
    unused_zero(&w[1..])?;
    let nhop = u8::try_from(w[0]).map_err(|_| "cc.nhop")?;
    let hops = [IntHop::default(); MAX_HOPS];
    Ok(if tag == TAG { CongestionHeader::Hpcc { nhop, hops } } else { CongestionHeader::HpccFeedback { nhop, hops } })
}

/// The records of an HPCC header as ten 32-bit words (two per record), None for any other
/// header.
pub fn records_to_wire(h: &CongestionHeader) -> Option<[u32; 2 * MAX_HOPS]> {
    let s = IntStack::of(h)?;
    let mut w = [0; 2 * MAX_HOPS];
    for (k, hop) in s.hops.iter().enumerate() {
        w[2 * k..2 * k + 2].copy_from_slice(&hop.words());
    }
    Some(w)
}

/// `h` (an HPCC header) with the records of words `w`; other headers unchanged.
pub fn records_from_wire(h: CongestionHeader, w: [u32; 2 * MAX_HOPS]) -> CongestionHeader {
    let hops = std::array::from_fn(|k| IntHop::from_words([w[2 * k], w[2 * k + 1]]));
    match h {
        CongestionHeader::Hpcc { nhop, .. } => CongestionHeader::Hpcc { nhop, hops },
        CongestionHeader::HpccFeedback { nhop, .. } => CongestionHeader::HpccFeedback { nhop, hops },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_keeps_its_three_fields_in_64_bits() {
        let h = IntHop::new(Time::from_ns(16_777_216 + 1234), Time::from_ns(987_654), Time::from_ns(1600));
        assert_eq!((h.ts_ns(), h.busy_ns()), (1234, 987_654), "the timestamp wraps at 2^24 ns");
        assert!((h.qdelay_s() - 1.6e-6).abs() < 1e-15, "below 2048 ns: exact");
        let later = IntHop::new(Time::from_ns(16_777_216 * 2 + 100), Time::from_ns(16_777_216 + 50), Time::ZERO);
        assert_eq!(later.dt_ns(h), 16_777_216 - 1134, "deltas cross the wrap");
        assert_eq!(later.dbusy_ns(h), 16_777_216 + 50 - 987_654);
        for ns in [2048u64, 12_345, 14_400_000, 3_000_000_000] {
            let q = IntHop::new(Time::ZERO, Time::ZERO, Time::from_ns(ns)).qdelay_s() * 1e9;
            assert!(q <= ns as f64 && q > ns as f64 * (1.0 - 1.0 / 1024.0), "{ns} ns read as {q}");
        }
    }

    #[test]
    fn qdelay_is_the_queue_at_the_port_rate() {
        // 12.8 kB at 10 Gb/s is 10.24 us (10240 = 1280 << 3: exact).
        let h = IntHop::at_port(Time::ZERO, Time::ZERO, 12_800, Rate::from_gbps(10));
        assert!((h.qdelay_s() - 10.24e-6).abs() < 1e-15);
    }

    #[test]
    fn a_stack_keeps_five_records_and_counts_the_rest() {
        let mut s = IntStack::default();
        for k in 0..7 {
            s.push(IntHop::new(Time::from_ns(k), Time::ZERO, Time::ZERO));
        }
        assert_eq!(s.nhop, 7);
        assert_eq!(s.recorded().iter().map(|h| h.ts_ns()).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
        let back = IntStack::of(&s.forward().feedback()).unwrap();
        assert_eq!(back, s, "the receiver echoes the records as they came");
    }

    #[test]
    fn records_cross_the_wire_apart_from_the_tag() {
        let mut s = IntStack::default();
        s.push(IntHop::new(Time::from_ns(77), Time::from_ns(55), Time::from_ns(320)));
        let h = s.forward();
        let (tag, w) = to_wire(h).unwrap();
        let words = records_to_wire(&h).unwrap();
        assert_eq!(records_from_wire(from_wire(tag, w).unwrap(), words), h);
        assert_eq!(from_wire(TAG, [300, 0, 0]), Err("cc.nhop"));
        assert_eq!(records_to_wire(&CongestionHeader::None), None);
    }
}
