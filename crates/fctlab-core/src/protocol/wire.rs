//! A congestion header on the wire: what every protocol's `header.rs` shares.
//!
//! A header crosses the wire (the emulator's datagrams, the capture's shim) as a one-byte tag
//! and three 32-bit words; a header whose fields do not fit them (HPCC's telemetry records)
//! carries an *extension* of [`EXTENSION_WORDS`] more words after them. Each header struct
//! encodes itself ([`WireHeader`]); the tag of each is its protocol's (`TAG`, `TAG_ECHO` in its
//! `header.rs`), and the match from a [`CongestionHeader`](crate::protocol::header::CongestionHeader)
//! to its struct is generated from the registry's table (`protocol/header.rs`).
//!
//! This file is a leaf: the headers import it, and it imports nothing of the crate.

/// A congestion header's fields on the wire: three 32-bit words after a one-byte tag.
pub type Words = [u32; 3];

/// The words of a header's extension (HPCC's five 8-byte records).
pub const EXTENSION_WORDS: usize = 10;

/// A header struct's wire encoding.
pub trait WireHeader: Sized {
    /// Whether the header carries an extension ([`EXTENSION_WORDS`] words after its three).
    const EXTENDED: bool = false;
    /// The three words.
    fn to_wire(&self) -> Words;
    /// The header of three words; Err names the field refused (an extension reads as zeros
    /// until [`WireHeader::with_extension`] puts it back).
    fn from_wire(w: Words) -> Result<Self, &'static str>;
    /// The extension's words (zeros if the header has none).
    fn extension(&self) -> [u32; EXTENSION_WORDS] {
        [0; EXTENSION_WORDS]
    }
    /// The header with the extension of words `w` (unchanged if it has none).
    fn with_extension(self, _w: [u32; EXTENSION_WORDS]) -> Self {
        self
    }
}

/// Refuses words a header leaves unused unless they are zero (a garbage value is not ignored).
pub fn unused_zero(w: &[u32]) -> Result<(), &'static str> {
    if w.iter().all(|&x| x == 0) {
        Ok(())
    } else {
        Err("cc")
    }
}

/// A float field that holds a number (XCP's window and feedback, JetMax's interval): NaN and
/// both infinities are refused (an infinite window or feedback would become a window of
/// 2^64 - 1 bytes at the sender).
pub fn finite(bits: u32, name: &'static str) -> Result<f32, &'static str> {
    let x = f32::from_bits(bits);
    if x.is_finite() {
        Ok(x)
    } else {
        Err(name)
    }
}

/// A rate field (JetMax's and PIQI-RCP's): a number, or +infinity for "no rate yet", which
/// their senders read as no limit; NaN and -infinity are refused.
pub fn rate_or_infinite(bits: u32, name: &'static str) -> Result<f32, &'static str> {
    let x = f32::from_bits(bits);
    if x.is_nan() || x == f32::NEG_INFINITY {
        Err(name)
    } else {
        Ok(x)
    }
}
