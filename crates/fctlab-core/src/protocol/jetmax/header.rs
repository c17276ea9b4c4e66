//! JetMax's congestion header (seed 003 sec. III-D/E: 32 bytes, the fields of both directions):
//! forward, the flow's bottleneck router RT, the router RS that offered the smallest rate so
//! far, that rate and the flow's inter-packet interval; reverse, RS and the rate echoed. The
//! fields are variants of [`CongestionHeader`]; here is their wire encoding, three 32-bit
//! words (RT and RS share the first).

use crate::net::packet::CongestionHeader;
use crate::protocol::{float, unused_zero, Words};

/// Wire tag of the forward header.
pub const TAG: u8 = 5;
/// Wire tag of the echo.
pub const TAG_ECHO: u8 = 6;

/// The header's tag and words, None if it is not JetMax's.
pub fn to_wire(h: CongestionHeader) -> Option<(u8, Words)> {
    match h {
        CongestionHeader::JetMax { rt, rs, rate, ipi } => {
            Some((TAG, [(rt as u32) << 16 | rs as u32, rate.to_bits(), ipi.to_bits()]))
        }
        CongestionHeader::JetMaxFeedback { rs, rate } => Some((TAG_ECHO, [(rs as u32) << 16, rate.to_bits(), 0])),
        _ => None,
    }
}

/// The header of tag `tag` (one of JetMax's) from its words; Err names the field refused.
pub fn from_wire(tag: u8, w: Words) -> Result<CongestionHeader, &'static str> {
    if tag == TAG {
        Ok(CongestionHeader::JetMax {
            rt: (w[0] >> 16) as u16,
            rs: w[0] as u16,
            rate: float(w[1], "cc.rate")?,
            ipi: float(w[2], "cc.ipi")?,
        })
    } else {
        unused_zero(&w[2..])?;
        if w[0] & 0xFFFF != 0 {
            return Err("cc");
        }
        Ok(CongestionHeader::JetMaxFeedback { rs: (w[0] >> 16) as u16, rate: float(w[1], "cc.rate")? })
    }
}
