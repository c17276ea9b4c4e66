//! The congestion header a packet carries, generated from the registry's table (`registry.rs`):
//! [`CongestionHeader`], one variant per protocol header and direction, its echo
//! ([`CongestionHeader::feedback`]), and its wire encoding ([`header_to_wire`],
//! [`header_from_wire`], the extension of [`header_extension`]).
//!
//! The variants hold the structs of `protocol/<name>/header.rs`, which encode themselves
//! ([`WireHeader`]); this file only matches a header to its struct. It reaches nothing else of
//! the protocols, so the packet (`net/packet.rs`) can hold the enum without importing any
//! protocol's code.

use crate::protocol::registry::protocols;
pub use crate::protocol::wire::{WireHeader, Words, EXTENSION_WORDS};

/// The first wire tag of plug-ins' forward headers.
pub const PLUGIN_TAGS: u8 = 128;
/// The first wire tag of plug-ins' echoes (a forward tag + 64).
pub const PLUGIN_ECHO_TAGS: u8 = 192;

/// The echo of forward header `$h` under variant `$E` (none: the receiver echoes nothing).
macro_rules! echo_of {
    ($h:ident;) => {{
        let _ = $h;
        CongestionHeader::None
    }};
    ($h:ident; $E:ident) => {
        CongestionHeader::$E($h.echo())
    };
}

macro_rules! congestion_header {
    ($(
        $folder:ident {
            name: $name:literal,
            title: $title:literal,
            host_key: $host_key:literal,
            header: [$( $V:ident ( $T:ident ) = $TAG:ident => [$( $E:ident ( $U:ident ) = $ETAG:ident )?] ),*],
            $($more:tt)*
        }
    )*) => {
        /// Router-writable congestion header of explicit-feedback protocols: one variant per
        /// header and direction, each holding its protocol's struct (fields, meaning and wire
        /// encoding in `protocol/<name>/header.rs`), generated from the registry's table.
        ///
        /// A closed enum, not a trait object: the packet is one `Copy` struct moved by value,
        /// and its size is what the event loop pays per hop. Header fields are 32-bit, as in
        /// the protocols' wire formats, and the largest variant (HPCC's five telemetry records)
        /// is 44 bytes, so that the packet stays within two cache lines (its in-flight read is
        /// the event loop's main cache miss; a test checks it).
        #[derive(Copy, Clone, Debug, Default, PartialEq)]
        pub enum CongestionHeader {
            /// Plain TCP: no header.
            #[default]
            None,
            $($(
                #[doc = concat!($title, ", forward: `", stringify!($T), "`.")]
                $V($crate::protocol::$folder::header::$T),
                $(
                    #[doc = concat!($title, ", reverse (the receiver's echo): `", stringify!($U), "`.")]
                    $E($crate::protocol::$folder::header::$U),
                )?
            )*)*
            /// A plug-in's own header (`crate::plugin`): tags 128-191 forward, 192-255 their
            /// echo (the forward tag + 64); the words are the plug-in's, carried as they are.
            Plugin {
                /// The wire tag.
                tag: u8,
                /// The fields.
                words: [u32; 3],
            },
        }

        impl CongestionHeader {
            /// What a receiver copies into its ACK for the header a forward packet carried.
            #[inline]
            pub fn feedback(self) -> CongestionHeader {
                if matches!(self, CongestionHeader::None) {
                    return self; // plain TCP: the common case first
                }
                match self {
                    $($( CongestionHeader::$V(h) => echo_of!(h; $($E)?), )*)*
                    CongestionHeader::Plugin { tag, words } if tag < PLUGIN_ECHO_TAGS => {
                        CongestionHeader::Plugin { tag: tag + (PLUGIN_ECHO_TAGS - PLUGIN_TAGS), words }
                    }
                    other => other,
                }
            }
        }

        /// The wire tag and words of a congestion header (tag 0, zeros: none).
        pub fn header_to_wire(h: CongestionHeader) -> (u8, Words) {
            match h {
                CongestionHeader::None => (0, [0; 3]),
                CongestionHeader::Plugin { tag, words } => (tag, words),
                $($(
                    CongestionHeader::$V(x) => ($crate::protocol::$folder::header::$TAG, x.to_wire()),
                    $( CongestionHeader::$E(x) => ($crate::protocol::$folder::header::$ETAG, x.to_wire()), )?
                )*)*
            }
        }

        /// The congestion header of wire tag `tag` and words `w`; Err names the field refused
        /// (an unknown tag, a NaN, an infinite window or feedback, a non-zero unused word). A
        /// header with an extension comes back with it zero ([`with_header_extension`]).
        pub fn header_from_wire(tag: u8, w: Words) -> Result<CongestionHeader, &'static str> {
            match tag {
                0 => $crate::protocol::wire::unused_zero(&w).map(|_| CongestionHeader::None),
                $($(
                    $crate::protocol::$folder::header::$TAG => {
                        <$crate::protocol::$folder::header::$T as WireHeader>::from_wire(w).map(CongestionHeader::$V)
                    }
                    $(
                        $crate::protocol::$folder::header::$ETAG => {
                            <$crate::protocol::$folder::header::$U as WireHeader>::from_wire(w).map(CongestionHeader::$E)
                        }
                    )?
                )*)*
                PLUGIN_TAGS..=u8::MAX => Ok(CongestionHeader::Plugin { tag, words: w }),
                _ => Err("cc_tag"),
            }
        }

        /// Whether the header of wire tag `tag` carries an extension of [`EXTENSION_WORDS`]
        /// words after its three (HPCC's records).
        pub fn tag_has_extension(tag: u8) -> bool {
            match tag {
                $($(
                    $crate::protocol::$folder::header::$TAG => {
                        <$crate::protocol::$folder::header::$T as WireHeader>::EXTENDED
                    }
                    $(
                        $crate::protocol::$folder::header::$ETAG => {
                            <$crate::protocol::$folder::header::$U as WireHeader>::EXTENDED
                        }
                    )?
                )*)*
                _ => false,
            }
        }

        /// The extension words of `h`, None for a header without one.
        pub fn header_extension(h: &CongestionHeader) -> Option<[u32; EXTENSION_WORDS]> {
            match h {
                $($(
                    CongestionHeader::$V(x) if <$crate::protocol::$folder::header::$T as WireHeader>::EXTENDED => {
                        Some(x.extension())
                    }
                    $(
                        CongestionHeader::$E(x) if <$crate::protocol::$folder::header::$U as WireHeader>::EXTENDED => {
                            Some(x.extension())
                        }
                    )?
                )*)*
                _ => None,
            }
        }

        /// `h` with the extension of words `w` (a header without one unchanged).
        pub fn with_header_extension(h: CongestionHeader, w: [u32; EXTENSION_WORDS]) -> CongestionHeader {
            match h {
                $($(
                    CongestionHeader::$V(x) => CongestionHeader::$V(x.with_extension(w)),
                    $( CongestionHeader::$E(x) => CongestionHeader::$E(x.with_extension(w)), )?
                )*)*
                other => other,
            }
        }
    };
}

protocols!(congestion_header);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::hpcc::header::{IntHop, IntStack};
    use crate::protocol::jetmax::header::{JetMaxEcho, JetMaxHeader, JETMAX_NO_ROUTER};
    use crate::protocol::pfabric::header::PFabricHeader;
    use crate::protocol::piqi::header::{PiqiEcho, PiqiHeader};
    use crate::protocol::rcp::header::{RcpEcho, RcpHeader};
    use crate::protocol::xcp::header::{XcpEcho, XcpHeader};
    use crate::protocol::{hpcc, jetmax, pfabric, piqi, rcp, xcp};
    use crate::units::Time;

    /// The header keeps the packet within two cache lines: HPCC's variant is the largest.
    #[test]
    fn the_header_is_at_most_44_bytes() {
        assert!(std::mem::size_of::<CongestionHeader>() <= 44, "{}", std::mem::size_of::<CongestionHeader>());
    }

    #[test]
    fn a_plugin_header_is_echoed_under_its_echo_tag_with_its_words() {
        let fwd = CongestionHeader::Plugin { tag: 130, words: [1, 2, 3] };
        assert_eq!(fwd.feedback(), CongestionHeader::Plugin { tag: 194, words: [1, 2, 3] });
        assert_eq!(fwd.feedback().feedback(), fwd.feedback(), "an echo is not echoed again");
    }

    #[test]
    fn each_forward_header_is_echoed_by_its_protocol() {
        let rcp = RcpHeader { rate_kbps: 5, rtt_us: 7, age_kib: 9 };
        assert_eq!(CongestionHeader::Rcp(rcp).feedback(), CongestionHeader::RcpFeedback(RcpEcho { rate_kbps: 5 }));
        let pf = CongestionHeader::PFabric(PFabricHeader { remaining: 3 });
        assert_eq!(pf.feedback(), CongestionHeader::None, "pFabric's ACKs carry no priority");
        let mut s = IntStack::default();
        s.push(IntHop::new(Time::from_ns(5), Time::ZERO, Time::ZERO));
        assert_eq!(CongestionHeader::Hpcc(s).feedback(), CongestionHeader::HpccFeedback(s));
        let echo = CongestionHeader::RcpFeedback(RcpEcho { rate_kbps: 5 });
        assert_eq!(echo.feedback(), echo, "an echo stays as it is");
    }

    /// Every header crosses the wire and comes back bit for bit, under a tag no other
    /// protocol uses.
    #[test]
    fn every_header_round_trips_through_its_wire_encoding() {
        let mut st = IntStack::default();
        st.push(IntHop::new(Time::from_ns(77), Time::from_ns(55), Time::from_ns(320)));
        let headers = [
            CongestionHeader::None,
            CongestionHeader::Rcp(RcpHeader { rate_kbps: u32::MAX, rtt_us: 20_000, age_kib: 5 }),
            CongestionHeader::RcpFeedback(RcpEcho { rate_kbps: 10_000 }),
            CongestionHeader::Xcp(XcpHeader { cwnd: 14600.0, rtt_us: 40_000, feedback: -3.5 }),
            CongestionHeader::XcpFeedback(XcpEcho { feedback: 12.25 }),
            CongestionHeader::JetMax(JetMaxHeader { rt: 4, rs: JETMAX_NO_ROUTER, rate: f32::INFINITY, ipi: 0.001 }),
            CongestionHeader::JetMaxFeedback(JetMaxEcho { rs: 2, rate: 1e7 }),
            CongestionHeader::Piqi(PiqiHeader { rate: f32::INFINITY, interval: 9, id: 3 }),
            CongestionHeader::PiqiFeedback(PiqiEcho { rate: 5e6, interval: 10, id: 4 }),
            CongestionHeader::PFabric(PFabricHeader { remaining: 123_456 }),
            CongestionHeader::Hpcc(st),
            CongestionHeader::HpccFeedback(IntStack::default()),
            CongestionHeader::Plugin { tag: 128, words: [u32::MAX, 0, 7] },
            CongestionHeader::Plugin { tag: 255, words: [1, 2, 3] },
        ];
        let mut tags = Vec::new();
        for h in headers {
            let (tag, w) = header_to_wire(h);
            assert!(!tags.contains(&tag), "tag {tag} used twice");
            tags.push(tag);
            let ext = header_extension(&h);
            assert_eq!(ext.is_some(), tag_has_extension(tag), "{h:?}");
            let back = header_from_wire(tag, w).unwrap();
            assert_eq!(ext.map_or(back, |e| with_header_extension(back, e)), h);
        }
        assert!(tag_has_extension(hpcc::header::TAG) && tag_has_extension(hpcc::header::TAG_ECHO));
        assert_eq!(header_from_wire(12, [0; 3]), Err("cc_tag"));
        assert_eq!(header_from_wire(pfabric::header::TAG, [1, 2, 0]), Err("cc"));
        assert_eq!(header_from_wire(0, [0, 1, 0]), Err("cc"));
        assert_eq!(header_from_wire(hpcc::header::TAG, [300, 0, 0]), Err("cc.nhop"));
        assert_eq!(header_from_wire(xcp::header::TAG, [f32::NAN.to_bits(), 0, 0]), Err("cc.cwnd"));
        // Non-finite numbers are refused as NaN is, but where infinity means "no rate yet".
        for x in [f32::INFINITY, f32::NEG_INFINITY] {
            assert_eq!(header_from_wire(xcp::header::TAG, [x.to_bits(), 0, 0]), Err("cc.cwnd"));
            assert_eq!(header_from_wire(xcp::header::TAG, [0, 0, x.to_bits()]), Err("cc.feedback"));
            assert_eq!(header_from_wire(xcp::header::TAG_ECHO, [x.to_bits(), 0, 0]), Err("cc.feedback"));
            assert_eq!(header_from_wire(jetmax::header::TAG, [0, 0, x.to_bits()]), Err("cc.ipi"));
        }
        for tag in [jetmax::header::TAG, jetmax::header::TAG_ECHO] {
            assert_eq!(header_from_wire(tag, [0, f32::NEG_INFINITY.to_bits(), 0]), Err("cc.rate"));
            assert_eq!(header_from_wire(tag, [0, f32::NAN.to_bits(), 0]), Err("cc.rate"));
            assert!(header_from_wire(tag, [0, f32::INFINITY.to_bits(), 0]).is_ok(), "no rate yet");
        }
        assert_eq!(header_from_wire(jetmax::header::TAG_ECHO, [1, 0, 0]), Err("cc"));
        for tag in [piqi::header::TAG, piqi::header::TAG_ECHO] {
            assert_eq!(header_from_wire(tag, [f32::NEG_INFINITY.to_bits(), 0, 0]), Err("cc.rate"));
            assert!(header_from_wire(tag, [f32::INFINITY.to_bits(), 0, 0]).is_ok(), "no rate yet");
        }
        assert_eq!(header_from_wire(rcp::header::TAG_ECHO, [1, 2, 0]), Err("cc"));
    }
}
