//! The congestion headers' wire encodings, joined: the tag of each protocol's header picks
//! the protocol's `header.rs` (plug-ins' tags pass through as they are). The plug-in host
//! and the capture encode headers here.

use crate::net::packet::{CongestionHeader, PLUGIN_TAGS};
use crate::protocol::hpcc::header as hpcc;
use crate::protocol::jetmax::header as jetmax;
use crate::protocol::pfabric::header as pfabric;
use crate::protocol::piqi::header as piqi;
use crate::protocol::rcp::header as rcp;
use crate::protocol::wire::{unused_zero, Words};
use crate::protocol::xcp::header as xcp;

/// The wire tag and words of a congestion header (tag 0, zeros: none).
pub fn header_to_wire(h: CongestionHeader) -> (u8, Words) {
    match h {
        CongestionHeader::None => return (0, [0; 3]),
        CongestionHeader::Plugin { tag, words } => return (tag, words),
        _ => {}
    }
    rcp::to_wire(h)
        .or_else(|| xcp::to_wire(h))
        .or_else(|| jetmax::to_wire(h))
        .or_else(|| piqi::to_wire(h))
        .or_else(|| pfabric::to_wire(h))
        .or_else(|| hpcc::to_wire(h))
        .expect("every congestion header has a wire encoding")
}

/// The congestion header of wire tag `tag` and words `w`; Err names the field refused (an
/// unknown tag, a NaN, an infinite window or feedback, a non-zero unused word).
pub fn header_from_wire(tag: u8, w: Words) -> Result<CongestionHeader, &'static str> {
    match tag {
        0 => unused_zero(&w).map(|_| CongestionHeader::None),
        rcp::TAG | rcp::TAG_ECHO => rcp::from_wire(tag, w),
        xcp::TAG | xcp::TAG_ECHO => xcp::from_wire(tag, w),
        jetmax::TAG | jetmax::TAG_ECHO => jetmax::from_wire(tag, w),
        piqi::TAG | piqi::TAG_ECHO => piqi::from_wire(tag, w),
        pfabric::TAG => pfabric::from_wire(w),
        hpcc::TAG | hpcc::TAG_ECHO => hpcc::from_wire(tag, w),
        PLUGIN_TAGS..=u8::MAX => Ok(CongestionHeader::Plugin { tag, words: w }),
        _ => Err("cc_tag"),
    }
}
